/**
 * numpy, then the tamper baseline (checker/bridge.py numpy_ready). numpy comes repacked at build time with its
 * bytecode (tools/numpy_archive.mjs), written from JavaScript; the extension modules its first imports load are
 * loaded ahead (preloadExtensions), the others when first imported, instead of all of them up front by
 * loadPackage, which is used only when the build names no pack.
 */
import { entries, extract } from "../pack.js";
import { loadPackages, markLoaded } from "./packages.js";

/**
 * numpy's extension modules that start-up loads (the wheels list's numpyDynlibs), compiled as soon as the part of
 * numpy's pack that holds them is in (`pack`: the first by default; files.js): WebAssembly compiles off this
 * thread, so this overlaps the downloads and Python's restore, which the loading (preloadExtensions) waits for.
 * Resolves to the compiled modules by their bytes (`matching`), or to none when there is no such part. `marked`:
 * whether to mark when all are compiled (the first part's are).
 * @param {import("./context.js").Boot} ctx
 * @param {import("./files.js").Files} files
 * @param {Promise<Uint8Array|null>|null} [pack]
 * @param {boolean} [marked]
 * @returns {Promise<Map<number, {bytes: Uint8Array, module: Promise<WebAssembly.Module>}[]>>}
 */
export async function compileAhead(ctx, files, pack = files.numpyPack, marked = true) {
  const byLength = new Map();
  if (!pack || typeof WebAssembly.compile !== "function") return byLength;
  const raw = await pack;
  if (!raw) return byLength;
  const wanted = new Set(files.list.numpyDynlibs);
  for (const [path, bytes] of entries(raw)) {
    if (!wanted.has(path)) continue;
    const module = WebAssembly.compile(bytes);
    module.catch(() => {}); // a module that does not compile here is compiled again, and reported, as it loads
    byLength.set(bytes.length, [...(byLength.get(bytes.length) || []), { bytes, module }]);
  }
  Promise.allSettled([...byLength.values()].flat().map((c) => c.module))
    .then(() => marked && ctx.mark("numpyCompiledAhead"));
  return byLength;
}

/** The module compiled ahead from exactly these bytes, or null. */
function matching(compiled, binary) {
  const bytes = binary instanceof ArrayBuffer ? new Uint8Array(binary) : binary;
  if (!(bytes instanceof Uint8Array)) return null;
  for (const candidate of compiled.get(bytes.length) || []) {
    if (sameBytes(candidate.bytes, bytes)) return candidate.module;
  }
  return null;
}

function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * `load()` with WebAssembly.instantiate answering a module's bytes that were compiled ahead (compileAhead) from
 * that compiled module, as Emscripten's loader asks for it (the module and its instance); anything else as
 * before. Only while `load` runs.
 */
export async function withCompiled(compiled, load) {
  if (!compiled.size) return load();
  const instantiate = WebAssembly.instantiate;
  WebAssembly.instantiate = async function ahead(source, imports) {
    const module = matching(compiled, source);
    if (!module) return instantiate.call(WebAssembly, source, imports);
    const made = await module.catch(() => null);
    if (!made) return instantiate.call(WebAssembly, source, imports);
    return { module: made, instance: await instantiate.call(WebAssembly, made, imports) };
  };
  try {
    return await load();
  } finally {
    WebAssembly.instantiate = instantiate;
  }
}

/**
 * numpy written from its pack's first part and imported, then the second part (numpy.random and the rest of what
 * start-up imports) written, which was downloading meanwhile (files.js); then numpy_ready. When the second part is
 * in as soon as the first (localhost, a repeat visit), both are written and their extension modules loaded
 * together, before the import: each loading walks every symbol the interpreter knows once (preloadExtensions).
 * @param {import("./context.js").Boot} ctx
 * @param {import("./judge.js").Session} session
 * @param {import("./files.js").Files} files
 * @param {ReturnType<typeof compileAhead>} [ahead]  numpy's extension modules being compiled meanwhile
 * @param {ReturnType<typeof compileAhead>} [aheadMore]  those of the second part
 */
