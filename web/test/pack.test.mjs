import { test } from "node:test";
import assert from "node:assert/strict";
import { entries, extract, unwrap, unwrapNow } from "../src/worker/pack.js";
import { contentSize, zstdNow, zstdReady } from "../src/worker/zstd.js";
import { zstdWasm } from "../zstd-wasm.mjs";
import { makePack } from "./packs.mjs";

// Packs written by hand from the format tools/pack.py documents; tests/unit/test_pack.py reads what the real
// writer produces (zstd frames) with this reader.
const enc = new TextEncoder();
// zstd frames made by tools/pack.py's compressor (python-zstandard, level 19): "hello, hello, hello, hello!" x 3,
// which says its size (81 bytes), and "hello" written without it.
const hex = (s) => Uint8Array.from(s.match(/../g), (h) => parseInt(h, 16));
const SAYS_SIZE = hex("28b52ffd20519d00004068656c6c6f2c202103007c927033b94a8a11");
const SAYS_NOTHING = hex("28b52ffd000029000068656c6c6f");
const HELLO = "hello, hello, hello, hello!".repeat(3);
const FILES = [["numpy/__init__.py", enc.encode("x = 1\n")], ["numpy/core/a.so", new Uint8Array([0, 97, 115, 109])]];

test("a pack's files come back in order with their bytes; a file that is not a zstd frame is as it is", async () => {
  const raw = makePack(FILES);
  for (const got of [entries(await unwrap(raw)), entries(unwrapNow(raw))]) {
    assert.deepEqual(got.map(([p]) => p), ["numpy/__init__.py", "numpy/core/a.so"]);
    assert.deepEqual([...got[1][1]], [0, 97, 115, 109]);
  }
  await zstdReady(zstdWasm());
  assert.equal(new TextDecoder().decode(await unwrap(SAYS_SIZE)), HELLO);
  assert.equal(new TextDecoder().decode(unwrapNow(SAYS_SIZE)), HELLO);
});

test("damaged packs are refused with a message naming the problem", () => {
  assert.throws(() => entries(makePack(FILES, { magic: "PK\x03\x04\n\n" })), /not a TLPK1 pack/);
  const whole = makePack(FILES);
  assert.throws(() => entries(whole.subarray(0, whole.length - 2)), /truncated at numpy\/core\/a.so/);
  assert.throws(() => entries(whole.subarray(0, 30)), /header is damaged/);
  assert.throws(() => entries(makePack(FILES, { extra: new Uint8Array(3) })), /3 stray bytes/);
  assert.throws(() => entries(makePack([["../etc/x", new Uint8Array(1)]])), /bad path/);
});

test("extract writes every file under the folder, creating each folder once", () => {
  const written = {};
  const made = [];
  const fs = { mkdirTree: (d) => made.push(d), writeFile: (p, b) => { written[p] = [...b]; } };
  extract(fs, makePack(FILES), "/lib/site");
  assert.deepEqual(made, ["/lib/site/numpy", "/lib/site/numpy/core"]);
  assert.deepEqual(Object.keys(written), ["/lib/site/numpy/__init__.py", "/lib/site/numpy/core/a.so"]);
});


test("a zstd frame's declared size is read from each header layout", () => {
  assert.equal(contentSize(SAYS_SIZE), 81);
  assert.equal(contentSize(SAYS_NOTHING), -1);
  const frame = (descriptor, ...rest) => Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, descriptor, ...rest]);
  assert.equal(contentSize(frame(0x20, 200)), 200, "single segment, 1 byte");
  assert.equal(contentSize(frame(0x40, 0x58, 0x01, 0x02)), 0x0201 + 256, "window byte, then 2 bytes plus 256");
  assert.equal(contentSize(frame(0xa1, 7, 0x00, 0x00, 0xe0, 0x01)), 0x01e00000,
    "single segment, a 1-byte dictionary id, 4 bytes");
  assert.equal(contentSize(frame(0xe0, 1, 0, 0, 0, 1, 0, 0, 0)), 2 ** 32 + 1, "8 bytes");
  assert.equal(contentSize(frame(0x80, 0x58, 1, 2)), -1, "cut short");
  assert.equal(contentSize(Uint8Array.from([1, 2, 3, 4, 5, 6])), -1, "not zstd");
});

test("a zstd frame decodes to the size it declares; a damaged or silent one is an error, not other bytes", async () => {
  await zstdReady(zstdWasm());
  assert.equal(new TextDecoder().decode(zstdNow(SAYS_SIZE)), HELLO);
  assert.throws(() => zstdNow(SAYS_SIZE.subarray(0, SAYS_SIZE.length - 6)), /damaged zstd frame/);
  assert.throws(() => zstdNow(SAYS_NOTHING), /does not say its size/);
});
