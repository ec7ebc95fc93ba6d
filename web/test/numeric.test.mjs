// Unit tests of web/src/page/numeric.js: reading what learners type, and judging it against a prompt's answer.
import { test } from "node:test";
import assert from "node:assert/strict";

import { parseAnswer, parseNumber, judgeAnswer, close, MAX_INPUT } from "../src/page/numeric.js";

/** The values parsed from `input`, failing with the parser's own message when it refuses. */
function values(input, expected = 1) {
  const parsed = parseAnswer(input, expected);
  assert.ok(!parsed.error, `${JSON.stringify(input)} was refused: ${parsed.error}`);
  return parsed.values;
}

/** The error for `input`; fails if it was accepted. */
function refusal(input, expected = 1) {
  const parsed = parseAnswer(input, expected);
  assert.ok(parsed.error, `${JSON.stringify(input)} was accepted as ${JSON.stringify(parsed.values)}`);
  assert.equal(parsed.values, undefined);
  return parsed.error;
}

test("one number, written the ways people write it", () => {
  for (const input of ["0.5", ".5", "1/2", "50%", "5e-1", " 0.5 ", "0,5", "[0.5]", "(1/2)", "+0.5"]) {
    assert.deepEqual(values(input), [0.5], input);
  }
  assert.deepEqual(values("100%"), [1]);
  assert.deepEqual(values("1e-3"), [0.001]);
  assert.deepEqual(values("0.375"), [0.375]);
});

test("unicode minus", () => {
  assert.deepEqual(values("\u22120.2"), [-0.2]);
  assert.deepEqual(values("[1, \u22120.5, 0]", 3), [1, -0.5, 0]);
  assert.deepEqual(values("\u22121/4"), [-0.25]);
});

test("unicode minus with a decimal comma", () => {
  // Found by this test: the decimal-comma rule only knew the ASCII minus, so "−0,5" read as two numbers.
  assert.deepEqual(values("\u22120,5"), [-0.5]);
  assert.deepEqual(values("-0,5"), [-0.5]);
});

test("three numbers, with commas, spaces, brackets or semicolons", () => {
  for (const input of ["1, 0, 0", "1,0,0", "[1 0 0]", "[1, 0, 0]", "(1; 0; 0)", "1;0;0", "  1   0   0  "]) {
    assert.deepEqual(values(input, 3), [1, 0, 0], input);
  }
  assert.deepEqual(values("1/2, 1/4, 25%", 3), [0.5, 0.25, 0.25]);
});

test("a decimal comma: the expected length decides", () => {
  assert.deepEqual(values("0,5", 1), [0.5]);
  assert.deepEqual(values("0,5", 2), [0, 5]);
  assert.deepEqual(values("0,5; 0,3; 0,2", 3), [0.5, 0.3, 0.2]);
  assert.deepEqual(values("0,5 0,3 0,2", 3), [0.5, 0.3, 0.2]);
  assert.deepEqual(values("12,5%", 1), [0.125]);
});

test("refuses text, with the offending token quoted", () => {
  assert.equal(refusal("abc"), 'Could not read that: "abc" is not a number.');
  assert.equal(refusal("1, x, 0", 3), 'Could not read that: "x" is not a number.');
  assert.match(refusal("0x10"), /"0x10" is not a number/);
  assert.match(refusal("1/2/3"), /is not a number/);
});

test("refuses an empty answer", () => {
  for (const input of ["", "   ", "\n"]) assert.equal(refusal(input), "Type an answer first.");
  assert.equal(refusal(undefined), "Type an answer first.");
  assert.equal(refusal(null), "Type an answer first.");
});

test("refuses numbers that are not finite", () => {
  assert.equal(refusal("NaN"), 'Could not read that: "NaN" is not a finite number.');
  assert.equal(refusal("-Infinity"), 'Could not read that: "-Infinity" is not a finite number.');
  assert.equal(refusal("1e309"), 'Could not read that: "1e309" is too large to be a probability.');
  assert.equal(refusal("1/0"), 'Could not read that: "1/0" divides by zero.');
  assert.match(refusal("1e308/1e-308"), /too large/);
});

