// The code cell's views (web/src/page/cell/*-view.js) one by one, on a linkedom page: each renders from the state,
// changes only what changed since `prev`, keeps learner text as text, and removes its listeners on destroy.
import { test } from "node:test";
import assert from "node:assert/strict";

import { actions, initialState, reduce } from "../src/page/cell/state.js";
import { createResultsView } from "../src/page/cell/results-view.js";
import { createDepsView } from "../src/page/cell/deps-view.js";
import { createConflictView } from "../src/page/cell/conflict-view.js";
import { createToolbarView } from "../src/page/cell/toolbar-view.js";
import { BAR_AFTER_MS, createStatusView, downloadBar } from "../src/page/cell/status-view.js";
import { createOutputView, createSummaryView, outputPieces } from "../src/page/cell/output-view.js";
import { createDiffView } from "../src/page/cell/diff-view.js";
import { page } from "./fakes.mjs";

const base = () => initialState({ kind: "exercise", starter: "", code: "" });
const finished = (state, tests) => reduce(state, actions.finished({ status: "failed", stdout: "", traceback: "", tests }, { timeLimit: 20 }));

test("results: one row per test with its words for screen readers; stale rows marked and restored", () => {
  const { document } = page("");
  const view = createResultsView();
  let state = base();
  view.update(state, null);
  assert.equal(view.dom.children.length, 0);
  const tests = [{ name: "test_a", outcome: "passed", message: "" },
    { name: "test_<b>", outcome: "error", message: "<script>alert(1)</script>" }];
  let prev = state;
  state = finished(state, tests);
  view.update(state, prev);
  const [a, b] = view.dom.querySelectorAll("li");
  assert.deepEqual([a.dataset.test, a.dataset.outcome, b.dataset.test, b.dataset.outcome], ["test_a", "passed", "test_<b>", "error"]);
  assert.equal(a.querySelector(".tl-mark").textContent, "✓");
  assert.equal(b.querySelector(".tl-mark").textContent, "!");
  assert.equal(b.querySelector("script"), null, "messages are text");
  assert.equal(b.querySelector(".tl-message").textContent, "<script>alert(1)</script>");
  prev = state;
  state = reduce(state, actions.started("check"));
  view.update(state, prev);
  assert.equal(view.dom.querySelectorAll("li")[0], a, "the same rows, marked, not rebuilt");
  assert.equal(a.dataset.stale, "true");
  assert.equal(a.querySelector(".tl-sr").textContent, " passed (from the previous check)");
  assert.equal(view.dom.getAttribute("aria-busy"), "true");
  prev = state;
  state = reduce(state, actions.blocked("cannot"));
  view.update(state, prev);
  assert.equal(a.dataset.stale, undefined);
  assert.equal(a.querySelector(".tl-sr").textContent, " passed");
  assert.equal(view.dom.hasAttribute("aria-busy"), false);
  assert.ok(document);
});

test("dependencies: hidden with nothing to say; the same checkbox is updated in place and reports clicks", () => {
  const { document } = page("");
  const toggled = [];
  const view = createDepsView({ onToggle: (checked) => toggled.push(checked) });
  const state = base();
  view.update(state, null);
  assert.equal(view.dom.hidden, true);
  const gate = { text: "M2 needs M1: M1 has not passed here yet.", label: "Use the reference M1", refDeps: false };
  const next = reduce(state, actions.deps(gate));
  view.update(next, state);
  assert.equal(view.dom.hidden, false);
  assert.equal(view.dom.querySelector(".tl-needs").textContent, gate.text);
  assert.equal(view.dom.querySelector("label").textContent, " Use the reference M1");
  const box = view.dom.querySelector("input.tl-refdeps");
  box.checked = true;
  box.dispatchEvent(new (document.defaultView.Event)("change"));
  const on = reduce(next, actions.deps({ ...gate, text: "Checking against the reference M1, not your own code.", refDeps: true }));
  view.update(on, next);
  assert.equal(view.dom.querySelector("input.tl-refdeps"), box);
  assert.equal(box.checked, true);
  view.destroy();
  box.dispatchEvent(new (document.defaultView.Event)("change"));
  assert.deepEqual(toggled, [true], "no calls after destroy");
});

test("conflict: the words for another tab and for a draft, each button naming its choice", () => {
  const { document } = page("");
  const chosen = [];
  const view = createConflictView({ onResolve: (choice) => chosen.push(choice) });
  const state = base();
  view.update(state, null);
  assert.equal(view.dom.hidden, true);
  assert.equal(view.dom.getAttribute("role"), "alert");
  const tab = reduce(state, actions.conflict("theirs", "tab"));
  view.update(tab, state);
  assert.equal(view.dom.hidden, false);
  const [useTheirs, keepMine] = view.dom.querySelectorAll("button");
  assert.deepEqual([useTheirs.textContent, keepMine.textContent], ["Use the other tab's version", "Keep this version"]);
  useTheirs.click();
  keepMine.click();
  const draft = reduce(tab, actions.conflict("draft", "draft"));
  view.update(draft, tab);
  assert.deepEqual([...view.dom.querySelectorAll("button")].map((x) => x.textContent), ["Restore the draft", "Discard the draft"]);
  view.destroy();
  view.dom.querySelector("button").click();
  assert.deepEqual(chosen, ["theirs", "mine"]);
  assert.ok(document);
});

