/**
 * The page ⇄ worker protocol, written down once: every request and reply with every field, and a validator for
 * each direction. The worker checks requests with `requestProblem` before acting on them; worker-client.js
 * checks replies with `replyProblem` and turns a malformed one into an error result. Nothing throws across the
 * boundary: failures are replies, and a problem is a message ("" when the message is well formed).
 *
 * The judge's result fields come from checker/judge.py (`check` and `run`); the client adds `ms`, `restarted`
 * and `retried` after the reply (see `ClientFields`).
 *
 * ## Page → worker
 * @typedef {{type: "init", id: number, port: MessagePort, interrupt?: SharedArrayBuffer}} InitRequest
 *   On the worker's own channel; every later message uses `port`. The worker starts loading Python as soon as it
 *   exists, finding Pyodide, the snapshot, the wheels and checker.zip relative to its own URL; replies wait for
 *   init. `interrupt`: one byte, set to 2 (SIGINT) by Stop when the page is cross-origin isolated.
 * @typedef {{type: "run", id: number, code: string, filename: string, files?: Files, run?: number}} RunRequest
 *   Run `code` as a script named `filename`; `files` (dependency sources) are importable meanwhile. `run`: the
 *   page's number for this Run, which console requests name; the worker keeps the namespace it leaves.
 * @typedef {{type: "explore", id: number, kind: "eval"|"trace", code: string, run: number, filename: string,
 *   files?: Files}} ExploreRequest
 *   The console under a cell (checker/console.py): `code` typed after the Run numbered `run`, evaluated in the
 *   namespace it left ("eval": an expression shows its repr, a statement runs; an input that is not complete
 *   yet gets the status "incomplete"), or one call traced line by line ("trace"). When that namespace is gone (a
 *   Check, a Reset or a new worker since), the input runs in an empty one named `filename`, with `files`
 *   importable, and the result says `fresh`.
 * @typedef {{type: "check", id: number, tests: Files, files: Files, learner: string, names: string[],
 *   rewritten?: Rewritten, mistakes?: Mistake[], channel?: SharedArrayBuffer}} CheckRequest
 *   Run the hidden suite `tests` against `files`; `learner` is the key of `files` that holds the learner's own
 *   file; `names` the catalogue's test names in order (every one appears in the result); `rewritten`: the
 *   bundle's assertion rewriting of `tests`, made at build time (tools/rewriting.py), which spares the first
 *   check of an exercise pytest's own rewriting; `mistakes`: the exercise's known mistakes (the bundle's), which
 *   the result's `diagnosis` is drawn from. `channel`: a separated check (checker/separated.py): the learner's
 *   code runs in another worker, serving this channel (ServeRequest), and never in this one.
 * @typedef {{type: "serve", id: number, channel: SharedArrayBuffer}} ServeRequest
 *   Be the learner's interpreter of one separated check (shared/sync-channel.js): once everything is loaded, the
 *   worker takes away its own reach (worker/confine.js: no storage, no network, no other worker) and serves the
 *   tests' requests until the check ends; its RunResult says how it ended. The worker is used for nothing else.
 * @typedef {{mutant: string, pitfall: string, number?: number|null, fingerprint: string[]}} Mistake
 *   checker/diagnosis.py: a mutant, the pitfall it stands for, the page's pitfall number, and how it fails.
 * @typedef {{tag: string, tests: Record<string, string>}} Rewritten
 *   checker/judge.py adopt_rewriting: the interpreter and pytest it was made for, and per test file the base64
 *   of its zlib-compressed marshalled code object.
 * @typedef {{type: "cancel", id: number}} CancelRequest
 *   Withdraw a queued request that has not started; it gets no reply.
 * @typedef {{type: "ping", id: number}} PingRequest
 *   Answered with a RunResult of status "ok" once the worker reads its port.
 * @typedef {InitRequest|RunRequest|CheckRequest|CancelRequest|PingRequest} Request
 * @typedef {Record<string, string>} Files  path (or test file name) → source
 *
 * Time limits are the client's: it starts a request's timer when the worker says "started" and stops the run
 * (interrupt or a fresh worker) when it runs out. No request carries a time limit.
 *
 * ## Worker → page
 * @typedef {{type: "status", stage: Stage, ms: number, snapshot?: boolean, handedOff?: boolean,
 *   marks?: Record<string, number>}}
 *   StatusReply
 *   A stage is ready; `ms` since the worker started; `snapshot` (with "python"): restored from the memory snapshot;
 *   `handedOff` (a second "pytest" status, later): every file the worker downloaded is in the hand-off cache, so
 *   the offline copy can be completed without downloading them again (worker/boot/handoff.js handingOff);
 *   `marks`: when each step of start-up so far ended (worker/boot/context.js MARKS), in ms since the epoch (the
 *   page and the worker have clocks of their own), for the benchmark's account of where start-up's time goes.
 * @typedef {{type: "loading", received: number, total: number, ms: number}} LoadingReply
 *   Start-up's downloads so far: `received` of `total` bytes (the wheels list's startBytes for the copies this
 *   start fetches), `ms` since the worker started; sent at most every 200 ms while they arrive, and once when
 *   all are in (received = total). None when the build gave no total.
 * @typedef {{type: "started", id: number}} StartedReply
 *   The request left the queue and Python began executing it.
 * @typedef {{type: "stdout", id: number, text: string}} StdoutReply
 *   Streamed output of a run, in batches (already capped by the judge).
 * @typedef {{type: "steps", id: number, steps: Step[]}} StepsReply
 *   A trace's steps as they are recorded, in batches, so that a Stop that replaces the worker keeps them.
 * @typedef {{type: "progress", id: number, text: string}} ProgressReply
 *   Before a request starts: the worker is loading an optional package its code imports (matplotlib), `text`
 *   says what ("Loading matplotlib (9.8 MB, once)…"); "" once loaded, as the request is about to start.
 * @typedef {{type: "result", id: number, result: RunResult|CheckResult}} ResultReply
 * @typedef {{type: "error", id?: number, message: string}} ErrorReply
 *   The request could not be handled (unknown type, bad payload); `id` is absent when the request had none.
 * @typedef {{type: "fatal", message: string}} FatalReply
 *   The interpreter cannot go on; the client replaces the worker and fails its requests plainly.
 * @typedef {StatusReply|LoadingReply|StartedReply|StdoutReply|StepsReply|ProgressReply|ResultReply|ErrorReply
 *   |FatalReply} Reply
 *
 * ## Results
 * @typedef {"python"|"numpy"|"pytest"} Stage  each one ready: the interpreter; numpy (Run works); pytest (Check works)
 * @typedef {{status: "ok"|"error"|"timeout", stdout: string, traceback: string, figures?: Figure[]}} RunResult
 *   The worker reports an interrupted run as "timeout"; the client renames it "stopped" after a Stop. `figures`:
 *   what the run drew (checker/figures.py), in order, when it drew anything.
 * @typedef {{kind: "image", mime: "image/png", data: string, alt: string, at?: number|null}
 *   | {kind: "note", text: string, at?: number|null}} Figure
 *   An image (`data`: base64, `alt`: its text alternative, the figure's title or "figure N") or a note (a cap
 *   reached, a figure drawn smaller or not at all); `at`: where in `stdout` it was shown (absent or null: after
 *   the text).
 * @typedef {{name: string, outcome: "passed"|"failed"|"error", message: string, where?: string, case?: string}}
 *   TestResult
 *   `where`: "file:line" of the innermost frame of the learner's code (or the test's) that failed; `case`: how it
 *   failed in terms learner code cannot change (checker/messages.py `case`), which the diagnosis compares.
 * @typedef {{status: "passed"|"failed"|"error"|"timeout", tests: TestResult[], stdout: string, traceback: string,
 *            phase?: Phase, tainted?: "before"|"during", durations?: Record<string, number>,
 *            diagnosis?: Diagnosis[]}} CheckResult
 *   `phase`: where the check ended, machine-readable (optional until every judge sends it). `tainted`: the
 *   judging machinery was modified before this check (by code run earlier) or during it; the result is an
 *   error and the client replaces the worker (retrying once, on a clean one, for "before"). `durations`: ms each
 *   test's body ran, for authors and the benchmark. `diagnosis`: the known mistakes the failure looks like (only
 *   on a failed check that reached its tests, when the request carried `mistakes`), best match first.
 * @typedef {RunResult & {status: "ok"|"error"|"timeout"|"incomplete", fresh?: boolean, steps?: Step[],
 *   cut?: boolean}} ExploreResult
 *   A console input's result: `fresh`, it ran in an empty namespace (see ExploreRequest); a trace's `steps`
 *   (all of them, as streamed) and `cut`, when the cap stopped the call (checker/trace.py MAX_STEPS, MAX_BYTES).
 * @typedef {{line: number, stack: {function: string, line: number}[], vars: Record<string, Value>,
 *   changed: string[], raised?: string}} Step
 *   checker/trace.py: the line about to run in the learner's file, the learner's frames (outermost first), the
 *   innermost frame's variables, those that changed since its previous step, and the exception raised there.
 * @typedef {{type: string, text: string, shape?: number[], dtype?: string}} Value  a variable as a learner reads it
 * @typedef {{pitfall: string, number: number|null, mutants: string[], also: string[]}} Diagnosis
 *   checker/diagnosis.py `diagnose`: a pitfall's text (`also`: other texts of the same numbered pitfall), the
 *   page's pitfall number or null, and the mutants that fail exactly like the learner's code.
 * @typedef {"import"|"collect"|"tests"|"tampered"|"timeout"} Phase
 *   import: the learner's module did not import; collect: the hidden tests could not start against it; tests:
 *   the tests ran; tampered: nothing was judged (see `tainted`); timeout: stopped by a time limit.
 * @typedef {{ms: number, restarted?: boolean, retried?: boolean}} ClientFields
 *   Added by worker-client.js: `ms` from "started" to the result; `restarted`: the worker was lost and replaced
 *   while this ran; `retried`: judged on a fresh worker after a "before" refusal. A result the client makes
 *   itself (Stop before start, a lost worker, a malformed reply) has status "stopped", "timeout" or "error".
 */

