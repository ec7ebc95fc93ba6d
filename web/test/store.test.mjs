// Unit tests of web/src/page/store.js with a fake Storage: persistence, versioned keys, and every failure mode.
import { test } from "node:test";
import assert from "node:assert/strict";

import { createStore, keys, PREFIX, KEYS_VERSION } from "../src/page/store.js";

/** An in-memory stand-in for window.localStorage (the parts of the Storage interface the store uses). */
class FakeStorage {
  constructor(entries = {}) {
    this.map = new Map(Object.entries(entries));
  }
  get length() { return this.map.size; }
  key(i) { return [...this.map.keys()][i] ?? null; }
  getItem(k) { return this.map.has(k) ? this.map.get(k) : null; }
  setItem(k, v) { this.map.set(k, String(v)); }
  removeItem(k) { this.map.delete(k); }
}

/** Storage that is there but full: the probe fits, nothing real does (as a nearly full localStorage behaves). */
class FullStorage extends FakeStorage {
  setItem(k, v) {
    if (!k.endsWith(":probe")) throw new DOMException("The quota has been exceeded.", "QuotaExceededError");
    super.setItem(k, v);
  }
}

test("keys are versioned: tinyllm:v1:<key>", () => {
  assert.equal(`${PREFIX}${KEYS_VERSION}:`, "tinyllm:v1:");
  const backend = new FakeStorage();
  const store = createStore(backend);
  assert.equal(store.set(keys.code("e7-3"), { code: "x = 1" }), true);
  assert.deepEqual([...backend.map.keys()], ["tinyllm:v1:code:e7-3"]);
  assert.deepEqual(JSON.parse(backend.getItem("tinyllm:v1:code:e7-3")), { code: "x = 1" });
});

test("a value survives a reload (a new store on the same storage)", () => {
  const backend = new FakeStorage();
  createStore(backend).set("prompt:e7-3/residual", { value: "1, 0, 0", tries: 2 });
  const reloaded = createStore(backend);
  assert.deepEqual(reloaded.get("prompt:e7-3/residual"), { value: "1, 0, 0", tries: 2 });
  assert.equal(reloaded.persistent, true);
  assert.deepEqual(reloaded.notices(), []);
});

test("absent keys give the fallback", () => {
  const store = createStore(new FakeStorage());
  assert.equal(store.get("nothing"), null);
  assert.deepEqual(store.get("nothing", { tries: 0 }), { tries: 0 });
});

test("values are copies: changing one does not change the store", () => {
  const store = createStore(new FakeStorage());
  const value = { list: [1] };
  store.set("k", value);
  value.list.push(2);
  const got = store.get("k");
  assert.deepEqual(got, { list: [1] });
  got.list.push(3);
  assert.deepEqual(store.get("k"), { list: [1] });
});

test("corrupt JSON: fallback, a notice, and a corrupt: copy kept", () => {
  const backend = new FakeStorage({ "tinyllm:v1:prefs:e7-3": "{not json" });
  const store = createStore(backend);
  const heard = [];
  store.onNotice((text) => heard.push(text));
  assert.deepEqual(store.get("prefs:e7-3", { refDeps: false }), { refDeps: false });
  assert.equal(heard.length, 1);
  assert.match(heard[0], /"prefs:e7-3" was unreadable and has been reset \(a copy was kept\)/);
  assert.deepEqual(store.notices(), heard);
  assert.equal(backend.getItem("tinyllm:v1:corrupt:prefs:e7-3"), "{not json");
  assert.equal(backend.getItem("tinyllm:v1:prefs:e7-3"), null);
  // Reset once: reading again is quiet, and the copy is not listed as data.
  assert.equal(store.get("prefs:e7-3"), null);
  assert.equal(store.notices().length, 1);
  assert.deepEqual(store.keys(), []);
});

test("storage full: set() returns false with a notice, and the value stays readable in memory", () => {
  const store = createStore(new FullStorage());
  assert.equal(store.persistent, true);
  assert.equal(store.set("code:e7-3", { code: "print(1)" }), false);
  assert.deepEqual(store.get("code:e7-3"), { code: "print(1)" });
  assert.equal(store.notices().length, 1);
  assert.match(store.notices()[0], /Could not save "code:e7-3" \(storage is full\)/);
});

