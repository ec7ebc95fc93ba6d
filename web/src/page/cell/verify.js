/**
 * Passes imported from `ol` ("checked elsewhere", web/src/page/exchange.js) count on this site only once its own
 * judge has checked the same code. A cell does that in the background: once Python can judge and nobody is
 * waiting for it, it checks every unverified import it needs (what it builds on, deepest first, then its own
 * exercise), silently, and keeps each verdict as this browser's result of that code, so a module's dependencies
 * count as soon as they are verified. Until then the cell says that its code passed elsewhere.
 */
import { keys } from "../store.js";
import { STAGE } from "../../shared/protocol.js";
import { unverified } from "../exchange.js";
import { actions } from "./state.js";
import { rewriting } from "./bundles.js";

const START_DELAY_MS = 900; // after the warm-up check (code-cell.js) has had its turn
const RETRY_MS = 1500;
const MAX_TRIES = 40;

/**
 * @param {object} cell   describeCell's description (slug, requires deepest first, timeLimit)
 * @param {{store: object, python: object, doc: Document, loadBundle: (slug: string) => Promise<object>}} env
 * @param {{model: object, root: HTMLElement, editorCode: () => string}} view
 * @returns {() => void} cancels it
 */
export function verifyImported(cell, env, { model, root, editorCode }) {
  const { store, python } = env;
  const pending = () => [...cell.requires, cell.slug].filter((slug) => unverified((k) => store.get(k, null), slug));
  if (!pending().length) return () => {};
  const note = showNote(root, env.doc, store.get(keys.elsewhere(cell.slug), null), cell);
  let timer = null;
  let cancelled = false;
  let tries = 0;
  const idle = () => !model.state.busy && python.pending.size === 0;

  async function go() {
    if (cancelled) return;
    if (!idle()) {
      if (++tries < MAX_TRIES) timer = setTimeout(go, RETRY_MS);
      return;
    }
    for (const slug of pending()) {
      if (cancelled || !(await verifyOne(slug, cell, env))) break;
      if (slug === cell.slug) showVerdict(cell, store, model, editorCode);
    }
    if (!unverified((k) => store.get(k, null), cell.slug)) note?.remove();
  }
  const unsubscribe = python.subscribe(({ stage }) => {
    if (stage === STAGE.pytest && timer === null) timer = setTimeout(go, START_DELAY_MS);
  });
  return () => {
    cancelled = true;
    clearTimeout(timer);
    unsubscribe();
  };
}

/** Check one imported pass's code here; true when a verdict was stored (pass or fail). */
async function verifyOne(slug, cell, env) {
  const { store, python } = env;
  const entry = unverified((k) => store.get(k, null), slug);
  if (!entry) return true;
  try {
    const bundle = await env.loadBundle(slug);
    const files = {};
    for (const dep of bundle.requires || []) {
      const last = store.get(keys.result(dep), null);
      if (!(last && last.status === "passed" && typeof last.code === "string")) return false; // not verified yet
      const depBundle = await env.loadBundle(dep);
      files[depBundle.importPath] = last.code;
    }
    const result = await python.request("check", {
      tests: bundle.tests, files: { ...files, [bundle.importPath]: entry.code }, learner: bundle.importPath,
      names: bundle.names, ...rewriting(bundle),
    }, { timeLimit: cell.timeLimit, background: true });
    if (result.status !== "passed" && result.status !== "failed") return false; // stopped, timed out: try later
    const saved = { ...result, code: entry.code, at: Date.now(), checkedAfter: "ol" };
    store.set(keys.result(slug), saved);
    store.remove(keys.elsewhere(slug));
    const Event = env.doc.defaultView?.CustomEvent || CustomEvent;
    env.doc.dispatchEvent(new Event("tl:result", { detail: { slug, result, code: entry.code } }));
    return true;
  } catch {
    return false;
  }
}

/** The cell's own exercise was just verified: show its rows if the editor still holds that code. */
function showVerdict(cell, store, model, editorCode) {
  const saved = store.get(keys.result(cell.slug), null);
  if (saved && saved.code === editorCode() && !model.state.busy) {
    model.dispatch(actions.finished(saved, { timeLimit: cell.timeLimit, restored: true }));
  }
}

function showNote(root, doc, entry, cell) {
  if (!entry) return null;
  const note = doc.createElement("p");
  note.className = "tl-elsewhere";
  note.setAttribute("role", "status");
  const when = entry.when ? ` on ${String(entry.when).slice(0, 10)}` : "";
  note.textContent = `${cell.id} passed with ol${when} (checked elsewhere). This page checks that code again once `
    + "Python is ready; until then it does not count as passed here.";
  root.prepend(note);
  return note;
}
