// The numeric answer rule (numeric.js close) on the golden cases course/numeric.py is held to as well
// (tests/unit/test_numeric_rule.py): the page grades a learner's answer as validation proves the author's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { close, FLOOR } from "../src/page/numeric.js";

const golden = JSON.parse(readFileSync(new URL("../../tests/fixtures/numeric/cases.json", import.meta.url), "utf8"));

test("the golden cases", () => {
  for (const [value, target, tolerance, counts, why] of golden.cases) {
    assert.equal(close(Number(value), Number(target), tolerance), counts, why);
  }
});

test("the floor is the one course/numeric.py writes", () => {
  const py = readFileSync(new URL("../../course/numeric.py", import.meta.url), "utf8");
  assert.match(py, new RegExp(`^FLOOR = ${FLOOR}$`, "m"));
});
