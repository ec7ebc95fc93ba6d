// The browser's interactive Check against one red-team trick, without a browser: the judge's single path (the
// hidden tests and the learner's code in one Pyodide, as a code cell's Check runs them), in a fresh Pyodide under
// Node.js. Prints the result as one JSON line. Used by bench/redteam.py for its "browser Check" column.
// usage: node bench/redteam_single.mjs <repo> <pyodide assets dir> <exercise folder> <trick.py>
import { loadPyodide } from "pyodide";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";

const [repo, assets, exercise, trick] = process.argv.slice(2).map((p) => resolve(p));
const py = await loadPyodide({ stdout: () => {}, stderr: () => {} });
const lock = JSON.parse(readFileSync(`${assets}/pyodide-lock.json`, "utf8"));
const { wheels } = JSON.parse(readFileSync(`${assets}/wheels.json`, "utf8"));
await py.loadPackage([lock.packages.numpy.file_name, ...wheels].map((w) => `${assets}/${w}`), { messageCallback: () => {} });
py.FS.mkdirTree("/repo/checker");
for (const f of readdirSync(`${repo}/checker`).filter((n) => n.endsWith(".py"))) {
  py.FS.writeFile(`/repo/checker/${f}`, readFileSync(`${repo}/checker/${f}`));
}
py.globals.set("tests", readFileSync(`${exercise}/tests/test_base.py`, "utf8"));
py.globals.set("code", readFileSync(trick, "utf8"));
console.log(py.runPython(`
import json, sys
sys.path.insert(0, "/repo")
from checker import bridge
bridge.numpy_ready()
bridge.judge_ready()
bridge.check(json.dumps({"tests": {"test_base.py": tests}, "files": {"fixture/base.py": code}, "learner": "fixture/base.py",
                         "names": ["test_total_is_left_to_right", "test_total_of_nothing", "test_clamp"]}))
`));
