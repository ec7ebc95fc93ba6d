// Build a Pyodide memory snapshot with pytest and the judge (with its entry points for the worker,
// checker/bridge.py) already imported, so the browser's worker
// restores a ready interpreter in a fraction of the time a cold start takes (issue 6; bench/run.py measures it).
//
// usage: node tools/snapshot.mjs measure <site assets/pyodide dir> <checker.zip> <numpy.json> <output .json>
//        node tools/snapshot.mjs make <site assets/pyodide dir> <checker.zip> <numpy.json> <start-up stdlib .zip>
//             <output .bin> <output delta .json>
// (tools/snapshot.py runs both: `measure` lists the standard library's files that start-up imports, from which it
// makes the start-up zip, and the judge's wheels' modules the snapshot holds; `make` makes the snapshot against exactly that zip, as the worker starts with it (issue
// 30), as a delta against the core's initial memory (web/src/shared/snapshot-delta.js; the delta's length and
// checksum go to the .json), and tools/snapshot.py compresses the output into one zstd frame cut into pieces,
// tools/pack.py)
//
// numpy cannot be in the snapshot: its compiled extension modules are separate WebAssembly instances that a
// memory snapshot does not capture (Pyodide 0.27 fails with "Unexpected hiwire entry"), so the worker still
// loads numpy after restoring. The standard-library modules numpy and the course import can be, though (the list
// comes from tools/numpy_archive.mjs), which saves compiling them after every restore. Everything here is pure
// Python, or compiled into the core, so only wasm memory needs to be saved.
import { loadPyodide } from "pyodide";
import createPyodideModule from "pyodide/pyodide.asm.mjs";
import { readFileSync, writeFileSync } from "node:fs";
import { OUTPUTS, RUNTIME, readWheelsList } from "../web/src/shared/build-outputs.js";
import { checksum, dataLength, xorMemory } from "../web/src/shared/snapshot-delta.js";

const [mode, assets, checkerZip, numpyJson, ...rest] = process.argv.slice(2);
if (!["measure", "make"].includes(mode)) throw new Error(`snapshot.mjs: unknown mode ${mode}`);
const { wheels } = readWheelsList(JSON.parse(readFileSync(`${assets}/${OUTPUTS.wheelsList}`, "utf8")));
// The memory as the core's data segments lay it out, as the worker finds it where it undoes the delta
// (web/src/shared/snapshot-delta.js): Pyodide calls fsInit after instantiating the core, before running any of it.
let module = null;
let initial = null;
// The same settings the worker uses: no host environment leaks into the snapshot.
const py = await loadPyodide({ _makeSnapshot: mode === "make", env: { HOME: RUNTIME.home }, stdout: () => {},
  stderr: (t) => process.stderr.write(`${t}\n`), ...(mode === "make" ? { stdLibURL: rest[0] } : {}),
  createPyodideModule: (settings) => createPyodideModule(module = settings),
  fsInit: () => { initial = module.HEAPU8.slice(0, dataLength(module.HEAPU8)); } });
py.FS.mkdirTree("/tmp/wheels");
for (const w of wheels) py.FS.writeFile(`/tmp/wheels/${w}`, readFileSync(`${assets}/${w}`));
py.FS.writeFile("/tmp/checker.zip", readFileSync(checkerZip));
py.globals.set("numpy_stdlib", py.toPy(JSON.parse(readFileSync(numpyJson, "utf8")).stdlib));
py.runPython(`
import os, site, sys, zipfile
for w in sorted(os.listdir("/tmp/wheels")):
    zipfile.ZipFile("/tmp/wheels/" + w).extractall(site.getsitepackages()[0])
zipfile.ZipFile("/tmp/checker.zip").extractall(${JSON.stringify(RUNTIME.judgeDir)})
sys.path.insert(0, ${JSON.stringify(RUNTIME.judgeDir)})
import importlib, json, fractions, math, pytest
list(map(importlib.import_module, numpy_stdlib))
del numpy_stdlib
from checker import bridge, judge, integrity, stats
# One throwaway check imports everything pytest loads lazily during a session.
assert bridge.warm(${JSON.stringify(RUNTIME.workDir)}) == "passed"
sys.path.remove(${JSON.stringify(RUNTIME.judgeDir)})
# What the warm check left behind that nothing will read again: the source lines it cached, and unreachable
# cycles, so that their memory is free, and zeroed below (zeroFreeMemory): the snapshot compresses smaller.
import gc, linecache
linecache.clearcache()
gc.collect()
`);
if (mode === "measure") {
  // Every file of the standard library's zip that a module now loaded came from: the start-up zip's contents; and
  // the judge's wheels' modules now loaded (by their paths under site-packages), which the snapshot holds.
  const files = py.runPython(`
import site, sys
zips = [p for p in sys.path if p.endswith(".zip")]
packages = site.getsitepackages()[0] + "/"
found, loaded = set(), set()
for module in list(sys.modules.values()):
    origin = getattr(getattr(module, "__spec__", None), "origin", None) or getattr(module, "__file__", None) or ""
    for z in zips:
        if origin.startswith(z + "/"):
            found.add(origin[len(z) + 1:])
    if origin.startswith(packages):
        loaded.add(origin[len(packages):])
json.dumps({"stdlib": sorted(found), "wheels": sorted(loaded)})
`);
  writeFileSync(rest[0], files);
  console.log(JSON.stringify({ files: JSON.parse(files).stdlib.length, wheels: JSON.parse(files).wheels.length }));
} else {
  zeroFreeMemory(module);
  const snapshot = py.makeMemorySnapshot();
  // The delta: the snapshot's first bytes of memory XORed with the initial memory (zeros where they are equal).
  const delta = { bytes: initial.length, sum: checksum(initial, initial.length) };
  xorMemory(snapshot, initial, delta.bytes);
  writeFileSync(rest[1], snapshot);
  writeFileSync(rest[2], JSON.stringify(delta));
  console.log(JSON.stringify({ bytes: snapshot.length, delta }));
}

/**
 * Zero the heap's free memory before the snapshot is taken (issue 30): what malloc has freed keeps its old bytes,
 * which compress badly (0.4 MB of the compressed snapshot). Every free block is taken with malloc, the footprint
 * held where it is so that nothing grows the memory, zeroed and freed again (malloc writes its own bookkeeping
 * back); then the top of the heap is trimmed and what lies above it zeroed. Python's own free lists (obmalloc's
 * pools) are untouched: they are not malloc's to give.
 */
function zeroFreeMemory(M) {
  M._malloc_set_footprint_limit(M._malloc_footprint());
  const taken = [];
  for (let size = 1 << 24; size >= 8; size >>= 1) {
    for (let p = M._malloc(size); p; p = M._malloc(size)) {
      M.HEAPU8.fill(0, p, p + size);
      taken.push(p);
    }
  }
  for (const p of taken) M._free(p);
  M._malloc_set_footprint_limit(-1 >>> 0);
  M._malloc_trim(0);
  M.HEAPU8.fill(0, M.HEAPU32[M._emscripten_get_sbrk_ptr() >> 2]);
}
