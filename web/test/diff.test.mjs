import { test } from "node:test";
import assert from "node:assert/strict";
import { diffLines, unifiedDiff } from "../src/page/cell/diff.js";

test("identical texts give an empty unified diff and only kept lines", () => {
  assert.equal(unifiedDiff("a\nb\n", "a\nb\n"), "");
  assert.deepEqual(diffLines("a\nb", "a\nb").map((l) => l.op), [" ", " "]);
});

test("a changed line is one removal and one addition, in order", () => {
  const lines = diffLines("a\nb\nc\n", "a\nX\nc\n");
  assert.deepEqual(lines, [
    { op: " ", text: "a" }, { op: "-", text: "b" }, { op: "+", text: "X" }, { op: " ", text: "c" },
  ]);
});

test("unified hunks carry diff -u style headers and context", () => {
  const out = unifiedDiff("1\n2\n3\n4\n5\n6\n7\n8\n", "1\n2\nX\n4\n5\n6\n7\n8\nI\n", { context: 1 });
  assert.equal(out, "--- yours\n+++ reference\n@@ -2,3 +2,3 @@\n 2\n-3\n+X\n 4\n@@ -8,1 +8,2 @@\n 8\n+I\n");
});

test("huge inputs fall back to whole sides instead of quadratic work", () => {
  const big = Array.from({ length: 2500 }, (_, i) => `line ${i}`).join("\n");
  const lines = diffLines(big, "x");
  assert.equal(lines.length, 2501);
  assert.equal(lines.at(-1).op, "+");
});
