// numpy from its pack's two parts (web/src/worker/boot/numpy.js loadNumpy; files.js numpyFrames): when the second
// part (numpy.random...) is still on its way, the first is written and imported while it downloads, and the second
// written after, its extension modules loaded then; when both are in, both are written and all their extension
// modules loaded together, before the import. numpy_ready comes last either way.
import { test } from "node:test";
import assert from "node:assert/strict";

import { loadNumpy } from "../src/worker/boot/numpy.js";
import { makePack } from "./packs.mjs";

const enc = new TextEncoder();

const FIRST = makePack([["numpy/__init__.pyc", enc.encode("n")], ["numpy/_core/_umath.so", enc.encode("u")]]);
const MORE = makePack([["numpy/random/__init__.pyc", enc.encode("r")], ["numpy/random/_pcg64.so", enc.encode("p")]]);
const LIBS = ["numpy/_core/_umath.so", "numpy/random/_pcg64.so"];

/** A session whose every step is noted in `events`, in order. */
function session() {
  const events = [];
  const FS = { mkdirTree: () => {}, writeFile: (path) => events.push(`write ${path.replace("/site/", "")}`) };
  const py = {
    FS, loadedPackages: {},
    pyimport: (name) => events.push(`import ${name}`),
    _module: {
      loadDynamicLibrary: async (path) => events.push(`load ${path.replace("/site/", "")}`),
      reportUndefinedSymbols: () => events.push("resolve"),
    },
  };
  return { events, py, sitePackages: "/site", loadErrors: [],
    bridge: { numpyReady: (late) => events.push(late ? "numpy_ready (late)" : "numpy_ready") } };
}

const ctx = () => ({ marks: [], mark(name) { this.marks.push(name); } });

test("a second part still on its way is written after `import numpy`, then numpy_ready", async () => {
  const s = session();
  let arrive;
  const files = { numpyPack: Promise.resolve(FIRST), numpyMore: new Promise((resolve) => { arrive = resolve; }),
    list: { numpyPack: "numpy.pack.zst", numpyDynlibs: LIBS } };
  const c = ctx();
  const loading = loadNumpy(c, s, files);
  await new Promise((resolve) => { setTimeout(resolve, 20); });
  assert.deepEqual(s.events, ["write numpy/__init__.pyc", "write numpy/_core/_umath.so", "load numpy/_core/_umath.so",
    "resolve", "import numpy"], "imported while the second part downloads");
  arrive(MORE);
  await loading;
  assert.deepEqual(s.events.slice(5), ["write numpy/random/__init__.pyc", "write numpy/random/_pcg64.so",
    "load numpy/random/_pcg64.so", "resolve", "numpy_ready (late)"], "numpy's folders listed again");
  assert.deepEqual(c.marks, ["numpyWritten", "numpyCompiled", "numpyFirstImport", "numpyMoreWritten"]);
  assert.equal(s.py.loadedPackages.numpy, "default channel");
});

test("a second part in with the first is written with it, all modules loaded together, before the import", async () => {
  const s = session();
  const files = { numpyPack: Promise.resolve(FIRST), numpyMore: Promise.resolve(MORE),
    list: { numpyPack: "numpy.pack.zst", numpyDynlibs: LIBS } };
  await loadNumpy(ctx(), s, files);
  assert.deepEqual(s.events, ["write numpy/__init__.pyc", "write numpy/_core/_umath.so",
    "write numpy/random/__init__.pyc", "write numpy/random/_pcg64.so", "load numpy/_core/_umath.so",
    "load numpy/random/_pcg64.so", "resolve", "import numpy", "numpy_ready"]);
});

test("a pack of one part, and a second part that failed, leave numpy_ready to say what is missing", async () => {
  for (const make of [() => Promise.resolve(null), () => Promise.reject(new Error("HTTP 404"))]) {
    const numpyMore = make();
    numpyMore.catch(() => {}); // as files.js hands it over (quietly)
    const s = session();
    const files = { numpyPack: Promise.resolve(FIRST), numpyMore, list: { numpyPack: "numpy.pack.zst", numpyDynlibs: LIBS } };
    await loadNumpy(ctx(), s, files);
    assert.deepEqual(s.events.slice(-2), ["import numpy", "numpy_ready"]);
    assert.deepEqual(s.loadErrors, make.toString().includes("404") ? ["numpy.pack.zst: HTTP 404"] : []);
  }
});
