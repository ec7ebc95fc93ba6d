// Rewrite hidden test files for pytest's assertions ahead of time, in the Pyodide the browser runs, so that the
// first check of an exercise in the browser does not pay for it (checker/judge.py adopt_rewriting).
//
// usage: node tools/rewriting.mjs <site assets/pyodide dir> <checker.zip> <input .json> <output .json>
// input: [{"path": where the browser's judge writes the file (judge.suite_root), "source": its text}, ...]
// output: {"tag": judge.rewriting_tag(), "code": {path: base64 of the zlib-compressed marshalled code object}}
// tools/rewriting.py makes the input, caches the output and writes it into the exercise bundles.
import { loadPyodide } from "pyodide";
import { readFileSync, writeFileSync } from "node:fs";
import { OUTPUTS, RUNTIME, readWheelsList } from "../web/src/shared/build-outputs.js";

const [assets, checkerZip, input, output] = process.argv.slice(2);
const { wheels } = readWheelsList(JSON.parse(readFileSync(`${assets}/${OUTPUTS.wheelsList}`, "utf8")));
const py = await loadPyodide({ env: { HOME: RUNTIME.home }, stdout: () => {}, stderr: (t) => process.stderr.write(`${t}\n`) });
py.FS.mkdirTree("/tmp/wheels");
for (const w of wheels) py.FS.writeFile(`/tmp/wheels/${w}`, readFileSync(`${assets}/${w}`));
py.FS.writeFile("/tmp/checker.zip", readFileSync(checkerZip));
py.globals.set("entries", py.toPy(JSON.parse(readFileSync(input, "utf8"))));
let out;
try {
  out = py.runPython(`
import base64, json, marshal, os, site, sys, zipfile, zlib
from pathlib import Path
for w in sorted(os.listdir("/tmp/wheels")):
    zipfile.ZipFile("/tmp/wheels/" + w).extractall(site.getsitepackages()[0])
zipfile.ZipFile("/tmp/checker.zip").extractall(${JSON.stringify(RUNTIME.judgeDir)})
sys.path.insert(0, ${JSON.stringify(RUNTIME.judgeDir)})
from _pytest.assertion import rewrite
from checker import judge
code = {}
for entry in entries:
    fn = Path(entry["path"])
    fn.parent.mkdir(parents=True, exist_ok=True)
    fn.write_text(entry["source"], encoding="utf-8")  # as the judge writes it (checker/isolation.py write_tree)
    _, co = rewrite._rewrite_test(fn, None)  # None: the judge's pytest.ini sets nothing the rewriting reads
    code[entry["path"]] = base64.b64encode(zlib.compress(marshal.dumps(co), 9)).decode()
json.dumps({"tag": judge.rewriting_tag(), "code": code})
`);
} catch (err) { // Python's traceback, not Node's print of the minified line it was thrown from
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}
writeFileSync(output, out);
