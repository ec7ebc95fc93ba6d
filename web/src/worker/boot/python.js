/**
 * The interpreter: restored from the memory snapshot when there is one it can use, else started cold.
 *
 * Pyodide awaits the snapshot's bytes before it creates its module, and restores them right after. When the build
 * gave the snapshot's size, it is handed the buffer the parts are being decoded into, still empty, and holds its
 * start, after creating the module (evaluating the loader's module code, instantiating the core, linking its
 * symbols), until the buffer is full: through `fsInit`, the hook loadPyodide awaits before it starts Python. A
 * snapshot that does not arrive leaves the buffer empty, which Pyodide refuses to restore ("invalid magic number"):
 * then Python starts cold, as when there is no snapshot.
 *
 * Pyodide 314's core exports its memory smaller than the build's snapshot (its warm check grows the memory) and
 * copies the snapshot into it as it is, so the snapshot would not fit ("offset is out of bounds"). The same hook
 * first grows the memory to the snapshot's size, the way the core itself grows it (Emscripten's
 * emscripten_resize_heap, which also renews the runtime's views of it), on the module the factory is building
 * (withModule). The sizes: bench/README.md, "Start-up design decisions". The same hook undoes the snapshot's
 * delta against the core's initial memory (shared/snapshot-delta.js), as core.js kept it the moment the core was
 * instantiated: by the time of this hook the loader has written a few bytes of it in the browser (not under
 * Node.js, where the build makes the snapshot).
 */
import { OUTPUTS, RUNTIME } from "../../shared/build-outputs.js";
import { checksum, xorMemory } from "../../shared/snapshot-delta.js";
import { deferStdlib } from "./later.js";

const quiet = () => {};

/**
 * @param {import("./context.js").Boot} ctx
 * @param {import("./files.js").Files} files
 * @param {Promise<Function|null>} loader  Pyodide's module factory when core.js ran its loader, else null
 * @returns {Promise<{py: any, restored: boolean}>}
 */
export async function startPython(ctx, files, loader) {
  const [{ loadPyodide }, factory] = await Promise.all([import(`${ctx.index}pyodide.mjs`), loader]);
  const module = withModule(factory || (await import(`${ctx.index}pyodide.asm.mjs`)).default);
  // The standard library's start-up part (issue 30), the one the snapshot was made with; the rest arrives later.
  // The part of the lock file loadPackage can need, from the wheels list, rather than the whole file; its wheels
  // are found beside it (packageBaseUrl, which Pyodide derives only from a lock file's address).
  const lock = files.list.lock ? { lockFileContents: files.list.lock, packageBaseUrl: ctx.index } : {};
  const options = { indexURL: ctx.index, stdout: quiet, stderr: quiet, env: { HOME: RUNTIME.home },
    createPyodideModule: module.factory, stdLibURL: ctx.index + OUTPUTS.stdlibStart, ...lock };
  if (await files.restoring) {
    const bytes = files.snapshot.then((b) => b || Promise.reject(new Error("no snapshot")));
    bytes.catch(() => {}); // handled below (a cold start); unwatched, it reached the page when Pyodide failed first
    const memory = await files.memory;
    const fsInit = () => (ctx.mark("instantiated"), bytes).then((b) => {
      module.undoDelta(b, files.list, ctx.initialMemory);
      ctx.initialMemory = null;
      module.fit(b.length);
    }, () => {});
    // Every module of the start-up standard library is in the snapshot, imported: Pyodide is handed an empty file
    // in its place (core.js answerPyodide), which later.js deferStdlib fills after ready, or at its first opening.
    ctx.stdlibLater = true;
    try {
      const py = await loadPyodide({ ...options, _loadSnapshot: memory ?? bytes, fsInit });
      ctx.deferredStdlib = deferStdlib(ctx, py.FS);
      return { py: forgetSnapshot(py), restored: true };
    } catch { /* no snapshot, or one this runtime cannot use: start cold instead */ }
    ctx.stdlibLater = false;
  }
  return { py: await loadPyodide(options), restored: false };
}

/**
 * Pyodide's module factory, wrapped to keep the module it builds (the Emscripten `Module`, its settings object),
 * and `fit(bytes)`: grow that module's memory to hold a snapshot of `bytes`.
 */
function withModule(factory) {
  let module = null;
  return {
    factory: (settings) => {
      module = settings;
      return factory(settings);
    },
    fit(bytes) {
      if (module && module.HEAPU8 && module.HEAPU8.length < bytes) module._emscripten_resize_heap?.(bytes);
    },
    /** Undo the build's delta (shared/snapshot-delta.js) with the core's initial memory, as core.js kept it at
     * instantiation (`initial`; else the memory as it is now); if that is not the memory the build saw, spoil the
     * snapshot's magic number, so that Pyodide refuses it and Python starts cold. */
    undoDelta(snapshot, { snapshotDeltaBytes: length, snapshotDeltaSum: sum }, initial) {
      if (!length) return;
      const heap = initial || (module && module.HEAPU8);
      if (heap && heap.length >= length && checksum(heap, length) === sum) xorMemory(snapshot, heap, length);
      else snapshot[0] ^= 0xff;
    },
  };
}

/**
 * Pyodide keeps the options it was loaded with for as long as it runs (its API's `config`), and with them the
 * snapshot's bytes, which it needs no more once restored (in Python's memory now): let them go. Internal to
 * Pyodide, so guarded; if the options are not there, nothing is lost but the memory.
 */
function forgetSnapshot(py) {
  try {
    const config = py._api?.config;
    if (config) {
      config._loadSnapshot = undefined;
      config.fsInit = undefined;
    }
  } catch { /* kept, as before */ }
  return py;
}