export async function loadNumpy(ctx, session, files, ahead = Promise.resolve(new Map()),
  aheadMore = Promise.resolve(new Map())) {
  let late = false; // the second part written after `import numpy` listed numpy's folders
  if (files.numpyPack) {
    try {
      const first = await files.numpyPack;
      const more = await inAlready(files.numpyMore);
      const now = more ? [[first, ahead], [more, aheadMore]] : [[first, ahead]];
      await writeParts(session, files, now, () => {
        markLoaded(session.py, ["numpy"]);
        ctx.mark("numpyWritten");
      });
      ctx.mark("numpyCompiled");
      if (more) ctx.mark("numpyMoreWritten");
      session.py.pyimport("numpy");
      ctx.mark("numpyFirstImport");
      const after = more === undefined ? await files.numpyMore : null;
      if (after) {
        await writeParts(session, files, [[after, aheadMore]]);
        ctx.mark("numpyMoreWritten");
      }
      late = Boolean(after);
    } catch (err) {
      session.loadErrors.push(`${files.list.numpyPack}: ${err.message}`);
    }
  } else {
    await loadPackages(session, ["numpy"]);
  }
  // loadPackage does not fail on a corrupt wheel; importing is the real test.
  try {
    session.bridge.numpyReady(late);
  } catch (err) {
    throw new Error(`numpy could not be loaded: ${session.loadErrors.join("; ") || err.message}`);
  }
}

/** What `promise` resolved to if it has already (null for no promise), else undefined (not yet, or it failed:
 * awaited, it then says why), without waiting for it: of two settled promises, race takes the first listed. */
async function inAlready(promise) {
  if (!promise) return null;
  return Promise.race([promise, Promise.resolve(undefined)]).catch(() => undefined);
}

/**
 * Parts of numpy's pack ([pack, its modules compiled ahead], ...) written into site-packages (`written()`, when
 * given, called then), and the extension modules of the list that they hold loaded ahead, in the list's order.
 */
async function writeParts(session, files, parts, written = () => {}) {
  const held = new Set();
  const compiled = new Map();
  for (const [pack, ahead] of parts) {
    for (const path of extract(session.py.FS, pack, session.sitePackages)) held.add(path);
    for (const [length, modules] of await ahead.catch(() => new Map())) {
      compiled.set(length, [...(compiled.get(length) || []), ...modules]);
    }
  }
  written();
  await withCompiled(compiled, () => preloadExtensions(session, files.list.numpyDynlibs.filter((p) => held.has(p))));
}

/**
 * numpy's extension modules that its first imports load (the build lists them: tools/numpy_archive.mjs), loaded
 * ahead the way Pyodide's loader once loaded a package's: compiled off this thread, each loaded with its undefined
 * symbols left open (`allowUndefined`), then those resolved once for all of them. Python's own dlopen at import
 * (and Pyodide's loadDynlib, which goes through it) resolves them after each module, walking every symbol the
 * interpreter knows each time: in Chromium that was 50-100 ms of the start (bench/README.md, "Where the first
 * verdict goes"). Python's import then finds each module loaded, by its path. Without Emscripten's loader in
 * reach, Pyodide's loadDynlib; anything that fails here is left to that import, which loads it as before.
 */
export async function preloadExtensions(session, libs) {
  const { py } = session;
  const emscripten = py._module;
  const direct = typeof emscripten?.loadDynamicLibrary === "function"
    && typeof emscripten?.reportUndefinedSymbols === "function";
  if (!libs.length || (!direct && typeof py._api?.loadDynlib !== "function")) return;
  for (const lib of libs) {
    const path = `${session.sitePackages}/${lib}`;
    try {
      if (direct) {
        // as Python's dlopen(path, RTLD_NOW) would: a local scope of its own, never unloaded
        const flags = { loadAsync: true, global: false, nodelete: true, allowUndefined: true };
        await emscripten.loadDynamicLibrary(path, flags, {});
      } else {
        await py._api.loadDynlib(path, false, []);
      }
    } catch { /* the import loads it */ }
  }
  try {
    emscripten?.reportUndefinedSymbols?.();
  } catch { /* as after a failed load: the import reports what is missing */ }
}
