// Repack numpy for the worker, in two parts: what start-up imports, and the rest, which arrives after ready
// (issue 30). Also the list of standard-library modules numpy's start-up imports pull in (tools/snapshot.mjs imports
// those into the memory snapshot), and of the extension modules those imports load, in the order they load (the
// worker loads them ahead, web/src/worker/boot/numpy.js preloadExtensions).
//
// usage: node tools/numpy_archive.mjs <site assets/pyodide dir> <course modules .json> <output dir>
// writes numpy-start.zip, numpy-start-more.zip, numpy-rest.zip and numpy.json ({stdlib, dynlibs, later}) into
// the output dir
//
// Why (issue 6; measured under Node with Pyodide 0.27.7): numpy's wheel ships sources only, so every page load
// compiled ~170 modules (import numpy 590 ms -> 310 ms with the bytecode); loadPackage also compiles all 19
// extension modules up front, tests and fft included, where an unpacked archive lets Python load each one on
// first import; and the standard-library modules numpy imports cost another ~200 ms unless the snapshot already
// holds them. The bytecode is compiled by Pyodide's own Python (3.14 today), as unchecked-hash .pyc files: valid
// whatever the files' dates after unpacking.
//
// The start-up part is measured, not guessed: the modules that `import numpy, numpy.random, numpy.linalg` (what
// checker/bridge.py numpy_ready imports) and the course's own imports (the hidden tests' and references',
// <course modules .json>, tools/snapshot.py course_modules) load. It holds their bytecode beside where their
// sources would be (sourceless modules, which Python imports as they are), their extension modules and numpy's
// metadata. It comes in two parts (issue 41): what `import numpy` itself loads, with numpy's metadata, and the
// other start-up modules (numpy.random and its extension modules, what the course imports), which the worker
// writes once numpy is imported, so that the import runs while they download. The rest holds every source
// (tracebacks through numpy show their lines once it has arrived: the bytecode names the source's path), the
// modules numpy imports lazily (fft, polynomial, ma, testing, f2py...), whose names `later` lists for the worker's
// finder (checker/later.py), and the metadata Python never reads (RECORD, the licences). tools/snapshot.py turns
// the zips into packs (tools/pack.py) that the worker writes without running Python.
import { loadPyodide } from "pyodide";
import { readFileSync, writeFileSync } from "node:fs";
import { OUTPUTS, RUNTIME, numpyWheel } from "../web/src/shared/build-outputs.js";

const [assets, courseModules, out] = process.argv.slice(2);
const wheel = numpyWheel(JSON.parse(readFileSync(`${assets}/${OUTPUTS.pyodideLock}`, "utf8")));
const py = await loadPyodide({ env: { HOME: RUNTIME.home }, stdout: () => {}, stderr: (t) => process.stderr.write(`${t}\n`) });
py.FS.writeFile("/tmp/numpy.whl", readFileSync(`${assets}/${wheel}`));
py.globals.set("course", py.toPy(JSON.parse(readFileSync(courseModules, "utf8"))));
const result = py.runPython(`
import compileall, importlib, importlib.util, json, os, py_compile, site, sys, zipfile

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
import numpy  # the first part: what the worker imports as soon as it is in
first = set(sys.modules) - before
import numpy.random, numpy.linalg  # what the worker imports before the first check
for name in course:  # the course's imports; a learner package or the judge's is not here, and need not be
    try:
        importlib.import_module(name)
    except Exception:
        pass

def from_stdlib(name):
    origin = getattr(getattr(sys.modules[name], "__spec__", None), "origin", None) or ""
    return origin in ("built-in", "frozen") or (origin.startswith("/lib/python") and "site-packages" not in origin)

new = [name for name in sys.modules if name not in before]
stdlib = sorted(m for m in new if from_stdlib(m))
# sys.modules keeps the order of import: an extension module loads before any that could need it.
dynlibs = [os.path.relpath(sys.modules[n].__file__, target) for n in new
           if (getattr(sys.modules[n], "__file__", None) or "").endswith(".so")]
numpy_files = lambda names: {os.path.relpath(sys.modules[n].__file__, target) for n in names
                              if (n == "numpy" or n.startswith("numpy.")) and getattr(sys.modules[n], "__file__", None)}
started = numpy_files(list(sys.modules))
started_first = numpy_files(first)

def module_name(rel):
    """numpy/fft/__init__.py -> numpy.fft; numpy/fft/_pocketfft_umath.cpython-314-...so -> numpy.fft._pocketfft_umath"""
    stem = rel.split(".", 1)[0] if rel.endswith(".so") else rel.removesuffix(".py")
    return stem.removesuffix("/__init__").replace("/", ".")

# Stored, not compressed: tools/snapshot.py reads them straight back into packs.
start = zipfile.ZipFile("/tmp/numpy-start.zip", "w", zipfile.ZIP_STORED)
more = zipfile.ZipFile("/tmp/numpy-start-more.zip", "w", zipfile.ZIP_STORED)
rest = zipfile.ZipFile("/tmp/numpy-rest.zip", "w", zipfile.ZIP_STORED)
part = lambda rel: start if rel in started_first else more  # rel: a start-up module's file
# Of numpy's metadata, start-up reads METADATA (importlib.metadata) and what names its entry points; RECORD and the
# licences are for installers and readers, not for Python: they come with the rest.
ASIDE = ("/RECORD", "/licenses/")
later = []
for top in sorted({m.split("/", 1)[0] for m in members}):
    for root, dirs, files in os.walk(os.path.join(target, top)):
        dirs.sort()
        for f in sorted(files):
            path = os.path.join(root, f)
            rel = os.path.relpath(path, target)
            if "/__pycache__/" in "/" + rel:
                source = importlib.util.source_from_cache(path)
                source = os.path.relpath(source, target)
                if source in started:  # a start-up module's bytecode, without its source
                    part(source).write(path, source + "c")
                else:
                    rest.write(path, rel)
            elif rel in started and rel.endswith(".so"):
                part(rel).write(path, rel)
            elif ".dist-info/" in rel and not any(a in rel for a in ASIDE):
                start.write(path, rel)
            else:
                rest.write(path, rel)
                if rel.endswith((".py", ".so")) and rel not in started and rel.startswith("numpy/"):
                    later.append(module_name(rel))
start.close()
more.close()
rest.close()
json.dumps({"stdlib": stdlib, "dynlibs": dynlibs, "later": sorted(set(later))})
`);
writeFileSync(`${out}/numpy-start.zip`, py.FS.readFile("/tmp/numpy-start.zip"));
writeFileSync(`${out}/numpy-start-more.zip`, py.FS.readFile("/tmp/numpy-start-more.zip"));
writeFileSync(`${out}/numpy-rest.zip`, py.FS.readFile("/tmp/numpy-rest.zip"));
writeFileSync(`${out}/numpy.json`, result);
const { stdlib, dynlibs, later } = JSON.parse(result);
console.log(JSON.stringify({ wheel, modules: stdlib.length, dynlibs: dynlibs.length, later: later.length }));
