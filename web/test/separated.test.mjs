// The two halves of a separated check's plumbing in the browser: the synchronous channel between two workers
// (shared/sync-channel.js), here between Node.js worker threads, and the learner worker's confinement
// (worker/confine.js) on a scope shaped like a worker's global scope. Python at both ends: tests/pyodide/test_separated.py.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";

import { CAPACITY, channelBuffer, channelEnd, closeChannel, CLOSED_NOW, SIDES, WAITED } from "../src/shared/sync-channel.js";
import { confine, CUT } from "../src/worker/confine.js";

const ECHO = `
import { workerData } from "node:worker_threads";
import { channelEnd, SIDES } from ${JSON.stringify(new URL("../src/shared/sync-channel.js", import.meta.url).href)};
const end = channelEnd(workerData, SIDES.learner);
for (;;) {
  const got = end.recv(10_000);
  if (typeof got === "number") break;
  end.send(got.map((b) => (b + 1) & 255));
}
`;

test("messages cross both ways, in order, whole, also when longer than the buffer; closing ends the wait", async () => {
  const buffer = channelBuffer(64);
  const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(ECHO)}`), { workerData: buffer });
  const end = channelEnd(buffer, SIDES.tests);
  for (const size of [0, 1, 63, 64, 65, 1000]) {
    const sent = Uint8Array.from({ length: size }, (_, i) => i % 250);
    assert.equal(end.send(sent), true);
    const got = end.recv(5000);
    assert.deepEqual([...got], [...sent].map((b) => b + 1), `a message of ${size} bytes`);
  }
  assert.equal(end.recv(20), WAITED, "nothing sent: the wait ends at its time, for an interrupt to be seen");
  const small = channelEnd(buffer, SIDES.tests, 100);
  assert.equal(small.send(new Uint8Array(101)), true);
  assert.equal(small.recv(5000), CLOSED_NOW, "an answer over the cap closes the channel, unread");
  closeChannel(buffer);
  assert.equal(end.recv(20), CLOSED_NOW);
  assert.equal(end.send(new Uint8Array([1])), false, "a closed channel takes nothing");
  await new Promise((resolve) => worker.once("exit", resolve));
  assert.ok(CAPACITY >= 1 << 20);
});

/** A scope shaped like a worker's: the APIs on prototypes, as WebIDL puts them. */
function workerLikeScope() {
  const Base = function Base() {};
  Object.defineProperty(Base.prototype, "caches", { get: () => "the origin's caches", configurable: true });
  Object.defineProperty(Base.prototype, "indexedDB", { get: () => "the origin's databases", configurable: true });
  Base.prototype.fetch = () => "a response";
  const Nav = function Nav() {};
  Object.defineProperty(Nav.prototype, "storage", { get: () => "the origin's files", configurable: true });
  const scope = new Base();
  scope.navigator = new Nav();
  scope.BroadcastChannel = function BroadcastChannel() {};
  return { scope, Base, Nav };
}

test("a confined scope gives learner code none of storage, network or other contexts, and cannot be undone", () => {
  const { scope, Base, Nav } = workerLikeScope();
  confine(scope);
  assert.throws(() => scope.caches, /caches is not available to learner code/);
  assert.throws(() => scope.indexedDB, /not available/);
  assert.throws(() => scope.fetch("/"), /not available/);
  assert.throws(() => new scope.BroadcastChannel("x"), /not available/);
  assert.throws(() => scope.navigator.storage, /not available/);
  assert.throws(() => Object.getOwnPropertyDescriptor(Base.prototype, "caches").get.call(scope), /not available/,
    "the getter on the prototype is replaced, not hidden");
  assert.throws(() => Object.defineProperty(Base.prototype, "caches", { get: () => "back" }), TypeError,
    "and cannot be put back");
  assert.throws(() => Object.defineProperty(Nav.prototype, "storage", { get: () => "back" }), TypeError);
  assert.ok(CUT.includes("Worker") && CUT.includes("XMLHttpRequest"));
});
