// The worker's start-up marks (web/src/worker/boot/context.js MARKS): every step the code marks is listed with
// what it means (bench/engines.py prints the list as its table's rows), and every listed step is marked.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";

import { MARKS } from "../src/worker/boot/context.js";

const BOOT = new URL("../src/worker/boot/", import.meta.url);

test("every mark the start-up makes is one MARKS lists, and every one it lists is made", () => {
  const made = new Set();
  for (const name of readdirSync(BOOT).filter((f) => f.endsWith(".js"))) {
    for (const [, mark] of readFileSync(new URL(name, BOOT), "utf8").matchAll(/ctx\.mark\("(\w+)"\)/g)) made.add(mark);
  }
  assert.ok(made.size > 5, `only ${made.size} marks found: has the way of marking changed?`);
  assert.deepEqual([...made].filter((m) => !(m in MARKS)), [], "marked but not listed");
  assert.deepEqual(Object.keys(MARKS).filter((m) => !made.has(m)), [], "listed but never marked");
  for (const [mark, what] of Object.entries(MARKS)) assert.ok(what.length > 5 && !what.includes('"'), mark);
});
