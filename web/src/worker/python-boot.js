/**
 * The Python worker's start-up (worker.js runs it first, then serves requests): Pyodide, numpy and pytest, in
 * stages the page is told of as each is ready: "python" (the interpreter, with the judge's entry points), "numpy"
 * (Run works), "pytest" (pytest loaded: Check works). What it holds, in the order a start goes through it:
 * - the line's measure and the choices it makes: restore the memory snapshot or start cold, the compact copies
 *   or the LZ4 ones (COLD_START_MS, COMPACT_BELOW; `start=` in the worker's name forces one: build-outputs.js
 *   STARTS);
 * - the downloads, counted for the progress bar ("loading"), and handed off to the service worker's offline copy;
 * - the core and the standard library requested as the worker starts (startCoreEarly patches `fetch` and
 *   `WebAssembly.instantiateStreaming` to answer Pyodide's own requests for them);
 * - the Python start, the judge's install, numpy, pytest.
 * Every setting the build's snapshot must match (HOME, the judge's folder, the hand-off cache) is read from
 * build-outputs.js RUNTIME.
 */
import { STAGE, STAGES } from "../shared/protocol.js";
import { extract, joined, unwrap } from "./pack.js";
import { isContainer } from "./lz4.js";
import { OUTPUTS, RUNTIME, readWheelsList, distribution, startChosen } from "../shared/build-outputs.js";

const t0 = performance.now();
/** How the worker reports (set by boot): a message to the page, and a start-up that failed for good. */
let post = () => {};
let fatal = () => {};

/**
 * Start-up's downloads as they arrive, against what the build says they total (the wheels list's startBytes, for
 * the copies this start fetches: `expectLoading`), posted to the page as "loading" at most every LOADING_MS and
 * once more when all are in, so that a slow first visit shows a progress bar (cell/status-view.js).
 */
const LOADING_MS = 200;
const loading = { received: 0, total: 0, last: 0, over: false };
const reportLoading = () => post({ type: "loading", received: Math.min(loading.received, loading.total),
  total: loading.total, ms: Math.round(performance.now() - t0) });
