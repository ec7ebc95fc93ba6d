/**
 * A traced call, step by step (console-view.js asks for it; checker/trace.py records it): the step's line marked
 * in the cell's editor, the call stack, and the innermost frame's variables as a learner reads them (numpy arrays
 * with shape and dtype), those that changed at this step marked. Prev/Next, a slider, and ←/→ (Home/End) while
 * the trace has focus. The step where an exception was raised is marked, and so is a trace the cap cut short.
 * Steps arrive in batches while the call runs, so a Stop keeps those recorded so far.
 * Hook: [data-trace] with data-step (1-based), data-steps and data-line.
 */
import { el } from "../dom.js";

/** @param {{highlight: (line: number|null) => void}} options */
export function createTraceView({ highlight }) {
  const dom = el("section", { class: "tl-trace", "data-trace": "", hidden: "", tabindex: "0",
    "aria-label": "Trace of the call: left and right arrows move between steps" });
  const prev = el("button", { type: "button", class: "md-button tl-trace-prev" }, "◀ Prev");
  const next = el("button", { type: "button", class: "md-button tl-trace-next" }, "Next ▶");
  const slider = el("input", { type: "range", min: "1", max: "1", value: "1", class: "tl-trace-slider",
    "aria-label": "Step of the trace" });
  const label = el("p", { class: "tl-trace-where", "aria-live": "polite" });
  const note = el("p", { class: "tl-trace-note" });
  const stack = el("p", { class: "tl-trace-stack" });
  const table = el("table", { class: "tl-trace-vars" });
  const bar = el("div", { class: "tl-trace-bar" });
  bar.append(prev, slider, next);
  dom.append(bar, label, stack, table, note);
  let steps = [];
  let shown = 0;

  function render() {
    const total = steps.length;
    dom.dataset.steps = String(total);
    if (!total) {
      dom.dataset.step = "0";
      delete dom.dataset.line;
      label.textContent = "No line of your file ran in this call.";
      highlight(null);
      table.replaceChildren();
      stack.textContent = "";
      return;
    }
    shown = Math.max(1, Math.min(total, shown || 1));
    const step = steps[shown - 1];
    dom.dataset.step = String(shown);
    dom.dataset.line = String(step.line);
    slider.max = String(total);
    slider.value = String(shown);
    prev.disabled = shown <= 1;
    next.disabled = shown >= total;
    label.textContent = `Step ${shown} of ${total}: line ${step.line}`
      + (step.raised ? ` raised ${step.raised}` : "");
    dom.classList.toggle("tl-trace-raised", Boolean(step.raised));
    stack.textContent = `Called: ${step.stack.map((f) => f.function).join(" → ") || "(top level)"}`;
    table.replaceChildren(variablesRows(step));
    highlight(step.line);
  }

  const go = (n) => {
    shown = n;
    render();
  };
  const onKey = (event) => {
    const moves = { ArrowLeft: shown - 1, ArrowRight: shown + 1, Home: 1, End: steps.length };
    if (!(event.key in moves) || event.target === slider) return;
    event.preventDefault();
    go(moves[event.key]);
  };
  const listeners = [[prev, "click", () => go(shown - 1)], [next, "click", () => go(shown + 1)],
    [slider, "input", () => go(Number(slider.value))], [dom, "keydown", onKey]];
  for (const [node, type, fn] of listeners) node.addEventListener(type, fn);

  return {
    dom,
    /** A new trace begins: the old one is cleared. */
    start() {
      steps = [];
      shown = 0;
      note.textContent = "Tracing…";
      dom.hidden = false;
      render();
    },
    /** Steps recorded so far (streamed while the call runs). */
    add(more) {
      const first = !steps.length;
      steps = steps.concat(more);
      if (first) go(1);
      else render();
    },
    /** The call's result: its full steps, and why it ended. */
    finish(result) {
      if (Array.isArray(result.steps) && result.steps.length >= steps.length) steps = result.steps;
      note.textContent = ending(result, steps.length);
      dom.hidden = false;
      go(shown || 1);
    },
    destroy() {
      for (const [node, type, fn] of listeners) node.removeEventListener(type, fn);
      highlight(null);
    },
  };
}

function ending(result, total) {
  if (result.cut) return `Cut at ${total} steps: the trace's cap stopped the call (see the first steps).`;
  if (result.status === "stopped") return `Stopped after ${total} steps; the steps so far are kept.`;
  if (result.status === "timeout") return `The time limit stopped the call after ${total} steps; they are kept.`;
  if (result.status === "error") return `The call raised an error (the last step is where).`;
  return `The call returned after ${total} steps.`;
}

function variablesRows(step) {
  const body = document.createDocumentFragment();
  const head = el("tr");
  for (const name of ["Variable", "Value", "Type"]) head.append(el("th", { scope: "col" }, name));
  body.append(head);
  for (const [name, value] of Object.entries(step.vars)) {
    const changed = step.changed.includes(name);
    const row = el("tr", { class: changed ? "tl-trace-changed" : "", "data-var": name });
    const type = value.shape ? `${value.type} shape (${value.shape.join(", ")}${value.shape.length === 1 ? "," : ""}) ${value.dtype}` : value.type;
    row.append(el("td", {}, changed ? `${name} (changed)` : name), el("td", {}, ""), el("td", {}, type));
    row.children[1].append(el("code", {}, value.text));
    body.append(row);
  }
  return body;
}
