import { test } from "node:test";
import assert from "node:assert/strict";

import { checkFiles, chosen, judgeRules, mountCourseCheck, summaryText, verdictText } from "../src/page/course-check.js";
import { page, until } from "./fakes.mjs";

const BASE = new URL("http://127.0.0.1:8000/assets/");
const NAMES = ["test_one", "test_two"];

/** Two exercises, the second building on the first, as the build writes their index, bundles and authoring files. */
function course() {
  const bundle = (slug, id, requires) => ({
    slug, id, title: `Title ${id}`, importPath: `pkg/${slug}.py`, tests: { [`test_${slug}.py`]: "def test_one(): ..." },
    names: NAMES, reference: `# reference of ${slug}`, starter: `# starter of ${slug}`, requires, timeLimit: 10,
    rewritten: { tag: "t", tests: { [`test_${slug}.py`]: "rewritten" } },
  });
  const files = {
    "tl/exercises/index.json": [
      { slug: "base", id: "B1.1", title: "Title B1.1", page: "b/base.md", kind: "module", requires: [] },
      { slug: "next", id: "B1.2", title: "Title B1.2", page: "b/next.md", kind: "module", requires: ["base"] }],
    "tl/exercises/base.json": bundle("base", "B1.1", []),
    "tl/exercises/next.json": bundle("next", "B1.2", ["base"]),
    "tl/authoring/base.json": { slug: "base", mutant: { name: "off-by-one", fails: "test_two", source: "# mutant of base" } },
    "tl/authoring/next.json": { slug: "next", mutant: { name: "swapped", fails: "test_one", source: "# mutant of next" } },
  };
  return files;
}

/**
 * A stand-in for the one PythonWorker: judges by the code it is sent, as the real judge would for a consistent
 * course (a reference passes, a starter fails every test, a mutant fails its named test), unless `verdict` says
 * otherwise. Every request is kept.
 */
function fakePython(files, verdict = () => null) {
  const requests = [];
  const mutants = Object.fromEntries(Object.entries(files).filter(([k]) => k.startsWith("tl/authoring/"))
    .map(([, v]) => [v.mutant.source, v.mutant.fails]));
  return {
    requests,
    async request(type, payload, options) {
      requests.push({ type, payload, options });
      const code = payload.files[payload.learner];
      const override = verdict(code);
      if (override) return override;
      const outcome = (name) => (code.includes("reference") ? "passed" : code.includes("starter") ? "failed"
        : mutants[code] === name ? "failed" : "passed");
      const tests = payload.names.map((name) => ({ name, outcome: outcome(name), message: "" }));
      return { status: tests.every((t) => t.outcome === "passed") ? "passed" : "failed", phase: "tests", tests };
    },
  };
}

function mount(files, python, { missing = [], only = null } = {}) {
  const { document } = page('<div class="tl-course-check" data-course-check><p class="tl-fallback">x</p></div>');
  const root = document.querySelector(".tl-course-check");
  let made = 0;
  const fetchJSON = async (url) => {
    const key = url.href.slice(BASE.href.length);
    if (missing.includes(key) || !(key in files)) throw new Error(`${url.pathname}: HTTP 404`);
    return structuredClone(files[key]);
  };
  const api = mountCourseCheck(root, { base: BASE, python: () => { made += 1; return python; }, fetchJSON,
    agent: "a test browser", only });
  return { root, document, api, made: () => made };
}

const rows = (root) => Object.fromEntries([...root.querySelectorAll("[data-check-row]")]
  .map((r) => [r.dataset.exercise, r.dataset.outcome]));
const failures = (root) => [...root.querySelectorAll("[data-check-failure]")]
  .map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent));

