/**
 * The Python worker: Pyodide, numpy and the judge, off the page's main thread.
 *
 * Start-up is staged so the page can tell the learner what is ready: "python" (the interpreter), "numpy"
 * (Run works), "judge" (pytest loaded: Check works). Requests that arrive early wait here for the stage they need
 * (protocol.js NEEDS). Every run, check and ping gets exactly one reply, and a malformed request an error reply;
 * init and cancel get none (protocol.js). Learner errors are results, not exceptions.
 */
import { requestProblem, STAGE, STAGES, NEEDS } from "./protocol.js";
import { extract, unwrap } from "./pack.js";

const JUDGE_DIR = "/home/pyodide/tl";
// The bridge binds json and the judge's entry points as default arguments, at a moment when no learner code
// has run, so later tampering with those names cannot change what the worker reports.
const BRIDGE = `
import json, sys
sys.path.insert(0, ${JSON.stringify(JUDGE_DIR)})
from checker import judge as _tl_judge, integrity as _tl_integrity

def _tl_run(code, filename, files_json, write, _run=_tl_judge.run, _dumps=json.dumps, _loads=json.loads):
    return _dumps(_run(code, filename, files=_loads(files_json), workdir="/tmp/tl", on_write=write))

def _tl_check(payload_json, _check=_tl_judge.check, _dumps=json.dumps, _loads=json.loads):
    p = _loads(payload_json)
    return _dumps(_check(tests=p["tests"], files=p["files"], learner=p["learner"], names=p["names"],
                         workdir="/tmp/tl"))
`;

let pyodide = null;
let interrupt = null;
// Replies travel over a MessagePort handed over at init and kept in this module's scope: learner code can reach
// the worker's global scope through Python's `js` module, but not this port, so it cannot forge a reply.
// Until the page's init arrives (the worker may be started before the page's script runs), replies wait here.
let send = null;
const waiting = [];
const parse = JSON.parse;
const t0 = performance.now();
const stages = {};
let bridge = null;
let dead = false;

const post = (msg) => (send ? send(msg) : waiting.push(msg));

// Learner code can reach `close` through Python's `js` module; a silently closed worker would leave the page
// waiting for a reply forever, so closing is turned into a reported crash and the page replaces the worker.
self.close = () => fatal("Your code closed the Python worker (js.close()).");

function fatal(message) {
  dead = true;
  post({ type: "fatal", message });
}

