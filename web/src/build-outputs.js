/**
 * The build's outputs that the runtime reads, described once for JavaScript. The worker (worker.js) and the
 * build's Node scripts (tools/snapshot.mjs, tools/numpy_archive.mjs, tools/suite_times.mjs) read them through
 * here; tools/build_outputs.py is the Python side, which the build steps write through, and
 * tests/unit/test_build_outputs.py checks that the two agree. The service worker (sw.js) reads none of them: its
 * precache list is written into it by tools/offline.py.
 *
 * The wheels list (`assets/pyodide/wheels.json`) names what the worker loads: the judge's wheels, and the memory
 * snapshot and the packs (tools/pack.py) when the build made them. A missing name means there is no such file:
 * Python then starts cold, and the wheels are loaded with Pyodide's loadPackage.
 */

/** File names: the first four in assets/pyodide/, the judge's zip in assets/tl/. */
export const OUTPUTS = Object.freeze({
  wheelsList: "wheels.json",
  pyodideLock: "pyodide-lock.json",
  snapshot: "snapshot.bin.lz4", // the worker requests it under this name before the wheels list confirms it
  wheelsPack: "judge-wheels.pack",
  judgeZip: "checker.zip",
});

/**
 * @typedef {{pyodide: string, wheels: string[], snapshot: string, numpyPack: string, wheelsPack: string}} WheelsList
 *   `snapshot`, `numpyPack` (numpy repacked with its bytecode, replacing its wheel) and `wheelsPack` (the judge's
 *   wheels as one pack, replacing `wheels`) are "" when the build made none.
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
  return {
    pyodide: name("pyodide"), wheels: [...data.wheels], snapshot: name("snapshot"), numpyPack: name("numpy"),
    wheelsPack: name("wheels_pack"),
  };
}

/**
 * numpy's wheel, as Pyodide's lock file (OUTPUTS.pyodideLock) names it.
 * @param {any} lock  the parsed lock file
 * @returns {string}
 */
export function numpyWheel(lock) {
  return lock.packages.numpy.file_name;
}
