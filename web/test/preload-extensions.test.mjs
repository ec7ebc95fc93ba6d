// numpy's extension modules loaded ahead (web/src/worker/boot/numpy.js preloadExtensions): through Emscripten's
// loader when it is in reach, each as Python's dlopen(path, RTLD_NOW) would load it but with its undefined
// symbols left open, then those resolved once, after the last; through Pyodide's loadDynlib otherwise. A module
// that fails to load does not stop the others (Python's import loads it, and says what is wrong).
import { test } from "node:test";
import assert from "node:assert/strict";

import { preloadExtensions } from "../src/worker/boot/numpy.js";

const LIBS = ["numpy/_core/_multiarray_umath.so", "numpy/linalg/_umath_linalg.so", "numpy/random/_pcg64.so"];

function emscripten({ failing = "" } = {}) {
  const events = [];
  return {
    events,
    loadDynamicLibrary: async (path, flags, scope) => {
      events.push(["load", path, flags, scope]);
      if (path.endsWith(failing) && failing) throw new Error("need to see wasm magic number");
    },
    reportUndefinedSymbols: () => events.push(["report"]),
  };
}

test("each module is loaded with its symbols left open, and they are resolved once, after the last", async () => {
  const module = emscripten();
  const py = { _module: module, _api: { loadDynlib: () => assert.fail("Pyodide's loadDynlib is not used") } };
  await preloadExtensions({ py, sitePackages: "/site" }, LIBS);
  assert.deepEqual(module.events.map((e) => e[0]), ["load", "load", "load", "report"]);
  for (const [i, [, path, flags, scope]] of module.events.slice(0, 3).entries()) {
    assert.equal(path, `/site/${LIBS[i]}`, "the path Python's import will dlopen, which finds it loaded");
    assert.deepEqual(flags, { loadAsync: true, global: false, nodelete: true, allowUndefined: true });
    assert.deepEqual(scope, {}, "a local scope, as RTLD_LOCAL");
  }
  assert.notEqual(module.events[0][3], module.events[1][3], "a scope of its own for each module");
});

test("a module that fails to load does not stop the others, and the symbols are still resolved", async () => {
  const module = emscripten({ failing: "_umath_linalg.so" });
  await preloadExtensions({ py: { _module: module }, sitePackages: "/site" }, LIBS);
  assert.deepEqual(module.events.map((e) => e[0] === "load" ? e[1] : e[0]),
    ["/site/numpy/_core/_multiarray_umath.so", "/site/numpy/linalg/_umath_linalg.so", "/site/numpy/random/_pcg64.so",
      "report"]);
});

test("without Emscripten's loader, Pyodide's loadDynlib loads each one", async () => {
  const loaded = [];
  const py = { _module: {}, _api: { loadDynlib: async (path) => loaded.push(path) } };
  await preloadExtensions({ py, sitePackages: "/site" }, LIBS);
  assert.deepEqual(loaded, LIBS.map((lib) => `/site/${lib}`));
});

test("nothing listed, nothing loaded", async () => {
  const module = emscripten();
  await preloadExtensions({ py: { _module: module }, sitePackages: "/site" }, []);
  assert.deepEqual(module.events, []);
});
