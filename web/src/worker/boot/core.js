/**
 * The core and the loader, requested as the worker starts. Pyodide requests its core only once it has the snapshot
 * in hand, so its download and compilation would wait for the snapshot's download; requested here at once, the
 * core compiles in the background while the snapshot arrives, and Pyodide's own requests for the core and the
 * standard library are answered from here (answerPyodide). The start-up standard library is requested only when
 * it is needed (`ctx.stdlib`): before a cold start; after ready when Python is restored from the snapshot, which
 * holds every module of it already imported (later.js deferStdlib). The core comes
 * as a zstd frame and the loader gzipped (tools/precompress.py): much less to download (bench/README.md, "Start-up
 * design decisions").
 */
import { OUTPUTS } from "../../shared/build-outputs.js";
import { counted } from "./line.js";
import { handingOff } from "./handoff.js";
import { zstd, zstdReady } from "../zstd.js";

/** How many of the core's bytes are still to come when numpy's pack is asked for (files.js). */
const NEARLY_IN_BYTES = 256 * 1024;

/**
 * Request the core, the loader and the standard library, and answer Pyodide's requests for them.
 * @param {import("./context.js").Boot} ctx
 * @returns {Promise<Function|null>} Pyodide's module factory once its loader has run from the gzipped copy, else
 *   null (runLoader): loadPyodide waits for it (python.js)
 */
export function requestCore(ctx) {
  const realFetch = handingOff(ctx, self.fetch.bind(self));
  // the decoder, fetched with the first requests and instantiated while the first bytes are on their way
  zstdReady(() => realFetch(new URL(`tl/${OUTPUTS.zstdWasm}`, ctx.assets).href)).catch(() => {});
  const wasmURL = `${ctx.index}pyodide.asm.wasm`;
  const stdlibURL = ctx.index + OUTPUTS.stdlibStart; // the start-up part (issue 30): python.js names it to Pyodide
  const core = compileCore(ctx, realFetch, wasmURL);
  core.catch(() => {}); // Pyodide then fetches and compiles the core itself
  const loader = runLoader(ctx, realFetch);
  let stdlib = null;
  ctx.stdlib = () => {
    if (!stdlib) {
      stdlib = fetchStdlib(ctx, realFetch, stdlibURL);
      stdlib.then(() => ctx.mark("stdlibIn"), () => {});
    }
    return stdlib;
  };
  core.then(ctx.coreIn.settle, ctx.coreIn.settle); // without the gzipped copy: once compiled
  ctx.coreIn.promise.then(ctx.coreNearlyIn.settle); // whichever copy came
  ctx.coreIn.promise.then(() => ctx.mark("coreIn"));
  core.then(() => ctx.mark("coreCompiled"), () => {});
  answerPyodide(ctx, { realFetch, core, wasmURL, stdlibURL });
  return loader;
}

/** The start-up standard library (a stored zip) from its zstd frame; else the zip itself. */
async function fetchStdlib(ctx, realFetch, stdlibURL) {
  try {
    const response = await realFetch(stdlibURL + OUTPUTS.compactSuffix);
    if (response.ok) return await zstd(new Uint8Array(await counted(ctx, response).arrayBuffer()));
  } catch { /* the zip itself */ }
  const response = await realFetch(stdlibURL);
  if (!response.ok) throw new Error(`${stdlibURL}: HTTP ${response.status}`);
  return new Uint8Array(await counted(ctx, response).arrayBuffer());
}

/** The text of the loader from its zstd frame (precompress.py), or null. */
async function loaderText(ctx, realFetch) {
  try {
    const response = await realFetch(ctx.index + OUTPUTS.loaderZst);
    if (response.ok) return new TextDecoder().decode(await zstd(new Uint8Array(await counted(ctx, response).arrayBuffer())));
  } catch { /* its gzipped copy */ }
  const response = await inflated(ctx, realFetch, ctx.index + OUTPUTS.loaderGz, "text/javascript");
  return response ? response.text() : null;
}

/** A response with the inflated body of `url`, a gzipped copy (tools/precompress.py), or null if there is none;
 * `whenIn` is called once its whole body is in (line.js counted). */
async function inflated(ctx, realFetch, url, type, whenIn = undefined) {
  if (typeof DecompressionStream !== "function") return null;
  const response = await realFetch(url).catch(() => null);
  if (!response || !response.ok || !response.body) return null;
  return new Response(counted(ctx, response, whenIn).body.pipeThrough(new DecompressionStream("gzip")),
    { headers: { "Content-Type": type } });
}

