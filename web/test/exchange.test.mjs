// The progress file shared with `ol` (web/src/page/exchange.js; ol/exchange.py is the other side).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";

import { COURSE, FORMAT, FORMAT_VERSION, header, jsonErrorAt, learnerName, learnerOf, mergeHelp, parseDump, pitfallLabels,
  planImport,
  slugOf, unverified } from "../src/page/exchange.js";

test("the format constants are the ones ol/exchange.py writes", () => {
  const py = readFileSync(new URL("../../ol/exchange.py", import.meta.url), "utf8");
  assert.match(py, new RegExp(`^FORMAT = "${FORMAT}"$`, "m"));
  assert.match(py, new RegExp(`^FORMAT_VERSION = "${FORMAT_VERSION}"$`, "m"));
  assert.match(py, new RegExp(`^COURSE = "${COURSE}"`, "m"));
});

test("a bad file is one sentence each", () => {
  const cases = [
    ["", "the file is empty"],
    ['{"format": "tinyllm-progress", "version": "v1", "data": {"code:a": {"code": "x"', "the file ends in the middle (it was cut short while saving or copying)"],
    ["{not json}", "the file is not valid JSON"],
    ["{not json", "the file is not valid JSON"],
    ['{"format": "tinyllm-progress", "data": {"code:a": ', "the file ends in the middle (it was cut short while saving or copying)"],
    ['{"format": "x"}', "this file is not a tinyllm progress export"],
  ];
  for (const [text, message] of cases) assert.throws(() => parseDump(text), { message });
});

test("slugs of keys", () => {
  assert.equal(slugOf("code:m07-6"), "m07-6");
  assert.equal(slugOf("prompt:e7-3/residual"), "e7-3");
  assert.equal(slugOf("elsewhere:t01-2"), "t01-2");
  assert.equal(slugOf("corrupt:x"), "");
  assert.equal(slugOf("code:Bad Slug"), "");
});

test("a pass from ol without the code it passed with is left out", () => {
  const dump = { data: { "elsewhere:a-1": { status: "passed" } } };
  const plan = planImport(dump, { get: () => null, slugs: new Set(["a-1"]) });
  assert.deepEqual(plan.writes, []);
  assert.deepEqual(plan.skipped, ["elsewhere:a-1"]);
});

test("an imported pass is unverified until this page checked the same code", () => {
  const saved = { "elsewhere:a-1": { status: "passed", code: "x = 1" } };
  const get = (k) => saved[k] ?? null;
  assert.equal(unverified(get, "a-1").code, "x = 1");
  saved["result:a-1"] = { status: "failed", code: "x = 0" };
  assert.ok(unverified(get, "a-1"), "a check of other code does not verify it");
  saved["result:a-1"] = { status: "failed", code: "x = 1" };
  assert.equal(unverified(get, "a-1"), null, "checked here (whatever the verdict): the page's own result counts");
  assert.equal(unverified(get, "b-2"), null);
});

test("both sides read the same keys: what one writes, the other does not drop", () => {
  const keys = ["code:m07-6", "code:t1-1", "result:e7-3", "elsewhere:t1-1", "prefs:a", "draft:a", "help:m07-6", "prompt:e7-3/alpha",
    "settings:diagnoses", "settings:Bad", "corrupt:code:a", "help:Bad Slug", "hints:a", "code:", "code:a/b"];
  const dump = { format: FORMAT, version: FORMAT_VERSION, data: Object.fromEntries(keys.map((k) => [k, { code: "x", status: "passed" }])) };
  const plan = planImport(dump, { get: () => null, slugs: new Set(["m07-6", "e7-3", "t1-1", "a"]) });
  const js = keys.filter((k) => !plan.skipped.includes(k));
  const script = "import json, sys; from ol import exchange; "
    + "d = exchange.parse(sys.stdin.read(), 'tinyllm'); print(json.dumps(sorted(d.data)))";
  const py = JSON.parse(execFileSync("python3", ["-c", script], {
    input: JSON.stringify(dump), cwd: new URL("../../", import.meta.url), encoding: "utf8" }));
  assert.deepEqual(py.sort(), js.sort());
});

test("the golden progress files read here as ol reads them (tests/fixtures/exchange/cases.json)", () => {
  const golden = new URL("../../tests/fixtures/exchange/", import.meta.url);
  const cases = Object.entries(JSON.parse(readFileSync(new URL("cases.json", golden), "utf8"))).filter(([n]) => !n.startsWith("_"));
  assert.ok(cases.length >= 5);
  for (const [name, want] of cases) {
    const text = readFileSync(new URL(name, golden), "utf8");
    if (want.accepted) {
      const dump = parseDump(text);
      const plan = planImport(dump, { get: () => null, slugs: new Set(["t1-2", "t01-1"]) });
      assert.deepEqual([...plan.skipped].sort(), want.skipped, name);
      assert.equal(learnerOf(dump), want.learner, name);
    } else {
      assert.throws(() => parseDump(text), (err) => err.message.includes(want.says), name);
    }
  }
});