test("storage that refuses for another reason says so", () => {
  class Refusing extends FakeStorage {
    setItem(k, v) {
      if (!k.endsWith(":probe")) throw new DOMException("denied", "SecurityError");
      super.setItem(k, v);
    }
  }
  const store = createStore(new Refusing());
  assert.equal(store.set("a", 1), false);
  assert.match(store.notices()[0], /\(storage refused\)/);
});

test("no storage at all: works in memory, with one notice", () => {
  for (const backend of [null, undefined, { setItem() { throw new Error("private window"); } }]) {
    const store = createStore(backend);
    assert.equal(store.persistent, false);
    assert.equal(store.notices().length, 1);
    assert.match(store.notices()[0], /not letting the page save/);
    assert.equal(store.set("code:e7-3", { code: "x" }), false);
    assert.deepEqual(store.get("code:e7-3"), { code: "x" });
    assert.deepEqual(store.keys(), ["code:e7-3"]);
    assert.equal(store.notices().length, 1, "saving in memory is not a new problem to report");
  }
});

test("keys() lists only this version's data", () => {
  const backend = new FakeStorage({
    "tinyllm:v1:code:e7-3": "{}", "tinyllm:v1:result:e7-3": "{}", "tinyllm:v0:code:e7-3": "{}",
    "tinyllm:v1:corrupt:prefs:x": "{", "other-site:v1:code": "{}",
  });
  assert.deepEqual(createStore(backend).keys(), ["code:e7-3", "result:e7-3"]);
});

test("remove() and clearAll() touch only this version", () => {
  const backend = new FakeStorage({ "tinyllm:v1:a": "1", "tinyllm:v1:b": "2", "tinyllm:v0:a": "0", other: "x" });
  const store = createStore(backend);
  store.remove("a");
  assert.equal(store.get("a"), null);
  store.clearAll();
  assert.deepEqual([...backend.map.keys()].sort(), ["other", "tinyllm:v0:a"]);
});

test("refresh() rereads what another tab wrote", () => {
  const backend = new FakeStorage();
  const mine = createStore(backend);
  const other = createStore(backend);
  mine.set("k", 1);
  assert.equal(mine.get("k"), 1);
  other.set("k", 2);
  assert.equal(mine.get("k"), 1, "cached");
  mine.refresh("k");
  assert.equal(mine.get("k"), 2);
});

test("exportAll / importAll round trip", () => {
  const source = createStore(new FakeStorage());
  source.set(keys.code("e7-3"), { code: "def residual(p, q): ..." });
  source.set(keys.prompt("e7-3", "residual"), { value: "1 0 0", verdict: "correct", tries: 1 });
  source.set(keys.draft("e7-3"), { code: "a draft stays in this browser" });
  const dump = JSON.parse(JSON.stringify(source.exportAll({ build: "b1" }))); // as written to and read from a file
  assert.equal(dump.format, "tinyllm-progress");
  assert.equal(dump.version, "v1");
  assert.deepEqual([dump.course, dump.origin, dump.build], ["tinyllm", "browser", "b1"]);
  assert.ok(!Number.isNaN(Date.parse(dump.saved)));
  assert.ok(!("draft:e7-3" in dump.data));
  const backend = new FakeStorage();
  const target = createStore(backend);
  assert.equal(target.importAll(dump).count, 2);
  assert.deepEqual(target.get("code:e7-3"), { code: "def residual(p, q): ..." });
  assert.deepEqual(createStore(backend).exportAll().data, dump.data, "imported data is persisted");
});

test("importAll refuses what is not an export, with a readable Error, and changes nothing", () => {
  const store = createStore(new FakeStorage());
  for (const dump of [null, 42, "text", {}, { format: "something-else", version: "v1", data: {} }]) {
    assert.throws(() => store.importAll(dump), { name: "Error", message: "this file is not a tinyllm progress export" });
  }
  for (const dump of [{ format: "tinyllm-progress", version: "v1" }, { format: "tinyllm-progress", version: "v1", data: null }]) {
    assert.throws(() => store.importAll(dump), { message: "this export has no data table" });
  }
  assert.throws(() => store.importAll({ format: "tinyllm-progress", version: "v2", data: {} }),
    { message: "this export is format v2, and this site reads v1 (it comes from a newer version: reload to update this site)" });
  assert.throws(() => store.importAll({ format: "tinyllm-progress", version: "v1", course: "other", data: {} }),
    { message: 'this export is from the course "other", not "tinyllm"' });
  assert.throws(() => store.importAll({ format: "tinyllm-progress", version: "v1", data: { "code:e7-3": { code: "x" }, "code:m07-6": 5 } }),
    { message: 'its entry "code:m07-6" holds no code' });
  assert.deepEqual(store.keys(), [], "nothing was imported");
});

