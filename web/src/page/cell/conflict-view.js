/**
 * The choice between this editor's code and another version: another tab's, or a draft left by an unresolved
 * conflict. Until the learner chooses, edits here are saved as a draft (autosave.js), so neither version
 * overwrites the other.
 */
import { el } from "../dom.js";

const WORDS = {
  tab: ["This exercise was changed in another tab. Your edits here are kept as a draft until you choose.",
    "Use the other tab's version", "Keep this version"],
  draft: ["An unsaved draft of this exercise was found (from another tab). Which version do you want?",
    "Restore the draft", "Discard the draft"],
};

/** @param {{onResolve: (choice: "theirs"|"mine") => void}} options */
export function createConflictView({ onResolve }) {
  const dom = el("div", { class: "tl-conflict", role: "alert", hidden: "" });
  const onClick = (event) => {
    const choice = event.target && event.target.dataset ? event.target.dataset.choice : "";
    if (choice) onResolve(choice);
  };
  dom.addEventListener("click", onClick);
  return {
    dom,
    update(state, prev) {
      if (prev && state.conflict === prev.conflict) return;
      dom.hidden = !state.conflict;
      if (!state.conflict) return;
      const [text, theirs, mine] = WORDS[state.conflict.where];
      dom.replaceChildren(el("p", {}, text),
        el("button", { type: "button", class: "md-button", "data-choice": "theirs" }, theirs),
        el("button", { type: "button", class: "md-button", "data-choice": "mine" }, mine));
    },
    destroy() {
      dom.removeEventListener("click", onClick);
    },
  };
}
