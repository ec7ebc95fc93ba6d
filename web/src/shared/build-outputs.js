/**
 * The build's outputs that the runtime reads, described once for JavaScript. The worker (worker/boot/) and the
 * build's Node scripts (tools/snapshot.mjs, tools/numpy_archive.mjs, tools/suite_times.mjs) read them through
 * here; tools/build_outputs.py is the Python side, which the build steps write through, and
 * tests/unit/test_build_outputs.py checks that the two agree. The service worker (sw.js) reads none of them: its
 * precache list is written into it by tools/offline.py.
 *
 * The wheels list (`assets/pyodide/wheels.json`) names what the worker loads: the judge's wheels, and the memory
 * snapshot and the packs (tools/pack.py) when the build made them. A missing name means there is no such file:
 * Python then starts cold, and the wheels are loaded with Pyodide's loadPackage.
 */

/** File names: in assets/pyodide/, but the judge's zip and the author's folder in assets/tl/. */
export const OUTPUTS = Object.freeze({
  wheelsList: "wheels.json",
  pyodideLock: "pyodide-lock.json",
  wheelsPack: "judge-wheels.pack.zst",
  judgeZip: "checker.zip",
  zstdWasm: "zstd.wasm", // zstd's decoder, in assets/tl/ beside the worker's script (web/build.mjs), and its licence
  zstdLicence: "zstd.wasm.LICENSE.txt",
  mathFont: "tl-math.woff", // the formulas' font in assets/tl/, which tl.css names (written by tools/math_font.py)
  // The standard library's modules start-up imports (issue 30; the rest: the list), a stored zip, which travels as
  // its zstd frame (name + compactSuffix).
  stdlibStart: "python_stdlib-start.zip",
  coreZst: "pyodide.asm.wasm.zst", // the core and its loader as zstd frames (tools/precompress.py), fetched first
  loaderZst: "pyodide.asm.mjs.zst", // (issue 30)
  coreGz: "pyodide.asm.wasm.gz", // the core and its loader gzipped (tools/precompress.py); the originals beside them
  loaderGz: "pyodide.asm.mjs.gz",
  compactSuffix: ".zst", // the start-up standard library's zstd frame: its name + this
  // <slug>.json per exercise, its first mutant and the test that must fail on it: read by the author's course check
  // only, and not in the offline copy (tools/bundle.py write_authoring)
  authoringDir: "authoring",
});

/**
 * The settings the runtime shares with the build (tools/build_outputs.py RUNTIME): the memory snapshot is made
 * with them (tools/snapshot.mjs) and restored only where they are the same, so each is written here once.
 * `home`: Python's HOME; `judgeDir`: where checker.zip is unpacked and put on sys.path (the snapshot's imports
 * are found there again); `workDir`: where the judge's checks and runs write their files (checker/bridge.py
 * WORKDIR: the snapshot's warm check writes there too); `handoffCache`: the Cache Storage name the worker hands its
 * downloads over in, which the service worker takes them from; `hashHeader`: the header the service worker keeps
 * each stored file's hash in, by which the worker tells a file of the offline copy (not handed off again)
 * (tools/offline.py writes these two into sw.js); `stdlibRest`: where the worker writes the rest of the standard
 * library when it arrives, after ready (checker/later.py serves imports from it).
 */
export const RUNTIME = Object.freeze({
  home: "/home/pyodide",
  judgeDir: "/home/pyodide/tl",
  workDir: "/tmp/tl",
  handoffCache: "tinyllm-handoff",
  hashHeader: "X-TL-SHA256",
  stdlibRest: "/lib/python_stdlib-rest.zip",
});

/**
 * How Python may be made to start, for tests and the benchmark: `start=<one of these>` as the worker's name
 * (page/worker-client.js workerName, worker/boot/context.js): cold (no snapshot) or snapshot (restored, whatever
 * the line). Without one, the line's measure chooses between restoring and a cold start.
 */
export const STARTS = Object.freeze(["cold", "snapshot"]);

/** The start a worker's name forces (`start=cold`), or "" when it forces none. */
export function startChosen(name) {
  const match = /^start=(\w+)$/.exec(name || "");
  return match && STARTS.includes(match[1]) ? match[1] : "";
}

/** A worker's name that forces `start` (one of STARTS), or "" for any other value. */
export const startName = (start) => (STARTS.includes(start) ? `start=${start}` : "");

