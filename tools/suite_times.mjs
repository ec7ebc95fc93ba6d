// How long each exercise's hidden suite takes in Pyodide (the browser's Python) against its reference solution.
// CPython is 2-3x faster than WebAssembly, so `make validate`'s timings understate what a learner waits for on
// every Check; this runs the same judge under Node.js with the built site's Pyodide, numpy and pytest.
//
//   node tools/suite_times.mjs [ID ...]        (after `make build`; IDs as in exercises/, default: all)
//
// Prints, per exercise, the median of 3 warm runs (after one cold run) and its five slowest tests.
import { loadPyodide } from "pyodide";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { OUTPUTS, numpyWheel, readWheelsList } from "../web/src/shared/build-outputs.js";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const site = `${repo}/site/assets/pyodide/`;
const py = await loadPyodide({ stdout: () => {}, stderr: (t) => process.stderr.write(`${t}\n`) });
const numpy = numpyWheel(JSON.parse(readFileSync(`${site}${OUTPUTS.pyodideLock}`, "utf8")));
const { wheels } = readWheelsList(JSON.parse(readFileSync(`${site}${OUTPUTS.wheelsList}`, "utf8")));
await py.loadPackage([numpy, ...wheels].map((w) => site + w), { messageCallback: () => {} });
py.FS.mkdirTree("/repo");
py.FS.mount(py.FS.filesystems.NODEFS, { root: repo }, "/repo");
py.globals.set("ids", py.toPy(process.argv.slice(2)));
const report = py.runPython(`
import json, os, statistics, sys, time
sys.path.insert(0, "/repo")
os.chdir("/tmp")
from authoring import validate
from course import manifest
manifest.REPO = manifest.Path("/repo")
exercises = manifest.load_all()
out = {}
for slug in list(ids) or sorted(exercises):
    ex = exercises[slug]
    deps = validate.dependency_files(ex, exercises)
    runs = []
    for _ in range(4):
        started = time.perf_counter()
        result = validate.run_solution(ex, ex.reference.read_text(encoding="utf-8"), deps, "/tmp")
        runs.append(((time.perf_counter() - started) * 1000, result))
    warm = sorted(runs[1:], key=lambda r: r[0])[1]
    if warm[1]["status"] != "passed":
        raise SystemExit(f"{slug}: the reference did not pass in Pyodide ({warm[1]['status']})")
    slowest = sorted(warm[1]["durations"].items(), key=lambda kv: -kv[1])[:5]
    out[slug] = {"cold": round(runs[0][0]), "warm": round(warm[0]), "slowest": [[n, round(ms)] for n, ms in slowest]}
json.dumps(out)
`);
for (const [slug, r] of Object.entries(JSON.parse(report))) {
  console.log(`${slug}: warm suite ${r.warm} ms (cold ${r.cold} ms); slowest: ${r.slowest.map(([n, ms]) => `${n} ${ms} ms`).join(", ")}`);
}