test("importAll refuses data that is a list, not a map of keys", () => {
  // Found by this test: an array passed the typeof check and was imported as keys "0", "1".
  const store = createStore(new FakeStorage());
  assert.throws(() => store.importAll({ format: "tinyllm-progress", version: "v1", data: [{ code: "x" }, 2] }),
    { message: "this export has no data table" });
  assert.deepEqual(store.keys(), []);
});

test("an import keeps different code of this browser as the draft, and leaves out exercises the site lacks", () => {
  const store = createStore(new FakeStorage());
  store.set(keys.code("t1-2"), { code: "mine" });
  const dump = { format: "tinyllm-progress", version: "v1", origin: "ol", data: {
    "code:t1-2": { code: "theirs" }, "code:gone-1": { code: "old" }, "elsewhere:t1-2": { status: "passed", by: "ol" },
  } };
  const done = store.importAll(dump, { slugs: new Set(["t1-2"]) });
  assert.deepEqual([done.kept, done.unknown, done.elsewhere], [["t1-2"], ["gone-1"], ["t1-2"]]);
  assert.equal(store.get(keys.code("t1-2")).code, "theirs");
  assert.equal(store.get(keys.draft("t1-2")).code, "mine", "nothing lost: the cell offers it back");
  assert.equal(store.get(keys.elsewhere("t1-2")).code, "theirs", "the pass keeps the code it passed with");
  assert.equal(store.get(keys.code("gone-1")), null);
});

test("storage key names", () => {
  assert.equal(keys.code("e7-3"), "code:e7-3");
  assert.equal(keys.result("e7-3"), "result:e7-3");
  assert.equal(keys.prompt("e7-3", "residual"), "prompt:e7-3/residual");
  assert.equal(keys.prefs("m07-6"), "prefs:m07-6");
});

test("onExternalChange: another tab's writes of this version, with the memory copy forgotten first", () => {
  const backend = new FakeStorage();
  const events = new EventTarget();
  const store = createStore(backend, { events });
  store.set("code:e7-3", { code: "mine" });
  const heard = [];
  const stop = store.onExternalChange((key, how) => heard.push([key, how, key && store.get(key)]));
  const announce = (key, newValue) => {
    if (newValue === null) backend.removeItem(key);
    else if (key) backend.setItem(key, newValue);
    events.dispatchEvent(Object.assign(new Event("storage"), { key, newValue, storageArea: backend }));
  };
  announce("tinyllm:v1:code:e7-3", JSON.stringify({ code: "theirs" }));
  announce("tinyllm:v1:prefs:e7-3", null);
  announce("tinyllm:v0:code:e7-3", "{}"); // another version's: not ours
  announce("tinyllm:v1:corrupt:code:e7-3", "{"); // a moved-aside copy: not data
  announce("/.__palette", "{}"); // the theme's
  events.dispatchEvent(Object.assign(new Event("storage"), { key: "tinyllm:v1:code:x", newValue: "1", storageArea: {} }));
  announce(null, "");
  assert.deepEqual(heard, [
    ["code:e7-3", "changed", { code: "theirs" }],
    ["prefs:e7-3", "removed", null],
    [null, "cleared", null],
  ]);
  stop();
  announce("tinyllm:v1:code:e7-3", JSON.stringify({ code: "later" }));
  assert.equal(heard.length, 3, "unsubscribed");
});

test("onExternalChange without an event source, or without storage, never calls back", () => {
  const quiet = createStore(new FakeStorage());
  assert.equal(typeof quiet.onExternalChange(() => assert.fail("called")), "function");
  const events = new EventTarget();
  const memoryOnly = createStore(null, { events });
  memoryOnly.onExternalChange(() => assert.fail("called"));
  events.dispatchEvent(Object.assign(new Event("storage"), { key: "tinyllm:v1:code:a", newValue: "1" }));
});

test("keys.draft names the conflict drafts under the store's prefix", () => {
  const backend = new FakeStorage();
  createStore(backend).set(keys.draft("e7-3"), { code: "x" });
  assert.deepEqual([...backend.map.keys()], ["tinyllm:v1:draft:e7-3"]);
});
