// Repack numpy for the worker: its runtime files with bytecode compiled ahead, the list of standard-library
// modules `import numpy` pulls in (tools/snapshot.mjs imports those into the memory snapshot), and the list of
// extension modules those imports load, in the order they load (the worker loads them ahead, web/src/worker/boot/numpy.js
// preloadExtensions).
//
// usage: node tools/numpy_archive.mjs <site assets/pyodide dir> <output .zip> <output modules .json>
//        <output extension modules .json>
//
// Why (issue 6; measured under Node with Pyodide 0.27.7): numpy's wheel ships sources only, so every page load
// compiled ~170 modules (import numpy 590 ms -> 310 ms with the bytecode); loadPackage also compiles all 19
// extension modules up front, tests and fft included, where an unpacked archive lets Python load each one on
// first import; and the standard-library modules numpy imports cost another ~200 ms unless the snapshot already
// holds them. The bytecode is compiled by Pyodide's own Python (3.14 today), as unchecked-hash .pyc files: valid
// whatever the files' dates after unpacking. Sources stay, so tracebacks into numpy still show lines.
// tools/snapshot.py turns the zip into a pack (tools/pack.py) that the worker writes without running Python.
import { loadPyodide } from "pyodide";
import { readFileSync, writeFileSync } from "node:fs";
import { OUTPUTS, RUNTIME, numpyWheel } from "../web/src/shared/build-outputs.js";

const [assets, output, modulesOut, dynlibsOut] = process.argv.slice(2);
const wheel = numpyWheel(JSON.parse(readFileSync(`${assets}/${OUTPUTS.pyodideLock}`, "utf8")));
const py = await loadPyodide({ env: { HOME: RUNTIME.home }, stdout: () => {}, stderr: (t) => process.stderr.write(`${t}\n`) });
py.FS.writeFile("/tmp/numpy.whl", readFileSync(`${assets}/${wheel}`));
const modules = py.runPython(`
import compileall, json, os, py_compile, site, sys, zipfile

target = site.getsitepackages()[0]
# Headers, stubs, Cython declarations and static libraries are for building against numpy, not for running it.
SKIP = (".pyi", ".h", ".pxd", ".c", ".a")
with zipfile.ZipFile("/tmp/numpy.whl") as whl:
    members = [n for n in whl.namelist() if not n.endswith(SKIP) and "/include/" not in n]
    whl.extractall(target, members)
if not compileall.compile_dir(os.path.join(target, "numpy"), quiet=2,
                              invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH):
    raise SystemExit("numpy_archive: compileall failed")

before = set(sys.modules)
import numpy, numpy.random, numpy.linalg  # what the worker imports before the first check

def from_stdlib(name):
    origin = getattr(getattr(sys.modules[name], "__spec__", None), "origin", None) or ""
    return origin in ("built-in", "frozen") or (origin.startswith("/lib/python") and "site-packages" not in origin)

stdlib = sorted(m for m in set(sys.modules) - before if from_stdlib(m))
# sys.modules keeps the order of import: an extension module loads before any that could need it.
dynlibs = [os.path.relpath(m.__file__, target) for name, m in sys.modules.items()
           if name not in before and (getattr(m, "__file__", None) or "").endswith(".so")]

# Stored, not compressed: tools/snapshot.py reads it straight back into an LZ4 pack.
with zipfile.ZipFile("/tmp/numpy-tl.zip", "w", zipfile.ZIP_STORED) as out:
    for top in sorted({m.split("/", 1)[0] for m in members}):
        for root, dirs, files in os.walk(os.path.join(target, top)):
            dirs.sort()
            for f in sorted(files):
                path = os.path.join(root, f)
                out.write(path, os.path.relpath(path, target))
json.dumps({"stdlib": stdlib, "dynlibs": dynlibs})
`);
const { stdlib, dynlibs } = JSON.parse(modules);
writeFileSync(output, py.FS.readFile("/tmp/numpy-tl.zip"));
writeFileSync(modulesOut, JSON.stringify(stdlib));
writeFileSync(dynlibsOut, JSON.stringify(dynlibs));
console.log(JSON.stringify({ wheel, modules: stdlib.length, dynlibs: dynlibs.length }));
