/**
 * Every claimed pass of a class checked again in the teacher's browser, by the same worker and judge as a code
 * cell's Check: worker-client.js `PythonWorker`, request "check" with the exercise bundle's hidden tests, test
 * names, build-time rewriting and known mistakes (cell/bundles.js), the exercise's time limit (a check that runs
 * past it is stopped as Stop stops one: the worker is interrupted or replaced), the judge's output cap.
 *
 * Several workers, one check each at a time, sized by the machine's cores (`poolSize`). A check waits for the
 * dependencies the learner claims to have passed (model.js `waitsFor`) and imports the learner's own code of each
 * one whose pass held, else the reference (`dependencySources`). A result is kept by the code it judged, so the
 * same code is never checked twice (a learner's two files, files added later).
 */
import { rewriting } from "../cell/bundles.js";
import { channelBuffer, closeChannel } from "../../shared/sync-channel.js";
import { dependencySources, plan, verdict, waitsFor } from "./model.js";

export const POOL_MAX = 4; // each worker holds a Python of its own (tens of MB): more rarely pays on a laptop
// WebKit (Safari, every browser on iOS) reports a made-up core count against fingerprinting (4 on this project's
// 2-core machine, where 4 workers took 135 s for a class that 2 check in 62 s: bench/class_view.py), and iOS ends a
// tab that holds too much memory: there, 2 at most.
const WEBKIT_MAX = 2;

/**
 * How many workers check at once: the machine's cores, at least 1 and at most POOL_MAX (WEBKIT_MAX in WebKit,
 * told by `navigator.vendor`).
 * @param {number|undefined} cores  navigator.hardwareConcurrency
 * @param {string} vendor  navigator.vendor ("Apple Computer, Inc." in WebKit)
 */
export function poolSize(cores, vendor = "") {
  const most = /^Apple/.test(vendor) ? WEBKIT_MAX : POOL_MAX;
  return Math.max(1, Math.min(most, Number.isInteger(cores) && cores > 0 ? cores : 1));
}

/** What a class keeps of a check's result: its verdict and the tests' outcomes, not the output. */
const kept = (result) => ({ status: result.status, phase: result.phase || "", ms: result.ms || 0,
  tests: (result.tests || []).map((t) => ({ name: t.name, outcome: t.outcome, message: String(t.message || "").slice(0, 300) })) });

/**
 * The check request of one learner's claimed pass, and the key its result is kept under.
 * @returns {Promise<{payload: object, timeLimit: number, key: string}>}
 */
async function requestOf(learner, column, verdicts, bundle) {
  const own = await bundle(column.slug);
  const files = {};
  for (const [dep, how] of Object.entries(dependencySources(column, verdicts))) {
    const theirs = await bundle(dep);
    files[theirs.importPath] = how === "own" ? learner.work[dep].code : theirs.reference;
  }
  files[own.importPath] = learner.work[column.slug].code;
  const payload = { tests: own.tests, files, learner: own.importPath, names: own.names, ...rewriting(own),
    ...(Array.isArray(own.mistakes) ? { mistakes: own.mistakes } : {}) };
  return { payload, timeLimit: own.timeLimit, key: JSON.stringify([column.slug, files]) };
}

/** Judge one request on `worker`, once more when the worker was lost under it (not for a time limit); with
 * `learners`, on the separated path (`apart`). */
async function judge(worker, request, learners) {
  const once = () => (learners ? apart(worker, request, learners) : worker.request("check", request.payload,
    { timeLimit: request.timeLimit }));
  let result = await once();
  if (result.status === "error" && result.restarted) result = await once();
  return result;
}

/** Resolves true once `learner` has every module in (its status's handedOff), false if it failed to start. */
const loaded = (learner) => new Promise((resolve) => {
  let off = null;
  let done = false;
  off = learner.subscribe((s) => {
    if (done || !(s.handedOff || s.failed)) return;
    done = true;
    resolve(!s.failed);
    if (off) off();
  });
  if (done) off();
});

