/**
 * The cell's header: which file it is, and how far Python has started ("Ready", or why it could not start).
 */
import { el } from "../dom.js";
import { STAGE } from "../../shared/protocol.js";

const STATUS_TEXT = {
  "": "Starting Python…",
  [STAGE.python]: "Python started · loading numpy…",
  [STAGE.numpy]: "Ready to run · loading the checker…",
  [STAGE.pytest]: "Ready",
};

/** The stage a cell shows (its root's data-python): a stage, "failed", or "starting". */
export function shownStage({ stage, failed }) {
  return failed ? "failed" : stage || "starting";
}

/** A start-up this quick shows no bar: it would only flash (ms since the worker started). */
export const BAR_AFTER_MS = 1000;
const MB = (bytes) => (bytes / 1e6).toFixed(1);

/**
 * The download bar's value, or null when none is shown: while start-up's files are still arriving, from
 * BAR_AFTER_MS on (worker/boot/downloads.js posts `loading`: protocol.js LoadingReply).
 * @returns {{percent: number, text: string}|null}
 */
export function downloadBar(python) {
  const loading = python.loading;
  if (!loading || python.failed || !loading.total || loading.received >= loading.total) return null;
  if (loading.ms < BAR_AFTER_MS) return null;
  return { percent: Math.floor((100 * loading.received) / loading.total),
    text: `Downloading Python: ${MB(loading.received)} of ${MB(loading.total)} MB` };
}

/** @param {{path: string}} options  the file the learner edits ("example" for an example) */
export function createStatusView({ path }) {
  const dom = el("div", { class: "tl-cell-head" });
  const status = el("span", { class: "tl-status", role: "status", "aria-live": "polite" });
  const bar = el("span", { class: "tl-loading", hidden: "" });
  const meter = el("progress", { max: "100", value: "0", "aria-label": "Downloading Python" });
  const words = el("span", { class: "tl-loading-text" });
  bar.append(meter, words);
  dom.append(el("code", { class: "tl-path" }, path), status, bar);
  return {
    dom,
    update(state, prev) {
      const python = state.python;
      if (prev && python === prev.python) return;
      // Written only where it changed: the status comes with every download report (five a second on a slow
      // line), and each write of the page restyles and lays out again (issue 51).
      const text = python.failed ? `Python could not start: ${python.failed}` : STATUS_TEXT[python.stage] || python.stage;
      if (status.textContent !== text) status.textContent = text;
      const stage = shownStage(python);
      if (status.dataset.stage !== stage) status.dataset.stage = stage;
      const title = python.restarts ? `Python restarted ${python.restarts} time${python.restarts === 1 ? "" : "s"}` : "";
      if (title && status.title !== title) status.title = title;
      const shown = downloadBar(python);
      if (bar.hidden !== !shown) bar.hidden = !shown;
      if (shown && words.textContent !== shown.text) {
        meter.setAttribute("value", String(shown.percent));
        meter.setAttribute("aria-valuetext", shown.text);
        words.textContent = shown.text;
      }
    },
    destroy() {},
  };
}
