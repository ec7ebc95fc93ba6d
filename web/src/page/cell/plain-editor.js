/**
 * The editor a cell shows first: a plain textarea, with the cell's shortcuts, that hands over to CodeMirror
 * (editor.js, loaded as a chunk of its own) once the learner touches it or once `upgradeWhen` settles.
 *
 * Loading and creating CodeMirror costs the page's main thread ~0.4 s, and each editor more (a phone's main
 * thread, 4× slower, spent 0.6 s on a lesson's three: issue 51); on a two-core machine that is taken from
 * Python's start-up, which is what the learner waits for. The page hands over an editor once Python has settled
 * (after start-up, and after a Check pressed as the page opened), once the editor nears the viewport, and one
 * editor at a time, each in an idle moment (`nearViewport`, `oneAtATime`), unless the learner focuses it first:
 * a learner reading the top of a lesson never waits for the editors further down. Until then the textarea is a
 * working editor: what is typed in it is reported as typed, and the upgrade carries over the text, the
 * selection and the focus, in one task, so no keystroke falls between.
 */

/** Lines a textarea shows before it scrolls: the code's, within CodeMirror's limits (tl.css max-height). */
const MIN_ROWS = 3;
const MAX_ROWS = 28;

/** How near the viewport (in viewport heights) an editor is handed over: a scroll away, not a screen away. */
const NEAR = "100%";

/**
 * Resolves once `element` is within a viewport's height of the viewport (at once where there is no
 * IntersectionObserver).
 * @param {Element} element
 * @param {object} [win]  the window (tests pass a fake)
 * @returns {Promise<void>}
 */
export function nearViewport(element, win = globalThis) {
  if (typeof win.IntersectionObserver !== "function") return Promise.resolve();
  return new Promise((resolve) => {
    const observer = new win.IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      observer.disconnect();
      resolve();
    }, { rootMargin: `${NEAR} 0px ${NEAR} 0px` });
    observer.observe(element);
  });
}

/**
 * A queue of turns: each `turn()` resolves after the ones asked for before it, in an idle moment of its own, so
 * two editors are never created in one task.
 * @param {object} [win]  the window (tests pass a fake)
 * @returns {() => Promise<void>}
 */
export function oneAtATime(win = globalThis) {
  const idle = (fn) => (typeof win.requestIdleCallback === "function"
    ? win.requestIdleCallback(fn, { timeout: 2000 }) : setTimeout(fn, 50));
  let last = Promise.resolve();
  return () => {
    last = last.then(() => new Promise((resolve) => idle(() => resolve())));
    return last;
  };
}

/**
 * @param {{load: () => Promise<Function>,
 *          upgradeWhen?: Promise<unknown>|((area: HTMLTextAreaElement) => Promise<unknown>),
 *          onError?: (err: unknown) => void}} options
 *   load resolves to editor.js's createEditor; a failed load leaves the textarea in place (and is reported);
 *   upgradeWhen, a promise or a function of the editor's textarea that returns one: when to hand over unasked
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
  const when = typeof upgradeWhen === "function" ? upgradeWhen(area) : upgradeWhen;
  when?.then(upgrade, upgrade);

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
