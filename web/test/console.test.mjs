// The console under a code cell and its trace view (web/src/page/cell/console-view.js, trace-view.js), on a linkedom
// page with a stub Python: what each key does, what each entry says, and how a trace is stepped through.
import { test } from "node:test";
import assert from "node:assert/strict";

import { createConsoleView } from "../src/page/cell/console-view.js";
import { createStore } from "../src/page/store.js";
import { page, tick } from "./fakes.mjs";

const STEPS = [
  { line: 4, stack: [{ function: "residual", line: 4 }], vars: { p: { type: "list", text: "[0.5, 0.5]" } }, changed: ["p"] },
  { line: 5, stack: [{ function: "residual", line: 5 }], changed: ["p"],
    vars: { p: { type: "ndarray", text: "[0.5 0.5]", shape: [2], dtype: "float64" } } },
  { line: 6, stack: [{ function: "residual", line: 6 }], vars: {}, changed: [], raised: "ValueError: no" },
];

function setup(answer) {
  const { document, window } = page("");
  const sent = [];
  const lines = [];
  const python = {
    async request(type, payload, options) {
      sent.push({ type, payload });
      return answer(payload, options);
    },
    stop() {},
  };
  const view = createConsoleView({
    slug: "e-1", store: createStore(null), python, filename: "tinyllm/x.py", timeLimit: () => 5, runNumber: () => 3,
    files: async () => ({ "dep.py": "X = 1\n" }), highlight: (n) => lines.push(n), stop: () => {},
  });
  document.body.append(view.dom);
  const input = view.dom.querySelector("[data-console-input]");
  const key = (k, extra = {}) => input.dispatchEvent(Object.assign(new window.Event("keydown", { cancelable: true }), { key: k, ...extra }));
  const entries = () => [...view.dom.querySelectorAll("[data-console-entry]")].map((e) => [e.dataset.kind, e.textContent]);
  return { view, input, key, sent, lines, entries, window };
}

test("Enter evaluates in the Run's namespace; an incomplete input gets a new line; errors and fresh starts are said", async () => {
  const answers = {
    "1 + 1": { status: "ok", stdout: "2\n", traceback: "" },
    "for i in range(2):": { status: "incomplete", stdout: "", traceback: "" },
    "1/0": { status: "error", stdout: "", traceback: "ZeroDivisionError: division by zero\n", fresh: true },
  };
  const s = setup((payload) => answers[payload.code]);
  s.input.value = "1 + 1";
  s.key("Enter");
  await tick(5);
  assert.deepEqual(s.sent[0], { type: "explore", payload: { kind: "eval", code: "1 + 1", run: 3, filename: "tinyllm/x.py",
    files: { "dep.py": "X = 1\n" } } });
  assert.deepEqual(s.entries(), [["input", ">>> 1 + 1"], ["output", "2"]]);
  assert.equal(s.input.value, "", "the input is cleared once it ran");
  s.input.value = "for i in range(2):";
  s.input.selectionStart = s.input.selectionEnd = s.input.value.length;
  s.key("Enter");
  await tick(5);
  assert.equal(s.input.value, "for i in range(2):\n", "not complete: Enter added a line, nothing ran");
  assert.equal(s.entries().length, 2);
  s.input.value = "1/0";
  s.key("Enter");
  await tick(5);
  assert.deepEqual(s.entries().slice(2).map(([k]) => k), ["input", "output", "error"]);
  assert.match(s.entries()[3][1], /fresh namespace/);
  s.key("ArrowUp");
  assert.equal(s.input.value, "1/0", "↑ recalls the last input");
  s.key("ArrowUp");
  assert.equal(s.input.value, "1 + 1");
  s.key("ArrowDown");
  assert.equal(s.input.value, "1/0");
  s.view.destroy();
});

test("Shift+Enter adds a line without running", async () => {
  const s = setup(() => assert.fail("nothing is sent"));
  s.input.value = "x = 1";
  s.input.selectionStart = s.input.selectionEnd = 5;
  s.key("Enter", { shiftKey: true });
  assert.equal(s.input.value, "x = 1\n");
  assert.equal(s.sent.length, 0);
});

test("a trace streams its steps, then steps through them: the line, the variables, what changed, the raise", async () => {
  const s = setup((payload, options) => {
    options.onSteps(STEPS.slice(0, 2));
    return { status: "error", stdout: "", traceback: "ValueError: no\n", steps: STEPS, cut: false };
  });
  s.input.value = "residual([0.5, 0.5], [0.25, 0.75])";
  s.view.dom.querySelector(".tl-console-trace").click();
  await tick(5);
  assert.equal(s.sent[0].payload.kind, "trace");
  const trace = s.view.dom.querySelector("[data-trace]");
  assert.equal(trace.hidden, false);
  assert.deepEqual([trace.dataset.step, trace.dataset.steps, trace.dataset.line], ["1", "3", "4"]);
  assert.equal(s.lines.at(-1), 4, "the editor marks the step's line");
  trace.querySelector(".tl-trace-next").click();
  assert.deepEqual([trace.dataset.step, trace.dataset.line], ["2", "5"]);
  const row = trace.querySelector("tr[data-var=p]");
  assert.equal(row.className, "tl-trace-changed");
  assert.match(row.textContent, /ndarray shape \(2,\) float64/);
  trace.dispatchEvent(Object.assign(new s.window.Event("keydown", { cancelable: true }), { key: "End" }));
  assert.deepEqual([trace.dataset.step, trace.dataset.line], ["3", "6"]);
  assert.match(trace.querySelector(".tl-trace-where").textContent, /raised ValueError: no/);
  trace.dispatchEvent(Object.assign(new s.window.Event("keydown", { cancelable: true }), { key: "ArrowLeft" }));
  assert.equal(trace.dataset.step, "2");
  s.view.destroy();
  assert.equal(s.lines.at(-1), null, "the mark goes with the view");
});

test("a stopped trace keeps the steps it streamed", async () => {
  const s = setup((payload, options) => {
    options.onSteps(STEPS.slice(0, 2));
    return { status: "stopped", stdout: "", traceback: "", restarted: true, steps: STEPS.slice(0, 2) };
  });
  s.input.value = "forever()";
  s.view.dom.querySelector(".tl-console-trace").click();
  await tick(5);
  const trace = s.view.dom.querySelector("[data-trace]");
  assert.equal(trace.dataset.steps, "2");
  assert.match(trace.querySelector(".tl-trace-note").textContent, /Stopped after 2 steps/);
  assert.deepEqual(s.entries().map(([k]) => k), ["input", "error"]);
});

test("a console input's figures are drawn as a Run's are", async () => {
  const png = { kind: "image", mime: "image/png", data: "iVBORw0KGgo=", alt: "a line" };
  const s = setup(() => ({ status: "ok", stdout: "", traceback: "", figures: [png, { kind: "note", text: "capped" }] }));
  s.input.value = "plt.plot([1, 2]); plt.show()";
  s.key("Enter");
  await tick(5);
  const img = s.view.dom.querySelector(".tl-console-log img.tl-figure");
  assert.equal(img.getAttribute("alt"), "a line");
  assert.equal(s.view.dom.querySelector(".tl-console-log .tl-figure-note").textContent, "capped");
});
