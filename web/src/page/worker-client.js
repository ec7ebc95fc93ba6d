/**
 * The page's handle on the Python worker: starts it as the page opens, sends requests at once (the worker holds
 * each until the stage it needs is ready), enforces time limits from the moment one starts, and stops runaway
 * code. Every reply is checked against the protocol (protocol.js) before use: a malformed one becomes an error
 * result for its request, never an exception.
 *
 * Stop: when the page is cross-origin isolated, a SharedArrayBuffer interrupt makes Python raise
 * KeyboardInterrupt within milliseconds and keeps the interpreter (and its loaded packages). Code stuck where
 * Python cannot check for interrupts (time.sleep, one long C call), or a page without isolation, gets a fresh
 * worker instead; a spare worker is kept warm so that recovery does not cost a cold start.
 */
import { replyProblem, STAGE } from "../shared/protocol.js";
import { startName } from "../shared/build-outputs.js";
import { browserStorage, forcedStart } from "./store.js";

const GRACE_MS = 1500; // how long Python may take to notice an interrupt before the worker is replaced
// How long Python may take to answer once it has noticed the interrupt: the judge's clean-up after the
// KeyboardInterrupt (40-170 ms from Stop to the answer on this project's machine, loaded or not), or learner code
// that caught the KeyboardInterrupt and carried on, which only a new worker ends: it is interrupted twice (#halt
// says why), so that case waits 2 × (grace + unwind), 9 s.
const UNWIND_MS = 3000;
const SPARE_RETRY_MS = 1000; // how often to look whether the live worker is ready for a spare to start

let nextId = 1;

/**
 * The worker's name: `start=cold|snapshot` when `storage`'s "tl-start" (store.js START_KEY) forces how
 * Python starts (build-outputs.js STARTS; worker/boot/line.js COLD_START_MS; for tests and the
 * benchmark), else "".
 * A name, not a query, so the worker's address stays the one the offline copy holds.
 */
export const workerName = (storage) => startName(forcedStart(storage));

const moduleWorker = (url) => new Worker(url, { type: "module", name: workerName(browserStorage()) });

/**
 * A learner's worker of a separated check (the class page): the same script, marked `?learner`, which the
 * service worker serves with a Content-Security-Policy and whose every request it answers from the build's files
 * alone (sw/sw.js LEARNER_POLICY, learnerAnswer).
 */
export const learnerWorker = (url) => {
  const marked = new URL(url);
  marked.searchParams.set("learner", "");
  return moduleWorker(marked);
};

export class PythonWorker {
  /**
   * @param {{base: string|URL, spare?: boolean, spareAfter?: Promise<unknown>, createWorker?: (url: URL) => Worker,
   *          isolated?: boolean, graceMs?: number, unwindMs?: number, spareRetryMs?: number,
   *          onBusy?: (busy: boolean) => void}} options
   *   base: absolute URL of the site's assets/ folder; spare: keep a second worker warm once code has run, for a
   *   quick recovery after a Stop; spareAfter: the spare waits until it settles too (main.js: until the service
   *   worker controls the page, so the spare's downloads come from the offline copy rather than the network);
   *   createWorker, isolated, graceMs, unwindMs and spareRetryMs exist for tests (a fake worker, the interrupt
   *   path without a browser, short waits); onBusy: told when the learner's work starts (some request that is not
   *   background is pending) and when it is over (main.js holds the offline copy's downloads meanwhile)
   */
  constructor({ base, spare = true, spareAfter = Promise.resolve(), createWorker = moduleWorker, isolated,
    graceMs = GRACE_MS, unwindMs = UNWIND_MS, spareRetryMs = SPARE_RETRY_MS, onBusy = () => {} }) {
    this.base = base;
    this.onBusy = onBusy;
    this.busy = false;
    this.spareAllowed = false;
    Promise.resolve(spareAfter).catch(() => {}).then(() => { this.spareAllowed = true; });
    this.statusListeners = new Set();
    this.timeline = {};
    this.useSpare = spare;
    this.createWorker = createWorker;
    this.graceMs = graceMs;
    this.unwindMs = unwindMs;
    this.spareRetryMs = spareRetryMs;
    this.isolated = isolated ?? (typeof SharedArrayBuffer !== "undefined" && globalThis.crossOriginIsolated === true);
    this.pending = new Map();
    this.restarts = 0;
    this.losses = []; // why each worker was given up, newest last (at most 20): for tests and bug reports
    this.spare = null;
    this.spareTimer = null;
    this.live = null;
    this.disposed = false;
  }