test("every rule holding: each exercise passes, no failure, one worker, the references of what it builds on", async () => {
  const files = course();
  const python = fakePython(files);
  const { root, api, made } = mount(files, python);
  assert.equal(root.dataset.state, "idle");
  assert.equal(root.querySelector(".tl-fallback"), null);
  await api.run();
  assert.equal(root.dataset.state, "done");
  assert.deepEqual(rows(root), { base: "passed", next: "passed" });
  assert.deepEqual(failures(root), []);
  assert.equal(root.dataset.failures, "0");
  assert.match(root.querySelector(".tl-course-check-summary").textContent,
    /^All 2 exercises hold: .* \(\d+\.\d s\)\. Python started in \d+\.\d s\. a test browser$/);
  assert.equal(made(), 1, "one worker for the whole run");
  assert.equal(python.requests.length, 6, "reference, starter and first mutant of each");
  const next = python.requests.filter((r) => r.payload.learner === "pkg/next.py");
  assert.deepEqual(next.map((r) => r.payload.files["pkg/base.py"]), Array(3).fill("# reference of base"));
  assert.deepEqual(next.map((r) => r.payload.files["pkg/next.py"]), ["# reference of next", "# starter of next",
    "# mutant of next"]);
  assert.ok(next.every((r) => r.type === "check" && r.options.timeLimit === 10 && r.payload.rewritten.tag === "t"
    && r.payload.names.length === 2));
  for (const row of root.querySelectorAll("[data-check-row]")) {
    assert.match(row.querySelector('[data-cell="time"]').textContent, /^\d+\.\d s$/, "each exercise's time");
    assert.match(row.querySelector("a").getAttribute("href"), /\/b\/(base|next)\/$/);
  }
});

test("a broken reference, a starter that passes and a mutant that survives are each a row of failures", async () => {
  const files = course();
  files["tl/exercises/base.json"].reference = "# broken";
  files["tl/exercises/next.json"].starter = "# reference in disguise";
  files["tl/authoring/next.json"].mutant.fails = "test_two"; // the mutant fails test_one only: it survives test_two
  const python = fakePython(course(), (code) => (code === "# broken"
    ? { status: "failed", phase: "tests", tests: [{ name: "test_one", outcome: "passed" }, { name: "test_two", outcome: "failed" }] }
    : null));
  const { root, api } = mount(files, python);
  await api.run();
  assert.deepEqual(rows(root), { base: "failed", next: "failed" });
  assert.deepEqual(failures(root), [
    ["B1.1", "reference", "passes every test", "failed: test_two"],
    ["B1.2", "starter", "does not pass", "passed every test"],
    ["B1.2", "first mutant (swapped)", "fails test_two", "test_two passed"],
  ]);
  assert.equal(root.dataset.failures, "3");
  assert.match(root.querySelector(".tl-course-check-summary").textContent, /^3 failures in 2 of 2 exercises/);
  assert.ok(root.querySelector('[data-check-failure][data-exercise="base"][data-what="reference"]'));
});

test("a missing author's file or bundle is reported, and the run goes on", async () => {
  const files = course();
  const python = fakePython(files);
  const { root, api } = mount(files, python, { missing: ["tl/authoring/base.json", "tl/exercises/next.json"] });
  await api.run();
  assert.deepEqual(failures(root), [
    ["B1.1", "first mutant", "its source loads", "/assets/tl/authoring/base.json: HTTP 404"],
    ["B1.2", "bundle", "loads", "/assets/tl/exercises/next.json: HTTP 404"],
  ]);
  assert.equal(root.dataset.state, "done");
});

test("the progress says which exercise and which check, and the button runs it again", async () => {
  const files = course();
  const seen = [];
  let root;
  const python = fakePython(files, () => {
    seen.push(root.querySelector(".tl-course-check-progress").textContent);
    return null;
  });
  ({ root } = mount(files, python));
  assert.equal(root.querySelector(".tl-course-check-progress").getAttribute("role"), "status");
  root.querySelector("button").click();
  await until(() => root.dataset.state === "done");
  assert.deepEqual(seen.slice(0, 3), ["Checking B1.1 (1 of 2): its reference…", "Checking B1.1 (1 of 2): its starter…",
    "Checking B1.1 (1 of 2): its first mutant…"]);
  assert.equal(root.querySelector("button").textContent, "Check every exercise again");
  root.querySelector("button").click();
  await until(() => python.requests.length === 12 && root.dataset.state === "done");
  assert.equal(root.querySelectorAll("[data-check-row]").length, 2, "a second run replaces the first's tables");
});

