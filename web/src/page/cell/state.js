/**
 * A code cell's state: one plain object, changed only by the named actions below (a reducer), and a small
 * model that hands each change to the views as `update(state, prev)`. Nothing here touches the DOM, storage or
 * the worker, so the whole of a cell's behaviour can be followed action by action (web/test/cell-state.test.mjs).
 */
import { NEEDS, reached } from "../../shared/protocol.js";
import { summarise } from "./summary.js";

/**
 * @typedef {{stage: string, failed: string, restarts: number}} PythonStatus  worker-client.js `status`
 * @typedef {{kind: "exercise"|"example", starter: string, code: string,
 *   python: PythonStatus, busy: ""|"run"|"check", status: string, message: string, output: string,
 *   figures: import("../../shared/protocol.js").Figure[],
 *   tests: object[]|null, stale: boolean, result: object|null, diff: {same: boolean, lines: object[]}|null,
 *   deps: import("./dependencies.js").Gate|null, conflict: {theirs: string, where: "tab"|"draft"}|null,
 *   help: import("./help.js").Help, diagnoses: boolean, confirming: boolean, reference: string|null}} CellState
 *   busy: what is running; status: the last result's status (the root's data-status; "" while busy); message:
 *   the summary line; output: the learner's output and traceback; figures: what the last run drew, each placed
 *   in `output` by its `at` (absent or null: after the text); tests: the rows of the last check; stale: the
 *   rows describe an earlier check while a new one runs; result: the result shown; diff: the learner's code
 *   against the reference after a pass; deps: the dependency rule's verdict; conflict: another tab's version;
 *   help: the help taken on the exercise (hints revealed, failed checks, the reference revealed: cell/help.js);
 *   diagnoses: the learner's preference, name the known mistake a failure looks like; confirming: the reveal's
 *   confirmation is open; reference: the reference's code once revealed (loaded from the bundle)
 */

/** @returns {CellState} */
export function initialState({ kind, starter, code }) {
  return {
    kind, starter, code,
    python: { stage: "", failed: "", restarts: 0 },
    busy: "", status: "", message: "", output: "", figures: [],
    tests: null, stale: false, result: null, diff: null, deps: null, conflict: null,
    help: { hints: 0, failed: 0, revealed: 0 }, diagnoses: true, confirming: false, reference: null,
  };
}

/** The actions, by name. Each returns a plain object for `reduce`. */
export const actions = {
  /** The worker's start-up status changed. */
  python: (status) => ({ type: "python", status }),
  /** The learner (or automation) changed the code in the editor. */
  edited: (code) => ({ type: "edited", code }),
  /** A run or a check was sent. */
  started: (kind) => ({ type: "started", kind }),
  /** A run printed. */
  stdout: (text) => ({ type: "stdout", text }),
  /** The worker is loading what the code imports before it runs ("" once it starts). */
  progress: (text) => ({ type: "progress", text }),
  /** A result arrived (or was restored from storage: `restored`). */
  finished: (result, { timeLimit, restored = false }) => ({ type: "finished", result, timeLimit, restored }),
  /** A check could not be sent (a dependency has not passed, the hidden tests did not load). */
  blocked: (message) => ({ type: "blocked", message }),
  /** The dependency rule's verdict, to show above the box. */
  deps: (gate) => ({ type: "deps", gate }),
  /** After a pass, the learner's code against the reference, for the result `of`. */
  diff: (diff, of) => ({ type: "diff", diff, of }),
  /** Another tab saved different code, or a draft from an unresolved conflict was found. */
  conflict: (theirs, where) => ({ type: "conflict", theirs, where }),
  /** The learner chose which version to keep. */
  resolved: (code) => ({ type: "resolved", code }),
  /** Reset: the starter code is back (hints and a revealed reference stay). */
  reset: () => ({ type: "reset" }),
  /** The help taken on the exercise changed (a hint, a failed check, a reveal), or was read from storage. */
  help: (help) => ({ type: "help", help }),
  /** The learner turned the naming of known mistakes on or off. */
  diagnoses: (on) => ({ type: "diagnoses", on }),
  /** The reveal's confirmation opened (true) or closed. */
  confirming: (open) => ({ type: "confirming", open }),
  /** The reference's code, once revealed. */
  reference: (code) => ({ type: "reference", code }),
};

