/**
 * The page ⇄ worker protocol, written down once. Every message is a plain object with a `type`; requests carry
 * an `id` that the reply repeats. Nothing throws across the boundary: failures are replies.
 *
 * Page → worker
 *   {type: "init", id, port: MessagePort, interrupt?: SharedArrayBuffer}
 *                                   on the worker's own channel; every later message uses `port`. The worker
 *                                   starts loading Python as soon as it exists, finding Pyodide, the snapshot,
 *                                   the wheels and checker.zip relative to its own URL; replies wait for init.
 *   {type: "run", id, code, filename, files: {[path]: source}}
 *   {type: "check", id, tests: {[file]: source}, files: {[path]: source}, learner, names: string[], timeLimit}
 *   {type: "cancel", id}            withdraw a queued request that has not started (it gets no reply)
 *   {type: "ping", id}
 *
 * Worker → page
 *   {type: "status", stage, ms, snapshot?}  stage: "python" | "numpy" | "judge" (each one ready; ms since
 *                                   init; snapshot: whether Python was restored from the memory snapshot)
 *   {type: "started", id}           the request left the queue and Python began executing it
 *   {type: "stdout", id, text}      streamed output of a run (already capped by the judge)
 *   {type: "result", id, result}    RunResult or CheckResult below
 *   {type: "error", id, message}    the request could not be handled (unknown type, bad payload)
 *   {type: "fatal", message}        the interpreter cannot go on; the client replaces the worker
 *
 * @typedef {{status: "ok"|"error"|"timeout"|"stopped", stdout: string, traceback: string}} RunResult
 * @typedef {{name: string, outcome: "passed"|"failed"|"error", message: string}} TestResult
 * @typedef {{status: "passed"|"failed"|"error"|"timeout"|"stopped", tests: TestResult[], stdout: string,
 *            traceback: string}} CheckResult
 */

export const REQUESTS = Object.freeze(["init", "run", "check", "cancel", "ping"]);
export const REPLIES = Object.freeze(["status", "started", "stdout", "result", "error", "fatal"]);
export const STAGES = Object.freeze(["python", "numpy", "judge"]);

/**
 * Check the shape of a request; returns an error message or "" when it is well formed.
 * @param {any} msg
 */
export function requestProblem(msg) {
  if (!msg || typeof msg !== "object") return "a message must be an object";
  if (!REQUESTS.includes(msg.type)) return `unknown message type ${JSON.stringify(msg.type)}`;
  if (!Number.isInteger(msg.id) || msg.id < 0) return "every request needs an integer id >= 0";
  if (msg.type === "run" && (typeof msg.code !== "string" || typeof msg.filename !== "string")) {
    return "run needs string fields code and filename";
  }
  const isMap = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
  if (msg.type === "check" && (typeof msg.learner !== "string" || !isMap(msg.files) || !isMap(msg.tests)
      || !Array.isArray(msg.names))) {
    return "check needs learner, files, tests and names";
  }
  return "";
}
