import { test } from "node:test";
import assert from "node:assert/strict";
import { choiceFeedback } from "../src/page/feedback.js";

test("the verdict is said once", () => {
  assert.equal(choiceFeedback(true, "Correct. Acceptance emits min(p, q)."), "Correct: Acceptance emits min(p, q).");
  assert.equal(choiceFeedback(false, "Not quite: tokens are counted twice."), "Not quite: Tokens are counted twice.");
  assert.equal(choiceFeedback(false, "Wrong, p is over-weighted."), "Not quite: P is over-weighted.");
});

test("feedback without a verdict word is kept whole", () => {
  assert.equal(choiceFeedback(true, "Acceptance emits min(p, q)."), "Correct: Acceptance emits min(p, q).");
  assert.equal(choiceFeedback(false, "Nothing is resampled."), "Not quite: Nothing is resampled.");
  assert.equal(choiceFeedback(true, "Rightly so."), "Correct: Rightly so.");
});

test("empty feedback gives the verdict alone", () => {
  assert.equal(choiceFeedback(true, ""), "Correct.");
  assert.equal(choiceFeedback(false, "Not quite."), "Not quite.");
});
