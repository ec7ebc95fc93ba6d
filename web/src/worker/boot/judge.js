/**
 * The judge installed: its files into the file system and its entry points taken, before any learner code can run
 * (so the functions kept here are the real ones), then the judge's wheels from their pack when there is one. With
 * a snapshot pytest is already imported; its files are still written for anything read lazily.
 */
import { RUNTIME, distribution } from "../../shared/build-outputs.js";
import { extract } from "../pack.js";
import { markLoaded } from "./packages.js";

/**
 * @typedef {{py: any, restored: boolean, bridge: {run: any, check: any, explore: any, numpyReady: any, warm: any,
 *   judgeReady: any, imports: any, plotsReady: any, expectLater: any, laterArrived: any, serve: any},
 *   sitePackages: string, wheelsWritten: boolean, loadErrors: string[],
 *   list: import("../../shared/build-outputs.js").WheelsList, optional: Record<string, Promise<void>>,
 *   allHere?: Promise<void>}} Session
 *   The interpreter and the judge's entry points (checker/bridge.py), as later stages and requests use them;
 *   `optional`: each optional package (matplotlib) being loaded or loaded, by name; `allHere`: every module that
 *   arrives after ready is written (boot.js).
 */

/**
 * @param {{py: any, restored: boolean}} python  the interpreter (python.js)
 * @param {import("./files.js").Files} files
 * @returns {Promise<Session>}
 */
export async function installJudge({ py, restored }, files) {
  py.unpackArchive(await files.judgeZip, "zip", { extractDir: RUNTIME.judgeDir });
  py.pyimport("sys").path.insert(0, RUNTIME.judgeDir);
  const entry = py.pyimport("checker.bridge");
  const bridge = { run: entry.run, check: entry.check, explore: entry.explore, numpyReady: entry.numpy_ready,
    warm: entry.warm, judgeReady: entry.judge_ready, imports: entry.imports, plotsReady: entry.plots_ready,
    expectLater: entry.expect_later, laterArrived: entry.later_arrived, serve: entry.serve };
  const session = { py, restored, bridge, sitePackages: entry.site_packages(), wheelsWritten: false, loadErrors: [],
    list: files.list, optional: {} };
  try {
    if (files.wheelsPack) {
      extract(py.FS, await files.wheelsPack, session.sitePackages);
      session.wheelsWritten = true;
      markLoaded(py, files.list.wheels.map(distribution));
    }
  } catch { /* the judge stage installs the wheels one by one instead */ }
  return session;
}
