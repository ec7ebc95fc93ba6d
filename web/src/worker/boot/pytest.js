/** pytest (from its wheels when their pack could not be written) and the judge's speed-ups; adds pytest's modules
 * to the tamper baseline (checker/bridge.py judge_ready). */
import { loadPackages } from "./packages.js";

/**
 * @param {import("./context.js").Boot} ctx
 * @param {import("./judge.js").Session} session
 * @param {import("./files.js").Files} files
 */
export async function loadPytest(ctx, session, files) {
  if (!session.wheelsWritten) await loadPackages(session, files.list.wheels.map((w) => ctx.index + w));
  try {
    session.bridge.judgeReady();
  } catch (err) {
    throw new Error(`pytest could not be loaded: ${session.loadErrors.join("; ") || err.message}`);
  }
}
