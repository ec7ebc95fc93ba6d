// Run authoring.validate inside Pyodide under Node.js and print its JSON report.
// The same judge, hidden tests and mutants as on CPython, in the browser's runtime, without a browser.
// usage: [TL_ROOT=<exercises folder>] [TL_PARITY=gate] node validate_in_pyodide.mjs <repo> <pyodide assets dir (the built site's assets/pyodide)> [ID ...]
// TL_PARITY=gate: validation's gate only (authoring/validate.py validate_all(gate=True)): reference, starter, each
// mutant's own test, the first mutant's whole suite, prompts; one run of the reference.
//
// Pyodide has no subprocesses, so validation runs in this one interpreter; the reference suite runs RUNS times
// (in-process, one after another) so that its time, the median, is steady enough to compare with CPython's.
import { loadPyodide } from "pyodide";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

const RUNS = 3;
const [repo, assets, ...ids] = process.argv.slice(2);
const site = `${resolve(assets)}/`;
const started = performance.now();
// The core loads from node_modules/pyodide (the same npm package the site copies), the packages from the built
// site.
const py = await loadPyodide({ stdout: () => {}, stderr: (t) => process.stderr.write(`${t}\n`) });
const lock = JSON.parse(readFileSync(`${site}pyodide-lock.json`, "utf8"));
const { wheels } = JSON.parse(readFileSync(`${site}wheels.json`, "utf8"));
const files = [lock.packages.numpy.file_name, ...wheels].map((w) => site + w);
await py.loadPackage(files, { messageCallback: () => {} });
const ready = performance.now();
py.FS.mkdirTree("/repo");
py.FS.mount(py.FS.filesystems.NODEFS, { root: resolve(repo) }, "/repo");
py.globals.set("ids", py.toPy(ids));
const gate = process.env.TL_PARITY === "gate";
py.globals.set("runs", gate ? 1 : RUNS);
py.globals.set("gate", gate);
// TL_ROOT: another exercises folder, relative to the repository (the fixture course's, for the platform's tests)
py.globals.set("root", process.env.TL_ROOT || "");
const report = py.runPython(`
import json, os, sys
sys.path.insert(0, "/repo")
os.chdir("/tmp")
from authoring import validate
from course import manifest
manifest.REPO = manifest.Path("/repo")
reports, errors = validate.validate_all(list(ids) or None, runs=runs, gate=gate,
                                        root=manifest.Path("/repo", root) if root else None)
json.dumps({"errors": errors, "outcomes": {r.slug: r.outcomes for r in reports},
            "suite_ms": {r.slug: r.suite_ms for r in reports}, "suite_runs": {r.slug: r.suite_runs for r in reports},
            "prints": {r.slug: r.prints for r in reports}})
`);
const out = JSON.parse(report);
out.timing = { startMs: Math.round(ready - started), validateMs: Math.round(performance.now() - ready) };
out.platform = py.runPython("import sys, numpy; f'{sys.platform} {sys.version.split()[0]} numpy {numpy.__version__}'");
console.log(JSON.stringify(out));
