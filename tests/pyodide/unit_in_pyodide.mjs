// Unit tests that must hold in both runtimes run unchanged inside the site's Pyodide under Node.js: the trace's
// (tests/unit/test_trace.py; checker/trace.py uses sys.monitoring there, CPython 3.11's sys.settrace here) and the
// diagnosis's golden cases (tests/unit/test_diagnosis_golden.py, tests/fixtures/diagnosis/). Prints one JSON line:
// Python's version, whether sys.monitoring was there, pytest's exit code and its report's tail.
// usage: node unit_in_pyodide.mjs <repo> <site assets/pyodide dir> <test file under tests/unit> ...
import { loadPyodide } from "pyodide";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { RUNTIME } from "../../web/src/shared/build-outputs.js";

const [repo, assets] = process.argv.slice(2, 4).map((p) => resolve(p));
const files = process.argv.slice(4);
let report = "";
const py = await loadPyodide({ env: { HOME: RUNTIME.home }, stdout: (t) => { report += `${t}\n`; }, stderr: () => {} });
const lock = JSON.parse(readFileSync(`${assets}/pyodide-lock.json`, "utf8"));
const { wheels } = JSON.parse(readFileSync(`${assets}/wheels.json`, "utf8"));
await py.loadPackage([lock.packages.numpy.file_name, ...wheels].map((w) => `${assets}/${w}`), { messageCallback: () => {} });
const copy = (from, to) => {
  py.FS.mkdirTree(to);
  for (const f of readdirSync(`${repo}/${from}`)) {
    if (/\.(py|json)$/.test(f)) py.FS.writeFile(`${to}/${f}`, readFileSync(`${repo}/${from}/${f}`));
  }
};
copy("checker", "/repo/checker");
copy("tests/fixtures/diagnosis", "/repo/tests/fixtures/diagnosis");
py.FS.mkdirTree("/repo/tests/unit");
for (const f of files) py.FS.writeFile(`/repo/tests/unit/${f}`, readFileSync(`${repo}/tests/unit/${f}`));
py.globals.set("files", py.toPy(files.map((f) => `/repo/tests/unit/${f}`)));
const out = py.runPython(`
import json, sys
sys.path.insert(0, "/repo")
import pytest
rc = pytest.main(["-q", "-p", "no:cacheprovider", *files])
json.dumps({"python": sys.version.split()[0], "monitoring": hasattr(sys, "monitoring"), "rc": int(rc)})
`);
console.log(JSON.stringify({ ...JSON.parse(out), report: report.slice(-1500) }));
