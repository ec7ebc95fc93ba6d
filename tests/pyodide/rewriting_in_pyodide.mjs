// The build's assertion rewriting (tools/rewriting.py, in every bundle of the built site) against what pytest
// makes of the same files in the browser's runtime. Prints one JSON line: per exercise, whether each file's
// precomputed code object equals pytest's own, how many the judge adopted, and both checks' outcomes.
// usage: node rewriting_in_pyodide.mjs <site dir> [slug ...]   (the bundles of those exercises only; default all)
import { loadPyodide } from "pyodide";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { RUNTIME } from "../../web/src/shared/build-outputs.js";

const [siteArg, ...only] = process.argv.slice(2);
const site = resolve(siteArg);
const assets = `${site}/assets/pyodide/`;
const py = await loadPyodide({ env: { HOME: RUNTIME.home }, stdout: () => {}, stderr: (t) => process.stderr.write(`${t}\n`) });
const lock = JSON.parse(readFileSync(`${assets}pyodide-lock.json`, "utf8"));
const { wheels } = JSON.parse(readFileSync(`${assets}wheels.json`, "utf8"));
await py.loadPackage([lock.packages.numpy.file_name, ...wheels].map((w) => assets + w), { messageCallback: () => {} });
py.unpackArchive(new Uint8Array(readFileSync(`${site}/assets/tl/checker.zip`)), "zip", { extractDir: RUNTIME.judgeDir });
const dir = `${site}/assets/tl/exercises/`;
const bundles = Object.fromEntries(readdirSync(dir).filter((n) => n.endsWith(".json") && n !== "index.json")
  .map((n) => [n.slice(0, -5), JSON.parse(readFileSync(dir + n, "utf8"))]));
const checked = only.length ? only : Object.keys(bundles);
py.globals.set("checked", py.toPy(checked));
py.globals.set("bundles_json", JSON.stringify(bundles));
let report;
try {
  report = py.runPython(`
import base64, hashlib, json, marshal, sys, zlib
from pathlib import Path
sys.path.insert(0, ${JSON.stringify(RUNTIME.judgeDir)})
from checker import bridge, judge
bundles = json.loads(bundles_json)
work = Path(bridge.WORKDIR)
out = {}

def outcomes(result):
    return [(t["name"], t["outcome"]) for t in result["tests"]]

for slug in sorted(checked):
    b = bundles[slug]
    files = {bundles[d]["importPath"]: bundles[d]["reference"] for d in b["requires"]}
    files[b["importPath"]] = b["reference"]
    args = dict(tests=b["tests"], files=files, learner=b["importPath"], workdir=str(work), names=b["names"])
    judge._rewritten.clear()
    own = judge.check(**args)  # pytest rewrites the files itself; the memo keeps its code objects
    root = judge.suite_root(work, b["tests"]) / "tests"
    same = {}
    for name, encoded in b["rewritten"]["tests"].items():
        mine = judge._rewritten[(str(root / name), hashlib.sha256(b["tests"][name].encode()).digest())]
        built = marshal.loads(zlib.decompress(base64.b64decode(encoded)))
        same[name] = built == mine and built.co_filename == mine.co_filename
    judge._rewritten.clear()
    taken = judge.adopt_rewriting(work, b["tests"], b["rewritten"])
    adopted = judge.check(**args, rewritten=b["rewritten"])
    out[slug] = {"same": same, "taken": taken, "files": len(b["tests"]), "tag": b["rewritten"]["tag"],
                 "runtime_tag": judge.rewriting_tag(), "own": outcomes(own), "adopted": outcomes(adopted)}
json.dumps(out)
`);
} catch (err) { // Python's traceback, not Node's print of the minified line it was thrown from
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
console.log(report);