  /** Start the worker (idempotent). */
  start() {
    if (this.disposed) return this;
    if (!this.live || this.live.failed) this.live = this.#spawn();
    this.#announce();
    return this;
  }

  /** The furthest stage the live worker has reached: "" or one of protocol.js's STAGES. */
  get stage() {
    return this.live ? this.live.stage : "";
  }

  #spawn() {
    // The page template may have started the first worker already, in the page's <head> (overrides/main.html).
    const early = this.createWorker === moduleWorker ? globalThis.__tlEarlyWorker : null;
    if (early) globalThis.__tlEarlyWorker = null;
    const worker = early || this.createWorker(new URL("tl/tl-worker.js", this.base));
    const channel = new MessageChannel();
    const slot = { worker, port: channel.port1, stage: "", interrupt: null, failed: "" };
    if (this.isolated) slot.interrupt = new SharedArrayBuffer(1);
    // Replies come only through the private port; anything posted on the worker's global channel (which learner
    // code can reach through Python's `js` module) is ignored.
    channel.port1.onmessage = (event) => this.#receive(slot, event.data);
    worker.onerror = (event) => this.#lost(slot, `the worker failed: ${event.message || "unknown error"}`);
    worker.postMessage({ type: "init", id: 0, interrupt: slot.interrupt, port: channel.port2 }, [channel.port2]);
    return slot;
  }

  /** Current start-up status: {stage, failed, restarts, isolated, handedOff, loading}; handedOff: protocol.js
   * StatusReply; loading: the live worker's last LoadingReply ({received, total, ms}), or null. */
  get status() {
    return { stage: this.stage, failed: this.live ? this.live.failed : "", restarts: this.restarts, isolated: this.isolated,
      handedOff: Boolean(this.live && this.live.handedOff), loading: (this.live && this.live.loading) || null };
  }

  /** Call `fn(status)` now and on every change; returns an unsubscribe function. */
  subscribe(fn) {
    this.statusListeners.add(fn);
    fn(this.status);
    return () => this.statusListeners.delete(fn);
  }

  #announce() {
    for (const fn of [...this.statusListeners]) fn(this.status);
  }

  #receive(slot, msg) {
    const req = msg && typeof msg === "object" ? this.pending.get(msg.id) : undefined;
    const mine = req && req.slot === slot ? req : null;
    const problem = replyProblem(msg, mine ? mine.type : undefined);
    if (problem) {
      if (msg && msg.type === "fatal") this.#lost(slot, "the Python worker stopped");
      // A reply that cannot be trusted ends its request plainly; one that names no request is dropped.
      else if (mine) this.#finish(mine, this.#failure(mine, `internal error: the Python worker sent a malformed reply (${problem})`));
      return;
    }
    if (msg.type === "status") {
      slot.stage = msg.stage;
      // ms since navigation, for the benchmark (bench/run.py) and for curious learners
      if (slot === this.live && !this.timeline[msg.stage]) this.timeline[msg.stage] = performance.now();
      if (slot === this.live && msg.snapshot !== undefined) this.timeline.snapshot = msg.snapshot;
      // the worker's marks (epoch ms) on the page's clock, like the stages
      if (slot === this.live && msg.marks) {
        this.timeline.marks = Object.fromEntries(Object.entries(msg.marks).map(([k, t]) => [k, t - performance.timeOrigin]));
      }
      if (msg.handedOff) slot.handedOff = true;
      if (slot === this.live) this.#announce();
    } else if (msg.type === "loading") {
      slot.loading = { received: msg.received, total: msg.total, ms: msg.ms };
      if (slot === this.live) this.#announce();
    } else if (msg.type === "fatal") {
      this.#lost(slot, msg.message);
    } else if (!mine) {
      // a reply to a request that was withdrawn, has finished, or went to another worker
    } else if (msg.type === "started") {
      mine.started = performance.now();
      if (mine.timeLimit) mine.timer = setTimeout(() => this.#halt(mine, "timeout"), mine.timeLimit * 1000);
    } else if (msg.type === "stdout") {
      mine.stdout += msg.text;
      mine.onStdout(msg.text);
    } else if (msg.type === "steps") {
      mine.steps.push(...msg.steps);
      mine.onSteps(msg.steps);
    } else if (msg.type === "progress") {
      mine.onProgress(msg.text);
    } else if (msg.type === "result") {
      this.#result(mine, msg.result);
    } else {
      this.#finish(mine, this.#failure(mine, `internal error: ${msg.message}`));
    }
  }

  /** A result from the worker; a tainted one replaces the worker (and is retried once when refused up front). */
  #result(req, result) {
    if (result.tainted) {
      this.#replace(req.slot);
      if (result.tainted === "before" && req.type === "check" && !req.retried) {
        // Refused because an earlier run tampered with this worker: retry once on the clean one.
        this.#drop(req);
        this.#send(req.type, req.payload, req, true).then(req.resolve);
        return;
      }
    }
    this.#finish(req, result);
  }

  #failure(req, traceback) {
    return { status: "error", tests: [], stdout: req.stdout, traceback };
  }

  /** Forget a request without resolving it (its promise is settled by whoever takes it over). */
  #drop(req) {
    req.done = true;
    clearTimeout(req.timer);
    clearTimeout(req.graceTimer);
    this.pending.delete(req.id);
    this.#busyNow();
  }

  /** Tell onBusy when whether the learner's work is pending has changed. */
  #busyNow() {
    const busy = [...this.pending.values()].some((r) => !r.background);
    if (busy === this.busy) return;
    this.busy = busy;
    try {
      this.onBusy(busy);
    } catch { /* a listener's failure is not the request's */ }
  }

  #finish(req, result) {
    if (req.done) return;
    this.#drop(req);
    if (req.halted && (result.status === "timeout" || result.status === "ok" || result.status === "error")) {
      result = { ...result, status: req.halted };
    }
    result = { ...result, ms: req.started ? performance.now() - req.started : 0 };
    if (req.type === "check" && !req.background && req.slot === this.live && !this.timeline.firstCheck) {
      // the first Check's moments on the page's clock, and its tests' own time (bench/engines.py)
      this.timeline.firstCheck = { sent: req.sent, started: req.started || 0, done: performance.now(),
        tests: Object.values(result.durations || {}).reduce((a, b) => a + b, 0) };
    }
    if (req.retried) result.retried = true;
    req.resolve(result);
    this.#warmSpare(); // the learner is running code now: worth a spare for a quick recovery after a Stop
  }

  /** The live worker died or misbehaved: fail its requests plainly and bring up a replacement. */
  #lost(slot, message) {
    this.losses = [...this.losses.slice(-19), message];
    slot.worker.terminate();
    slot.port.close();
    if (slot === this.spare) {
      this.spare = null;
      return;
    }
    if (slot !== this.live) return;
    const mine = [...this.pending.values()].filter((r) => r.slot === slot);
    for (const req of mine) {
      const status = req.halted || "error";
      const note = req.halted ? "" : `${message}\nYour code is safe in the editor; Python has been restarted.`;
      // A trace's steps so far are kept: they were streamed before the worker was lost or replaced for a Stop.
      const steps = req.steps.length ? { steps: req.steps } : {};
      this.#finish(req, { status, tests: [], stdout: req.stdout, traceback: note, restarted: true, ...steps });
    }
    if (!slot.stage && !mine.some((r) => r.halted)) {
      // It never started (missing files, no WebAssembly): say so and wait for the learner to try again.
      slot.failed = message;
      this.#announce();
      return;
    }
    this.#promote();
  }

  /** The live worker is gone: the warm spare (or a new worker) takes its place. */
  #promote() {
    this.restarts += 1;
    this.live = this.spare || this.#spawn();
    this.spare = null;
    this.#announce();
  }

  /** Keep one spare worker loading in the background once the live one is ready, so recovery is quick. */
  #warmSpare() {
    if (!this.useSpare || this.spare || this.spareTimer) return;
    const attempt = () => {
      this.spareTimer = null;
      if (this.spare || !this.useSpare) return;
      if (this.spareAllowed && this.live && this.live.stage === STAGE.pytest) this.spare = this.#spawn();
      else this.spareTimer = setTimeout(attempt, this.spareRetryMs);
    };
    attempt();
  }

  /**
   * Send a request; resolves with its result (never rejects).
   * @param {"run"|"check"|"explore"|"ping"} type
   * @param {object} payload  the request's fields besides type and id (protocol.js)
   * @param {{timeLimit?: number, onStdout?: (text: string) => void, onProgress?: (text: string) => void,
   *   onSteps?: (steps: object[]) => void, background?: boolean}} options
   *   timeLimit: seconds from "started" (0: none); onProgress: what the worker loads before the request starts
   *   ("" once it starts); onSteps: a trace's steps as they are recorded; background: work the learner did not
   *   ask for; Stop leaves it alone
   * @returns {Promise<object>} the worker's result, with the client's fields (protocol.js ClientFields)
   */
  request(type, payload, options = {}) {
    return this.#send(type, payload, options, false);
  }

  #send(type, payload, { timeLimit = 0, onStdout = () => {}, onProgress = () => {}, onSteps = () => {},
    background = false }, retried) {
    if (this.disposed) return Promise.resolve({ status: "stopped", tests: [], stdout: "", traceback: "", ms: 0 });
    this.start();
    const id = nextId++;
    const slot = this.live;
    return new Promise((resolve) => {
      const req = { id, type, payload, slot, resolve, onStdout, onProgress, onSteps, timeLimit, background, retried,
        stdout: "", steps: [], done: false, halted: "", sent: performance.now() };
      this.pending.set(id, req);
      this.#busyNow();
      if (slot.interrupt) new Uint8Array(slot.interrupt)[0] = 0;
      slot.port.postMessage({ ...payload, type, id });
    });
  }

  /** Learner code modified the judging machinery in this worker: replace it with a clean one. */
  #replace(slot) {
    if (slot !== this.live) return;
    slot.worker.terminate();
    slot.port.close();
    this.#promote();
  }

  /** Stop whatever is running (the Stop button). Resolves its request with status "stopped". */
  stop() {
    // Background work (the warm-up check) is not the learner's: it finishes on its own, within its time limit.
    for (const req of [...this.pending.values()]) if (!req.background) this.#halt(req, "stopped");
  }

  /**
   * Resolves once Python can judge and nothing has been pending for `quietMs` (the warm-up check, or the
   * learner's first Check, is over), once it has failed to start, or after `capMs` at most. main.js starts the
   * offline copy then: installing it and downloading the rest would otherwise share the CPU with a first Check.
   * @param {{quietMs?: number, capMs?: number, everyMs?: number}} options
   */
  settled({ quietMs = 1000, capMs = 30_000, everyMs = 200 } = {}) {
    return new Promise((resolve) => {
      const since = performance.now();
      let quietFrom = null;
      const look = () => {
        const now = performance.now();
        const idle = this.stage === STAGE.pytest && this.pending.size === 0;
        quietFrom = idle ? (quietFrom ?? now) : null;
        if (this.disposed || this.status.failed || now - since >= capMs || (idle && now - quietFrom >= quietMs)) {
          clearInterval(timer);
          resolve();
        }
      };
      const timer = setInterval(look, everyMs);
      look();
    });
  }

  /** End everything: pending requests resolve as "stopped" and the workers are terminated (tests, teardown). */
  dispose() {
    this.disposed = true;
    this.useSpare = false;
    clearTimeout(this.spareTimer);
    for (const req of [...this.pending.values()]) {
      this.#finish(req, { status: "stopped", tests: [], stdout: req.stdout, traceback: "" });
    }
    for (const slot of [this.live, this.spare]) {
      if (!slot) continue;
      slot.worker.terminate();
      slot.port.close();
    }
    this.live = this.spare = null;
    this.statusListeners.clear();
  }

  #halt(req, reason) {
    if (req.done || req.halted) return;
    req.halted = reason;
    const slot = req.slot;
    if (!req.started) {
      // Still queued behind Python's start-up: withdraw it, nothing is running.
      slot.port.postMessage({ type: "cancel", id: req.id });
      this.#finish(req, { status: reason, tests: [], stdout: "", traceback: "" });
    } else if (slot.interrupt) {
      const flag = new Uint8Array(slot.interrupt);
      // Pyodide sets the flag back to 0 as it raises the KeyboardInterrupt: a flag still set after the grace
      // period means Python never looked (time.sleep, a long C call); a cleared one, that it is unwinding.
      // An interrupt can also be taken and never answered: Stops of a busy loop straight after ready did that about
      // once in 16 in Chromium (the flag cleared, the loop still running 7 s later; why is not known), and
      // the worker was replaced. So an interrupt taken but not answered within the unwind time is sent once more
      // before the worker is replaced.
      const interrupt = (tries) => {
        flag[0] = 2; // SIGINT: Python raises KeyboardInterrupt at its next check
        req.graceTimer = setTimeout(() => {
          if (flag[0] !== 0) {
            this.#lost(slot, `${reason}: Python did not respond to the interrupt`);
            return;
          }
          req.graceTimer = setTimeout(() => {
            if (tries > 1) interrupt(tries - 1);
            else this.#lost(slot, `${reason}: Python did not finish after the interrupt`);
          }, this.unwindMs);
        }, this.graceMs);
      };
      interrupt(2);
    } else {
      this.#lost(slot, reason);
    }
  }
}
