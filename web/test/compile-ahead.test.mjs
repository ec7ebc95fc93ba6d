// numpy's extension modules compiled ahead (web/src/worker/boot/numpy.js compileAhead, withCompiled): the modules
// the wheels list names are compiled from the pack, and an instantiation of exactly those bytes (a copy, as the
// file system hands it to Emscripten's loader) gets the module compiled ahead; any other bytes are compiled as
// before, and WebAssembly.instantiate is itself again afterwards.
import { test } from "node:test";
import assert from "node:assert/strict";

import { compileAhead, withCompiled } from "../src/worker/boot/numpy.js";
import { makePack } from "./packs.mjs";

const enc = new TextEncoder();
const HEADER = [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]; // "\0asm", version 1: an empty module
/** A valid module with one custom section named `name` (same length for names of the same length). */
const wasm = (name) => new Uint8Array([...HEADER, 0, name.length + 1, name.length, ...enc.encode(name)]);

test("the listed modules are compiled ahead, and instantiating a copy of their bytes uses them", async () => {
  const [a, b, other] = [wasm("ax"), wasm("ay"), wasm("longer")];
  const marks = [];
  const files = {
    numpyPack: Promise.resolve(makePack([["numpy/a.so", a], ["numpy/b.so", b], ["numpy/c.so", other],
      ["numpy/x.py", enc.encode("x = 1\n")]])),
    list: { numpyDynlibs: ["numpy/a.so", "numpy/b.so"] },
  };
  const compiled = await compileAhead({ mark: (name) => marks.push(name) }, files);
  assert.deepEqual([...compiled.keys()], [a.length], "a and b only, by their length");
  const [first, second] = compiled.get(a.length);
  const original = WebAssembly.instantiate;
  const made = await withCompiled(compiled, async () => ({
    b: await WebAssembly.instantiate(b.slice(), {}),
    a: await WebAssembly.instantiate(a.slice().buffer, {}),
    other: await WebAssembly.instantiate(other.slice(), {}),
  }));
  assert.equal(made.b.module, await second.module, "b's copy found b's module, not a's of the same length");
  assert.equal(made.a.module, await first.module);
  assert.ok(made.b.instance instanceof WebAssembly.Instance && made.a.instance instanceof WebAssembly.Instance);
  assert.ok(made.other.module instanceof WebAssembly.Module, "bytes not listed are compiled as before");
  assert.ok(made.other.module !== (await first.module) && made.other.module !== (await second.module));
  assert.equal(WebAssembly.instantiate, original, "instantiate is itself again");
  await new Promise((resolve) => { setTimeout(resolve, 10); });
  assert.deepEqual(marks, ["numpyCompiledAhead"]);
});

test("without a pack nothing is compiled, and loading goes on as before", async () => {
  const compiled = await compileAhead({ mark: () => {} }, { numpyPack: null, list: { numpyDynlibs: [] } });
  assert.equal(compiled.size, 0);
  const original = WebAssembly.instantiate;
  assert.equal(await withCompiled(compiled, async () => WebAssembly.instantiate === original), true);
});

test("the second part of numpy's pack is compiled from its own pack, unmarked, and a missing one is none", async () => {
  const b = wasm("random");
  const marks = [];
  const files = { numpyPack: Promise.resolve(makePack([["numpy/a.so", wasm("ax")]])),
    list: { numpyDynlibs: ["numpy/a.so", "numpy/random/b.so"] } };
  const more = await compileAhead({ mark: (name) => marks.push(name) }, files,
    Promise.resolve(makePack([["numpy/random/b.so", b]])), false);
  assert.deepEqual([...more.keys()], [b.length], "only the second part's module");
  assert.ok((await more.get(b.length)[0].module) instanceof WebAssembly.Module);
  assert.equal((await compileAhead({ mark: (name) => marks.push(name) }, files, Promise.resolve(null), false)).size, 0);
  await new Promise((resolve) => { setTimeout(resolve, 10); });
  assert.deepEqual(marks, [], "no mark for the second part");
});
