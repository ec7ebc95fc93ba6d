import { test } from "node:test";
import assert from "node:assert/strict";
import { counted, createMeter } from "../src/worker/boot/line.js";
import { expectLoading, noneArrived } from "../src/worker/boot/downloads.js";
import { signal } from "../src/worker/boot/context.js";

// A start-up context as context.js makes it, with the page's messages kept.
function fakeContext() {
  const posted = [];
  const coreIn = signal();
  return { post: (m) => posted.push(m), posted, t0: 0, loading: noneArrived(), coreIn, line: createMeter(coreIn.promise) };
}

// A response whose body arrives in `chunks`, each only when the test lets it (`next()`).
function slowResponse(chunks) {
  let pull;
  const gate = () => new Promise((resolve) => { pull = resolve; });
  let waiting = gate();
  const body = new ReadableStream({
    async pull(controller) {
      await waiting;
      waiting = gate();
      if (chunks.length) controller.enqueue(chunks.shift());
      else controller.close();
    },
  });
  return { response: new Response(body), next: () => pull() };
}

const tick = () => new Promise((resolve) => { setTimeout(resolve, 5); });
// Wait until `cond()` holds (the streams move on their own schedule, slower on a busy machine).
async function until(cond) {
  for (let i = 0; i < 400 && !cond(); i++) await tick();
  assert.ok(cond(), `timed out waiting for ${cond}`);
}

test("counted: `whenIn` is called once, when the whole body is in, not on its first chunk (issue 30)", async () => {
  const ctx = fakeContext();
  const calls = [];
  const { response, next } = slowResponse([new Uint8Array(100), new Uint8Array(50)]);
  const out = counted(ctx, response, (...args) => calls.push(args));
  const read = out.arrayBuffer();
  next();
  await until(() => ctx.line.bytes === 100);
  await tick();
  assert.deepEqual(calls, [], "the first chunk settles nothing");
  next();
  await until(() => ctx.line.bytes === 150);
  await tick();
  assert.deepEqual(calls, []);
  next(); // the end of the body
  await until(() => calls.length > 0);
  await tick();
  assert.deepEqual(calls, [[]], "called once, with nothing");
  assert.equal((await read).byteLength, 150, "the consumer reads the whole body");
});

test("counted: the bytes count toward the progress bar as well as the line's meter", async () => {
  const ctx = fakeContext();
  const { response, next } = slowResponse([new Uint8Array(300), new Uint8Array(200)]);
  let allIn;
  expectLoading(ctx, 1000, new Promise((resolve) => { allIn = resolve; }));
  ctx.loading.last = -1e6; // the page was last told long ago: the first chunk is reported
  const read = counted(ctx, response).arrayBuffer();
  next();
  await until(() => ctx.line.bytes === 300);
  next();
  await until(() => ctx.line.bytes === 500);
  next();
  await read;
  assert.equal(ctx.line.bytes, 500);
  assert.equal(ctx.loading.received, 500, "the progress bar's count has the core's and the library's bytes");
  assert.ok(ctx.posted.some((m) => m.type === "loading" && m.received === 300), "the page is told as they arrive");
  allIn();
});

test("counted: the line's measure waits for the whole core (coreIn), not its first chunk", async () => {
  const ctx = fakeContext();
  const { response, next } = slowResponse([new Uint8Array(10), new Uint8Array(10)]);
  let measured = false;
  ctx.line.measured.then(() => { measured = true; });
  counted(ctx, response, ctx.coreIn.settle).arrayBuffer();
  next();
  await until(() => ctx.line.bytes === 10);
  await tick();
  assert.equal(measured, false, "one chunk in: still measuring");
  next();
  await until(() => ctx.line.bytes === 20);
  next(); // the end of the body
  await until(() => measured);
});

test("counted: on a fast line the measure ends once a megabyte is in, before the whole core", async () => {
  const ctx = fakeContext();
  const { response, next } = slowResponse([new Uint8Array(1 << 20), new Uint8Array(10)]);
  let measured = false;
  ctx.line.measured.then(() => { measured = true; });
  counted(ctx, response, ctx.coreIn.settle).arrayBuffer();
  next();
  await until(() => measured);
  assert.equal(ctx.line.bytes, 1 << 20, "measured with the core still arriving");
  next();
  next();
});

// numpy's pack is asked for when the core has little left to come (core.js NEARLY_IN_BYTES, files.js), so that its
// request's round trip overlaps the core's last bytes instead of leaving the line idle.
function withLength(response, length) {
  return new Response(response.body, { headers: { "Content-Length": String(length) } });
}

test("counted: `nearly` is called once, as soon as no more than `left` bytes are still to come", async () => {
  const ctx = fakeContext();
  const calls = [];
  const { response, next } = slowResponse([new Uint8Array(500), new Uint8Array(300), new Uint8Array(200)]);
  const read = counted(ctx, withLength(response, 1000), () => calls.push("in"),
    { left: 250, then: () => calls.push("nearly") }).arrayBuffer();
  next();
  await until(() => ctx.line.bytes === 500);
  await tick();
  assert.deepEqual(calls, [], "500 still to come");
  next();
  await until(() => calls.length > 0);
  assert.deepEqual(calls, ["nearly"], "200 still to come: nearly in, not in");
  next();
  await until(() => ctx.line.bytes === 1000);
  next(); // the end of the body
  await until(() => calls.includes("in"));
  assert.deepEqual(calls, ["nearly", "in"], "once each");
  assert.equal((await read).byteLength, 1000);
});

test("counted: without a Content-Length, `nearly` waits for the whole body", async () => {
  const ctx = fakeContext();
  const calls = [];
  const { response, next } = slowResponse([new Uint8Array(100), new Uint8Array(100)]);
  const read = counted(ctx, response, () => calls.push("in"), { left: 1000, then: () => calls.push("nearly") }).arrayBuffer();
  next();
  await until(() => ctx.line.bytes === 100);
  next();
  await until(() => ctx.line.bytes === 200);
  await tick();
  assert.deepEqual(calls, []);
  next();
  await until(() => calls.includes("in"));
  assert.deepEqual(calls, ["nearly", "in"]);
  await read;
});
