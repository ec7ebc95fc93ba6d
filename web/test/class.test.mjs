// The class view's rules (web/src/page/class/model.js) on the golden cases ol/classroom.py reads too
// (tests/fixtures/class/), and the zip reader (class/zip.js) on zips Python's zipfile writes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";

import * as model from "../src/page/class/model.js";
import { crc32, expand, isZip, unzip } from "../src/page/class/zip.js";

const GOLDEN = new URL("../../tests/fixtures/class/", import.meta.url);
const GOLD = JSON.parse(readFileSync(new URL("cases.json", GOLDEN), "utf8"));
const bytesOf = (name) => new Uint8Array(readFileSync(new URL(`files/${name}`, GOLDEN)));

/** A case run as the class page runs it, its zips opened, each check's result taken from the case:
 * {found, tasks, rows, rejected} (rejected: the zips' refusals and the files'). */
async function simulate(c) {
  const columns = GOLD.columns;
  const opened = await expand(c.files.map((name) => ({ name, bytes: bytesOf(name) })));
  const found = model.gather(opened.files, columns);
  const verdicts = Object.fromEntries(found.learners.map((l) => [l.key, {}]));
  const tasks = [];
  for (const [learner, column] of model.plan(found.learners, columns)) {
    const mine = verdicts[learner.key];
    assert.ok(model.waitsFor(learner, column).every((dep) => dep in mine), "a dependency is checked first");
    tasks.push([learner.key, column.slug, model.dependencySources(column, mine)]);
    mine[column.slug] = model.verdict(learner.work[column.slug], c.rechecks[`${learner.key}|${column.slug}`]);
  }
  const rows = found.learners.map((l) => {
    const mine = Object.fromEntries(columns.map((col) => [col.slug, verdicts[l.key][col.slug] ?? model.verdict(l.work[col.slug], null)]));
    const rechecks = Object.fromEntries(columns.filter((col) => `${l.key}|${col.slug}` in c.rechecks)
      .map((col) => [col.slug, c.rechecks[`${l.key}|${col.slug}`]]));
    return model.row(l, columns, mine, rechecks);
  });
  return { found, tasks, rows, rejected: [...opened.rejected, ...found.rejected] };
}

for (const [name, c] of Object.entries(GOLD.cases)) {
  test(`the golden class "${name}" gives the rows, CSV and summary ol gives`, async () => {
    const { tasks, rows, rejected } = await simulate(c);
    assert.deepEqual(tasks, c.tasks);
    assert.deepEqual(rejected.map(([f]) => f).sort(), Object.keys(c.rejected).sort());
    for (const [file, why] of rejected) assert.ok(why.includes(c.rejected[file]), `${file}: ${why}`);
    assert.deepEqual(rows, c.rows);
    const csv = Buffer.from(model.csvText(rows, GOLD.columns, rejected), "utf8");
    assert.deepEqual(csv, readFileSync(new URL(c.csv, GOLDEN)), "byte for byte");
    assert.equal(model.summaryText(rows, GOLD.columns), readFileSync(new URL(c.summary, GOLDEN), "utf8"));
  });
}

test("every golden input file is read by a case", () => {
  const used = new Set(Object.values(GOLD.cases).flatMap((c) => c.files));
  assert.deepEqual([...used].sort(), readdirSync(new URL("files/", GOLDEN)).sort());
});

test("the order of the files given changes nothing", () => {
  const c = GOLD.cases["a-class"];
  const files = c.files.map((name) => ({ name, bytes: bytesOf(name) }));
  const one = model.gather(files, GOLD.columns);
  const two = model.gather([...files].reverse(), GOLD.columns);
  assert.deepEqual(two, one);
});