export const REQUESTS = Object.freeze(["init", "run", "check", "explore", "cancel", "ping", "serve"]);
export const REPLIES = Object.freeze(["status", "loading", "started", "stdout", "steps", "progress", "result", "error",
  "fatal"]);
export const EXPLORE_KINDS = Object.freeze(["eval", "trace"]);
export const FIGURE_KINDS = Object.freeze(["image", "note"]);
export const FIGURE_MIMES = Object.freeze(["image/png"]);
/** The start-up stages, in the order they are reached. */
export const STAGES = Object.freeze(["python", "numpy", "pytest"]);
/** Each stage by name, so code says `STAGE.pytest` rather than a string that may drift. */
export const STAGE = Object.freeze(Object.fromEntries(STAGES.map((s) => [s, s])));
/** The stage each request needs before it can start. */
export const NEEDS = Object.freeze({ run: STAGE.numpy, check: STAGE.pytest, explore: STAGE.numpy, serve: STAGE.pytest });
export const RUN_STATUSES = Object.freeze(["ok", "error", "timeout", "stopped"]);
export const EXPLORE_STATUSES = Object.freeze([...RUN_STATUSES, "incomplete"]);
export const CHECK_STATUSES = Object.freeze(["passed", "failed", "error", "timeout", "stopped"]);
export const OUTCOMES = Object.freeze(["passed", "failed", "error"]);
export const PHASES = Object.freeze(["import", "collect", "tests", "tampered", "timeout"]);