test("toolbar: only Stop works while busy; an example has no Check; destroy removes the click listeners", () => {
  page("");
  const calls = [];
  const commands = Object.fromEntries(["run", "check", "stop", "reset"].map((n) => [n, () => calls.push(n)]));
  const view = createToolbarView({ exercise: true, commands });
  const idle = base();
  view.update(idle, null);
  assert.deepEqual(Object.values(view.buttons).map((b) => b.disabled), [false, false, true, false]);
  const busy = reduce(idle, actions.started("check"));
  view.update(busy, idle);
  assert.deepEqual(Object.values(view.buttons).map((b) => b.disabled), [true, true, false, true]);
  view.buttons.stop.click();
  view.destroy();
  view.buttons.stop.click();
  assert.deepEqual(calls, ["stop"]);
  const example = createToolbarView({ exercise: false, commands });
  assert.deepEqual([...example.dom.querySelectorAll("button")].map((b) => b.textContent), ["Run", "Stop", "Reset"]);
  assert.match(example.dom.querySelector(".tl-hint").textContent, /^Ctrl\/⌘\+Enter runs/);
});

test("status: the stage in words, a failure named, restarts counted in the title, nothing written twice", async () => {
  const { window } = page("");
  const view = createStatusView({ path: "python/tinyllm/x.py" });
  let state = base();
  view.update(state, null);
  const status = view.dom.querySelector(".tl-status");
  assert.equal(view.dom.querySelector(".tl-path").textContent, "python/tinyllm/x.py");
  assert.equal(status.textContent, "Starting Python…");
  assert.equal(status.dataset.stage, "starting");
  const prev = state;
  state = reduce(state, actions.python({ stage: "numpy", failed: "", restarts: 2 }));
  view.update(state, prev);
  assert.equal(status.textContent, "Ready to run · loading the checker…");
  assert.equal(status.title, "Python restarted 2 times");
  const failed = reduce(state, actions.python({ stage: "", failed: "pyodide.asm.wasm: HTTP 404", restarts: 0 }));
  view.update(failed, state);
  assert.equal(status.textContent, "Python could not start: pyodide.asm.wasm: HTTP 404");
  assert.equal(status.dataset.stage, "failed");
  // A report that changes nothing the cell shows (another download report, the same stage) writes nothing.
  const writes = [];
  new window.MutationObserver((records) => writes.push(...records)).observe(view.dom,
    { subtree: true, childList: true, attributes: true, characterData: true });
  const again = reduce(failed, actions.python({ stage: "", failed: "pyodide.asm.wasm: HTTP 404", restarts: 0 }));
  view.update(again, failed);
  const restarted = reduce(again, actions.python({ stage: "numpy", failed: "", restarts: 2 }));
  view.update(restarted, again);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(writes.map((r) => r.attributeName).filter(Boolean), ["data-stage"], "only the stage's change");
  writes.length = 0;
  view.update(reduce(restarted, actions.python({ stage: "numpy", failed: "", restarts: 2 })), restarted);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(writes, [], "nothing was written");
});

test("status: a download bar on a slow start only, with its value and words for screen readers", () => {
  page("");
  const view = createStatusView({ path: "x.py" });
  const bar = view.dom.querySelector(".tl-loading");
  const at = (loading, extra = {}) => reduce(base(), actions.python({ stage: "", failed: "", restarts: 0, loading, ...extra }));
  let prev = base();
  view.update(prev, null);
  assert.equal(bar.hidden, true, "nothing known yet");
  const early = at({ received: 1e6, total: 14.8e6, ms: BAR_AFTER_MS - 1 });
  view.update(early, prev);
  assert.equal(bar.hidden, true, "no bar flashes on a start under a second");
  prev = early;
  const slow = at({ received: 3.2e6, total: 14.8e6, ms: 4000 });
  view.update(slow, prev);
  assert.equal(bar.hidden, false);
  const meter = bar.querySelector("progress");
  assert.equal(meter.getAttribute("value"), "21");
  assert.equal(meter.getAttribute("aria-valuetext"), "Downloading Python: 3.2 of 14.8 MB");
  assert.equal(bar.textContent, "Downloading Python: 3.2 of 14.8 MB");
  const done = at({ received: 14.8e6, total: 14.8e6, ms: 6000 });
  view.update(done, slow);
  assert.equal(bar.hidden, true, "gone once everything is in");
  assert.equal(downloadBar({ loading: { received: 1, total: 2, ms: 5000 }, failed: "HTTP 404" }), null);
  assert.equal(downloadBar({ loading: { received: 1, total: 0, ms: 5000 } }), null, "no total, no bar");
});