test("the rules and the words for a verdict", () => {
  const passed = { status: "passed", tests: [{ name: "a", outcome: "passed" }] };
  const failed = { status: "failed", phase: "tests", tests: [{ name: "a", outcome: "failed" }, { name: "b", outcome: "error" }] };
  assert.equal(verdictText(passed), "passed every test");
  assert.equal(verdictText(failed), "failed: a, b");
  assert.equal(verdictText({ status: "error", phase: "import", tests: [] }), "error (import)");
  assert.equal(verdictText({ status: "timeout", tests: [] }), "timeout");
  const rules = judgeRules({ reference: passed, starter: failed, mutant: failed }, { name: "m", fails: "b" });
  assert.deepEqual(rules.map((r) => r.ok), [true, true, true]);
  assert.equal(rules[2].got, "b error");
  const noMutant = judgeRules({ reference: failed, starter: passed }, null);
  assert.deepEqual(noMutant.map((r) => [r.what, r.ok]), [["reference", false], ["starter", false]]);
  assert.deepEqual(checkFiles({ importPath: "x.py" }, [{ importPath: "d.py", reference: "D" }], "X"), { "d.py": "D", "x.py": "X" });
  assert.match(summaryText([{ rules: [{ ok: true }] }], 1500), /^The exercise holds: .*\(1\.5 s\)\.$/);
  assert.match(summaryText([{ rules: [{ ok: true }] }, { rules: [{ ok: true }] }], 1500), /^All 2 exercises hold.*\(1\.5 s\)\.$/);
  assert.equal(summaryText([{ rules: [{ ok: false }] }, { rules: [{ ok: true }] }], 2000), "1 failure in 1 of 2 exercises (2.0 s).");
});

test("the clock starts once Python can judge, so the first exercise's time is its own", async () => {
  const files = course();
  const python = fakePython(files);
  const listeners = new Set();
  python.subscribe = (fn) => {
    listeners.add(fn);
    fn({ stage: "" });
    return () => listeners.delete(fn);
  };
  const { root, api } = mount(files, python);
  const running = api.run();
  await until(() => root.querySelector(".tl-course-check-progress").textContent === "Starting Python…");
  assert.equal(python.requests.length, 0, "nothing is sent before Python is ready");
  for (const fn of [...listeners]) fn({ stage: "pytest" });
  await running;
  assert.equal(python.requests.length, 6);
  assert.equal(listeners.size, 0, "it stops listening");
});

test("?only= checks the exercises it names (by id or slug) in the index's order, and says a name the course lacks", async () => {
  const index = course()["tl/exercises/index.json"];
  assert.deepEqual(chosen(index, null).entries.map((e) => e.slug), ["base", "next"]);
  assert.deepEqual(chosen(index, "next, B1.1").entries.map((e) => e.slug), ["base", "next"]);
  assert.deepEqual(chosen(index, "b1.2"), { entries: [index[1]], unknown: [] });
  assert.deepEqual(chosen(index, "next E9.9").unknown, ["E9.9"]);

  const files = course();
  const python = fakePython(files);
  const { root, api } = mount(files, python, { only: "B1.2" });
  assert.equal(root.querySelector(".tl-course-check-start").textContent, "Check B1.2 in this browser");
  await api.run();
  assert.deepEqual(rows(root), { next: "passed" });
  assert.equal(python.requests.length, 3, "the one exercise's reference, starter and first mutant");
  assert.match(root.querySelector(".tl-course-check-summary").textContent, /^The exercise holds: its reference passes/);

  const other = mount(files, fakePython(files), { only: "B1.2,E9.9" });
  await other.api.run();
  assert.deepEqual(rows(other.root), {});
  assert.match(other.root.querySelector(".tl-course-check-summary").textContent,
    /could not run: this course has no exercise E9\.9/);
});