test("help taken merges on import: nothing revealed is hidden again", () => {
  assert.deepEqual(mergeHelp(null, { hints: 2, failed: 1 }), { hints: 2, failed: 1 });
  assert.deepEqual(mergeHelp({ hints: 3, failed: 0, revealed: 50 }, { hints: 1, failed: 4, revealed: 90 }),
    { hints: 3, failed: 4, revealed: 50 });
  assert.deepEqual(mergeHelp({ hints: "3" }, { revealed: -1 }), { hints: 0, failed: 0 }, "nonsense counts as nothing");
  const dump = { data: { "help:a-1": { hints: 1, failed: 2 }, "settings:diagnoses": false } };
  const plan = planImport(dump, { get: (k) => (k === "help:a-1" ? { hints: 2, failed: 0 } : null), slugs: new Set(["a-1"]) });
  assert.deepEqual(plan.writes, [["help:a-1", { hints: 2, failed: 2 }], ["settings:diagnoses", false]]);
});

test("a learner's name is tidied as ol tidies it (tests/fixtures/exchange/cases.json _names)", () => {
  const { _names: names } = JSON.parse(readFileSync(new URL("../../tests/fixtures/exchange/cases.json", import.meta.url), "utf8"));
  assert.ok(names.length >= 5);
  for (const [typed, kept] of names) assert.equal(learnerName(typed), kept, JSON.stringify(typed));
  assert.equal(header({ learner: " Grace  Hopper " }).learner, "Grace Hopper");
  assert.equal("learner" in header({ learner: "  " }), false, "no name, no field");
});

test("help records merge their pitfalls, as ol merges them", () => {
  assert.deepEqual(mergeHelp({ hints: 1, pitfalls: ["1. a", "b"] }, { failed: 2, pitfalls: ["b", "c", 3] }),
    { hints: 1, failed: 2, pitfalls: ["1. a", "b", "c"] });
  assert.deepEqual(pitfallLabels([{ pitfall: "a", number: 2 }, { pitfall: "b", number: null }, {}]), ["2. a", "b"]);
});

test("where a text stops being JSON is measured alike in every engine, as ol's json module places it", () => {
  const texts = ['{"format": "tinyllm-progress", "vers', '{"a": 1', '{"a": [1, 2', '{not json', '{not json}', '{"a": 1}}',
    "", "[tr", "[1.", '{"a": "x\\', "[1, 2]", '{"a": -}', "[nul]", '  {"a": {"b": [true, false, null, "\\u00e9"]}}  '];
  const script = "import json, sys\nfor t in json.loads(sys.stdin.read()):\n"
    + "    try:\n        json.loads(t); print(-1)\n    except json.JSONDecodeError as e:\n"
    + "        print('cut' if e.pos >= len(t.rstrip()) - 1 or e.msg.startswith('Unterminated string') else 'bad')";
  const py = execFileSync("python3", ["-c", script], { input: JSON.stringify(texts), encoding: "utf8" }).trim().split("\n");
  const js = texts.map((t) => {
    const at = jsonErrorAt(t);
    if (at === -1) return "-1";
    return at >= t.trimEnd().length - 1 ? "cut" : "bad";
  });
  assert.deepEqual(js, py);
});

test("JSON is read as ol reads it: nesting past DEPTH_MAX refused, constants not JSON, names well formed", () => {
  const cases = [["[NaN]", "not valid JSON"], ["[-Infinity]", "not valid JSON"], ["[".repeat(101) + "]".repeat(101), "nests deeper"],
    ["[".repeat(100_000), "nests deeper"], ['["[[[[", ' + "[".repeat(50) + "x ]]", "not valid JSON"]];
  for (const [text, says] of cases) {
    assert.throws(() => parseDump(text), (err) => err.message.includes(says) && typeof err.kind === "string", text.slice(0, 20));
  }
  assert.throws(() => parseDump("[".repeat(100) + "]".repeat(100)), (err) => err.kind === "format", "100 levels are allowed");
  assert.equal(learnerName("a\ud800b"), "a\ufffdb");
  assert.deepEqual(mergeHelp(null, { hints: 2 ** 60, failed: 3, pitfalls: ["\udfffx"] }), { hints: 0, failed: 3, pitfalls: ["\ufffdx"] });
  assert.deepEqual(pitfallLabels([{ pitfall: "p", number: 1e300 }, { pitfall: "q", number: 3 }]), ["p", "3. q"]);
});