test("summary and output: text only, the output hidden when empty", () => {
  page("");
  const summary = createSummaryView();
  const output = createOutputView();
  const state = base();
  summary.update(state, null);
  output.update(state, null);
  assert.equal(output.dom.hidden, true);
  assert.equal(summary.dom.getAttribute("aria-live"), "polite");
  const ran = reduce(reduce(state, actions.started("run")), actions.stdout("<b>hi</b>\n"));
  output.update(ran, state);
  summary.update(ran, state);
  assert.equal(output.dom.hidden, false);
  assert.equal(output.dom.textContent, "<b>hi</b>\n");
  assert.equal(output.dom.querySelector("b"), null);
  assert.equal(summary.dom.textContent, "Queued: runs as soon as Python is ready…");
});

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==";

test("output: a run's figures in order with its text, as images with their text alternative and notes as text", () => {
  page("");
  const output = createOutputView();
  let state = reduce(base(), actions.started("run"));
  output.update(state, null);
  const figures = [
    { kind: "image", mime: "image/png", data: PNG, alt: "exact <b>vs</b> naive", at: 7 },
    { kind: "image", mime: "image/png", data: PNG, alt: "figure 2", at: null },
    { kind: "note", text: "3 more figures were not shown" },
  ];
  const prev = state;
  state = reduce(state, actions.finished({ status: "ok", stdout: "before\nafter\n", traceback: "", figures }, { timeLimit: 20 }));
  output.update(state, prev);
  const kinds = [...output.dom.childNodes].map((n) => (n.nodeType === 3 ? `text:${n.textContent}` : n.tagName.toLowerCase()));
  assert.deepEqual(kinds, ["text:before\n", "img", "text:after\n", "img", "span"]);
  const [first, second] = output.dom.querySelectorAll("img");
  assert.equal(first.getAttribute("alt"), "exact <b>vs</b> naive");
  assert.equal(first.getAttribute("src"), `data:image/png;base64,${PNG}`);
  assert.equal(second.getAttribute("alt"), "figure 2");
  assert.equal(output.dom.querySelector("b"), null, "a title is text");
  assert.equal(output.dom.querySelector(".tl-figure-note").textContent, "3 more figures were not shown");
  assert.equal(output.dom.classList.contains("tl-has-figures"), true);
  assert.equal(output.dom.textContent, "before\nafter\n3 more figures were not shown", "the text reads as printed");

  // The next run starts with no figures; a run that draws nothing shows text only.
  const again = reduce(state, actions.started("run"));
  output.update(again, state);
  assert.equal(output.dom.querySelectorAll("img").length, 0);
  assert.equal(output.dom.classList.contains("tl-has-figures"), false);
  assert.equal(output.dom.hidden, true);
});

test("output: figures placed at an offset past the text, or at the same offset, keep their order after it", () => {
  const a = { kind: "note", text: "a", at: 3 };
  const b = { kind: "note", text: "b", at: 99 };
  const c = { kind: "note", text: "c", at: 3 };
  assert.deepEqual(outputPieces("abcdef", [a, b, c]), [{ text: "abc" }, { figure: a }, { figure: c }, { text: "def" }, { figure: b }]);
  assert.deepEqual(outputPieces("", [b]), [{ figure: b }]);
  assert.deepEqual(outputPieces("x", []), [{ text: "x" }]);
});

test("progress: the summary says what is loading while a run waits for it, then that it runs", () => {
  let state = reduce(base(), actions.python({ stage: "pytest", failed: "", restarts: 0 }));
  state = reduce(state, actions.started("run"));
  state = reduce(state, actions.progress("Loading matplotlib (9.8 MB, once)…"));
  assert.equal(state.message, "Loading matplotlib (9.8 MB, once)…");
  state = reduce(state, actions.progress(""));
  assert.equal(state.message, "Running…");
  const done = reduce(state, actions.finished({ status: "ok", stdout: "", traceback: "" }, { timeLimit: 20 }));
  assert.equal(reduce(done, actions.progress("late")), done, "progress after the result changes nothing");
});

test("diff: shown after a pass, each line marked as the learner's, the reference's or both", () => {
  page("");
  const view = createDiffView();
  const result = { status: "passed", stdout: "", traceback: "", tests: [], code: "a" };
  const state = reduce(base(), actions.finished(result, { timeLimit: 20 }));
  view.update(state, null);
  assert.equal(view.dom.hidden, true);
  const lines = [{ op: " ", text: "same" }, { op: "-", text: "<mine>" }, { op: "+", text: "theirs" }];
  const shown = reduce(state, actions.diff({ same: false, lines }, result));
  view.update(shown, state);
  assert.equal(view.dom.hidden, false);
  assert.equal(view.dom.querySelector("summary").textContent, "You passed: compare your code with the reference");
  assert.deepEqual([...view.dom.querySelectorAll("pre span")].map((s) => [s.className, s.textContent]),
    [["tl-diff-same", "  same\n"], ["tl-diff-del", "- <mine>\n"], ["tl-diff-add", "+ theirs\n"]]);
});
