/**
 * The page's handle on the Python worker: starts it as the page opens, queues requests until Python is ready,
 * enforces time limits, and stops runaway code.
 *
 * Stop: when the page is cross-origin isolated, a SharedArrayBuffer interrupt makes Python raise
 * KeyboardInterrupt within milliseconds and keeps the interpreter (and its loaded packages). Code stuck where
 * Python cannot check for interrupts (time.sleep, one long C call), or a page without isolation, gets a fresh
 * worker instead; a spare worker is kept warm so that recovery does not cost a cold start.
 */
const GRACE_MS = 1500; // how long an interrupt may take before the worker is replaced

let nextId = 1;

export class PythonWorker {
  /**
   * @param {{base: string, spare?: boolean}} options  base: absolute URL of the site's assets/ folder;
   *   spare: keep a second worker warm once code has run, for a quick recovery after a Stop
   */
  constructor({ base, spare = true }) {
    this.base = base;
    this.statusListeners = new Set();
    this.timeline = {};
    this.useSpare = spare;
    this.isolated = typeof SharedArrayBuffer !== "undefined" && globalThis.crossOriginIsolated === true;
    this.pending = new Map();
    this.restarts = 0;
    this.spare = null;
    this.live = null;
  }

  /** Start the worker (idempotent). */
  start() {
    if (!this.live || this.live.failed) this.live = this.#spawn();
    this.#announce();
    return this;
  }

  /** The furthest stage the live worker has reached: "" | "python" | "numpy" | "judge". */
  get stage() {
    return this.live ? this.live.stage : "";
  }

  #spawn() {
    // The page template may have started the first worker already, in the page's <head> (overrides/main.html).
    const early = globalThis.__tlEarlyWorker;
    globalThis.__tlEarlyWorker = null;
    const worker = early || new Worker(new URL("tl/tl-worker.js", this.base), { type: "module" });
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

  /** Current start-up status: {stage, failed, restarts, isolated}. */
  get status() {
    return { stage: this.stage, failed: this.live ? this.live.failed : "", restarts: this.restarts, isolated: this.isolated };
  }

  /** Call `fn(status)` now and on every change; returns an unsubscribe function. */
  subscribe(fn) {
    this.statusListeners.add(fn);
    fn(this.status);
    return () => this.statusListeners.delete(fn);
  }

  #announce() {
    for (const fn of this.statusListeners) fn(this.status);
  }

  #receive(slot, msg) {
    if (!msg || typeof msg !== "object") return;
    if (msg.type === "status") {
      slot.stage = msg.stage;
      // ms since navigation, for the benchmark (bench/run.py) and for curious learners
      if (slot === this.live && !this.timeline[msg.stage]) this.timeline[msg.stage] = performance.now();
      if (slot === this.live) this.#announce();
      return;
    }
    if (msg.type === "fatal") {
      this.#lost(slot, msg.message);
      return;
    }
    const req = this.pending.get(msg.id);
    if (!req || req.slot !== slot) return;
    if (msg.type === "started") {
      req.started = performance.now();
      if (req.timeLimit) req.timer = setTimeout(() => this.#halt(req, "timeout"), req.timeLimit * 1000);
    } else if (msg.type === "stdout") {
      req.stdout += msg.text;
      req.onStdout(msg.text);
    } else if (msg.type === "result") {
      const result = msg.result;
      if (result && result.tainted) {
        this.#replace(slot);
        if (result.tainted === "before" && req.type === "check" && !req.payload.retried) {
          // Refused because an earlier run tampered with this worker: retry once on the clean one.
          req.done = true;
          clearTimeout(req.timer);
          this.pending.delete(req.id);
          this.request("check", { ...req.payload, retried: true }, { timeLimit: req.timeLimit, onStdout: req.onStdout })
            .then(req.resolve);
          return;
        }
      }
      this.#finish(req, result);
    } else if (msg.type === "error") {
      this.#finish(req, { status: "error", tests: [], stdout: req.stdout, traceback: `internal error: ${msg.message}` });
    }
  }

  #finish(req, result) {
    if (req.done) return;
    req.done = true;
    clearTimeout(req.timer);
    clearTimeout(req.graceTimer);
    this.pending.delete(req.id);
    if (req.halted && (result.status === "timeout" || result.status === "ok" || result.status === "error")) {
      result = { ...result, status: req.halted };
    }
    result.ms = req.started ? performance.now() - req.started : 0;
    req.resolve(result);
    this.#warmSpare(); // the learner is running code now: worth a spare for a quick recovery after a Stop
  }

  /** The live worker died or misbehaved: fail its requests plainly and bring up a replacement. */
  #lost(slot, message) {
    slot.worker.terminate();
    if (slot === this.spare) {
      this.spare = null;
      return;
    }
    if (slot !== this.live) return;
    const mine = [...this.pending.values()].filter((r) => r.slot === slot);
    for (const req of mine) {
      const status = req.halted || "error";
      const note = req.halted ? "" : `${message}\nYour code is safe in the editor; Python has been restarted.`;
      this.#finish(req, { status, tests: [], stdout: req.stdout, traceback: note, restarted: true });
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
      if (this.live && this.live.stage === "judge") this.spare = this.#spawn();
      else this.spareTimer = setTimeout(attempt, 1000);
    };
    attempt();
  }

  /**
   * Send a request; resolves with its result (never rejects).
   * @param {"run"|"check"} type
   * @param {object} payload
   * @param {{timeLimit?: number, onStdout?: (text: string) => void, background?: boolean}} options
   *   background: work the learner did not ask for; Stop leaves it alone
   */
  request(type, payload, { timeLimit = 0, onStdout = () => {}, background = false } = {}) {
    this.start();
    const id = nextId++;
    const slot = this.live;
    return new Promise((resolve) => {
      const req = { id, slot, resolve, onStdout, timeLimit, stdout: "", done: false, halted: "", background };
      this.pending.set(id, req);
      if (slot.interrupt) new Uint8Array(slot.interrupt)[0] = 0;
      req.type = type;
      req.payload = payload;
      slot.port.postMessage({ type, id, ...payload });
    });
  }

  /** Learner code modified the judging machinery in this worker: replace it with a clean one. */
  #replace(slot) {
    if (slot !== this.live) return;
    slot.worker.terminate();
    this.#promote();
  }

  /** Stop whatever is running (the Stop button). Resolves its request with status "stopped". */
  stop() {
    // Background work (the warm-up check) is not the learner's: it finishes on its own, within its time limit.
    for (const req of [...this.pending.values()]) if (!req.background) this.#halt(req, "stopped");
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
      new Uint8Array(slot.interrupt)[0] = 2; // SIGINT: Python raises KeyboardInterrupt at its next check
      req.graceTimer = setTimeout(() => this.#lost(slot, `${reason}: Python did not respond to the interrupt`), GRACE_MS);
    } else {
      this.#lost(slot, reason);
    }
  }
}

