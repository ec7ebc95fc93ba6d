// A Pyodide under Node.js with the site's packages and the judge, as the browser's worker has them: numpy (and for
// the tests' side pytest and the judge's wheels) from the built site's assets, and checker/ copied into Pyodide's
// memory, as the browser unpacks checker.zip: never the checkout itself mounted, which learner code could then
// rewrite (a red-team trick did, before this was so). Shared by tests/pyodide/separated_in_pyodide.mjs and
// bench/redteam_single.mjs.
import { readdirSync, readFileSync } from "node:fs";

/**
 * @param {string} repo  the checkout (for checker/)
 * @param {string} assets  the built site's assets/pyodide
 * @param {"tests"|"learner"} side  the tests' side loads the judge's wheels too
 */
export async function pyodideWithJudge(repo, assets, side = "tests") {
  const { loadPyodide } = await import("pyodide");
  const py = await loadPyodide({ stdout: () => {}, stderr: (t) => process.stderr.write(`${t}\n`) });
  const lock = JSON.parse(readFileSync(`${assets}/pyodide-lock.json`, "utf8"));
  const { wheels } = JSON.parse(readFileSync(`${assets}/wheels.json`, "utf8"));
  const names = side === "tests" ? [lock.packages.numpy.file_name, ...wheels] : [lock.packages.numpy.file_name];
  await py.loadPackage(names.map((w) => `${assets}/${w}`), { messageCallback: () => {} });
  py.FS.mkdirTree("/repo/checker");
  for (const f of readdirSync(`${repo}/checker`).filter((name) => name.endsWith(".py"))) {
    py.FS.writeFile(`/repo/checker/${f}`, readFileSync(`${repo}/checker/${f}`));
  }
  py.runPython("import sys; sys.path.insert(0, '/repo')");
  return py;
}
