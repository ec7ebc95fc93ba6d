// Work that lasts (web/src/page/keep.js): the browser is asked to keep the learner's storage once there is work, and the
// learner is told once when it does not promise to.
import { test } from "node:test";
import assert from "node:assert/strict";

import { hasWork, keepingText, keepWhenSaved, keepWork, NOT_PROMISED } from "../src/page/keep.js";
import { createStore, keys } from "../src/page/store.js";
import { SharedStorage, tick } from "./fakes.mjs";

const freshStore = () => createStore(new SharedStorage().tab(new EventTarget()));
const manager = ({ persisted = false, persist = false } = {}) => {
  const asked = [];
  return { asked, persisted: async () => persisted, persist: async () => { asked.push("persist"); return persist; } };
};

test("a browser that keeps the storage, already or when asked: nothing to tell", async () => {
  for (const storage of [manager({ persisted: true }), manager({ persist: true })]) {
    const store = freshStore();
    const told = [];
    assert.equal(await keepWork({ store, storage, tell: (t) => told.push(t), now: () => 5 }), "kept");
    assert.deepEqual(told, []);
    assert.deepEqual(store.get(keys.local("storage")), { state: "kept", at: 5 });
  }
});

test("a browser that refuses, or cannot promise: the learner is told once, and pointed at Export", async () => {
  for (const storage of [manager(), null, { persist: () => Promise.reject(new Error("no")) }]) {
    const store = freshStore();
    const told = [];
    assert.equal(await keepWork({ store, storage, tell: (t) => told.push(t) }), "not-promised");
    assert.equal(await keepWork({ store, storage, tell: (t) => told.push(t) }), "asked-before");
    assert.deepEqual(told, [NOT_PROMISED]);
    assert.match(NOT_PROMISED, /Safari.*seven days.*Home Screen.*Export/s);
  }
});

test("the question waits for the first saved work; a page with nothing saved asks nothing", async () => {
  const store = freshStore();
  const storage = manager({ persist: true });
  keepWhenSaved({ store, storage, tell: () => {} });
  store.set(keys.setting("diagnoses"), false);
  await tick(5);
  assert.deepEqual(storage.asked, [], "a preference is not work");
  assert.equal(hasWork(store), false);
  store.set(keys.code("m07-6"), { code: "x = 1", at: 1 });
  await tick(5);
  assert.deepEqual(storage.asked, ["persist"]);
  assert.equal(hasWork(store), true);
});

test("the progress page says whether the browser promised, and when the learner last exported", () => {
  const store = freshStore();
  assert.deepEqual(keepingText(store), { state: "unknown", text: "Not exported yet." });
  store.set(keys.local("storage"), { state: "not-promised", at: 1 });
  store.set(keys.local("exported"), "2026-12-02T21:00:00.000Z");
  assert.deepEqual(keepingText(store), { state: "not-promised",
    text: "This browser may clear your saved work; Export keeps a copy. Last exported: 2026-12-02." });
  assert.equal(Object.keys(store.exportAll().data).some((k) => k.startsWith("local:")), false,
    "facts about this browser stay out of exports");
  const gone = createStore(null);
  assert.equal(keepingText(gone).state, "memory");
});