test("refuses an overlong answer before reading it", () => {
  const long = "1".repeat(1000);
  assert.equal(refusal(long), `That is 1000 characters; an answer fits in ${MAX_INPUT}.`);
  assert.deepEqual(values(`${"0".repeat(MAX_INPUT - 3)}0.5`), [0.5]); // exactly at the limit is fine
});

test("long garbage is shortened in the message", () => {
  const error = refusal("abcdefghijklmnopqrstuvwxyz0123456789");
  assert.ok(error.includes("…"), error);
  assert.ok(error.length < 80, error);
});

test("the wrong count says how many were read", () => {
  assert.equal(refusal("1, 0", 3), "Expected 3 numbers, read 2.");
  assert.equal(refusal("1, 2", 1), "Expected 1 number, read 2.");
  assert.equal(refusal("[]", 1), "Expected 1 number, read 0.");
});

test("parseNumber on single tokens", () => {
  assert.deepEqual(parseNumber("3/4"), { value: 0.75 });
  assert.deepEqual(parseNumber("\u22122"), { value: -2 });
  assert.deepEqual(parseNumber(""), { error: "an empty entry" });
  assert.ok(parseNumber("inf").error.includes("not a finite number"));
});

// --- judging -----------------------------------------------------------------------------------------------------

const RESIDUAL = {
  answer: [1, 0, 0], tolerance: 1e-6,
  feedback: [{ answer: [0.25, 0, 0], message: "Divide by its sum." }, { answer: [0.5, 0.3, 0.2], message: "That is p." }],
};
const TOTAL = {
  answer: [0.5], tolerance: 1e-6,
  feedback: [{ answer: [0.375], message: "0.375 is what the wrong shortcut gives." }],
};

test("correct within tolerance", () => {
  assert.deepEqual(judgeAnswer([0.5], TOTAL), { verdict: "correct", wrong: [], message: "Correct." });
  assert.equal(judgeAnswer([0.5 + 5e-7], TOTAL).verdict, "correct");
  assert.equal(judgeAnswer([0.5 + 5e-6], TOTAL).verdict, "incorrect");
  assert.equal(judgeAnswer(values("1/2"), TOTAL).verdict, "correct");
  assert.equal(judgeAnswer(values("[1 0 0]", 3), RESIDUAL).verdict, "correct");
});

test("known wrong answers get their own feedback", () => {
  assert.deepEqual(judgeAnswer([0.375], TOTAL),
    { verdict: "incorrect", wrong: [0], message: "0.375 is what the wrong shortcut gives." });
  assert.equal(judgeAnswer(values("3/8"), TOTAL).message, "0.375 is what the wrong shortcut gives.");
  assert.equal(judgeAnswer([0.25, 0, 0], RESIDUAL).message, "Divide by its sum.");
  assert.deepEqual(judgeAnswer([0.5, 0.3, 0.2], RESIDUAL).wrong, [0, 1, 2]);
  assert.equal(judgeAnswer([0.5, 0.3, 0.2], RESIDUAL).message, "That is p.");
});

test("other wrong answers name the wrong entries", () => {
  assert.deepEqual(judgeAnswer([1, 0.1, 0], RESIDUAL),
    { verdict: "incorrect", wrong: [1], message: "Entry #2 is off; the others are right." });
  assert.deepEqual(judgeAnswer([0, 0, 1], RESIDUAL),
    { verdict: "incorrect", wrong: [0, 2], message: "Entries #1, #3 are off; the others are right." });
  assert.equal(judgeAnswer([0.4], TOTAL).message, "Not quite. Check your arithmetic and try again.");
});

test("close() is relative for large targets and absolute near zero", () => {
  assert.ok(close(1000.0005, 1000, 1e-6));
  assert.ok(!close(1000.01, 1000, 1e-6));
  assert.ok(close(1e-7, 0, 1e-6));
  assert.ok(!close(1e-5, 0, 1e-6));
  assert.ok(close(0.1 + 0.2, 0.3, 0), "a zero tolerance still forgives rounding");
});
