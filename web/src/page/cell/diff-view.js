/**
 * After a pass: the learner's code against the reference, line by line (the site's `ol diff`).
 */
import { el } from "../dom.js";

const OPS = { "+": "add", "-": "del", " ": "same" };

export function createDiffView() {
  const dom = el("details", { class: "tl-diff", hidden: "" });
  return {
    dom,
    update(state, prev) {
      if (prev && state.diff === prev.diff) return;
      dom.hidden = !state.diff;
      if (!state.diff) return;
      const summary = el("summary", {}, state.diff.same ? "Your code is identical to the reference"
        : "You passed: compare your code with the reference");
      const pre = el("pre", { class: "tl-diff-body", tabindex: "0", role: "region",
        "aria-label": "Differences: lines starting with minus are yours only, plus the reference's only" });
      for (const line of state.diff.lines) pre.append(el("span", { class: `tl-diff-${OPS[line.op]}` }, `${line.op} ${line.text}\n`));
      dom.replaceChildren(summary, pre);
    },
    destroy() {},
  };
}
