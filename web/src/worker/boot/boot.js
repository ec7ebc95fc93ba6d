/**
 * The Python worker's start-up, as a recipe of named stages, the way Pyodide's loadPyodide reads (worker.js runs
 * it first, then serves requests). The page is told of three stages as each is ready (shared/protocol.js STAGES):
 * "python" (the interpreter, with the judge's entry points), "numpy" (Run works), "pytest" (Check works).
 *
 * Each step is a module of this folder, handed the one context made here (context.js) and what earlier steps
 * returned; none keeps state of its own. Why each step is shaped as it is, with the figures: bench/README.md,
 * "Start-up design decisions".
 */
import { STAGE, STAGES } from "../../shared/protocol.js";
import { createContext } from "./context.js";
import { requestCore } from "./core.js";
import { requestFiles } from "./files.js";
import { startPython } from "./python.js";
import { installJudge } from "./judge.js";
import { compileAhead, loadNumpy } from "./numpy.js";
import { loadPytest } from "./pytest.js";
import { handedOff } from "./handoff.js";
import { expectLater, fetchLater } from "./later.js";

const ready = (ctx, stage, extra = {}) => ctx.post({ type: "status", stage, ms: performance.now() - ctx.t0,
  marks: { ...ctx.marks }, ...extra });

/**
 * While numpy's pack is still on its way (on a line it comes after the core and the snapshot: files.js), Python
 * restored from the snapshot has nothing to do: one throwaway check (checker/bridge.py warm) runs the judge's and
 * pytest's code, so that the browser compiles the interpreter's hot code in the background before numpy's import
 * and the first check need it. Skipped when the pack is in already (localhost), or on a cold start.
 */
export async function warmWhileWaiting(ctx, session, pack) {
  if (!session.restored || !pack) return;
  let arrived = false;
  pack.then(() => { arrived = true; }, () => { arrived = true; });
  await new Promise((resolve) => setTimeout(resolve, 0));
  if (arrived) return;
  try {
    session.bridge.warm();
    ctx.mark("warmed");
  } catch { /* only a warm-up */ }
}

/**
 * Start-up: each stage's promise resolves to the session (judge.js Session) once the stage is ready, and says so
 * to the page; requests wait for the stage they need.
 * @param {{post: (msg: object) => void, fatal: (message: string) => void}} report
 * @returns {Record<string, Promise<import("./judge.js").Session>>} each stage's promise, by name (STAGES)
 */
export function boot(report) {
  const ctx = createContext(report);
  // 1. The core, the standard library and the loader, requested at once (the line is measured on them).
  const loader = requestCore(ctx);
  // 2. The wheels list, then the snapshot (when worth restoring), the packs and the judge, as the measure decides.
  const files = requestFiles(ctx);
  files.catch(ctx.snapshotAsked.settle);
  // numpy's extension modules, compiled off this thread as soon as its pack is in.
  const ahead = files.then((f) => compileAhead(ctx, f));
  const aheadMore = files.then((f) => compileAhead(ctx, f, f.numpyMore, false));
  ahead.catch(() => {});
  aheadMore.catch(() => {});
  const stages = {};
  // 3. Python started, restored from the snapshot or cold, and the judge installed: "python".
  let later = null;
  stages[STAGE.python] = files.then(async (f) => {
    const python = await startPython(ctx, f, loader);
    ctx.mark("restored");
    const session = await installJudge(python, f);
    ctx.mark("judgeInstalled");
    later = expectLater(ctx, session); // before any learner code: an import of a later module waits for it
    ready(ctx, STAGE.python, { snapshot: session.restored });
    return session;
  });
  // 4. numpy from its pack: "numpy", Run works.
  stages[STAGE.numpy] = stages[STAGE.python].then(async (session) => {
    await warmWhileWaiting(ctx, session, (await files).numpyPack);
    await loadNumpy(ctx, session, await files, ahead, aheadMore);
    ctx.mark("numpyImported");
    ready(ctx, STAGE.numpy);
    return session;
  });
  // 5. pytest: "pytest", Check works; then, once what this worker downloaded is handed off, the page completes
  // the offline copy (sw/sw.js fill).
  stages[STAGE.pytest] = stages[STAGE.numpy].then(async (session) => {
    await loadPytest(ctx, session, await files);
    ctx.mark("pytestReady");
    ready(ctx, STAGE.pytest);
    // 6. What start-up did not need (later.js: with the start-up standard library, when restored), then the
    // hand-off.
    // `allHere`: every later module written (a learner's worker waits for it, then cuts itself off: confine.js)
    session.allHere = fetchLater(ctx, session, later, ctx.deferredStdlib)
      .then(() => ctx.mark("laterWritten")).catch(() => {});
    session.allHere.then(() => handedOff(ctx)).then(() => ready(ctx, STAGE.pytest, { handedOff: true }));
    return session;
  });
  for (const stage of STAGES) {
    stages[stage].catch((err) => ctx.fatal(`Python could not start (${stage}): ${err.message}`));
  }
  return stages;
}
