// The code cell's state (web/src/page/cell/state.js) action by action, its model, and the summary line
// (web/src/page/cell/summary.js), which reads the judge's `phase` when a result has one.
import { test } from "node:test";
import assert from "node:assert/strict";

import { actions, createModel, initialState, reduce } from "../src/page/cell/state.js";
import { summarise } from "../src/page/cell/summary.js";

const fresh = () => initialState({ kind: "exercise", starter: "# starter\n", code: "# starter\n" });
const ready = () => reduce(fresh(), actions.python({ stage: "pytest", failed: "", restarts: 0 }));
const rows = (outcome) => [{ name: "test_a", outcome, message: "" }, { name: "test_b", outcome, message: "" }];
const apply = (state, ...list) => list.reduce(reduce, state);

test("a check: busy, then the judge's rows, status and summary; the code is the editor's", () => {
  let s = apply(ready(), actions.edited("x = 1\n"), actions.started("check"));
  assert.equal(s.busy, "check");
  assert.equal(s.status, "", "the previous verdict no longer describes the code");
  assert.equal(s.message, "Checking…");
  assert.equal(s.stale, false, "no rows yet, so none stale");
  const result = { status: "failed", stdout: "out\n", traceback: "Traceback\n", tests: rows("failed") };
  s = reduce(s, actions.finished(result, { timeLimit: 20 }));
  assert.equal(s.busy, "");
  assert.equal(s.status, "failed");
  assert.equal(s.message, "0 of 2 tests pass.");
  assert.equal(s.output, "out\n\nTraceback\n");
  assert.equal(s.tests, result.tests);
  assert.equal(s.code, "x = 1\n");
});

test("before Python is ready, a request says it is queued", () => {
  assert.equal(reduce(fresh(), actions.started("run")).message, "Queued: runs as soon as Python is ready…");
  const numpy = reduce(fresh(), actions.python({ stage: "numpy", failed: "", restarts: 0 }));
  assert.equal(reduce(numpy, actions.started("run")).message, "Running…");
  assert.equal(reduce(numpy, actions.started("check")).message, "Queued: checks as soon as Python is ready…");
});

test("a new check marks the previous rows stale until its result; a run leaves them as they are", () => {
  const checked = apply(ready(), actions.started("check"), actions.finished({ status: "passed", stdout: "", traceback: "", tests: rows("passed") }, { timeLimit: 20 }));
  const again = reduce(checked, actions.started("check"));
  assert.equal(again.stale, true);
  assert.equal(again.tests, checked.tests, "the rows stay on screen");
  assert.equal(again.message, "Checking… The results below are from your previous check.");
  assert.equal(reduce(again, actions.blocked("X needs Y.")).stale, false);
  const done = reduce(again, actions.finished({ status: "failed", stdout: "", traceback: "", tests: rows("failed") }, { timeLimit: 20 }));
  assert.equal(done.stale, false);
  assert.equal(done.tests[0].outcome, "failed");
  const ran = apply(checked, actions.started("run"), actions.stdout("a"), actions.stdout("b"));
  assert.equal(ran.stale, false);
  assert.equal(ran.output, "ab");
  const after = reduce(ran, actions.finished({ status: "ok", stdout: "ab", traceback: "" }, { timeLimit: 20 }));
  assert.equal(after.tests, checked.tests, "a run has no rows of its own");
  assert.equal(after.status, "ok");
});

test("a restored result reads 'Last check:'; the diff belongs to the result it was made for", () => {
  const result = { status: "passed", stdout: "", traceback: "", tests: rows("passed"), code: "c" };
  const s = reduce(fresh(), actions.finished(result, { timeLimit: 20, restored: true }));
  assert.equal(s.message, "Last check: All 2 tests pass.");
  const diff = { same: true, lines: [] };
  assert.equal(reduce(s, actions.diff(diff, result)).diff, diff);
  assert.equal(reduce(s, actions.diff(diff, { ...result })), s, "a diff for an older result is dropped");
});

test("conflicts, Reset, and actions that change nothing", () => {
  const s = apply(ready(), actions.edited("mine\n"), actions.conflict("theirs\n", "tab"));
  assert.deepEqual(s.conflict, { theirs: "theirs\n", where: "tab" });
  const resolved = reduce(s, actions.resolved("theirs\n"));
  assert.equal(resolved.conflict, null);
  assert.equal(resolved.code, "theirs\n");
  const reset = reduce(resolved, actions.reset());
  assert.equal(reset.code, "# starter\n");
  assert.match(reset.message, /Starter code restored/);
  assert.equal(reduce(reset, actions.edited("# starter\n")), reset, "the same code: the same state object");
  assert.throws(() => reduce(reset, { type: "explode" }), /unknown cell action "explode"/);
});

test("the model tells its views each change once, and queues actions dispatched while they update", () => {
  const model = createModel(fresh());
  const seen = [];
  model.subscribe((state, prev) => {
    seen.push([prev.code, state.code]);
    if (state.code === "reset by a view\n") model.dispatch(actions.edited("echoed by the editor\n"));
  });
  model.dispatch(actions.edited("# starter\n")); // no change: nobody is told
  model.dispatch(actions.edited("reset by a view\n"));
  assert.deepEqual(seen, [["# starter\n", "reset by a view\n"], ["reset by a view\n", "echoed by the editor\n"]]);
  assert.equal(model.state.code, "echoed by the editor\n");
});

test("summaries: by status, and by the judge's phase when there is one", () => {
  const errorRows = rows("error");
  assert.equal(summarise({ status: "passed", tests: rows("passed") }, 20), "All 2 tests pass.");
  assert.equal(summarise({ status: "ok" }, 20), "Ran without errors.");
  assert.equal(summarise({ status: "stopped", tests: [] }, 20), "Stopped. Your code is still here.");
  assert.match(summarise({ status: "timeout", tests: [] }, 2), /^Stopped at the time limit of 2 s: an infinite loop, or far too slow/);
  assert.match(summarise({ status: "timeout", phase: "import", tests: errorRows }, 2), /time limit of 2 s while your file was being imported/);
  // Without a phase (an older judge, or a result saved before): the old wording.
  assert.equal(summarise({ status: "error", tests: errorRows }, 20), "Your code did not run; no test could pass.");
  assert.equal(summarise({ status: "error" }, 20), "Your code raised an error.");
  // With one: what actually happened.
  assert.equal(summarise({ status: "error", phase: "import", tests: errorRows }, 20), "Your code did not run; no test could pass.");
  assert.equal(summarise({ status: "error", phase: "collect", tests: errorRows }, 20),
    "The hidden tests could not start against your code; no test could pass.");
  assert.match(summarise({ status: "error", phase: "tampered", tests: errorRows }, 20), /^Nothing was judged: the checking machinery was changed/);
});