/**
 * @typedef {{name: string, imports: string[], files: string[], bytes: number}} OptionalPackage
 *   A package loaded only when learner code imports one of `imports` (matplotlib): `name` is what the worker
 *   passes to Pyodide's loadPackage, `files` what that fetches (its dependencies' files too, minus what start-up
 *   loaded), `bytes` their size.
 * @typedef {{pyodide: string, wheels: string[], snapshot: string[], numpyPack: string, wheelsPack: string,
 *   optional: OptionalPackage[], snapshotBytes: number, snapshotSize: number, numpyDynlibs: string[],
 *   startBytes: number, stdlibBytes: number,
 *   stdlib: string, stdlibRest: string, numpyRest: string, laterStdlib: string[], laterNumpy: string[],
 *   wheelsRest: string, laterWheels: string[],
 *   snapshotDeltaBytes: number, snapshotDeltaSum: number, numpyFirstBytes: number, lock: object|null}} WheelsList
 *   `snapshot`: the memory snapshot's parts in order (one zstd frame of it cut into pieces, tools/pack.py cut,
 *   downloaded side by side), `snapshotBytes` their total size, `snapshotSize` the snapshot's once decoded (0: not
 *   known); every pack, like the snapshot, is one zstd frame (tools/pack.py);
 *   `numpyPack` (numpy repacked with its bytecode, replacing its wheel) and `wheelsPack` (the judge's wheels as one
 *   pack, replacing `wheels`) are "" when the build made none; `numpyFirstBytes`: the length of the first of
 *   numpy's pack's two frames (what `import numpy` loads; the second holds the rest of start-up), 0: one frame;
 *   `snapshot` and `optional` are [] when it has none. `numpyDynlibs`: the extension modules
 *   numpy's first imports load, paths under site-packages in the order they load (tools/numpy_archive.mjs), or [].
 *   `startBytes`: what a start that restores the snapshot downloads before ready, 0 when not known: the start-up
 *   progress bar's total; `stdlibBytes`: the start-up standard library's zstd frame, which a cold start downloads
 *   as well (a restored one after ready), or 0.
 *   `stdlib`: the start-up standard library (OUTPUTS.stdlibStart) or ""; `stdlibRest` and `numpyRest`: the rest of
 *   the standard library and of numpy, fetched after ready, or "" (issue 30), and `wheelsRest` the judge's wheels'
 *   sources that the snapshot holds the modules of; `laterStdlib`, `laterNumpy` and `laterWheels`: the module
 *   names in them, which an import waits for (checker/later.py). `snapshotDeltaBytes` and
 *   `snapshotDeltaSum`: the snapshot is a delta against the core's initial memory of that length and checksum
 *   (snapshot-delta.js), or 0. `lock`: the part of Pyodide's lock file its loadPackage can need, handed to it
 *   (`lockFileContents`) so that the whole file is not fetched, or null.
 */

/**
 * The wheels list from its parsed JSON; throws an Error naming the file when it is not one.
 * @param {any} data
 * @returns {WheelsList}
 */
export function readWheelsList(data) {
  if (!data || typeof data !== "object" || !Array.isArray(data.wheels)
      || !data.wheels.every((w) => typeof w === "string")) {
    throw new Error(`${OUTPUTS.wheelsList}: no list of wheels`);
  }
  const name = (key) => (typeof data[key] === "string" ? data[key] : "");
  if (data.snapshot !== undefined && !strings(data.snapshot)) {
    throw new Error(`${OUTPUTS.wheelsList}: snapshot is not a list of file names`);
  }
  if (data.numpy_dynlibs !== undefined && !strings(data.numpy_dynlibs)) {
    throw new Error(`${OUTPUTS.wheelsList}: numpy_dynlibs is not a list of paths`);
  }
  for (const key of ["later_stdlib", "later_numpy", "later_wheels"]) {
    if (data[key] !== undefined && !strings(data[key])) {
      throw new Error(`${OUTPUTS.wheelsList}: ${key} is not a list of module names`);
    }
  }
  return {
    pyodide: name("pyodide"), wheels: [...data.wheels], snapshot: [...(data.snapshot || [])], numpyPack: name("numpy"),
    wheelsPack: name("wheels_pack"), optional: (data.optional || []).map(optionalPackage),
    snapshotBytes: Number(data.snapshot_bytes) || 0, snapshotSize: Number(data.snapshot_size) || 0,
    numpyDynlibs: [...(data.numpy_dynlibs || [])], startBytes: Number(data.start_bytes) || 0,
    stdlibBytes: Number(data.stdlib_bytes) || 0,
    stdlib: name("stdlib"), stdlibRest: name("stdlib_rest"), numpyRest: name("numpy_rest"),
    laterStdlib: [...(data.later_stdlib || [])], laterNumpy: [...(data.later_numpy || [])],
    wheelsRest: name("wheels_rest"), laterWheels: [...(data.later_wheels || [])],
    snapshotDeltaBytes: Number(data.snapshot_delta_bytes) || 0, snapshotDeltaSum: Number(data.snapshot_delta_sum) || 0,
    numpyFirstBytes: Number(data.numpy_first_bytes) || 0,
    lock: data.lock && typeof data.lock === "object" && data.lock.packages ? data.lock : null,
  };
}

const strings = (v) => Array.isArray(v) && v.every((s) => typeof s === "string");

function optionalPackage(entry) {
  if (!entry || typeof entry.name !== "string" || !strings(entry.imports) || !strings(entry.files)) {
    throw new Error(`${OUTPUTS.wheelsList}: optional: malformed entry ${JSON.stringify(entry)}`);
  }
  return { name: entry.name, imports: [...entry.imports], files: [...entry.files], bytes: Number(entry.bytes) || 0 };
}

/**
 * The name Pyodide's lock file gives the package a wheel file holds (`python_dateutil-2.9.0-…` → `python-dateutil`),
 * as tools/pyodide_assets.py `distribution` does.
 * @param {string} wheelFile
 */
export function distribution(wheelFile) {
  return wheelFile.split("-", 1)[0].replace(/_/g, "-").toLowerCase();
}

/**
 * numpy's wheel, as Pyodide's lock file (OUTPUTS.pyodideLock) names it.
 * @param {any} lock  the parsed lock file
 * @returns {string}
 */
export function numpyWheel(lock) {
  return lock.packages.numpy.file_name;
}
