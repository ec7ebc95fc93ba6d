// Start-up's downloads (web/src/worker/boot/downloads.js fetchBytes): a file read as it arrives hands over its first
// bytes as soon as they are in (numpy's pack's first frame, files.js), before the rest has come, and all of it at
// the end; a file shorter than that hands over all of it.
import { test } from "node:test";
import assert from "node:assert/strict";

import { fetchBytes, noneArrived } from "../src/worker/boot/downloads.js";

/** fetch answering with `chunks` one by one, each only once `gate(i)` resolves. */
function streaming(chunks, gate) {
  return async () => new Response(new ReadableStream({
    async pull(controller) {
      const i = this.i = (this.i ?? -1) + 1;
      if (i >= chunks.length) { controller.close(); return; }
      await gate(i);
      controller.enqueue(chunks[i]);
    },
  }));
}

const ctx = () => ({ loading: noneArrived(), post: () => {}, t0: 0 });

test("the first bytes are handed over once they are in, before the rest has come", async (t) => {
  const realFetch = globalThis.fetch;
  t.after(() => { globalThis.fetch = realFetch; });
  let release;
  const last = new Promise((resolve) => { release = resolve; });
  globalThis.fetch = streaming([Uint8Array.of(1, 2), Uint8Array.of(3, 4, 5), Uint8Array.of(6, 7)],
    (i) => (i === 2 ? last : null));
  let head = null;
  const headIn = new Promise((resolve) => { head = resolve; });
  const whole = fetchBytes(ctx(), "http://site.test/a", { headBytes: 4, head });
  assert.deepEqual([...await headIn], [1, 2, 3, 4], "the first four bytes, while the last chunk is held back");
  release();
  assert.deepEqual([...await whole], [1, 2, 3, 4, 5, 6, 7]);
});

test("a file no longer than the head is handed over whole, and once", async (t) => {
  const realFetch = globalThis.fetch;
  t.after(() => { globalThis.fetch = realFetch; });
  globalThis.fetch = streaming([Uint8Array.of(1, 2), Uint8Array.of(3)], () => null);
  const heads = [];
  const whole = await fetchBytes(ctx(), "http://site.test/a", { headBytes: 10, head: (b) => heads.push([...b]) });
  assert.deepEqual([...whole], [1, 2, 3]);
  assert.deepEqual(heads, [[1, 2, 3]]);
  const plain = await fetchBytes(ctx(), "http://site.test/a");
  assert.deepEqual([...plain], [1, 2, 3], "without a head, as before");
});
