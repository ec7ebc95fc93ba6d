/**
 * The editor a cell shows first: a plain textarea, with the cell's shortcuts, that hands over to CodeMirror
 * (editor.js, loaded as a chunk of its own) once the learner touches it or once `upgradeWhen` settles.
 *
 * Loading and creating CodeMirror costs the page's main thread ~0.4 s; on a two-core machine that is taken from
 * Python's start-up, which is what the learner waits for. The page passes Python's `settled()`, so the upgrade
 * happens after start-up (and after a Check pressed as the page opened) unless the learner focuses the editor
 * first. Until then the textarea is a working editor: what is typed in it is reported as typed, and the
 * upgrade carries over the text, the selection and the focus, in one task, so no keystroke falls between.
 */

/** Lines a textarea shows before it scrolls: the code's, within CodeMirror's limits (tl.css max-height). */
const MIN_ROWS = 3;
const MAX_ROWS = 28;

/**
 * @param {{load: () => Promise<Function>, upgradeWhen?: Promise<unknown>, onError?: (err: unknown) => void}} options
 *   load resolves to editor.js's createEditor; a failed load leaves the textarea in place (and is reported)
 * @returns {Function} a createEditor with editor.js's signature and surface, plus `upgraded` (a promise of
 *   whether CodeMirror took over) and `view` (CodeMirror's, once it has)
 */
export function plainFirst({ load, upgradeWhen, onError = (err) => console.error(err) }) {
  return (options) => createPlainEditor(options, { load, upgradeWhen, onError });
}

function createPlainEditor({ parent, doc, label, onChange, onPrimary, onSecondary }, { load, upgradeWhen, onError }) {
  const area = textarea(parent.ownerDocument, doc, label);
  parent.append(area);
  let real = null;
  let destroyed = false;
  let composing = false;
  let started = null;
  let marked = null; // the line a trace marks (highlightLine), marked again once CodeMirror takes over
  let settle;
  const upgraded = new Promise((resolve) => { settle = resolve; });

  const swap = (create) => {
    if (destroyed) return false;
    if (composing) {
      return new Promise((resolve) => area.addEventListener("compositionend", () => resolve(swap(create)), { once: true }));
    }
    const focused = area.ownerDocument.activeElement === area;
    const selection = { anchor: area.selectionStart ?? 0, head: area.selectionEnd ?? 0 };
    if (area.selectionDirection === "backward") [selection.anchor, selection.head] = [selection.head, selection.anchor];
    real = create({ parent, doc: area.value, label, onChange, onPrimary, onSecondary, selection });
    area.remove();
    if (marked) real.highlightLine?.(marked);
    if (focused) real.focus();
    return true;
  };
  const upgrade = () => {
    started ??= Promise.resolve()
      .then(load)
      .then(swap)
      .catch((err) => {
        onError(err);
        return false;
      })
      .then((done) => {
        settle(done);
        return done;
      });
    return started;
  };

  area.addEventListener("input", () => onChange(area.value));
  area.addEventListener("keydown", (event) => shortcut(event, onPrimary, onSecondary));
  area.addEventListener("compositionstart", () => { composing = true; });
  area.addEventListener("compositionend", () => { composing = false; });
  area.addEventListener("focus", upgrade);
  upgradeWhen?.then(upgrade, upgrade);

  return {
    get view() { return real?.view ?? null; },
    /** Settles when CodeMirror has taken over (true), or will not (false: its load failed, or the cell is gone). */
    upgraded,
    getCode: () => (real ? real.getCode() : area.value),
    /** Replace the whole text; reported as a change, as CodeMirror's own setCode reports it. */
    setCode(code) {
      if (real) return real.setCode(code);
      area.value = code;
      area.rows = rowsFor(code);
      onChange(code);
    },
    focus: () => (real ? real.focus() : area.focus()),
    /** Mark line `n` as a trace's (CodeMirror's decoration, or the plain editor's selection); null: none. */
    highlightLine(n) {
      marked = n || null;
      if (real) return real.highlightLine?.(n);
      const lines = area.value.split("\n");
      if (!n || n > lines.length) return undefined;
      const from = lines.slice(0, n - 1).reduce((at, line) => at + line.length + 1, 0);
      area.setSelectionRange(from, from + lines[n - 1].length);
      return undefined;
    },
    destroy() {
      destroyed = true;
      settle(false);
      real?.destroy();
      area.remove();
    },
  };
}

function textarea(document, code, label) {
  const area = document.createElement("textarea");
  area.className = "tl-editor-plain";
  area.textContent = code; // its default value: the text is in the DOM too, as CodeMirror's lines are
  area.rows = rowsFor(code);
  // A phone wraps long lines (as CodeMirror does there, editor.js NARROW); a wider screen scrolls them.
  area.wrap = globalThis.matchMedia?.("(max-width: 40em)").matches ? "soft" : "off";
  area.spellcheck = false;
  for (const [name, value] of [["aria-label", label], ["autocomplete", "off"], ["autocapitalize", "off"], ["autocorrect", "off"]]) {
    area.setAttribute(name, value);
  }
  return area;
}

function rowsFor(code) {
  return Math.min(MAX_ROWS, Math.max(MIN_ROWS, code.split("\n").length));
}

/** Ctrl/⌘+Enter and Shift+Enter, as editor.js binds them. */
function shortcut(event, onPrimary, onSecondary) {
  if (event.key !== "Enter" || event.altKey) return;
  if (event.ctrlKey || event.metaKey) onPrimary();
  else if (event.shiftKey) (onSecondary || onPrimary)();
  else return;
  event.preventDefault();
}