/** Whether `stage` (a worker's furthest, "" before any) is `wanted` or a later one. */
export function reached(stage, wanted) {
  return STAGES.indexOf(stage) >= STAGES.indexOf(wanted);
}

const isMap = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
const isId = (v) => Number.isInteger(v) && v >= 0;
const stringsOf = (v) => isMap(v) && Object.values(v).every((s) => typeof s === "string");

const strings = (v) => Array.isArray(v) && v.every((s) => typeof s === "string");
const numberOrNull = (v) => v === undefined || v === null || Number.isInteger(v);
/** Whether `value` is a known mistake (Mistake), as the bundles carry them. */
export const mistakeFits = (value) => isMap(value) && typeof value.mutant === "string"
  && typeof value.pitfall === "string" && numberOrNull(value.number) && strings(value.fingerprint);
/** Whether `value` is one entry of a result's `diagnosis` (Diagnosis). */
export const diagnosisFits = (value) => isMap(value) && typeof value.pitfall === "string"
  && numberOrNull(value.number) && strings(value.mutants) && (value.also === undefined || strings(value.also));

/** Whether `value` has the shape of a check request's `rewritten` (CheckRequest): a string tag, and tests mapping
 * names to strings. */
export const rewrittenFits = (value) => isMap(value) && typeof value.tag === "string" && stringsOf(value.tests);

/**
 * Check the shape of a request; returns an error message or "" when it is well formed.
 * @param {any} msg
 */
