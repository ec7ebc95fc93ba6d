/**
 * The cell's header: which file it is, and how far Python has started ("Ready", or why it could not start).
 */
import { el } from "../dom.js";
import { STAGE } from "../protocol.js";

const STATUS_TEXT = {
  "": "Starting Python…",
  [STAGE.python]: "Python started · loading numpy…",
  [STAGE.numpy]: "Ready to run · loading the checker…",
  [STAGE.judge]: "Ready",
};

/** The stage a cell shows (its root's data-python): a stage, "failed", or "starting". */
export function shownStage({ stage, failed }) {
  return failed ? "failed" : stage || "starting";
}

/** @param {{path: string}} options  the file the learner edits ("example" for an example) */
export function createStatusView({ path }) {
  const dom = el("div", { class: "tl-cell-head" });
  const status = el("span", { class: "tl-status", role: "status", "aria-live": "polite" });
  dom.append(el("code", { class: "tl-path" }, path), status);
  return {
    dom,
    update(state, prev) {
      const python = state.python;
      if (prev && python === prev.python) return;
      status.textContent = python.failed ? `Python could not start: ${python.failed}` : STATUS_TEXT[python.stage] || python.stage;
      status.dataset.stage = shownStage(python);
      if (python.restarts) status.title = `Python restarted ${python.restarts} time${python.restarts === 1 ? "" : "s"}`;
    },
    destroy() {},
  };
}
