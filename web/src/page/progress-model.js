/**
 * What the learner has done, derived from saved data: one status per exercise and per prompt. Pure functions
 * over a store-like `get(key)`, shared by the progress page, the chapter overview and the module map.
 */
import { keys } from "./store.js";
import { unverified } from "./exchange.js";

/**
 * The state of an exercise's code: "passed" | "failed" after a check (with the counts of the last one), else
 * "elsewhere" (a pass imported from `ol` that this site has not checked yet: it does not count as passed),
 * "edited" (code saved, never checked) or "not-started".
 */
export function codeState(get, slug) {
  const result = get(keys.result(slug));
  const code = get(keys.code(slug));
  const imported = unverified(get, slug);
  if (imported) return { state: "elsewhere", passed: 0, total: 0, at: imported.when };
  if (result && Array.isArray(result.tests)) {
    const passed = result.tests.filter((t) => t.outcome === "passed").length;
    return { state: result.status === "passed" ? "passed" : "failed", passed, total: result.tests.length, at: result.at };
  }
  return { state: code ? "edited" : "not-started", passed: 0, total: 0 };
}

/**
 * One prompt's state: a numeric one "correct" | "incorrect" | "revealed" | "unanswered"; a prediction
 * "committed" | "unanswered"; a choice question "answered" | "unanswered".
 */
export function promptState(get, slug, id, kind = "numeric") {
  const saved = get(keys.prompt(slug, id));
  if (!saved) return "unanswered";
  if (kind === "predict") return saved.choice ? "committed" : "unanswered";
  if (kind === "numeric") {
    if (saved.verdict === "correct") return "correct";
    if (saved.revealed) return "revealed";
    return saved.verdict || "unanswered";
  }
  return saved.choice ? "answered" : "unanswered";
}

/**
 * Overall status of an exercise: "done" | "in-progress" | "not-started".
 * A module is done when its hidden tests pass; a lesson when, in addition, every prompt has been answered
 * (a numeric prompt correctly or by revealing the worked answer) and every prediction committed.
 * @param {{slug: string, kind: string, prompts?: string[], choices?: {id: string, kind: string}[]}} entry
 */
export function exerciseStatus(get, entry) {
  const code = codeState(get, entry.slug);
  const prompts = (entry.prompts || []).map((id) => promptState(get, entry.slug, id, "numeric"));
  const choices = (entry.choices || []).map((c) => promptState(get, entry.slug, c.id, c.kind));
  const touched = code.state !== "not-started" || [...prompts, ...choices].some((p) => p !== "unanswered");
  const promptsDone = prompts.every((p) => p === "correct" || p === "revealed")
    && choices.every((c) => c !== "unanswered");
  if (code.state === "passed" && (entry.kind !== "lesson" || promptsDone)) return "done";
  return touched ? "in-progress" : "not-started";
}

export const STATUS_TEXT = { done: "done", "in-progress": "in progress", "not-started": "not started" };

/**
 * The help taken on an exercise (cell/help.js saves it): hints revealed, and whether the reference was shown,
 * which the progress page says and which never counts as a pass.
 * @returns {{hints: number, revealed: boolean}}
 */
export function helpTaken(get, slug) {
  const saved = get(keys.help(slug));
  if (!saved || typeof saved !== "object") return { hints: 0, revealed: false };
  return { hints: Number.isInteger(saved.hints) && saved.hints > 0 ? saved.hints : 0,
    revealed: typeof saved.revealed === "number" && saved.revealed > 0 };
}

/** The words for the help taken ("", "1 hint", "2 hints; saw the reference"). */
export function helpText(help) {
  const parts = help.hints ? [`${help.hints} hint${help.hints === 1 ? "" : "s"}`] : [];
  if (help.revealed) parts.push("saw the reference");
  return parts.join("; ");
}

/** The words for a code state on the progress page. */
export function codeText(code) {
  if (code.state === "elsewhere") return "passed with ol; not yet checked here (the page checks it once Python is ready)";
  if (code.total) return `${code.passed} of ${code.total} tests pass`;
  return code.state === "edited" ? "edited, not checked" : "not started";
}
