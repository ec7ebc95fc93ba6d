// The browser's interactive Check against one red-team trick, without a browser: the judge's single path (the
// hidden tests and the learner's code in one Pyodide, as a code cell's Check runs them), in a fresh Pyodide under
// Node.js. Prints the result as one JSON line. Used by bench/redteam.py for its "browser Check" column.
// usage: node bench/redteam_single.mjs <repo> <pyodide assets dir> <exercise folder> <trick.py>
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pyodideWithJudge } from "../tests/pyodide/judge_in_node.mjs";

const [repo, assets, exercise, trick] = process.argv.slice(2).map((p) => resolve(p));
const py = await pyodideWithJudge(repo, assets, "tests");
py.globals.set("tests", readFileSync(`${exercise}/tests/test_base.py`, "utf8"));
py.globals.set("code", readFileSync(trick, "utf8"));
console.log(py.runPython(`
import json, sys
from checker import bridge
bridge.numpy_ready()
bridge.judge_ready()
bridge.check(json.dumps({"tests": {"test_base.py": tests}, "files": {"fixture/base.py": code}, "learner": "fixture/base.py",
                         "names": ["test_total_is_left_to_right", "test_total_of_nothing", "test_clamp"]}))
`));