/**
 * A separated check (checker/separated.py): the hidden tests and the verdict in `worker`, the learner's code in a
 * fresh worker of its own (`learners.take()`), which serves them over a SharedArrayBuffer (shared/sync-channel.js)
 * and cuts itself off from the origin's storage and the network first (worker/confine.js). The learner's worker
 * is ended with the check: nothing of one submission reaches the next.
 */
async function apart(worker, { payload, timeLimit }, learners) {
  const learner = learners.take();
  const channel = channelBuffer();
  try {
    if (!await loaded(learner)) return { status: "error", tests: [], stdout: "", traceback: "", phase: "import" };
    learner.request("serve", { channel });
    return await worker.request("check", { ...payload, channel }, { timeLimit });
  } finally {
    closeChannel(channel);
    learner.dispose();
  }
}

/**
 * Learners' workers for separated checks, one started ahead so that the next check does not wait for Python.
 * @param {() => object} make  a new PythonWorker-like, started
 */
export function learnerPool(make) {
  let next = null;
  return {
    take() {
      const one = next || make();
      next = make();
      return one;
    },
    dispose() {
      next?.dispose();
      next = null;
    },
  };
}

/**
 * Check every claimed pass of `learners` again.
 * @param {{learners: object[], columns: object[], bundle: (slug: string) => Promise<object>,
 *          workers: {request: Function}[], cache?: Map<string, object>, cancelled?: () => boolean,
 *          onResult?: (learner: object, column: object, result: object, verdict: string) => void,
 *          separate?: {take: () => object}|null}} options
 *   workers: PythonWorker-like, each used for one check at a time; cache: results by the code judged, shared
 *   between runs; cancelled: stop taking checks (those running finish); separate: the separated path, each check's
 *   learner code in a worker of its own (learnerPool), else in the check's worker
 * @returns {Promise<{verdicts: Record<string, Record<string, string>>, results: Record<string, Record<string, object>>}>}
 */
export async function checkAgain({ learners, columns, bundle, workers, cache = new Map(), cancelled = () => false,
  onResult = () => {}, separate = null }) {
  const waiting = plan(learners, columns);
  const verdicts = Object.fromEntries(learners.map((l) => [l.key, {}]));
  const results = Object.fromEntries(learners.map((l) => [l.key, {}]));
  const sleepers = new Set();
  const wake = () => {
    for (const fn of [...sleepers]) fn();
    sleepers.clear();
  };
  const ready = ([l, c]) => waitsFor(l, c).every((dep) => dep in verdicts[l.key]);
  let busy = 0; // checks running: only they can make a waiting one ready
  async function take() {
    for (;;) {
      if (cancelled() || !waiting.length) return null;
      const i = waiting.findIndex(ready);
      if (i >= 0) {
        busy += 1; // counted as it is taken: another lane looking now must not think nothing is running
        return waiting.splice(i, 1)[0];
      }
      if (!busy) return null;
      await new Promise((resolve) => sleepers.add(resolve));
    }
  }
  async function lane(worker) {
    for (let task = await take(); task; task = await take()) {
      const [learner, column] = task;
      const result = await resultOf(worker, learner, column);
      busy -= 1;
      if (!result) break; // the workers were disposed: the class was cleared
      results[learner.key][column.slug] = result;
      verdicts[learner.key][column.slug] = verdict(learner.work[column.slug], result);
      onResult(learner, column, result, verdicts[learner.key][column.slug]);
      wake();
    }
    wake(); // a lane that stops lets the others see that nothing is left
  }
  async function resultOf(worker, learner, column) {
    let request;
    try {
      request = await requestOf(learner, column, verdicts[learner.key], bundle);
    } catch { // the exercise's bundle did not load: say so in the cell, and try again on the next run
      return { status: "error", phase: "the hidden tests could not be loaded", tests: [] };
    }
    if (cache.has(request.key)) return cache.get(request.key);
    const raw = await judge(worker, request, separate);
    if (raw.status === "stopped") return null;
    cache.set(request.key, kept(raw));
    return cache.get(request.key);
  }
  await Promise.all(workers.map(lane));
  return { verdicts, results };
}