export function requestProblem(msg) {
  if (!isMap(msg)) return "a message must be an object";
  if (!REQUESTS.includes(msg.type)) return `unknown message type ${JSON.stringify(msg.type)}`;
  if (!isId(msg.id)) return "every request needs an integer id >= 0";
  if (msg.type === "init" && msg.interrupt != null
      && !(typeof SharedArrayBuffer !== "undefined" && msg.interrupt instanceof SharedArrayBuffer)) {
    return "init's interrupt must be a SharedArrayBuffer";
  }
  if (msg.type === "run" && (typeof msg.code !== "string" || typeof msg.filename !== "string")) {
    return "run needs string fields code and filename";
  }
  if (msg.type === "run" && msg.files !== undefined && !stringsOf(msg.files)) {
    return "run's files must map paths to sources";
  }
  if (msg.type === "run" && msg.run !== undefined && !isId(msg.run)) return "run's run must be an integer >= 0";
  if (msg.type === "explore") return exploreProblem(msg);
  const shared = (v) => typeof SharedArrayBuffer !== "undefined" && v instanceof SharedArrayBuffer;
  if (msg.type === "serve" && !shared(msg.channel)) return "serve needs a SharedArrayBuffer channel";
  if (msg.type === "check" && msg.channel !== undefined && !shared(msg.channel)) {
    return "check's channel must be a SharedArrayBuffer";
  }
  if (msg.type === "check" && (typeof msg.learner !== "string" || !isMap(msg.files) || !isMap(msg.tests)
      || !Array.isArray(msg.names))) {
    return "check needs learner, files, tests and names";
  }
  if (msg.type === "check" && (!stringsOf(msg.files) || !stringsOf(msg.tests)
      || !msg.names.every((n) => typeof n === "string"))) {
    return "check's files and tests must map names to sources, and names must be strings";
  }
  if (msg.type === "check" && msg.rewritten !== undefined && !rewrittenFits(msg.rewritten)) {
    return "check's rewritten needs a string tag and tests mapping names to strings";
  }
  if (msg.type === "check" && msg.mistakes !== undefined && !(Array.isArray(msg.mistakes)
      && msg.mistakes.every(mistakeFits))) {
    return "check's mistakes must be a list of {mutant, pitfall, fingerprint}";
  }
  return "";
}

function exploreProblem(msg) {
  if (!EXPLORE_KINDS.includes(msg.kind)) return `explore's kind must be one of ${EXPLORE_KINDS.join(", ")}`;
  if (typeof msg.code !== "string" || typeof msg.filename !== "string" || !isId(msg.run)) {
    return "explore needs string code and filename and an integer run";
  }
  if (msg.files !== undefined && !stringsOf(msg.files)) return "explore's files must map paths to sources";
  return "";
}

/**
 * Check the shape of a reply; returns an error message or "" when it is well formed.
 * @param {any} msg
 * @param {"run"|"check"|"explore"|"ping"} [requestType]  the type of the request a result answers, when known
 */
export function replyProblem(msg, requestType) {
  if (!isMap(msg)) return "a reply must be an object";
  if (!REPLIES.includes(msg.type)) return `unknown reply type ${JSON.stringify(msg.type)}`;
  switch (msg.type) {
    case "status":
      if (!STAGES.includes(msg.stage)) return `status names an unknown stage ${JSON.stringify(msg.stage)}`;
      if (typeof msg.ms !== "number") return "status needs ms";
      if (msg.snapshot !== undefined && typeof msg.snapshot !== "boolean") return "status's snapshot must be true or false";
      if (msg.handedOff !== undefined && typeof msg.handedOff !== "boolean") return "status's handedOff must be true or false";
      if (msg.marks !== undefined && !(isMap(msg.marks) && Object.values(msg.marks).every(Number.isFinite))) {
        return "status's marks must map names to times";
      }
      return "";
    case "loading":
      return ["received", "total", "ms"].every((k) => Number.isFinite(msg[k]) && msg[k] >= 0)
        ? "" : "loading needs received, total and ms";
    case "fatal":
      return typeof msg.message === "string" ? "" : "fatal needs a message";
    case "error":
      if (msg.id !== undefined && msg.id !== null && !isId(msg.id)) return "error's id must be an integer id";
      return typeof msg.message === "string" ? "" : "error needs a message";
    default:
      break;
  }
  if (!isId(msg.id)) return `${msg.type} needs the id of its request`;
  if ((msg.type === "stdout" || msg.type === "progress") && typeof msg.text !== "string") return `${msg.type} needs text`;
  if (msg.type === "steps" && !(Array.isArray(msg.steps) && msg.steps.every(stepFits))) return "steps needs a list of steps";
  if (msg.type === "result") return resultProblem(msg.result, requestType);
  return "";
}