test("times read alike whatever their zone, as ol reads them", () => {
  assert.equal(model.isoMs("2026-12-01T10:00:00Z"), 1796119200000);
  assert.equal(model.isoMs("2026-12-01T11:00:00+01:00"), 1796119200000);
  assert.equal(model.isoMs("2026-12-01T10:00:00.25Z"), 1796119200250);
  assert.equal(model.isoMs("2026-12-01T10:00:00"), null, "no zone, no guess");
  assert.equal(model.isoMs("2026-13-01T10:00:00Z"), null);
  assert.equal(model.ms(true), null);
  assert.equal(model.ms(1.9), 1);
  assert.equal(model.when(1796119200000), "2026-12-01 10:00");
  assert.equal(model.when(null), "");
  const py = execFileSync("python3", ["-c", "from ol import classroom as c; import json; print(json.dumps("
    + "[c.iso_ms(t) for t in ['1969-12-31T23:00:00-02:00', '2000-02-29T23:59:59.999+14:00', '2024-03-31T01:30:00+01:00']]))"],
  { cwd: new URL("../../", import.meta.url), encoding: "utf8" });
  assert.deepEqual(JSON.parse(py), ["1969-12-31T23:00:00-02:00", "2000-02-29T23:59:59.999+14:00", "2024-03-31T01:30:00+01:00"].map(model.isoMs));
});

test("names sort by code points on both sides", () => {
  assert.ok(model.byCodePoints("bob (copy)", "bob.json") < 0);
  assert.ok(model.byCodePoints("\uffff", "😀") < 0, "an astral character sorts after the last of the first plane");
});

test("a huge file is refused unread", () => {
  const found = model.gather([{ name: "huge.json", bytes: new Uint8Array(model.FILE_CAP + 1) }], GOLD.columns);
  assert.equal(found.learners.length, 0);
  assert.match(found.rejected[0][1], /larger than 5 MB/);
});

// ---- zips -----------------------------------------------------------------------------------------------------------

/** A zip written by Python's zipfile: `entries` is [name, text, method ("stored"|"deflated"|"bzip2")]. */
function pythonZip(entries, extra = "") {
  const script = `import base64, io, json, sys, zipfile
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w") as zf:
    for name, text, method in json.loads(sys.argv[1]):
        kind = {"stored": zipfile.ZIP_STORED, "deflated": zipfile.ZIP_DEFLATED, "bzip2": zipfile.ZIP_BZIP2}[method]
        zf.writestr(zipfile.ZipInfo(name), text.encode("utf-8"), compress_type=kind)
data = buf.getvalue()
${extra}
print(base64.b64encode(data).decode())`;
  return new Uint8Array(Buffer.from(execFileSync("python3", ["-c", script, JSON.stringify(entries)], { encoding: "utf8" }), "base64"));
}

const EXPORT = (learner) => JSON.stringify({ format: "tinyllm-progress", version: "v1", learner, data: {} });

test("a zip's stored and deflated files are read, folders and a Mac's forks left out", async () => {
  const zip = pythonZip([["class/", "", "stored"], ["class/ada.json", EXPORT("Ada"), "deflated"],
    ["class/bob.json", EXPORT("Bob"), "stored"], ["__MACOSX/class/._ada.json", "x", "stored"], ["class/._bob.json", "x", "stored"],
    ["class/zoë.json", EXPORT("Zoë".repeat(400)), "deflated"]]);
  assert.ok(isZip(zip));
  const { files, rejected } = await unzip("class.zip", zip);
  assert.deepEqual(rejected, []);
  assert.deepEqual(files.map((f) => f.name), ["class.zip/class/ada.json", "class.zip/class/bob.json", "class.zip/class/zoë.json"]);
  assert.equal(new TextDecoder().decode(files[0].bytes), EXPORT("Ada"));
  const found = model.gather(files, GOLD.columns);
  assert.deepEqual(found.learners.map((l) => l.name), ["Ada", "Bob", "Zoë".repeat(400).slice(0, 80)]);
});

test("a zip's entry that cannot be read gets a line of its own, and the rest are read", async () => {
  const zip = pythonZip([["ada.json", EXPORT("Ada"), "deflated"], ["packed.json", EXPORT("Bob"), "bzip2"]]);
  const { files, rejected } = await unzip("class.zip", zip);
  assert.deepEqual(files.map((f) => f.name), ["class.zip/ada.json"]);
  assert.deepEqual(rejected, [["class.zip/packed.json", 'it is compressed with a method this cannot read (zip it with the usual "deflate")']]);
});

