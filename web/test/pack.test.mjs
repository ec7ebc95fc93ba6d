import { test } from "node:test";
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { entries, extract, joined, unwrap } from "../src/worker/pack.js";
import { containedSize, decode } from "../src/worker/lz4.js";
import { contentSize, zstdNow, zstdReady } from "../src/worker/zstd.js";

// Packs and LZ4 blocks written by hand from the formats tools/pack.py documents; tests/unit/test_pack.py reads
// what the real writer produces with this reader.
const enc = new TextEncoder();
function makePack(files, { magic = "TLPK1\n", extra = new Uint8Array() } = {}) {
  const header = enc.encode(JSON.stringify({ files: files.map(([p, d]) => [p, d.length]) }));
  const len = new Uint8Array(4);
  new DataView(len.buffer).setUint32(0, header.length, true);
  return new Uint8Array(Buffer.concat([enc.encode(magic), len, header, ...files.map(([, d]) => d), extra]));
}
function container(size, block) {
  const head = new Uint8Array(10);
  head.set(enc.encode("TLZ41\n"));
  new DataView(head.buffer).setUint32(6, size, true);
  return new Uint8Array(Buffer.concat([head, new Uint8Array(block)]));
}
const FILES = [["numpy/__init__.py", enc.encode("x = 1\n")], ["numpy/core/a.so", new Uint8Array([0, 97, 115, 109])]];

test("LZ4: literals, an overlapping match and extended lengths decode exactly", () => {
  // "ab", then a match of 6 at offset 2 (overlapping: ababab), then 20 literal x's (15 + 5), then a match of
  // 23 at offset 1 (4 + 15 + 4: a run of x), then the final literal "!".
  const x20 = Array(20).fill(0x78);
  const block = [0x22, 0x61, 0x62, 0x02, 0x00, 0xf0 | 0x0f, 5, ...x20, 0x01, 0x00, 4, 0x10, 0x21];
  // The extended-literal sequence above has match nibble 15: its match length is 4 + 15 + 4 = 23.
  const out = decode(container(2 + 6 + 20 + 23 + 1, block));
  assert.equal(new TextDecoder().decode(out), "ab" + "ababab" + "x".repeat(20) + "x".repeat(23) + "!");
});

test("LZ4: malformed blocks are refused, never read or written out of bounds", () => {
  assert.throws(() => decode(container(4, [0x40, 1, 2])), /literals run past the end/);
  assert.throws(() => decode(container(8, [0x10, 0x61, 0x05, 0x00])), /offset 5 at output byte 1/);
  assert.throws(() => decode(container(8, [0x10, 0x61, 0x00, 0x00])), /offset 0/);
  assert.throws(() => decode(container(3, [0x10, 0x61, 0x01, 0x00])), /match runs past the end/);
  assert.throws(() => decode(container(9, [0x20, 0x61, 0x62])), /2 bytes decoded, 9 expected/);
  assert.throws(() => decode(enc.encode("PK\u0003\u0004 not ours")), /not a TLZ41 container/);
});

test("a pack's files come back in order with their bytes, whatever wraps it", async () => {
  const raw = makePack(FILES);
  const literalsOnly = container(raw.length, [0xf0, ...lengthBytes(raw.length - 15), ...raw]);
  for (const wrapped of [literalsOnly, new Uint8Array(gzipSync(raw)), raw]) {
    const got = entries(await unwrap(wrapped));
    assert.deepEqual(got.map(([p]) => p), ["numpy/__init__.py", "numpy/core/a.so"]);
    assert.deepEqual([...got[1][1]], [0, 97, 115, 109]);
  }
});

function lengthBytes(n) {
  const out = [];
  for (; n >= 255; n -= 255) out.push(255);
  return [...out, n];
}

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

test("snapshot parts are joined in order: LZ4 ones decoded in place, decompressed ones copied", () => {
  const a = container(5, [0x50, ...enc.encode("hello")]);
  const b = container(7, [0x10, 0x61, 0x01, 0x00, 0x20, 0x62, 0x63]); // "a", "a" x 4 by an overlapping match, "bc"
  assert.equal(containedSize(b), 7);
  const text = (bytes) => new TextDecoder().decode(bytes);
  assert.equal(text(joined([a, b])), "helloaaaaabc");
  assert.equal(text(joined([a, enc.encode("-raw-"), b])), "hello-raw-aaaaabc");
  assert.equal(text(joined([a])), "hello");
  const raw = enc.encode("as it is");
  assert.equal(joined([raw]), raw, "one part already decompressed is returned, not copied");
  // A slice of the wrong length, and a damaged part: an error, never a silently short snapshot.
  assert.throws(() => decode(a, new Uint8Array(4)), /holds 5 bytes, not 4/);
  assert.throws(() => joined([a, container(9, [0x20, 0x61, 0x62])]), /2 bytes decoded, 9 expected/);
  // Into a buffer made ahead (the worker hands it to Pyodide before the parts arrive): exactly their size.
  const into = new Uint8Array(12);
  assert.equal(joined([a, b], into), into);
  assert.equal(text(into), "helloaaaaabc");
  assert.throws(() => joined([a, b], new Uint8Array(13)), /the parts hold 12 bytes, not 13/);
  assert.throws(() => joined([raw], new Uint8Array(3)), /the parts hold 8 bytes, not 3/);
});

// zstd frames made by tools/pack.py's compressor (python-zstandard, level 19): "hello, hello, hello, hello!" x 3,
// which says its size (81 bytes), and "hello" written without it.
const hex = (s) => Uint8Array.from(s.match(/../g), (h) => parseInt(h, 16));
const SAYS_SIZE = hex("28b52ffd20519d00004068656c6c6f2c202103007c927033b94a8a11");
const SAYS_NOTHING = hex("28b52ffd000029000068656c6c6f");

test("a zstd frame's declared size is read from each header layout", () => {
  assert.equal(contentSize(SAYS_SIZE), 81);
  assert.equal(contentSize(SAYS_NOTHING), -1);
  const frame = (descriptor, ...rest) => Uint8Array.from([0x28, 0xb5, 0x2f, 0xfd, descriptor, ...rest]);
  assert.equal(contentSize(frame(0x20, 200)), 200, "single segment, 1 byte");
  assert.equal(contentSize(frame(0x40, 0x58, 0x01, 0x02)), 0x0201 + 256, "window byte, then 2 bytes plus 256");
  assert.equal(contentSize(frame(0xa1, 7, 0x00, 0x00, 0xe0, 0x01)), 0x01e00000, "single segment, a 1-byte dictionary id, 4 bytes");
  assert.equal(contentSize(frame(0xe0, 1, 0, 0, 0, 1, 0, 0, 0)), 2 ** 32 + 1, "8 bytes");
  assert.equal(contentSize(frame(0x80, 0x58, 1, 2)), -1, "cut short");
  assert.equal(contentSize(Uint8Array.from([1, 2, 3, 4, 5, 6])), -1, "not zstd");
});

test("a zstd frame decodes to the size it declares; a damaged or silent one is an error, never other bytes", async () => {
  await zstdReady();
  assert.equal(new TextDecoder().decode(zstdNow(SAYS_SIZE)), "hello, hello, hello, hello!".repeat(3));
  assert.throws(() => zstdNow(SAYS_SIZE.subarray(0, SAYS_SIZE.length - 6)), /damaged zstd frame/);
  assert.throws(() => zstdNow(SAYS_NOTHING), /does not say its size/);
});
