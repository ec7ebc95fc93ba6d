/**
 * The summary line (a live region: screen readers hear each verdict) and the learner's output with its
 * traceback and the figures its run drew. Both are text: learner output never becomes HTML; a figure becomes an
 * <img> of a base64 PNG that protocol.js checked (figureProblem), with its text alternative, placed in the
 * output where the code showed it, and a note (a cap reached) becomes text of its own.
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

/**
 * The output's pieces in order: text, and each figure at its `at` (an offset into `output`; absent, null or past
 * the end: after the text). Figures at the same place keep their order.
 * @param {string} output
 * @param {import("../../shared/protocol.js").Figure[]} figures
 * @returns {({text: string}|{figure: import("../../shared/protocol.js").Figure})[]}
 */
export function outputPieces(output, figures) {
  const place = (f) => (Number.isInteger(f.at) && f.at >= 0 && f.at <= output.length ? f.at : output.length);
  const placed = figures.map((figure, i) => ({ figure, at: place(figure), i })).sort((a, b) => a.at - b.at || a.i - b.i);
  const pieces = [];
  let from = 0;
  for (const { figure, at } of placed) {
    if (at > from) pieces.push({ text: output.slice(from, at) });
    pieces.push({ figure });
    from = Math.max(from, at);
  }
  if (from < output.length) pieces.push({ text: output.slice(from) });
  return pieces;
}

/** A figure as the page shows it: an image with its text alternative, or a note (console-view.js too). */
export function figureNode(figure) {
  if (figure.kind === "note") return el("span", { class: "tl-figure-note" }, figure.text);
  return el("img", { class: "tl-figure", src: `data:${figure.mime};base64,${figure.data}`, alt: figure.alt });
}

export function createOutputView() {
  const dom = el("pre", { class: "tl-output", hidden: "", tabindex: "0", role: "region", "aria-label": "Output" });
  return {
    dom,
    update(state, prev) {
      const figures = state.figures || [];
      if (prev && state.output === prev.output && figures === (prev.figures || [])) return;
      dom.hidden = !state.output && !figures.length;
      dom.classList.toggle("tl-has-figures", figures.length > 0); // grows with its pictures instead of scrolling
      if (!figures.length) {
        dom.textContent = state.output; // streamed text: the common case, kept cheap
        return;
      }
      const doc = dom.ownerDocument;
      dom.replaceChildren(...outputPieces(state.output, figures)
        .map((p) => ("text" in p ? doc.createTextNode(p.text) : figureNode(p.figure))));
    },
    destroy() {},
  };
}
