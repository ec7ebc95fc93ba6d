import { test } from "node:test";
import assert from "node:assert/strict";
import { checksum, dataLength, memoryOffset, xorMemory } from "../src/shared/snapshot-delta.js";

// A snapshot as Pyodide lays it out (src/js/snapshot.ts): a header whose second word is where the memory starts.
function snapshotOf(memory, offset = 64) {
  const out = new Uint8Array(offset + memory.length);
  new DataView(out.buffer).setUint32(4, offset, true);
  out.set(memory, offset);
  return out;
}

test("the delta leaves zeros where the memory is unchanged, and undoing it gives the snapshot back", () => {
  const initial = new Uint8Array(64).map((_, i) => (i < 40 ? (i * 7 + 3) & 0xff : 0));
  assert.equal(dataLength(initial), 40);
  const memory = initial.slice();
  memory[5] ^= 0x55; // one byte changed since start-up
  memory[50] = 9; // memory beyond the initial data
  const snapshot = snapshotOf(memory);
  xorMemory(snapshot, initial, 40);
  const delta = snapshot.subarray(memoryOffset(snapshot));
  assert.deepEqual([...delta.subarray(0, 40)].filter((b) => b !== 0), [0x55]);
  assert.equal(delta[50], 9);
  xorMemory(snapshot, initial, 40);
  assert.deepEqual(snapshot.subarray(64), memory);
});

test("an unaligned snapshot is undone byte by byte, the same way", () => {
  const initial = new Uint8Array(16).fill(0xab);
  const buffer = new Uint8Array(1 + 32 + 16);
  const snapshot = buffer.subarray(1);
  snapshot.set(snapshotOf(new Uint8Array(16).fill(0xab), 32));
  xorMemory(snapshot, initial, 16);
  assert.ok(snapshot.subarray(32).every((b) => b === 0));
});

test("the checksum tells memories apart", () => {
  const a = new Uint8Array(32).fill(1);
  const b = a.slice();
  b[31] = 2;
  assert.notEqual(checksum(a, 32), checksum(b, 32));
  assert.equal(checksum(a, 32), checksum(a.slice(), 32));
});
