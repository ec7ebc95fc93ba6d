/**
 * The code editor: CodeMirror 6 with Python highlighting and the cell's shortcuts.
 *
 * Tab indents. Keyboard users leave the editor with Escape then Tab (CodeMirror's escape hatch), or toggle
 * Tab's meaning with Ctrl-M (Shift-Alt-M on macOS); the page documents both next to every editor.
 */
import { basicSetup } from "codemirror";
import { Decoration, EditorView, keymap } from "@codemirror/view";
import { Compartment, EditorState, StateEffect, StateField } from "@codemirror/state";
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { syntaxHighlighting } from "@codemirror/language";
import { classHighlighter } from "@lezer/highlight";

/**
 * @param {{parent: HTMLElement, doc: string, label: string, onChange: (code: string) => void,
 *          onPrimary: () => void, onSecondary?: () => void, selection?: {anchor: number, head: number}}} options
 *   onPrimary runs on Ctrl/⌘+Enter, onSecondary on Shift+Enter; selection is where the cursor starts (the
 *   plain editor's, plain-editor.js, when this one takes over from it)
 */
/** A screen this narrow (a phone) wraps long lines instead of scrolling them sideways. */
export const NARROW = "(max-width: 40em)";

/** The line a trace is at (trace-view.js), marked with the class tl-trace-line; null: none. */
const markLine = StateEffect.define();
const traceLine = StateField.define({
  create: () => Decoration.none,
  update(marks, tr) {
    let next = marks.map(tr.changes);
    for (const effect of tr.effects) {
      if (!effect.is(markLine)) continue;
      const n = effect.value;
      next = n && n <= tr.state.doc.lines
        ? Decoration.set([Decoration.line({ class: "tl-trace-line" }).range(tr.state.doc.line(n).from)])
        : Decoration.none;
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});

export function createEditor({ parent, doc, label, onChange, onPrimary, onSecondary, selection }) {
  const wrapping = new Compartment();
  const narrow = typeof matchMedia === "function" ? matchMedia(NARROW) : null;
  const wrapIf = (yes) => (yes ? EditorView.lineWrapping : []);
  const shortcuts = keymap.of([
    { key: "Mod-Enter", run: () => { onPrimary(); return true; }, preventDefault: true },
    { key: "Shift-Enter", run: () => { (onSecondary || onPrimary)(); return true; }, preventDefault: true },
  ]);
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      selection: selection && within(selection, doc.length),
      extensions: [
        shortcuts, // first, so it wins over basicSetup's bindings of the same keys
        basicSetup,
        keymap.of([indentWithTab]),
        wrapping.of(wrapIf(narrow?.matches)),
        python(),
        syntaxHighlighting(classHighlighter), // token classes, coloured by tl.css for light and dark palettes
        traceLine,
        // An explicit tabindex: the editable area is what makes the editor's scrolling box keyboard-reachable,
        // and accessibility checkers (axe-core) only count it as focusable with one.
        EditorView.contentAttributes.of({ "aria-label": label, tabindex: "0" }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange(update.state.doc.toString());
        }),
      ],
    }),
  });
  const onWidth = (event) => view.dispatch({ effects: wrapping.reconfigure(wrapIf(event.matches)) });
  narrow?.addEventListener?.("change", onWidth);
  return {
    view,
    /** The current code. */
    getCode: () => view.state.doc.toString(),
    /** Replace the whole text as one undoable change (Reset can be undone with Ctrl/⌘+Z). */
    setCode(code) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code }, userEvent: "input.reset" });
    },
    focus: () => view.focus(),
    /** Mark line `n` (1-based) as the one a trace is at, scrolled into view; null removes the mark. */
    highlightLine(n) {
      const line = n && n <= view.state.doc.lines ? view.state.doc.line(n) : null;
      view.dispatch({ effects: [markLine.of(line ? n : null), ...(line ? [EditorView.scrollIntoView(line.from, { y: "nearest" })] : [])] });
    },
    /** Remove the editor and its listeners. */
    destroy: () => {
      narrow?.removeEventListener?.("change", onWidth);
      view.destroy();
    },
  };
}

function within({ anchor, head }, length) {
  const clamp = (n) => Math.max(0, Math.min(length, n));
  return { anchor: clamp(anchor), head: clamp(head) };
}