const LABELS = {
  run: ["Running…", "Queued: runs as soon as Python is ready…"],
  check: ["Checking…", "Queued: checks as soon as Python is ready…"],
};
const STALE_NOTE = " The results below are from your previous check.";

/**
 * The next state; the same object when the action changes nothing.
 * @param {CellState} state
 * @param {{type: string}} action  one made by `actions`
 * @returns {CellState}
 */
export function reduce(state, action) {
  switch (action.type) {
    case "python":
      return { ...state, python: { ...action.status } };
    case "edited":
      return action.code === state.code ? state : { ...state, code: action.code };
    case "started": {
      const [now, queued] = LABELS[action.kind];
      const stale = action.kind === "check" && Boolean(state.tests && state.tests.length);
      const label = reached(state.python.stage, NEEDS[action.kind]) ? now : queued;
      // A new request: the previous verdict no longer describes the code.
      return { ...state, busy: action.kind, status: "", output: "", figures: [], stale, message: label + (stale ? STALE_NOTE : "") };
    }
    case "stdout":
      return { ...state, output: state.output + action.text };
    case "progress":
      if (!state.busy) return state;
      return { ...state, message: action.text || LABELS[state.busy][0] };
    case "finished":
      return finished(state, action);
    case "blocked":
      return { ...state, busy: "", stale: false, message: action.message };
    case "deps":
      return { ...state, deps: action.gate };
    case "diff":
      return action.of === state.result ? { ...state, diff: action.diff } : state;
    case "conflict":
      return { ...state, conflict: { theirs: action.theirs, where: action.where } };
    case "resolved":
      return { ...state, conflict: null, code: action.code };
    case "reset":
      return { ...state, code: state.starter, message: "Starter code restored. Undo with Ctrl/⌘+Z if that was a mistake." };
    case "help":
      return { ...state, help: { ...action.help } };
    case "diagnoses":
      return action.on === state.diagnoses ? state : { ...state, diagnoses: action.on };
    case "confirming":
      return action.open === state.confirming ? state : { ...state, confirming: action.open };
    case "reference":
      return { ...state, reference: action.code, confirming: false };
    default:
      throw new Error(`unknown cell action ${JSON.stringify(action.type)}`);
  }
}

function finished(state, { result, timeLimit, restored }) {
  const text = summarise(result, timeLimit);
  const output = [result.stdout, result.traceback].filter(Boolean).join(result.stdout && result.traceback ? "\n" : "");
  const figures = Array.isArray(result.figures) ? result.figures : [];
  const next = { ...state, busy: "", status: result.status, message: restored ? `Last check: ${text}` : text, output,
    figures };
  // A run's result has no rows: the last check's rows stay (and are not stale: no check is running).
  if (!Array.isArray(result.tests)) return { ...next, stale: false };
  return { ...next, tests: result.tests, stale: false, result, diff: null };
}

/**
 * A cell's model: the state, and the views told of each change. An action dispatched while the views are being
 * updated (an editor reporting the change a view just made) is applied after them, in order.
 * @param {CellState} initial
 */
export function createModel(initial) {
  let state = initial;
  const views = new Set();
  const queue = [];
  let busy = false;
  return {
    get state() { return state; },
    /** @param {{type: string}} action */
    dispatch(action) {
      queue.push(action);
      if (busy) return;
      busy = true;
      try {
        while (queue.length) {
          const prev = state;
          state = reduce(state, queue.shift());
          if (state !== prev) for (const fn of [...views]) fn(state, prev);
        }
      } finally {
        busy = false;
      }
    },
    /** Call `fn(state, prev)` on every change; returns an unsubscribe function. */
    subscribe(fn) {
      views.add(fn);
      return () => views.delete(fn);
    },
  };
}
