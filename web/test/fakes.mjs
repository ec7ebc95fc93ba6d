/**
 * Stand-ins for the browser parts the front end talks to, so node --test can drive worker-client.js and the
 * code cell without a browser: a fake Python worker that speaks protocol.js over a real MessageChannel, a fake
 * editor, a Storage that tells other "tabs" about writes, and a DOM from linkedom.
 */
import { parseHTML } from "linkedom";

import { PythonWorker } from "../src/page/worker-client.js";
import { NEEDS, reached, requestProblem, STAGES } from "../src/shared/protocol.js";

export const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

/** Wait until `predicate()` holds (checked every few ms), or fail after `ms`. */
export async function until(predicate, ms = 2000, what = "the condition") {
  const t0 = Date.now();
  while (!predicate()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await tick(2);
  }
}

/**
 * A fake Python worker. It answers on the private port as worker.js does, reaching each stage on `boot()` (or at
 * once with `autoBoot`). What a request does is up to `behave(msg, api)`, by default `defaultBehaviour`.
 */
export class FakeWorker {
  constructor({ autoBoot = true, behave = defaultBehaviour, log = [] } = {}) {
    this.behave = behave;
    this.autoBoot = autoBoot;
    this.log = log; // every request this worker received, in order
    this.terminated = false;
    this.stage = "";
    this.marks = {};
    this.queue = []; // requests waiting for the stage they need, as in worker.js
    this.port = null;
    this.interrupt = null;
    this.onerror = null;
  }

  postMessage(msg) {
    if (msg.type !== "init" || this.port) return; // the global channel only carries init
    this.port = msg.port;
    this.interrupt = msg.interrupt ? new Uint8Array(msg.interrupt) : null;
    this.port.onmessage = (event) => this.receive(event.data);
    if (this.autoBoot) this.boot();
  }

  /** Reach stages, as worker.js reports them: all of them, or up to `last`. */
  boot(last = STAGES[STAGES.length - 1]) {
    for (const stage of STAGES.slice(STAGES.indexOf(this.stage) + 1, STAGES.indexOf(last) + 1)) {
      this.stage = stage;
      this.marks[stage] = performance.timeOrigin + performance.now(); // as context.js marks, on the epoch's clock
      this.send({ type: "status", stage, ms: 1, marks: { ...this.marks } });
    }
    const ready = this.queue.filter((msg) => reached(this.stage, NEEDS[msg.type]));
    this.queue = this.queue.filter((msg) => !ready.includes(msg));
    for (const msg of ready) this.handle(msg);
  }

  send(msg) {
    if (!this.terminated && this.port) this.port.postMessage(msg);
  }

  receive(msg) {
    if (this.terminated) return;
    if (msg.type === "cancel") {
      this.log.push(msg);
      this.queue = this.queue.filter((queued) => queued.id !== msg.id);
      return;
    }
    const problem = requestProblem(msg);
    if (problem) {
      this.send({ type: "error", id: msg.id, message: problem });
      return;
    }
    this.log.push(msg);
    if (NEEDS[msg.type] && !reached(this.stage, NEEDS[msg.type])) this.queue.push(msg);
    else this.handle(msg);
  }

  handle(msg) {
    const api = {
      started: () => this.send({ type: "started", id: msg.id }),
      stdout: (text) => this.send({ type: "stdout", id: msg.id, text }),
      result: (result) => this.send({ type: "result", id: msg.id, result }),
      reply: (reply) => this.send({ id: msg.id, ...reply }),
      // As Pyodide does when it raises KeyboardInterrupt: a set flag is read and cleared in one step.
      interrupted: () => {
        if (!this.interrupt || this.interrupt[0] !== 2) return false;
        this.interrupt[0] = 0;
        return true;
      },
      worker: this,
    };
    this.behave(msg, api);
  }

  terminate() {
    this.terminated = true;
    if (this.port) this.port.close();
  }
}

/** Run: `print:<text>` prints, `loop` spins until interrupted (as Python does), `unwind:<ms>` answers <ms> after
 *  the interrupt (a slow clean-up), `swallow` takes every interrupt and spins on (code that catches
 *  KeyboardInterrupt), `lose` takes the first interrupt and spins on but answers the second, `stuck` never answers, else ok.
 *  Check: every name passes, unless the learner file contains `fail`, or `tamper` (refused as tampered before);
 *  a failing file with `mistake:<mutant>` gets a diagnosis naming that mutant of the request's `mistakes`. */
