/**
 * What start-up's stages share, made once by boot (boot.js) and handed to each stage: how to report to the page,
 * where the files are, the start this worker's name forces, and the state the stages fill in as downloads arrive
 * (the progress count, the line's meter, the hand-offs). Nothing of it lives in module state.
 */
import { startChosen } from "../../shared/build-outputs.js";
import { noneArrived } from "./downloads.js";
import { createMeter } from "./line.js";

/**
 * A promise and the function that settles it: a moment one stage waits for and another reaches.
 * @typedef {{promise: Promise<unknown>, settle: (value?: unknown) => void}} Signal
 */
export function signal() {
  let settle;
  const promise = new Promise((resolve) => { settle = resolve; });
  return { promise, settle };
}

/**
 * The steps of start-up whose end is marked (`mark`), in the order they usually end, and what each one's end is;
 * posted to the page with each stage (protocol.js StatusReply `marks`), for the benchmark's account of where the
 * time to the first verdict goes (bench/engines.py).
 */
export const MARKS = Object.freeze({
  coreIn: "the core's compressed copy downloaded",
  stdlibIn: "the start-up standard library downloaded and decoded (after ready when restored: later.js)",
  coreCompiled: "the core decoded and compiled",
  decided: "the line's measure: restore the snapshot or start cold",
  judgeIn: "the judge's files downloaded",
  snapshotIn: "the snapshot's parts downloaded and decoded",
  numpyIn: "numpy's pack's first part (what import numpy loads) downloaded and decoded",
  numpyCompiledAhead: "numpy's extension modules compiled, while Python starts",
  instantiated: "the core instantiated; the snapshot's bytes awaited",
  restored: "Python started (restored from the snapshot, or cold)",
  judgeInstalled: "the judge written and imported: stage python",
  warmed: "a throwaway check run while numpy's pack was on its way (boot.js warmWhileWaiting)",
  numpyWritten: "numpy's files written",
  numpyCompiled: "numpy's extension modules loaded",
  numpyFirstImport: "import numpy",
  numpyMoreIn: "numpy's pack's second part (numpy.random...) downloaded and decoded",
  numpyMoreWritten: "numpy's second part written, its extension modules loaded",
  numpyImported: "numpy.linalg, numpy.random imported, the tamper baseline taken: stage numpy",
  pytestReady: "pytest ready: stage pytest",
  laterWritten: "the parts that come after ready written",
});

/**
 * @typedef {{post: (msg: object) => void, fatal: (message: string) => void, t0: number, assets: URL, index: string,
 *   chosen: string, loading: import("./downloads.js").Loading, line: import("./line.js").Meter,
 *   coreIn: Signal, coreNearlyIn: Signal, snapshotAsked: Signal, handoffs: Promise<void>[], deltaBytes: number,
 *   initialMemory: Uint8Array|null, stdlib: () => Promise<Uint8Array>, stdlibLater: boolean,
 *   deferredStdlib: import("./later.js").DeferredStdlib|null,
 *   marks: Record<string, number>, mark: (name: string) => void}} Boot
 *   `post` and `fatal`: how the worker reports (a message to the page; a start-up that failed for good);
 *   `t0`: when start-up began, for the times the page is told; `assets`: the site's assets/ folder, `index`:
 *   Pyodide's files in it; `chosen`: the start the worker's name forces, or ""; `coreIn`: settles once the core
 *   has arrived; `snapshotAsked`: once the snapshot has been requested, or it is known that it will not be (the
 *   loader waits for it: core.js runLoader); `handoffs`: each copy being written for the service worker;
 *   `deltaBytes`: how much of the core's initial memory the snapshot is a delta against (the wheels list says),
 *   and `initialMemory` that much of it, kept as the core is instantiated (core.js) for python.js to undo it;
 *   `stdlib()`: the start-up standard library, requested on the first call (core.js); `stdlibLater`: Pyodide is
 *   handed an empty file in its place, as Python is being restored from the snapshot (python.js), and
 *   `deferredStdlib` that file, filled after ready (later.js deferStdlib);
 *   `mark(name)` notes, once, that the step `name` (MARKS) has just ended, in `marks` (ms since the epoch).
 */

/**
 * A start-up's context. Everything is found relative to the worker's script (<site>/assets/tl/tl-worker.js), so
 * start-up begins the moment the worker exists, without waiting for the page: the page only hands over its port
 * and interrupt buffer.
 * @param {{post: (msg: object) => void, fatal: (message: string) => void}} report
 * @param {{location: {href: string}, name: string}} scope  the worker's global scope
 * @returns {Boot}
 */
export function createContext({ post, fatal }, scope = self) {
  const assets = new URL("../", scope.location.href);
  const coreIn = signal();
  const marks = {};
  const mark = (name) => { marks[name] ??= performance.timeOrigin + performance.now(); };
  return {
    post, fatal, t0: performance.now(), assets, index: new URL("pyodide/", assets).href,
    // The start this worker's name forces (page/worker-client.js workerName, build-outputs.js STARTS), for tests
    // and the benchmark (snapshot: restored from the LZ4 copies), or "": the line's measure chooses whether to restore.
    chosen: startChosen(scope.name),
    loading: noneArrived(), line: createMeter(coreIn.promise), coreIn, coreNearlyIn: signal(), snapshotAsked: signal(),
    handoffs: [],
    deltaBytes: 0, initialMemory: null, stdlib: null, stdlibLater: false, deferredStdlib: null,
    marks, mark,
  };
}