/**
 * Check the shape of a result from the worker (a RunResult or a CheckResult); "" when it is well formed.
 * @param {any} result
 * @param {"run"|"check"|"ping"} [requestType]
 */
export function resultProblem(result, requestType) {
  if (!isMap(result)) return "a result must be an object";
  if (typeof result.stdout !== "string" || typeof result.traceback !== "string") {
    return "a result needs stdout and traceback";
  }
  const statuses = requestType === "check" ? CHECK_STATUSES : requestType === "explore" ? EXPLORE_STATUSES
    : requestType ? RUN_STATUSES : [...new Set([...EXPLORE_STATUSES, ...CHECK_STATUSES])];
  if (!statuses.includes(result.status)) return `unknown result status ${JSON.stringify(result.status)}`;
  if (requestType === "check" || result.tests !== undefined) {
    if (!Array.isArray(result.tests)) return "a check result needs tests";
    for (const t of result.tests) {
      if (!isMap(t) || typeof t.name !== "string" || !OUTCOMES.includes(t.outcome) || typeof t.message !== "string"
          || (t.where !== undefined && typeof t.where !== "string")
          || (t.case !== undefined && typeof t.case !== "string")) {
        return `malformed test result ${JSON.stringify(t)}`;
      }
    }
  }
  if (result.phase !== undefined && !PHASES.includes(result.phase)) return `unknown phase ${JSON.stringify(result.phase)}`;
  if (result.tainted !== undefined && result.tainted !== "before" && result.tainted !== "during") {
    return `unknown tainted ${JSON.stringify(result.tainted)}`;
  }
  if (result.figures !== undefined) {
    if (!Array.isArray(result.figures)) return "figures must be a list";
    for (const figure of result.figures) {
      const problem = figureProblem(figure);
      if (problem) return problem;
    }
  }
  if (result.diagnosis !== undefined && !(Array.isArray(result.diagnosis) && result.diagnosis.every(diagnosisFits))) {
    return "diagnosis must be a list of {pitfall, number, mutants}";
  }
  if (result.steps !== undefined && !(Array.isArray(result.steps) && result.steps.every(stepFits))) {
    return "steps must be a list of steps";
  }
  if (result.cut !== undefined && typeof result.cut !== "boolean") return "cut must be true or false";
  if (result.fresh !== undefined && typeof result.fresh !== "boolean") return "fresh must be true or false";
  if (result.durations !== undefined && !(isMap(result.durations)
      && Object.values(result.durations).every((ms) => typeof ms === "number"))) {
    return "durations must map test names to ms";
  }
  return "";
}

const valueFits = (v) => isMap(v) && typeof v.type === "string" && typeof v.text === "string"
  && (v.shape === undefined || (Array.isArray(v.shape) && v.shape.every(isId)))
  && (v.dtype === undefined || typeof v.dtype === "string");
/** Whether `step` is one step of a trace (Step). */
export const stepFits = (step) => isMap(step) && Number.isInteger(step.line) && step.line > 0
  && Array.isArray(step.stack) && step.stack.every((f) => isMap(f) && typeof f.function === "string")
  && isMap(step.vars) && Object.values(step.vars).every(valueFits) && strings(step.changed)
  && (step.raised === undefined || typeof step.raised === "string");

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Check one of a run's figures (an image or a note, see `Figure`); "" when it is well formed. An image's data
 * must be base64 of a kind the page shows (FIGURE_MIMES), so nothing but a picture reaches an <img>.
 * @param {any} figure
 */
export function figureProblem(figure) {
  if (!isMap(figure) || !FIGURE_KINDS.includes(figure.kind)) return `unknown figure ${JSON.stringify(figure)?.slice(0, 80)}`;
  if (figure.at !== undefined && figure.at !== null && !isId(figure.at)) return "a figure's at must be an offset >= 0";
  if (figure.kind === "note") return typeof figure.text === "string" ? "" : "a note needs text";
  if (!FIGURE_MIMES.includes(figure.mime)) return `unknown image type ${JSON.stringify(figure.mime)}`;
  if (typeof figure.data !== "string" || !figure.data || figure.data.length % 4 || !BASE64.test(figure.data)) {
    return "an image needs base64 data";
  }
  return typeof figure.alt === "string" && figure.alt.trim() ? "" : "an image needs a text alternative";
}
