// zstd's decoder as a file of its own (web/src/worker/zstd.js, web/zstd-wasm.mjs): decoding into a buffer the caller
// made (the snapshot's, downloads.js fetchSnapshot) without a second copy; a buffer of the wrong size refused; a
// decoder that could not be fetched is fetched again when a frame next needs it, and says why it failed.
import { test } from "node:test";
import assert from "node:assert/strict";

import { zstdWasm } from "../zstd-wasm.mjs";

const hex = (s) => Uint8Array.from(s.match(/../g), (h) => parseInt(h, 16));
// "hello, hello, hello, hello!" x 3 as tools/pack.py's compressor writes it, saying its size (81 bytes)
const SAYS_SIZE = hex("28b52ffd20519d00004068656c6c6f2c202103007c927033b94a8a11");
const HELLO = "hello, hello, hello, hello!".repeat(3);

test("a frame decodes into the buffer it is given, which must be its size", async () => {
  const { zstd, zstdReady } = await import("../src/worker/zstd.js?into");
  await zstdReady(zstdWasm());
  const into = new Uint8Array(81);
  assert.equal(await zstd(SAYS_SIZE, into), into, "the same buffer, filled");
  assert.equal(new TextDecoder().decode(into), HELLO);
  await assert.rejects(zstd(SAYS_SIZE, new Uint8Array(80)), /holds 81 bytes, not 80/);
  assert.equal(new TextDecoder().decode(await zstd(SAYS_SIZE)), HELLO, "and into a new array without one");
});

test("a decoder that could not be fetched is asked for again by the next frame, and says why", async () => {
  const { zstd, zstdReady } = await import("../src/worker/zstd.js?retry");
  let asked = 0;
  const answers = [new Response(null, { status: 404 }), new Response(zstdWasm())];
  await assert.rejects(zstdReady(async () => answers[asked++]), /the zstd decoder: HTTP 404/);
  assert.equal(new TextDecoder().decode(await zstd(SAYS_SIZE)), HELLO, "fetched again, then decoded");
  assert.equal(asked, 2);
});

test("without a source the decoder says it was never asked for", async () => {
  const { zstd } = await import("../src/worker/zstd.js?never");
  await assert.rejects(zstd(SAYS_SIZE), /was not asked for/);
});