test("a damaged entry, a cut zip and an encrypted entry are refused as ol refuses them", async () => {
  const damaged = pythonZip([["a.json", EXPORT("Ada"), "stored"]], "data = data.replace(b'Ada', b'Adb', 1)");
  assert.match((await unzip("d.zip", damaged)).rejected[0][1], /cannot be read from the zip \(it is damaged\)/);
  const cut = pythonZip([["a.json", EXPORT("Ada"), "deflated"]]);
  assert.match((await unzip("cut.zip", cut.subarray(0, 40))).rejected[0][1], /a zip that cannot be read/);
  const locked = pythonZip([["a.json", EXPORT("Ada"), "stored"]],
    "data = bytearray(data); i = data.rfind(b'PK\\x01\\x02'); data[i + 8] |= 1; data = bytes(data)");
  assert.deepEqual((await unzip("l.zip", locked)).rejected, [["l.zip/a.json", "it is encrypted in the zip"]]);
  const py = execFileSync("python3", ["-c", `import base64, sys; from ol import classroom as c
for z in sys.argv[1:]:
    files, bad = c.unzip("z.zip", base64.b64decode(z)); print(len(files), len(bad))`,
  ...[damaged, cut.subarray(0, 40), locked].map((z) => Buffer.from(z).toString("base64"))],
  { cwd: new URL("../../", import.meta.url), encoding: "utf8" });
  assert.deepEqual(py.trim().split("\n"), ["0 1", "0 1", "0 1"], "ol refuses each of them too");
});

test("expand passes plain files through and opens zips", async () => {
  const plain = { name: "a.json", bytes: new TextEncoder().encode(EXPORT("Ada")) };
  const zip = { name: "b.zip", bytes: pythonZip([["b.json", EXPORT("Bob"), "deflated"]]) };
  const { files } = await expand([plain, zip]);
  assert.deepEqual(files.map((f) => f.name), ["a.json", "b.zip/b.json"]);
  assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
});

test("the zip rules' limits are the ones ol/classroom.py keeps", () => {
  const py = readFileSync(new URL("../../ol/classroom.py", import.meta.url), "utf8");
  for (const name of ["FILE_CAP", "ZIP_CAP", "ZIP_ENTRIES", "ZIP_TOTAL", "ZIP_RATIO", "RATIO_FLOOR"]) {
    const found = new RegExp(`^${name} = ([\\d_]+)\\b`, "m").exec(py);
    assert.equal(found && Number(found[1].replaceAll("_", "")), model[name], name);
  }
});

test("a zip past its total is read no further, with one line for the rest", async () => {
  const zip = pythonZip([["a.json", EXPORT("Ada"), "deflated"], ["b.json", EXPORT("Bob"), "deflated"],
    ["c.json", EXPORT("Cy"), "deflated"]]);
  const limit = EXPORT("Ada").length + EXPORT("Bob").length; // the first two fit, the third does not
  const { files, rejected } = await unzip("class.zip", zip, { total: limit });
  assert.deepEqual(files.map((f) => f.name), ["class.zip/a.json", "class.zip/b.json"]);
  assert.deepEqual(rejected, [["class.zip", model.ZIP_TOO_MUCH]]);
  const py = execFileSync("python3", ["-c", `import base64, sys; from ol import classroom as c
c.ZIP_TOTAL = int(sys.argv[2])
import json; files, bad = c.unzip("class.zip", base64.b64decode(sys.argv[1])); print(json.dumps([[f for f, _ in files], bad]))`,
  Buffer.from(zip).toString("base64"), String(limit)], { cwd: new URL("../../", import.meta.url), encoding: "utf8" });
  assert.deepEqual(JSON.parse(py), [files.map((f) => f.name), rejected], "ol reads it alike");
});

test("an entry's name is cut at a NUL byte, as Python's zipfile cuts it", async () => {
  const zip = pythonZip([["a.json", EXPORT("Ada"), "stored"]], "data = data.replace(b'a.json', b'a\\x00.jsn')");
  const { files, rejected } = await unzip("n.zip", zip);
  assert.deepEqual([files.map((f) => f.name), rejected], [["n.zip/a"], []]);
});
