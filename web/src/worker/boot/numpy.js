/**
 * numpy, then the tamper baseline (checker/bridge.py numpy_ready). numpy comes repacked at build time with its
 * bytecode (tools/numpy_archive.mjs), written from JavaScript; the extension modules its first imports load are
 * loaded ahead (preloadExtensions), the others when first imported, instead of all of them up front by
 * loadPackage, which is used only when the build names no pack.
 */
import { extract } from "../pack.js";
import { loadPackages, markLoaded } from "./packages.js";

/**
 * @param {import("./judge.js").Session} session
 * @param {import("./files.js").Files} files
 */
export async function loadNumpy(session, files) {
  if (files.numpyPack) {
    try {
      extract(session.py.FS, await files.numpyPack, session.sitePackages);
      markLoaded(session.py, ["numpy"]);
      await preloadExtensions(session, files.list.numpyDynlibs);
    } catch (err) {
      session.loadErrors.push(`${files.list.numpyPack}: ${err.message}`);
    }
  } else {
    await loadPackages(session, ["numpy"]);
  }
  // loadPackage does not fail on a corrupt wheel; importing is the real test.
  try {
    session.bridge.numpyReady();
  } catch (err) {
    throw new Error(`numpy could not be loaded: ${session.loadErrors.join("; ") || err.message}`);
  }
}

/**
 * numpy's extension modules that its first imports load (the build lists them: tools/numpy_archive.mjs), loaded
 * ahead the way Pyodide's loadPackage loads a package's: compiled off this thread, and their undefined symbols
 * resolved once for all of them, where Python's own dlopen at import does that once per module (ready sooner:
 * bench/README.md, "Start-up design decisions"). Python's import then finds each one loaded. Anything that fails
 * here is left to that import, which loads it as before.
 */
async function preloadExtensions(session, libs) {
  const { py } = session;
  if (!libs.length || typeof py._api?.loadDynlib !== "function") return;
  for (const lib of libs) {
    try {
      await py._api.loadDynlib(`${session.sitePackages}/${lib}`, false, []);
    } catch { /* the import loads it */ }
  }
  try {
    py._module.reportUndefinedSymbols?.();
  } catch { /* as after a failed load: the import reports what is missing */ }
}
