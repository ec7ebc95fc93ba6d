/**
 * Help for a learner who is stuck on an exercise, and what they took of it.
 *
 * - The known mistake a failing check looks like: the judge's `diagnosis` (checker/diagnosis.py, from the
 *   bundle's `mistakes`), shown unless the learner turned it off (`settings:diagnoses`, kept with their progress).
 * - Hints, offered one at a time from the first failed check on; a revealed hint stays revealed (Reset of the
 *   code does not hide it).
 * - The reference, on the author's terms (the cell data's `revealAfter`): 0 means after a pass only (the diff
 *   view shows it then); N means after N failed checks and every hint, behind a confirmation. A reveal is
 *   recorded, shown on the progress page, and never counts as a pass.
 *
 * What was taken is saved under `help:<slug>` as {hints, failed, revealed?, pitfalls?} (exchange.js carries it in
 * exports and merges it on import, `mergeHelp`); `pitfalls` are the known mistakes the diagnoses of failed checks
 * named, which a teacher's class view counts (page/class/).
 */
import { keys } from "../store.js";
import { mergePitfalls, pitfallLabels } from "../exchange.js";
import { actions } from "./state.js";

/** @typedef {{hints: number, failed: number, revealed: number, pitfalls: string[]}} Help  revealed: when (ms), 0
 * if never; pitfalls: the known mistakes named so far */

const count = (v) => (Number.isInteger(v) && v > 0 ? v : 0);

/**
 * The help saved for `slug` (zeros for nothing saved, or for an entry that is not a record of help).
 * @returns {Help}
 */
export function readHelp(store, slug) {
  const saved = store.get(keys.help(slug), null);
  if (!saved || typeof saved !== "object") return { hints: 0, failed: 0, revealed: 0, pitfalls: [] };
  const revealed = typeof saved.revealed === "number" && saved.revealed > 0 ? saved.revealed : 0;
  return { hints: count(saved.hints), failed: count(saved.failed), revealed, pitfalls: mergePitfalls(saved.pitfalls) };
}

/** Whether a check's result is a failed attempt: the judge looked at the code and it did not pass. */
export function failedAttempt(result) {
  return (result.status === "failed" || result.status === "error") && result.phase !== "tampered";
}

/**
 * Whether the reference may be shown now: the exercise allows it after attempts, and the learner has failed
 * that many checks and revealed every hint.
 * @param {Help} help
 * @param {{revealAfter: number, hints: number}} policy
 */
export function mayReveal(help, { revealAfter, hints }) {
  return revealAfter > 0 && help.failed >= revealAfter && help.hints >= hints;
}

/** Whether the learner wants known mistakes named (on unless turned off). */
export function diagnosesOn(store) {
  return store.get(keys.setting("diagnoses"), true) !== false;
}

/**
 * The help commands of one exercise cell.
 * @param {{slug: string, revealAfter: number, hints: number, store: object,
 *          model: ReturnType<import("./state.js").createModel>, loadReference: () => Promise<string>}} options
 * @returns {{afterCheck: (result: object) => void, nextHint: () => void, askReveal: () => void,
 *            reveal: () => Promise<void>, cancelReveal: () => void, setDiagnoses: (on: boolean) => void,
 *            destroy: () => void}}
 */
export function createHelp({ slug, revealAfter, hints, store, model, loadReference }) {
  const key = keys.help(slug);
  const dispatch = (action) => model.dispatch(action);
  const current = () => readHelp(store, slug); // afresh: another tab may have taken a hint meanwhile
  const save = (help) => {
    const entry = { hints: help.hints, failed: help.failed, ...(help.revealed ? { revealed: help.revealed } : {}),
      ...(help.pitfalls && help.pitfalls.length ? { pitfalls: help.pitfalls } : {}) };
    store.set(key, entry);
    dispatch(actions.help(help));
  };
  const showReference = () => loadReference().then((code) => dispatch(actions.reference(code))).catch(() => {
    dispatch(actions.reference("# The reference could not be loaded; reload the page to try again."));
  });

  const sync = () => {
    const help = current();
    dispatch(actions.help(help));
    dispatch(actions.diagnoses(diagnosesOn(store)));
    if (help.revealed && model.state.reference === null) showReference();
  };
  sync();
  const unwatch = store.onExternalChange((changed) => {
    if (changed === null || changed === key || changed === keys.setting("diagnoses")) sync();
  });

  return {
    afterCheck(result) {
      if (!failedAttempt(result)) return;
      const help = current();
      save({ ...help, failed: help.failed + 1, pitfalls: mergePitfalls(help.pitfalls, pitfallLabels(result.diagnosis)) });
    },
    nextHint() {
      const help = current();
      if (help.hints < hints) save({ ...help, hints: help.hints + 1 });
    },
    askReveal() {
      if (mayReveal(current(), { revealAfter, hints })) dispatch(actions.confirming(true));
    },
    async reveal() {
      const help = current();
      if (!mayReveal(help, { revealAfter, hints }) && !help.revealed) return;
      if (!help.revealed) save({ ...help, revealed: Date.now() });
      await showReference();
    },
    cancelReveal() {
      dispatch(actions.confirming(false));
    },
    setDiagnoses(on) {
      store.set(keys.setting("diagnoses"), Boolean(on));
      dispatch(actions.diagnoses(Boolean(on)));
    },
    destroy() {
      unwatch();
    },
  };
}
