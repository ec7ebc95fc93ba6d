// The cell's one-line summary (web/src/page/cell/summary.js): one test is "test", not "tests", and the judge's phase
// decides the wording of a check that never reached the tests (checker/judge.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import { summarise } from "../src/page/cell/summary.js";

const rows = (...outcomes) => outcomes.map((outcome, i) => ({ name: `test_${i}`, outcome, message: "" }));

test("one test reads in the singular, several in the plural", () => {
  assert.equal(summarise({ status: "passed", tests: rows("passed") }, 20), "The test passes.");
  assert.equal(summarise({ status: "failed", tests: rows("failed") }, 20), "0 of 1 test passes.");
  assert.equal(summarise({ status: "passed", tests: rows("passed", "passed") }, 20), "All 2 tests pass.");
  assert.equal(summarise({ status: "failed", tests: rows("passed", "error") }, 20), "1 of 2 tests pass.");
});

test("every phase the judge sends has its own wording", () => {
  const errors = rows("error", "error");
  const said = (result) => summarise(result, 3);
  assert.match(said({ status: "timeout", phase: "import", tests: errors }), /while your file was being imported/);
  assert.match(said({ status: "timeout", phase: "timeout", tests: errors }), /^Stopped at the time limit of 3 s: an infinite loop/);
  assert.equal(said({ status: "error", phase: "import", tests: errors }), "Your code did not run; no test could pass.");
  assert.match(said({ status: "error", phase: "collect", tests: errors }), /^The hidden tests could not start/);
  assert.match(said({ status: "error", phase: "tampered", tests: errors }), /^Nothing was judged/);
  assert.equal(said({ status: "failed", phase: "tests", tests: rows("passed", "failed") }), "1 of 2 tests pass.");
});