export function defaultBehaviour(msg, api) {
  api.started();
  if (msg.type === "run") {
    if (msg.code.startsWith("print:")) {
      api.stdout(`${msg.code.slice(6)}\n`);
      api.result({ status: "ok", stdout: `${msg.code.slice(6)}\n`, traceback: "" });
    } else if (["loop", "swallow", "lose"].includes(msg.code) || msg.code.startsWith("unwind:")) {
      const unwindMs = msg.code.startsWith("unwind:") ? Number(msg.code.slice(7)) : 0;
      let lost = msg.code === "lose" ? 1 : 0;
      const spin = setInterval(() => {
        if (!api.interrupted() && !api.worker.terminated) return;
        if ((lost-- > 0 || msg.code === "swallow") && !api.worker.terminated) return; // takes it, spins on
        clearInterval(spin);
        if (msg.code === "swallow") return;
        setTimeout(() => api.result({ status: "timeout", stdout: "", traceback: "KeyboardInterrupt\n" }), unwindMs);
      }, 2);
    } else if (msg.code !== "stuck") {
      api.result({ status: "ok", stdout: "", traceback: "" });
    }
    return;
  }
  if (msg.type === "check") {
    const learner = msg.files[msg.learner];
    if (learner.includes("tamper")) {
      api.result({ status: "error", tainted: "before", phase: "tampered", stdout: "",
        traceback: "Code you ran earlier replaced parts of the checking machinery (numpy.allclose).\n",
        tests: msg.names.map((name) => ({ name, outcome: "error", message: "not judged" })) });
      return;
    }
    const outcome = learner.includes("fail") ? "failed" : "passed";
    // `mistake:<mutant>` in the learner's file: the judge found it looks like that known mistake of the request's.
    const named = /mistake:([\w-]+)/.exec(learner);
    const known = named && (msg.mistakes || []).find((m) => m.mutant === named[1]);
    const diagnosis = known ? { diagnosis: [{ pitfall: known.pitfall, number: known.number ?? null, mutants: [known.mutant], also: [] }] } : {};
    api.result({ status: outcome === "passed" ? "passed" : "failed", stdout: "", traceback: "", phase: "tests",
      tests: msg.names.map((name) => ({ name, outcome, message: outcome === "passed" ? "" : "expected 1, got 2" })),
      ...(outcome === "failed" ? diagnosis : {}) });
    return;
  }
  api.result({ status: "ok", stdout: "", traceback: "" });
}

/**
 * A PythonWorker whose workers are FakeWorkers; `workers` lists every one it started, in order.
 * @param {object} options  PythonWorker options, plus `fake` (FakeWorker options for every worker)
 */
export function fakePython({ fake = {}, ...options } = {}) {
  const workers = [];
  const python = new PythonWorker({
    base: "http://site.test/assets/", graceMs: 40, spareRetryMs: 5, ...options,
    createWorker: () => {
      const worker = new FakeWorker(fake);
      workers.push(worker);
      return worker;
    },
  });
  return { python, workers };
}

/** A fake editor with the surface code-cell.js uses (editor.js's), typing through `type`. */
export function fakeEditor() {
  const made = [];
  const create = ({ doc, onChange, onPrimary, onSecondary }) => {
    let code = doc;
    const editor = {
      getCode: () => code,
      setCode(text) {
        code = text;
        onChange(text);
      },
      /** As if the learner typed: the text changes and the editor reports it. */
      type(text) {
        this.setCode(text);
      },
      primary: () => onPrimary(),
      secondary: () => onSecondary(),
      destroyed: false,
      destroy() { this.destroyed = true; },
    };
    made.push(editor);
    return editor;
  };
  return { create, made };
}

/**
 * localStorage shared by several tabs: a write from one tab is announced to every other tab's window with a
 * "storage" event, as browsers do (never to the writer itself).
 */
export class SharedStorage {
  constructor(entries = {}) {
    this.map = new Map(Object.entries(entries));
    this.tabs = [];
  }

  /** A Storage view of this storage for one tab, announcing to `win` what other tabs write. */
  tab(win) {
    const shared = this;
    const view = {
      get length() { return shared.map.size; },
      key: (i) => [...shared.map.keys()][i] ?? null,
      getItem: (k) => (shared.map.has(k) ? shared.map.get(k) : null),
      setItem(k, v) { shared.write(view, k, String(v)); },
      removeItem(k) { shared.write(view, k, null); },
    };
    this.tabs.push({ view, win });
    return view;
  }

  write(from, key, value) {
    const oldValue = this.map.has(key) ? this.map.get(key) : null;
    if (value === null) this.map.delete(key);
    else this.map.set(key, value);
    for (const { view, win } of this.tabs) {
      if (view === from || !win) continue;
      const event = new Event("storage");
      Object.assign(event, { key, oldValue, newValue: value, storageArea: view });
      win.dispatchEvent(event);
    }
  }
}

/**
 * A page: a linkedom document with `body` as its content, installed as the global `document` (dom.js creates
 * elements there). Returns the document and its window.
 */
export function page(body) {
  const { document, window } = parseHTML(`<!doctype html><html><head></head><body>${body}</body></html>`);
  globalThis.document = document;
  return { document, window };
}

/** The placeholder mdwidgets writes for an exercise cell, with `data` as its JSON. */
export function exerciseHTML(data, { raw, hints = [] } = {}) {
  const json = raw ?? JSON.stringify(data);
  return `<div class="tl-cell" data-exercise="${data.slug || "x"}" data-kind="exercise"><div class="tl-intro"></div>`
    + `<div class="tl-fallback"><pre><code>${data.starter || ""}</code></pre></div>`
    + `<script type="application/json" class="tl-data">${json}</script>`
    + hints.map((h, i) => `<div class="tl-hint-source" hidden data-hint-source="${i + 1}"><p>${h}</p></div>`).join("")
    + "</div>";
}

/** The placeholder of a `/// pycell` example. */
export function exampleHTML(code, extra = {}) {
  return `<div class="tl-cell" data-kind="example"><div class="tl-fallback"><pre><code></code></pre></div>`
    + `<script type="application/json" class="tl-data">${JSON.stringify({ code, title: "", ...extra })}</script></div>`;
}
