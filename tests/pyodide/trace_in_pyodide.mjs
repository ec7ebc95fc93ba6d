// The trace's unit tests (tests/unit/test_trace.py) run unchanged inside the site's Pyodide under Node.js, where
// checker/trace.py uses sys.monitoring (Python 3.12+) rather than CPython 3.11's sys.settrace. Prints one JSON
// line: Python's version, whether sys.monitoring was there, pytest's exit code and its report's tail.
// usage: node trace_in_pyodide.mjs <repo> <site assets/pyodide dir>
import { loadPyodide } from "pyodide";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { RUNTIME } from "../../web/src/shared/build-outputs.js";

const [repo, assets] = process.argv.slice(2).map((p) => resolve(p));
let report = "";
const py = await loadPyodide({ env: { HOME: RUNTIME.home }, stdout: (t) => { report += `${t}\n`; }, stderr: () => {} });
const lock = JSON.parse(readFileSync(`${assets}/pyodide-lock.json`, "utf8"));
const { wheels } = JSON.parse(readFileSync(`${assets}/wheels.json`, "utf8"));
await py.loadPackage([lock.packages.numpy.file_name, ...wheels].map((w) => `${assets}/${w}`), { messageCallback: () => {} });
py.FS.mkdirTree("/repo/checker");
py.FS.mkdirTree("/repo/tests");
for (const f of readdirSync(`${repo}/checker`)) {
  if (f.endsWith(".py")) py.FS.writeFile(`/repo/checker/${f}`, readFileSync(`${repo}/checker/${f}`));
}
py.FS.writeFile("/repo/tests/test_trace.py", readFileSync(`${repo}/tests/unit/test_trace.py`));
const out = py.runPython(`
import json, sys
sys.path.insert(0, "/repo")
import pytest
rc = pytest.main(["-q", "-p", "no:cacheprovider", "/repo/tests/test_trace.py"])
json.dumps({"python": sys.version.split()[0], "monitoring": hasattr(sys, "monitoring"), "rc": int(rc)})
`);
console.log(JSON.stringify({ ...JSON.parse(out), report: report.slice(-1500) }));
