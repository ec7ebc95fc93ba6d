/**
 * Saving a cell's code, only through store.js: every change shortly after it is made, at once before anything
 * runs and when the page is hidden, so no Stop, crash or reload can lose it. While another tab's version is
 * unresolved (the state's `conflict`), edits go to a draft instead, so neither tab's work overwrites the
 * other's without the learner choosing.
 */
import { keys } from "../store.js";
import { actions } from "./state.js";

export const SAVE_DELAY_MS = 300;

/**
 * @param {{store: object, slug: string, model: ReturnType<import("./state.js").createModel>,
 *          win?: EventTarget|null, delay?: number}} options  win: where "pagehide" is announced
 */
export function createAutosave({ store, slug, model, win = null, delay = SAVE_DELAY_MS }) {
  const codeKey = keys.code(slug);
  const draftKey = keys.draft(slug);
  let timer = null;
  let live = true;

  /** Save `code` now (to the draft while a conflict is open). Returns true when it reached storage. */
  function save(code) {
    clearTimeout(timer);
    if (!live) return false;
    return store.set(model.state.conflict ? draftKey : codeKey, { code, at: Date.now() });
  }
  const later = (code) => {
    clearTimeout(timer);
    if (live) timer = setTimeout(() => save(code), delay);
  };
  const onPageHide = () => save(model.state.code);
  if (win) win.addEventListener("pagehide", onPageHide);

  // Another tab saved this exercise: if its code differs from ours, offer the choice.
  const unwatch = store.onExternalChange((key, how) => {
    if (key !== codeKey || how !== "changed") return;
    const theirs = store.get(codeKey, null);
    if (theirs && typeof theirs.code === "string" && theirs.code !== model.state.code) {
      model.dispatch(actions.conflict(theirs.code, "tab"));
    }
  });

  return {
    save,
    later,
    /** The code this cell starts with: what was saved, else the starter. */
    restore(starter) {
      const saved = store.get(codeKey, null);
      return saved && typeof saved.code === "string" ? saved.code : starter;
    },
    /** A draft left by an unresolved conflict (from an earlier visit): offer it, or drop it if it is ours. */
    offerDraft() {
      const draft = store.get(draftKey, null);
      if (!draft || typeof draft.code !== "string") return;
      if (draft.code !== model.state.code) model.dispatch(actions.conflict(draft.code, "draft"));
      else store.remove(draftKey);
    },
    /** The learner chose `code`: it becomes the saved code and the draft goes. */
    resolve(code) {
      store.remove(draftKey);
      model.dispatch(actions.resolved(code));
      save(code);
    },
    destroy() {
      live = false;
      clearTimeout(timer);
      if (win) win.removeEventListener("pagehide", onPageHide);
      unwatch();
    },
  };
}