async function fetchBytes(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The snapshot's bytes, or null when there is none or it cannot be read (then Python starts cold). */
const fetchSnapshot = (url) => fetchBytes(url).then(unwrap).catch(() => null);

// Everything is found relative to this file (<site>/assets/tl/tl-worker.js), so start-up begins the moment the
// worker exists, without waiting for the page: the page only hands over its port and interrupt buffer.
const ASSETS = new URL("../", self.location.href);
const SNAPSHOT = "snapshot.bin.lz4";
const INDEX = new URL("pyodide/", ASSETS).href;

/**
 * Pyodide requests its WebAssembly core and its standard library only once it has the snapshot in hand, so
 * their download and the core's compilation (10 MB) would wait for the snapshot's download. Both are requested
 * as the worker starts instead: the core is compiled in the background while the snapshot arrives, and
 * Pyodide's own requests for these two files are answered from here.
 */
function startCoreEarly() {
  const realFetch = self.fetch.bind(self);
  const wasmURL = `${INDEX}pyodide.asm.wasm`;
  const stdlibURL = `${INDEX}python_stdlib.zip`;
  const core = WebAssembly.compileStreaming(realFetch(wasmURL));
  core.catch(() => {}); // Pyodide then fetches and compiles the core itself
  let stdlib = realFetch(stdlibURL);
  stdlib.catch(() => {});
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

function boot() {
  const quiet = () => {};
  const options = { indexURL: INDEX, stdout: quiet, stderr: quiet, env: { HOME: "/home/pyodide" } };
  let restored = false;
  let wheelURLs = [];
  let numpyPack = null;
  let numpyName = "";
  let sitePackages = "";
  let wheelsWritten = false;
  startCoreEarly();
  // The build names its snapshot SNAPSHOT (tools/snapshot.py); requesting it before wheels.json confirms that
  // saves a round trip on the critical path. A build without one answers 404, and the guess is dropped.
  const guessed = fetchSnapshot(INDEX + SNAPSHOT);
  stages[STAGE.python] = (async () => {
    const info = await fetch(`${INDEX}wheels.json`).then((r) => {
      if (!r.ok) throw new Error(`pyodide/wheels.json: HTTP ${r.status}`);
      return r.json();
    });
    wheelURLs = info.wheels.map((w) => INDEX + w);
    // Every file is requested now, so downloads overlap the interpreter's start. The snapshot comes first: it is
    // on the critical path, and decoding the packs on this thread would only delay it, so they are decoded once
    // the snapshot is.
    const snapshot = !info.snapshot ? Promise.resolve(null)
      : info.snapshot === SNAPSHOT ? guessed : fetchSnapshot(INDEX + info.snapshot);
    const after = snapshot.catch(() => null);
    const unpacked = (name) => Promise.all([fetchBytes(INDEX + name), after]).then(([b]) => unwrap(b));
    numpyName = info.numpy || "";
    numpyPack = numpyName ? unpacked(numpyName) : null;
    numpyPack?.catch(() => {}); // a failure is reported by the numpy stage, not as an unhandled rejection
    const judgeZip = fetchBytes(new URL("tl/checker.zip", ASSETS).href);
    const wheelsPack = info.wheels_pack ? unpacked(info.wheels_pack) : null;
    wheelsPack?.catch(() => {});
    const { loadPyodide } = await import(`${INDEX}pyodide.mjs`);
    let py = null;
    if (info.snapshot) {
      // Pyodide awaits the snapshot itself, after loading its own script: both downloads run side by side.
      const bytes = snapshot.then((b) => b || Promise.reject(new Error("no snapshot")));
      try {
        py = await loadPyodide({ ...options, _loadSnapshot: bytes });
        restored = true;
      } catch { /* no snapshot, or one this runtime cannot use: start cold instead */ }
    }
    if (!py) py = await loadPyodide(options);
    pyodide = py;
    sitePackages = py.runPython("import site; site.getsitepackages()[0]");
    py.unpackArchive(await judgeZip, "zip", { extractDir: JUDGE_DIR });
    // With a snapshot pytest is already imported; its files are still written for anything read lazily.
    try {
      if (wheelsPack) {
        extract(py.FS, await wheelsPack, sitePackages);
        wheelsWritten = true;
      }
    } catch { /* the judge stage installs the wheels one by one instead */ }
    py.runPython(BRIDGE);
    bridge = { run: py.globals.get("_tl_run"), check: py.globals.get("_tl_check"), arm: py.globals.get("_tl_integrity").arm };
    post({ type: "status", stage: STAGE.python, ms: performance.now() - t0, snapshot: restored });
    return py;
  })();
  const loadErrors = [];
  const load = (names) => pyodide.loadPackage(names, { messageCallback: quiet, errorCallback: (e) => loadErrors.push(e) });
  stages[STAGE.numpy] = stages[STAGE.python].then(async () => {
    if (numpyPack) {
      // numpy repacked at build time with its bytecode (tools/numpy_archive.mjs), written from JavaScript: each
      // extension module is then compiled when first imported, instead of all 19 up front by loadPackage.
      try {
        extract(pyodide.FS, await numpyPack, sitePackages);
      } catch (err) {
        loadErrors.push(`${numpyName}: ${err.message}`);
      }
    } else {
      await load(["numpy"]);
    }
    // loadPackage does not fail on a corrupt wheel; importing is the real test.
    try {
      pyodide.runPython("import numpy");
    } catch (err) {
      throw new Error(`numpy could not be loaded: ${loadErrors.join("; ") || err.message}`);
    }
    // The baseline for tamper detection, before any learner code runs; modules the hidden tests import are
    // loaded first so that replacing them later is noticed too.
    pyodide.runPython("import fractions, math, numpy.random, numpy.linalg\nfrom checker import stats");
    bridge.arm();
    post({ type: "status", stage: STAGE.numpy, ms: performance.now() - t0 });
  });
  stages[STAGE.judge] = stages[STAGE.numpy].then(async () => {
    if (!wheelsWritten) await load(wheelURLs);
    try {
      pyodide.runPython("import pytest\n_tl_judge.prepare()");
    } catch (err) {
      throw new Error(`pytest could not be loaded: ${loadErrors.join("; ") || err.message}`);
    }
    bridge.arm(); // adds pytest's modules to the baseline
    post({ type: "status", stage: STAGE.judge, ms: performance.now() - t0 });
  });
  for (const stage of STAGES) {
    stages[stage].catch((err) => fatal(`Python could not start (${stage}): ${err.message}`));
  }
}

boot();

function invoke(fn) {
  try {
    return parse(fn());
  } catch (err) {
    // The judge turns every Python exception into a result, so anything reaching here broke the interpreter
    // itself (os._exit, a wasm trap, the JS stack exhausted by deep recursion in C).
    const text = String(err && err.message ? err.message : err).split("\n").slice(-3).join(" ");
    fatal(`The Python runtime stopped: ${text}`);
    return null;
  }
}

async function handle(msg) {
  const problem = requestProblem(msg);
  if (problem) {
    post({ type: "error", id: msg && msg.id, message: problem });
    return;
  }
  if (msg.type === "init") {
    if (msg.interrupt) {
      interrupt = new Uint8Array(msg.interrupt);
      stages[STAGE.python].then((py) => py.setInterruptBuffer(interrupt)).catch(() => {});
    }
    return;
  }
  if (msg.type === "ping") {
    post({ type: "result", id: msg.id, result: { status: "ok", stdout: "", traceback: "" } });
    return;
  }
  await stages[NEEDS[msg.type]];
  if (dead) return;
  if (cancelled.delete(msg.id)) return;
  if (interrupt) interrupt[0] = 0;
  post({ type: "started", id: msg.id });
  let result;
  if (msg.type === "run") {
    const write = (text) => post({ type: "stdout", id: msg.id, text });
    result = invoke(() => bridge.run(msg.code, msg.filename, JSON.stringify(msg.files || {}), write));
  } else {
    result = invoke(() => bridge.check(JSON.stringify({
      tests: msg.tests, files: msg.files, learner: msg.learner, names: msg.names,
    })));
  }
  if (result) post({ type: "result", id: msg.id, result });
}

// Requests run one at a time, in order: Python is single-threaded and a check must not interleave with a run.
let queue = Promise.resolve();
const cancelled = new Set();

function receive(msg) {
  if (msg && msg.type === "cancel") {
    cancelled.add(msg.id);
    return;
  }
  queue = queue.then(() => handle(msg)).catch((err) => post({ type: "error", id: msg && msg.id, message: String(err) }));
}

// Only the first message arrives on the worker's global channel: init, carrying the port for everything else.
self.onmessage = (event) => {
  const msg = event.data;
  if (send || !msg || msg.type !== "init" || !(msg.port instanceof MessagePort)) return;
  const port = msg.port;
  send = port.postMessage.bind(port);
  port.onmessage = (e) => receive(e.data);
  handle({ ...msg, port: undefined });
  for (const queued of waiting.splice(0)) send(queued);
};
