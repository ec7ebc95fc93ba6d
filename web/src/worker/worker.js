/**
 * The Python worker: start-up (boot/boot.js), then the requests, one at a time, off the page's main thread.
 *
 * Requests that arrive early wait here for the stage they need (protocol.js NEEDS). Every run, check and ping
 * gets exactly one reply, and a malformed request an error reply; init and cancel get none (protocol.js).
 * Learner errors are results, not exceptions. A request whose code imports an optional package (matplotlib)
 * loads it first, outside the queue.
 */
import { requestProblem, STAGE, NEEDS } from "../shared/protocol.js";
import { boot } from "./boot/boot.js";
import { loadPackages } from "./boot/packages.js";
import { confine } from "./confine.js";
import { channelEnd, SIDES } from "../shared/sync-channel.js";

// Replies travel over a MessagePort handed over at init and kept in this module's scope: learner code can reach
// the worker's global scope through Python's `js` module, but not this port, so it cannot forge a reply.
// Until the page's init arrives (the worker may be started before the page's script runs), replies wait here.
let send = null;
const waiting = [];
const parse = JSON.parse;
let interrupt = null;
let dead = false;

const post = (msg) => (send ? send(msg) : waiting.push(msg));

// Learner code can reach `close` through Python's `js` module; a silently closed worker would leave the page
// waiting for a reply forever, so closing is turned into a reported crash and the page replaces the worker.
self.close = () => fatal("Your code closed the Python worker (js.close()).");

function fatal(message) {
  dead = true;
  post({ type: "fatal", message });
}

/** Each start-up stage's promise, by name; each resolves to the Python session (boot/judge.js Session). */
const stages = boot({ post, fatal });

/** What the worker calls once an optional package's files are installed, before the request that wanted it. */
const READY = { matplotlib: (bridge) => bridge.plotsReady() };
const MB = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

/**
 * The optional packages (the wheels list's `optional`: matplotlib) that a run's or a check's code imports and
 * this worker has not loaded. Finding out costs one parse of that code (bridge.imports), so a request that
 * imports none of them costs what it did before, and nothing of them is fetched until one is imported.
 */
function wantedPackages(session, msg) {
  const sources = msg.type === "check" ? Object.values(msg.files) : [msg.code, ...Object.values(msg.files || {})];
  // Code that does not even mention a package's modules is not parsed: most requests cost no Python call.
  const optional = session.list.optional.filter((p) => !session.optional[p.name]
    && p.imports.some((name) => sources.some((source) => source.includes(name))));
  if (!optional.length) return [];
  const imported = new Set(parse(session.bridge.imports(JSON.stringify(sources))));
  return optional.filter((p) => p.imports.some((name) => imported.has(name)));
}

/** Load an optional package with Pyodide's loadPackage from this site's files (its lock file, verified by its
 * sha256), once; a failure is forgotten, so a later request tries again. */
function loadOptional(session, pkg) {
  session.optional[pkg.name] ??= (async () => {
    session.loadErrors = [];
    await loadPackages(session, [pkg.name]);
    try {
      READY[pkg.name]?.(session.bridge);
    } catch (err) {
      throw new Error(session.loadErrors.join("; ") || String(err.message || err).split("\n").slice(-2).join(" "));
    }
  })().catch((err) => {
    delete session.optional[pkg.name];
    throw err;
  });
  return session.optional[pkg.name];
}

/**
 * A request whose code imports optional packages not loaded yet: say so ("progress"), load them outside the
 * queue, so that checks and runs sent meanwhile go ahead, then queue the request again. A failure is its result.
 */
function loadFor(session, wanted, msg) {
  const names = wanted.map((p) => p.name).join(" and ");
  const bytes = wanted.reduce((n, p) => n + p.bytes, 0);
  post({ type: "progress", id: msg.id, text: `Loading ${names} (${MB(bytes)}, once)…` });
  Promise.all(wanted.map((p) => loadOptional(session, p))).then(() => {
    loadedFor.add(msg.id);
    receive(msg);
  }, (err) => {
    if (cancelled.delete(msg.id)) return;
    const traceback = `${names} could not be loaded: ${err.message}\nIf you are offline, run this again once you are `
      + `online: it is kept for offline use after that.`;
    const result = { status: "error", stdout: "", traceback };
    post({ type: "result", id: msg.id, result: msg.type === "check" ? { ...result, tests: [] } : result });
  });
}

function invoke(fn, stopped) {
  try {
    return parse(fn());
  } catch (err) {
    // A Stop in the few steps of the bridge outside its own handling: stopped, the interpreter is fine.
    if (err && err.type === "KeyboardInterrupt") return stopped;
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
      stages[STAGE.python].then(({ py }) => py.setInterruptBuffer(interrupt)).catch(() => {});
    }
    return;
  }
  if (msg.type === "ping") {
    post({ type: "result", id: msg.id, result: { status: "ok", stdout: "", traceback: "" } });
    return;
  }
  const session = await stages[NEEDS[msg.type]];
  const { bridge } = session;
  if (dead) return;
  if (cancelled.delete(msg.id)) return;
  if (msg.type === "serve") {
    await serve(session, msg);
    return;
  }
  if (loadedFor.delete(msg.id)) {
    post({ type: "progress", id: msg.id, text: "" }); // loaded: the request runs now
  } else {
    const wanted = wantedPackages(session, msg);
    if (wanted.length) {
      loadFor(session, wanted, msg);
      return;
    }
  }
  if (interrupt) interrupt[0] = 0;
  post({ type: "started", id: msg.id });
  let result;
  const write = (text) => post({ type: "stdout", id: msg.id, text });
  if (msg.type === "run") {
    result = invoke(() => bridge.run(msg.code, msg.filename, JSON.stringify(msg.files || {}), write, msg.run || 0),
      { status: "timeout", stdout: "", traceback: "" });
  } else if (msg.type === "explore") {
    const steps = (text) => post({ type: "steps", id: msg.id, steps: parse(text) });
    result = invoke(() => bridge.explore(JSON.stringify({
      kind: msg.kind, code: msg.code, run: msg.run, filename: msg.filename, files: msg.files || {},
    }), write, steps), { status: "timeout", stdout: "", traceback: "" });
  } else {
    const channel = msg.channel ? channelEnd(msg.channel, SIDES.tests) : undefined;
    result = invoke(() => bridge.check(JSON.stringify({
      tests: msg.tests, files: msg.files, learner: msg.learner, names: msg.names, rewritten: msg.rewritten,
      mistakes: msg.mistakes,
    }), channel), { status: "timeout", tests: [], stdout: "", traceback: "", phase: "import" });
  }
  if (result) post({ type: "result", id: msg.id, result });
}

/**
 * Be the learner's interpreter of one separated check (protocol.js ServeRequest): once every module has arrived,
 * cut this worker off (confine.js), then serve the tests' requests until the check ends. The worker is used for
 * nothing else after: the page ends it with the check.
 */
async function serve(session, msg) {
  await session.allHere;
  const end = channelEnd(msg.channel, SIDES.learner);
  confine(self);
  post({ type: "started", id: msg.id });
  const result = invoke(() => session.bridge.serve(end), { status: "timeout", stdout: "", traceback: "" });
  if (result) post({ type: "result", id: msg.id, result });
}

// Requests run one at a time, in order: Python is single-threaded and a check must not interleave with a run.
let queue = Promise.resolve();
const cancelled = new Set();
const loadedFor = new Set(); // requests whose optional packages have just been loaded: they run, no more looking

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
