/**
 * One row per hidden test: li[data-test][data-outcome], its outcome said in words to screen readers. While a
 * new check runs, the previous rows stay on screen marked `data-stale` (and say so to screen readers, and the
 * list is aria-busy) until the new result replaces them.
 */
import { el } from "../dom.js";

const MARKS = { passed: "✓", failed: "✗" };
const STALE = " (from the previous check)";

function row(test) {
  const li = el("li", { class: `tl-test tl-${test.outcome}`, "data-test": test.name, "data-outcome": test.outcome });
  li.append(el("span", { class: "tl-mark", "aria-hidden": "true" }, MARKS[test.outcome] || "!"),
    el("code", {}, test.name), el("span", { class: "tl-sr" }, ` ${test.outcome}`));
  if (test.message) li.append(el("span", { class: "tl-message" }, test.message));
  return li;
}

export function createResultsView() {
  const dom = el("ul", { class: "tl-results", "aria-label": "Hidden tests" });
  return {
    dom,
    update(state, prev) {
      if (!prev || state.tests !== prev.tests) dom.replaceChildren(...(state.tests || []).map(row));
      else if (state.stale === prev.stale) return;
      for (const li of dom.children) {
        const sr = li.querySelector(".tl-sr");
        if (state.stale) li.dataset.stale = "true";
        else delete li.dataset.stale;
        sr.textContent = ` ${li.dataset.outcome}${state.stale ? STALE : ""}`;
      }
      if (state.stale) dom.setAttribute("aria-busy", "true");
      else dom.removeAttribute("aria-busy");
    },
    destroy() {},
  };
}
