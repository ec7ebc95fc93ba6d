/**
 * The summary line (a live region: screen readers hear each verdict) and the learner's output with its
 * traceback. Both are text: learner output never becomes HTML.
 */
import { el } from "../dom.js";

export function createSummaryView() {
  const dom = el("p", { class: "tl-summary", role: "status", "aria-live": "polite" });
  return {
    dom,
    update(state, prev) {
      if (!prev || state.message !== prev.message) dom.textContent = state.message;
    },
    destroy() {},
  };
}

export function createOutputView() {
  const dom = el("pre", { class: "tl-output", hidden: "", tabindex: "0", role: "region", "aria-label": "Output" });
  return {
    dom,
    update(state, prev) {
      if (prev && state.output === prev.output) return;
      dom.hidden = !state.output;
      dom.textContent = state.output;
    },
    destroy() {},
  };
}
