/**
 * The console under a code cell, and the step-through trace of one call (checker/console.py, checker/trace.py).
 *
 * After a Run, the input line evaluates Python in the namespace that Run left: an expression shows its repr, a
 * statement runs. Enter runs a complete input (the worker's `codeop` decides: an incomplete one gets a new line
 * instead), Shift+Enter adds a line, ↑ and ↓ walk this cell's history (kept in this browser). "Trace" runs the
 * input as one traced call and shows it step by step: the line in the editor, the call stack, the variables
 * (numpy arrays with shape and dtype), those that changed marked; Prev/Next, a slider, and ←/→ on the trace.
 *
 * Output, tracebacks, figures, the output cap, Stop and the time limit are the Run's (the same worker request
 * path). The namespace lasts until the next Run, Check or Reset, or a new worker; the console says when an
 * input ran in a fresh one. Stable hooks: [data-console-input], [data-console-entry][data-kind], [data-trace]
 * with data-step, data-steps and data-line.
 */
import { el } from "../dom.js";
import { keys } from "../store.js";
import { createTraceView } from "./trace-view.js";
import { figureNode } from "./output-view.js";

const HISTORY = 50; // inputs kept per cell
const FRESH = "(A fresh namespace: Run your code first to use its names here.)";

/**
 * @param {{slug: string, store: object, python: object, timeLimit: () => number, runNumber: () => number,
 *   filename: string, files: () => Promise<Record<string, string>>, highlight: (line: number|null) => void,
 *   stop: () => void}} options
 *   runNumber: the number of this cell's last Run (0: none, or Reset since); files: what a fresh namespace can
 *   import (the Run's dependency files); highlight: mark a line in the cell's editor
 */
export function createConsoleView(options) {
  const dom = el("details", { class: "tl-console" });
  const summary = el("summary", {}, "Console: try your code after a Run");
  const log = el("div", { class: "tl-console-log", role: "log", "aria-live": "polite", "aria-label": "Console output" });
  const input = el("textarea", {
    class: "tl-console-input", rows: "1", spellcheck: "false", autocomplete: "off", autocapitalize: "off",
    "data-console-input": "", "aria-label": "Python console input: Enter runs it, Shift+Enter adds a line",
  });
  const run = el("button", { type: "button", class: "md-button tl-console-run" }, "Run input");
  const traceButton = el("button", { type: "button", class: "md-button tl-console-trace" }, "Trace this call");
  const stop = el("button", { type: "button", class: "md-button tl-console-stop", hidden: "" }, "Stop");
  const line = el("div", { class: "tl-console-line" });
  line.append(el("span", { class: "tl-console-prompt", "aria-hidden": "true" }, ">>>"), input, run, traceButton, stop);
  const trace = createTraceView({ highlight: options.highlight });
  dom.append(summary, log, line, el("p", { class: "tl-console-help" },
    "Enter runs, Shift+Enter adds a line, ↑/↓ recall earlier inputs; Esc then Tab leaves the input. "
    + "Trace this call: the input (one call of your function) step by step."), trace.dom);
  const controller = consoleController(options, { log, input, run, traceButton, stop, trace });
  return {
    dom,
    update() {},
    destroy() {
      controller.destroy();
      trace.destroy();
    },
  };
}

function consoleController(options, { log, input, run, traceButton, stop, trace }) {
  const { store, python } = options;
  const historyKey = keys.local(`console:${options.slug}`);
  const saved = store.get(historyKey, []);
  const history = Array.isArray(saved) ? saved.filter((h) => typeof h === "string").slice(-HISTORY) : [];
  let at = history.length;
  let busy = false;

  const entry = (kind, text, extra = {}) => {
    const node = el("pre", { class: `tl-console-entry tl-console-${kind}`, "data-console-entry": "", "data-kind": kind,
      ...extra }, text);
    log.append(node);
    node.scrollIntoView?.({ block: "nearest" });
    return node;
  };

  async function send(kind) {
    const code = input.value;
    if (busy || !code.trim()) return;
    busy = true;
    if (kind === "trace") trace.start();
    stop.hidden = false;
    const result = await python.request("explore", {
      kind, code, run: options.runNumber(), filename: options.filename, files: await options.files().catch(() => ({})),
    }, { timeLimit: options.timeLimit(), onSteps: (steps) => trace.add(steps) }).finally(() => {
      busy = false;
      stop.hidden = true;
    });
    if (result.status === "incomplete") {
      insertNewline();
      return;
    }
    remember(code);
    show(kind, code, result);
  }

  function show(kind, code, result) {
    entry("input", code.split("\n").map((l, i) => `${i ? "..." : ">>>"} ${l}`).join("\n"));
    if (result.fresh) entry("output", FRESH, { class: "tl-console-entry tl-console-note" });
    if (result.stdout) entry("output", result.stdout.replace(/\n$/, ""));
    log.append(...(result.figures || []).map(figureNode)); // drawn as a Run's are (output-view.js)
    if (result.status === "error" && result.traceback) entry("error", result.traceback.replace(/\n$/, ""));
    if (result.status === "timeout" || result.status === "stopped") {
      entry("error", result.status === "stopped" ? "Stopped." : `Stopped: the time limit of ${options.timeLimit()} s.`);
    }
    if (kind === "trace") trace.finish(result);
    input.value = "";
    input.rows = 1;
  }

  function remember(code) {
    if (history[history.length - 1] !== code) history.push(code);
    history.splice(0, Math.max(0, history.length - HISTORY));
    at = history.length;
    store.set(historyKey, history);
  }

  function insertNewline() {
    const { selectionStart: from, selectionEnd: to, value } = input;
    input.value = `${value.slice(0, from)}\n${value.slice(to)}`;
    input.selectionStart = input.selectionEnd = from + 1;
    input.rows = Math.min(8, input.value.split("\n").length);
  }

  function recall(step) {
    if (!history.length) return;
    at = Math.max(0, Math.min(history.length, at + step));
    input.value = history[at] ?? "";
    input.rows = Math.min(8, input.value.split("\n").length);
  }

  function onKey(event) {
    const firstLine = !input.value.slice(0, input.selectionStart).includes("\n");
    const lastLine = !input.value.slice(input.selectionEnd).includes("\n");
    if (event.key === "Enter" && !event.shiftKey && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      send("eval");
    } else if (event.key === "Enter" && event.shiftKey) {
      event.preventDefault();
      insertNewline();
    } else if (event.key === "ArrowUp" && firstLine) {
      event.preventDefault();
      recall(-1);
    } else if (event.key === "ArrowDown" && lastLine) {
      event.preventDefault();
      recall(1);
    }
  }

  const listeners = [[input, "keydown", onKey], [run, "click", () => send("eval")],
    [traceButton, "click", () => send("trace")], [stop, "click", () => options.stop()]];
  for (const [node, type, fn] of listeners) node.addEventListener(type, fn);
  return {
    destroy() {
      for (const [node, type, fn] of listeners) node.removeEventListener(type, fn);
    },
  };
}