function arrived(bytes) {
  loading.received += bytes;
  const now = performance.now();
  if (loading.total && !loading.over && now - loading.last >= LOADING_MS) {
    loading.last = now;
    reportLoading();
  }
}
/** The total is known (the list is read, the copies chosen); `allIn` settles when every download is in. */
function expectLoading(total, allIn) {
  if (!total) return;
  loading.total = total;
  allIn.finally(() => {
    loading.over = true;
    loading.received = total;
    reportLoading();
  });
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  // Read as it arrives, to count it (the progress bar); one copy at the end, of a few MB at most.
  const chunks = [];
  let size = 0;
  for (const reader = response.body.getReader(); ;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    arrived(value.byteLength);
  }
  // One chunk that is the whole of its buffer is the file as it is; a chunk may also be a view into a larger
  // buffer (Firefox hands those out for files from its cache), which the readers of packs must not be given.
  if (chunks.length === 1 && chunks[0].byteOffset === 0 && chunks[0].byteLength === chunks[0].buffer.byteLength) {
    return chunks[0];
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/**
 * The snapshot's bytes from its parts (`urls`, in order), or null when one cannot be read (then Python starts
 * cold). The parts are downloaded side by side: one download alone does not reach the line's speed (Chromium's
 * 100 Mbit/s emulation: 8 MB in 1.3 s as one file, 0.9 s as four). The build makes three
 * (tools/build_outputs.py SNAPSHOT_PARTS): a browser opens six connections to an HTTP/1.1 host, and the core, the
 * standard library and the packs are downloading on the others, so a fourth part waited for one of them. They
 * finish within moments of each other; LZ4 parts are then decoded straight into one buffer (pack.js joined).
 */
async function fetchSnapshot(urls, into = null) {
  try {
    // An LZ4 part waits to be decoded into place; a compact one is decoded as it arrives.
    const parts = await Promise.all(urls.map((url) => fetchBytes(url).then((b) => (isContainer(b) ? b : unwrap(b)))));
    return joined(parts, into);
  } catch {
    return null;
  }
}

/** A promise whose failure is reported where it is awaited, not as an unhandled rejection. */
const quietly = (promise) => {
  promise?.catch(() => {});
  return promise;
};

// Everything is found relative to this file (<site>/assets/tl/tl-worker.js), so start-up begins the moment the
// worker exists, without waiting for the page: the page only hands over its port and interrupt buffer.
const ASSETS = new URL("../", self.location.href);
const INDEX = new URL("pyodide/", ASSETS).href;
const quiet = () => {};
const OPTIONS = { indexURL: INDEX, stdout: quiet, stderr: quiet, env: { HOME: RUNTIME.home } };

/**
 * Restoring the memory snapshot saves the work of starting Python and importing numpy and pytest, about
 * COLD_START_MS on this project's 2-core machine (bench/README.md), but costs the snapshot's download (8 MB). On a
 * line too slow to bring it in that time, a first visit starts cold instead: it is ready sooner and downloads
 * less; the offline copy fetches the snapshot afterwards, for the visits after. The line's speed is what the
 * start-up downloads (the core, the standard library) have brought in by the time the core's last byte has
 * arrived, or DECIDE_MS after their first byte; a repeat visit, served from the offline copy, always restores.
 */
const COLD_START_MS = 3000;
const DECIDE_MS = 400;
const meter = { bytes: 0, first: 0 };
let firstByte;
const firstByteSeen = new Promise((resolve) => { firstByte = resolve; });

/**
 * `response` with its body counted by the meter as the network delivers it: a branch of the body (tee) is read
 * as fast as it arrives, so the count measures the line, not the consumer (compiling the core, when the machine
 * is busy, reads slower than a fast line delivers); the tee holds the chunks for the consumer meanwhile.
 * `arrived` is called once the whole body is in.
 */
function counted(response, arrived = () => {}) {
  if (!response.body) return response;
  const [body, probe] = response.body.tee();
  (async () => {
    const reader = probe.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!meter.first) {
        meter.first = performance.now();
        firstByte();
      }
      meter.bytes += value.byteLength;
      arrived(value.byteLength);
    }
  })().catch(() => {}).finally(arrived);
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Settles once the snapshot has been requested, or it is known that it will not be: the loader script waits for
 * it (runLoader), as running it holds this thread and would hold back the request. */
let snapshotAsked;
const snapshotAskedFor = new Promise((resolve) => { snapshotAsked = resolve; });

let coreArrived;
const coreIn = new Promise((resolve) => { coreArrived = resolve; });

/** Settles once the line's speed can be told (see COLD_START_MS). */
let lineMeasured = Promise.resolve();

/** The start this worker's name forces (worker-client.js workerName, build-outputs.js STARTS), for tests and the
 * benchmark (compact: the snapshot, from the compact copies), or "": the line's measure chooses. */
const CHOSEN_START = startChosen(self.name);

/** The line's speed in bytes per ms, as the meter has it once measured; Infinity when nothing was counted. */
async function lineSpeed() {
  await lineMeasured;
  return meter.first ? meter.bytes / Math.max(1, performance.now() - meter.first) : Infinity;
}

/**
 * The compact copies of the snapshot and the packs (zstd, tools/pack.py compact) are 5 MB smaller in all and
 * decode ~0.35 s slower: worth it on a line slower than 5 MB in 0.35 s, 14 MB/s. The meter reads low, though,
 * most of all on a slower line (bench/network.py: 2.6-3.5 MB/s under the 100 Mbit/s emulation, 15-20 MB/s on
 * localhost), so the threshold sits between those. A faster line, and a repeat visit served from the offline copy
 * (which keeps the LZ4 files), take the LZ4 files.
 */
const COMPACT_BELOW = 8_000; // bytes per ms, as the meter measures

/** Whether the compact copies are worth fetching on this line. */
async function compactWorthIt(list) {
  if (!list.compact) return false;
  if (CHOSEN_START) return CHOSEN_START === "compact";
  return (await lineSpeed()) < COMPACT_BELOW;
}

/** Whether restoring a snapshot of `bytes` beats starting cold on this line. */
async function snapshotWorthIt(bytes) {
  if (CHOSEN_START) return CHOSEN_START !== "cold";
  const perMs = await lineSpeed();
  if (!bytes || perMs === Infinity) return true;
  // The first downloads share the line with the page's own files and do not reach its full speed in their
  // first moments, so the measure runs low: at 100 Mbit/s it sent one first visit in two down the cold path
  // (bench/network.py). Starting cold is chosen only when the snapshot would take twice what it saves.
  return bytes / perMs < 2 * COLD_START_MS;
}

/**
 * Every byte once, where the HTTP cache would not keep a file (a private window keeps none over a few MB, and
 * some hosts forbid storing): what this worker downloads under assets/ is also put in a hand-off cache, which
 * the service worker's offline copy takes files from (checked against their hashes) before downloading any, and
 * deletes once complete. A response from the offline copy itself (it carries X-TL-SHA256) is not handed off.
 */
const handoffs = []; // each copy being written
function handingOff(fetchFn) {
  if (!self.caches) return fetchFn;
  return async (input, init) => {
    const response = await fetchFn(input, init);
    if (response.ok && response.type === "basic" && response.url.startsWith(ASSETS.href)
        && !response.headers.has("X-TL-SHA256")) {
      const copy = response.clone();
      handoffs.push(caches.open(RUNTIME.handoffCache).then((cache) => cache.put(response.url, copy)).catch(() => {}));
    }
    return response;
  };
}

/** A response with the inflated body of `url`, a gzipped copy (tools/precompress.py), or null if there is none;
 * `arrived` (counted) is called once the copy's last byte is in. */
async function inflated(realFetch, url, type, arrived = undefined) {
  if (typeof DecompressionStream !== "function") return null;
  const response = await realFetch(url).catch(() => null);
  if (!response || !response.ok || !response.body) return null;
  return new Response(counted(response, arrived).body.pipeThrough(new DecompressionStream("gzip")),
    { headers: { "Content-Type": type } });
}

/** The core, compiled as its gzipped copy streams in (7 MB less to download), else from the original. */
async function compileCore(realFetch, wasmURL) {
  const response = await inflated(realFetch, INDEX + OUTPUTS.coreGz, "application/wasm", coreArrived);
  if (response) {
    try {
      return await WebAssembly.compileStreaming(response);
    } catch { /* a copy that does not inflate (a host that decoded it already): the original */ }
  }
  return WebAssembly.compileStreaming(realFetch(wasmURL));
}

/**
 * Pyodide's loader module (pyodide.asm.mjs, 1.2 MB) from its gzipped copy (0.3 MB): imported from a blob of its
 * inflated text, and its factory handed to loadPyodide (`createPyodideModule`), which then does not import the
 * original. Resolves to the factory, or null when it could not (Pyodide then imports the original itself). The
 * module finds nothing through its own address: Pyodide gives it the core's address (`locateFile`) and the core.
 */
async function runLoader(realFetch) {
  let url = "";
  try {
    const response = await inflated(realFetch, INDEX + OUTPUTS.loaderGz, "text/javascript");
    if (!response) return null;
    url = URL.createObjectURL(new Blob([await response.text()], { type: "text/javascript" }));
    // Evaluating it holds this thread for a moment (~300 ms), which would look like a slow line, and would hold
    // back the snapshot's request, which follows the line's measure.
    await Promise.all([lineMeasured, snapshotAskedFor]);
    const module = await import(/* webpackIgnore: true */ url);
    return typeof module.default === "function" ? module.default : null;
  } catch {
    return null;
  } finally {
    if (url) URL.revokeObjectURL(url);
  }
}

/** Pyodide's module factory once its loader has been imported from the gzipped copy, else null (runLoader);
 * loadPyodide waits for it. */
let loaderRan = Promise.resolve(null);

/**
 * Pyodide requests its WebAssembly core and its standard library only once it has the snapshot in hand, so
 * their download and the core's compilation (10 MB) would wait for the snapshot's download. Both are requested
 * as the worker starts instead, with the loader script: the core is compiled in the background while the
 * snapshot arrives, and Pyodide's own requests for these two files are answered from here.
 */
function startCoreEarly() {
  const realFetch = handingOff(self.fetch.bind(self));
  const wasmURL = `${INDEX}pyodide.asm.wasm`;
  const stdlibURL = `${INDEX}python_stdlib.zip`;
  const core = compileCore(realFetch, wasmURL);
  core.catch(() => {}); // Pyodide then fetches and compiles the core itself
  const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
  lineMeasured = Promise.race([coreIn, firstByteSeen.then(() => sleep(DECIDE_MS))]);
  loaderRan = runLoader(realFetch);
  let stdlib = realFetch(stdlibURL).then((r) => counted(r));
  stdlib.catch(() => {});
  core.then(coreArrived, coreArrived); // without the gzipped copy: once compiled
  const stubs = new WeakSet();
  self.fetch = (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input?.url;
    if (url === stdlibURL && stdlib) {
      const response = stdlib;
      stdlib = null; // handed over once; a later request (a cold restart) fetches afresh
      return response.catch(() => realFetch(input, init));
    }
    if (url === wasmURL) {
      return core.then(() => {
        const stub = new Response(null, { headers: { "Content-Type": "application/wasm" } });
        stubs.add(stub);
        return stub;
      }, () => realFetch(input, init));
    }
    return realFetch(input, init);
  };
  const instantiateStreaming = WebAssembly.instantiateStreaming.bind(WebAssembly);
  WebAssembly.instantiateStreaming = async (source, imports) => {
    const response = await source;
    if (!stubs.has(response)) return instantiateStreaming(response, imports);
    const module = await core;
    return { module, instance: await WebAssembly.instantiate(module, imports) };
  };
}

/**
 * @typedef {{list: import("../shared/build-outputs.js").WheelsList, compact: Promise<boolean>, restoring: Promise<boolean>,
 *   snapshot: Promise<Uint8Array|null>, memory: Promise<Uint8Array|null>,
 *   numpyPack: Promise<Uint8Array>|null, wheelsPack: Promise<Uint8Array>|null, judgeZip: Promise<Uint8Array>}} Files
 *   Every download start-up needs, each a promise; a pack is null when the build made none.
 */

/**
 * Read the wheels list, then request what start-up needs, so downloads overlap the interpreter's start: the
 * snapshot when it is worth restoring (snapshotWorthIt; else `snapshot` resolves to null and Python starts
 * cold) and the packs, which are decoded after it.
 * @returns {Promise<Files>}
 */
async function requestFiles() {
  const response = await fetch(INDEX + OUTPUTS.wheelsList);
  if (!response.ok) throw new Error(`pyodide/${OUTPUTS.wheelsList}: HTTP ${response.status}`);
  const list = readWheelsList(await response.json());
  const compact = compactWorthIt(list);
  const named = (name) => compact.then((yes) => INDEX + name + (yes ? OUTPUTS.compactSuffix : ""));
  const restoring = list.snapshot.length
    ? compact.then((yes) => snapshotWorthIt(yes ? list.snapshotCompactBytes : list.snapshotBytes))
    : Promise.resolve(false);
  // The buffer the snapshot is decoded into, made as soon as the restore is decided when the build says its size:
  // Pyodide is handed it at once and creates its memory and module while the parts download (startPython).
  const memory = restoring.then((yes) => (yes && list.snapshotSize > 0 ? new Uint8Array(list.snapshotSize) : null));
  const snapshot = restoring.then(async (yes) => {
    const bytes = yes ? fetchSnapshot(await Promise.all(list.snapshot.map(named)), await memory) : null;
    snapshotAsked(); // fetchSnapshot has sent its requests
    return bytes;
  });
  restoring.catch(snapshotAsked);
  // The packs are requested with the snapshot, as soon as the line's measure says which copies to fetch:
  // requested one after another, the downloads took longer in total (bench/network.py, 20 Mbit/s: ready 1 s
  // later; numpy's pack requested once the snapshot was in: 0.3-0.6 s later). They are decoded after the snapshot.
  const after = snapshot.catch(() => null);
  const unpacked = (name) => (name
    ? quietly(Promise.all([named(name).then(fetchBytes), after]).then(([b]) => unwrap(b))) : null);
  const files = {
    list, compact, restoring, snapshot, memory, numpyPack: unpacked(list.numpyPack),
    wheelsPack: unpacked(list.wheelsPack),
    judgeZip: fetchBytes(new URL(`tl/${OUTPUTS.judgeZip}`, ASSETS).href),
  };
  Promise.all([compact, restoring]).then(([small, restore]) => {
    const snapshotBytes = small ? list.snapshotCompactBytes : list.snapshotBytes;
    expectLoading((small ? list.startCompactBytes : list.startBytes) - (restore ? 0 : snapshotBytes),
      Promise.allSettled([snapshot, files.numpyPack, files.wheelsPack, files.judgeZip, coreIn]));
  }, () => {});
  return files;
}

/**
 * @typedef {{py: any, restored: boolean, bridge: {run: any, check: any, explore: any, numpyReady: any,
 *   judgeReady: any, imports: any, plotsReady: any}, sitePackages: string, wheelsWritten: boolean, loadErrors: string[],
 *   list: import("../shared/build-outputs.js").WheelsList, optional: Record<string, Promise<void>>}} Session
 *   The interpreter and the judge's entry points (checker/bridge.py), as later stages and requests use them;
 *   `optional`: each optional package (matplotlib) being loaded or loaded, by name.
 */

/**
 * The interpreter: restored from the memory snapshot when there is one it can use, else started cold.
 *
 * Pyodide awaits the snapshot's bytes before it creates its module, and restores them right after. When the build
 * gave the snapshot's size, it is handed the buffer the parts are being decoded into, still empty, and holds its
 * start, after creating the module (evaluating the loader's module code, instantiating the core, linking its
 * symbols: ~0.3 s), until the buffer is full: through `fsInit`, the hook loadPyodide awaits before it starts
 * Python. A snapshot that does not arrive leaves the buffer empty, which Pyodide refuses to restore ("invalid
 * magic number"): then Python starts cold, as when there is no snapshot.
 *
 * Pyodide 314's core exports its memory at 30 MiB and copies the snapshot into it as it is, so a snapshot taken
 * after the memory grew (the build's is 36 MiB: its warm check grows it) would not fit ("offset is out of
 * bounds"). The same hook first grows the memory to the snapshot's size, the way the core itself grows it
 * (Emscripten's emscripten_resize_heap, which also renews the runtime's views of it), on the module the factory
 * is building (withModule).
 */
async function startPython(files) {
  const [{ loadPyodide }, factory] = await Promise.all([import(`${INDEX}pyodide.mjs`), loaderRan]);
  const module = withModule(factory || (await import(`${INDEX}pyodide.asm.mjs`)).default);
  const options = { ...OPTIONS, createPyodideModule: module.factory };
  if (await files.restoring) {
    const bytes = files.snapshot.then((b) => b || Promise.reject(new Error("no snapshot")));
    const memory = await files.memory;
    const fsInit = () => bytes.then((b) => module.fit(b.length), () => {});
    try {
      const py = await loadPyodide({ ...options, _loadSnapshot: memory ?? bytes, fsInit });
      return { py: forgetSnapshot(py), restored: true };
    } catch { /* no snapshot, or one this runtime cannot use: start cold instead */ }
  }
  return { py: await loadPyodide(options), restored: false };
}

/**
 * Pyodide's module factory, wrapped to keep the module it builds (the Emscripten `Module`, its settings object),
 * and `fit(bytes)`: grow that module's memory to hold a snapshot of `bytes` (see startPython).
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
  };
}

/**
 * Pyodide keeps the options it was loaded with for as long as it runs (its API's `config`), and with them the
 * snapshot's bytes, 30 MB it needs no more once restored (in Python's memory now): let them go. Internal to
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

/**
 * The judge's files into the file system and its entry points taken, before any learner code can run (so the
 * functions kept here are the real ones), then the judge's wheels from their pack when there is one. With a
 * snapshot pytest is already imported; its files are still written for anything read lazily.
 * @returns {Promise<Session>}
 */
async function installJudge({ py, restored }, files) {
  py.unpackArchive(await files.judgeZip, "zip", { extractDir: RUNTIME.judgeDir });
  py.pyimport("sys").path.insert(0, RUNTIME.judgeDir);
  const entry = py.pyimport("checker.bridge");
  const bridge = { run: entry.run, check: entry.check, explore: entry.explore, numpyReady: entry.numpy_ready,
    judgeReady: entry.judge_ready, imports: entry.imports, plotsReady: entry.plots_ready };
  const session = { py, restored, bridge, sitePackages: entry.site_packages(), wheelsWritten: false, loadErrors: [],
    list: files.list, optional: {} };
  try {
    if (files.wheelsPack) {
      extract(py.FS, await files.wheelsPack, session.sitePackages);
      session.wheelsWritten = true;
      markLoaded(py, files.list.wheels.map(distribution));
    }
  } catch { /* the judge stage installs the wheels one by one instead */ }
  return session;
}

/**
 * Tell Pyodide's loadPackage that start-up installed these packages from the packs, so that an optional package
 * depending on them (matplotlib on numpy and packaging) takes them as loaded rather than fetching and unpacking
 * its lock file's copies over them.
 */
function markLoaded(py, names) {
  for (const name of names) py.loadedPackages[name] ??= "default channel"; // Pyodide's name for its lock file
}

export const loadPackages = (session, names) => session.py.loadPackage(names, {
  messageCallback: quiet, errorCallback: (e) => session.loadErrors.push(e),
});

/**
 * numpy, then the tamper baseline (checker/bridge.py numpy_ready). numpy comes repacked at build time with its
 * bytecode (tools/numpy_archive.mjs), written from JavaScript; the 12 extension modules its first imports load are
 * loaded ahead (preloadExtensions), the others when first imported, instead of all 19 up front by loadPackage,
 * which is used only when the build names no pack.
 */
async function loadNumpy(session, files) {
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
 * resolved once for all of them, where Python's own dlopen at import does that once per module (~0.15 s sooner
 * ready on this project's machine). Python's import then finds each one loaded. Anything that fails here is left
 * to that import, which loads it as before.
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

/** pytest (from its wheels when their pack could not be written) and the judge's speed-ups; adds pytest's modules
 * to the tamper baseline. */
async function loadPytest(session, files) {
  if (!session.wheelsWritten) await loadPackages(session, files.list.wheels.map((w) => INDEX + w));
  try {
    session.bridge.judgeReady();
  } catch (err) {
    throw new Error(`pytest could not be loaded: ${session.loadErrors.join("; ") || err.message}`);
  }
}

const ready = (stage, extra = {}) => post({ type: "status", stage, ms: performance.now() - t0, ...extra });

/**
 * Start-up, in named stages called in order (as Pyodide's loadPyodide does): each stage's promise resolves to
 * the session once the stage is ready, and says so to the page; requests wait for the stage they need.
 * @param {{post: (msg: object) => void, fatal: (message: string) => void}} report
 * @returns {Record<string, Promise<Session>>} each stage's promise, by name (protocol.js STAGES)
 */
export function boot(report) {
  ({ post, fatal } = report);
  const stages = {};
  startCoreEarly();
  const files = requestFiles();
  files.catch(snapshotAsked);
  stages[STAGE.python] = files.then(async (f) => {
    const session = await installJudge(await startPython(f), f);
    ready(STAGE.python, { snapshot: session.restored, compact: await f.compact });
    return session;
  });
  stages[STAGE.numpy] = stages[STAGE.python].then(async (session) => {
    await loadNumpy(session, await files);
    ready(STAGE.numpy);
    return session;
  });
  stages[STAGE.pytest] = stages[STAGE.numpy].then(async (session) => {
    await loadPytest(session, await files);
    ready(STAGE.pytest);
    // The page completes the offline copy once what this worker downloaded is handed off (sw.js fill).
    Promise.allSettled(handoffs).then(() => ready(STAGE.pytest, { handedOff: true }));
    return session;
  });
  for (const stage of STAGES) {
    stages[stage].catch((err) => fatal(`Python could not start (${stage}): ${err.message}`));
  }
  return stages;
}
