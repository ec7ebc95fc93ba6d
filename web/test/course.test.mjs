import { test } from "node:test";
import assert from "node:assert/strict";
import { gateState } from "../src/page/course.js";

const passed = { status: "passed", tests: [{ name: "t", outcome: "passed" }] };
const failed = { status: "failed", tests: [{ name: "t", outcome: "failed" }] };
const getter = (saved) => (key) => (key in saved ? saved[key] : null);

test("the gate is closed until every member's last check passed", () => {
  const members = ["m06-3", "m07-1", "m07-6"];
  assert.deepEqual(gateState(getter({}), members), { open: false, passed: [], missing: members });
  const some = getter({ "result:m06-3": passed, "result:m07-1": failed, "code:m07-6": { code: "x" } });
  assert.deepEqual(gateState(some, members), { open: false, passed: ["m06-3"], missing: ["m07-1", "m07-6"] });
  const all = getter({ "result:m06-3": passed, "result:m07-1": passed, "result:m07-6": passed });
  assert.deepEqual(gateState(all, members), { open: true, passed: members, missing: [] });
});

test("a later failing check closes the gate again", () => {
  const members = ["a", "b"];
  assert.equal(gateState(getter({ "result:a": passed, "result:b": passed }), members).open, true);
  assert.equal(gateState(getter({ "result:a": passed, "result:b": failed }), members).open, false);
});