/**
 * The core from its zstd copy (tools/precompress.py: 0.6 MB smaller than gzipped), decoded once it is in by zstd's
 * own decoder in WebAssembly (zstd.js, as fast as the browser's gzip) and compiled; else compiled as its gzipped
 * copy streams in; else from the original. The zstd copy is not compiled as it streams in: the decoder takes
 * whole frames, and on a slow line the core is in long before the snapshot, so its compilation still overlaps
 * the snapshot's download.
 */
async function compileCore(ctx, realFetch, wasmURL) {
  try {
    const response = await realFetch(ctx.index + OUTPUTS.coreZst);
    if (response.ok && response.body) {
      const nearly = { left: NEARLY_IN_BYTES, then: ctx.coreNearlyIn.settle };
      const bytes = new Uint8Array(await counted(ctx, response, ctx.coreIn.settle, nearly).arrayBuffer());
      return await WebAssembly.compile(await zstd(bytes));
    }
  } catch { /* the gzipped copy, then the original */ }
  const response = await inflated(ctx, realFetch, ctx.index + OUTPUTS.coreGz, "application/wasm", ctx.coreIn.settle);
  if (response) {
    try {
      return await WebAssembly.compileStreaming(response);
    } catch { /* a copy that does not inflate (a host that decoded it already): the original */ }
  }
  return WebAssembly.compileStreaming(realFetch(wasmURL));
}

/**
 * Pyodide's loader module (pyodide.asm.mjs) from its zstd or gzipped copy: imported from a blob of its text, and
 * its factory handed to loadPyodide (`createPyodideModule`), which then does not import the original. Resolves to
 * the factory, or null when it could not (Pyodide then imports the original itself). The module finds nothing
 * through its own address: Pyodide gives it the core's address (`locateFile`) and the core.
 */
async function runLoader(ctx, realFetch) {
  let url = "";
  try {
    const text = await loaderText(ctx, realFetch);
    if (text === null) return null;
    url = URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
    // Evaluating it holds this thread for a moment, which would look like a slow line, and would hold back the
    // snapshot's request, which follows the line's measure.
    await Promise.all([ctx.line.measured, ctx.snapshotAsked.promise]);
    const module = await import(/* webpackIgnore: true */ url);
    return typeof module.default === "function" ? module.default : null;
  } catch {
    return null;
  } finally {
    if (url) URL.revokeObjectURL(url);
  }
}

/**
 * Answer Pyodide's own requests for the standard library (an empty file while `ctx.stdlibLater`, which Python
 * restored from the snapshot reads only after ready, later.js; else the download ctx.stdlib began) and the core
 * (a stub response that `WebAssembly.instantiateStreaming` recognises and instantiates from the module compiled
 * here), by patching `fetch` and `WebAssembly.instantiateStreaming`; any other request, or one these cannot
 * answer, goes to the network. The core's initial memory is kept as it is instantiated (keepInitialMemory).
 */
function answerPyodide(ctx, { realFetch, core, wasmURL, stdlibURL }) {
  const stubs = new WeakSet();
  const zip = (bytes) => new Response(bytes, { headers: { "Content-Type": "application/zip" } });
  self.fetch = (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input?.url;
    if (url === stdlibURL) {
      if (ctx.stdlibLater) return Promise.resolve(zip(new Uint8Array(0)));
      return ctx.stdlib().then(zip, () => realFetch(input, init));
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
    const made = stubs.has(response)
      ? { module: await core, instance: await WebAssembly.instantiate(await core, imports) }
      : await instantiateStreaming(response, imports);
    keepInitialMemory(ctx, made.instance, imports);
    return made;
  };
}

/**
 * The core's memory as instantiating it left it, its data segments laid out and nothing run yet: the first
 * `ctx.deltaBytes` of it, which the snapshot is a delta against (python.js undoes it). Kept once, for the first
 * instance (Pyodide's), as the loader writes to the memory before the snapshot is restored.
 */
function keepInitialMemory(ctx, instance, imports) {
  if (!ctx.deltaBytes || ctx.initialMemory) return;
  const memory = instance.exports.memory || imports?.env?.memory;
  if (memory instanceof WebAssembly.Memory && memory.buffer.byteLength >= ctx.deltaBytes) {
    ctx.initialMemory = new Uint8Array(memory.buffer, 0, ctx.deltaBytes).slice();
  }
}
