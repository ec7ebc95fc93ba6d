// The code cell (web/src/page/cell/code-cell.js) driven without a browser: a linkedom page, a fake editor, fake workers
// (test/fakes.mjs) and a store on fake storage. Run, Check, Stop, time limits, dependency gating, autosave, the
// two-tab conflict, stale rows while a check runs, example keys and their migration, and destroy.
import { test } from "node:test";
import assert from "node:assert/strict";

import { mountCell, warmUpPage } from "../src/page/cell/code-cell.js";
import { createStore, keys } from "../src/page/store.js";
import {
  defaultBehaviour, exampleHTML, exerciseHTML, fakeEditor, fakePython, page, SharedStorage, tick, until,
} from "./fakes.mjs";

const NAMES = ["test_one", "test_two"];
const bundle = (slug, id, extra = {}) => ({
  slug, id, importPath: `tinyllm/${slug.replace("-", "_")}.py`, reference: `# reference of ${id}\n`,
  tests: { "test_x.py": "def test_one(): pass" }, names: NAMES, ...extra,
});
// A module M2 that builds on M1 directly and, through M1, on M0 (deepest first, as mdwidgets writes `requires`;
// the bundle's checkOrder is the dependency rule's order, as course/manifest.py check_order writes it).
const BUNDLES = {
  "m-0": bundle("m-0", "M0", { directRequires: [], checkOrder: [] }),
  "m-1": bundle("m-1", "M1", { directRequires: ["m-0"], checkOrder: ["m-0"] }),
  "m-2": bundle("m-2", "M2", { directRequires: ["m-1"], checkOrder: ["m-1", "m-0"] }),
  "e-1": bundle("e-1", "E1", { directRequires: [], checkOrder: [] }),
};
const data = (slug, extra = {}) => ({
  slug, id: BUNDLES[slug].id, path: `python/${slug}.py`, importPath: BUNDLES[slug].importPath,
  starter: `# starter of ${slug}\n`, timeLimit: 5, requires: [], ...extra,
});

/** One page with the given placeholders, mounted; returns what the tests look at. */
function setup(body, { storage = new SharedStorage(), pythonOptions = {}, bundles = BUNDLES, mount = true } = {}) {
  const { document } = page(body);
  const win = new EventTarget();
  const store = createStore(storage.tab(win), { events: win });
  const { python, workers } = fakePython({ spare: false, ...pythonOptions });
  python.start(); // as main.js does, before any widget mounts
  const editors = fakeEditor();
  const loads = [];
  const loadBundle = async (slug) => {
    loads.push(slug);
    if (!bundles[slug]) throw new Error(`exercise ${slug}: HTTP 404`);
    return structuredClone(bundles[slug]);
  };
  const ctx = { store, python, base: "http://site.test/assets/", createEditor: editors.create, loadBundle,
    pathname: "/t1/lesson/", win, saveDelay: 5 };
  const cells = mount ? [...document.querySelectorAll(".tl-cell")].map((root) => mountCell(root, ctx)) : [];
  return { document, win, store, storage, python, workers, editors, cells, ctx, loads,
    root: document.querySelector(".tl-cell"), dispose: () => { cells.forEach((c) => c.destroy()); python.dispose(); } };
}

const rows = (root) => [...root.querySelectorAll("li[data-test]")].map((li) => [li.dataset.test, li.dataset.outcome]);
const text = (root, selector) => root.querySelector(selector).textContent;

test("an exercise cell mounts its views in order, with the stable hooks", async (t) => {
  const s = setup(exerciseHTML(data("e-1")));
  t.after(s.dispose);
  const root = s.root;
  assert.equal(root.querySelector(".tl-fallback"), null, "the no-JavaScript fallback goes");
  const order = [...root.children].map((c) => c.className.split(" ")[0]);
  assert.deepEqual(order, ["tl-intro", "tl-data", "tl-cell-head", "tl-conflict", "tl-editor", "tl-toolbar", "tl-deps", "tl-summary",
    "tl-output", "tl-results", "tl-help", "tl-diff", "tl-console"]);
  assert.deepEqual([...root.querySelectorAll(".tl-toolbar button")].map((b) => b.className),
    ["md-button tl-run", "md-button tl-check md-button--primary", "md-button tl-stop", "md-button tl-reset"]);
  assert.equal(root.dataset.state, "idle");
  await until(() => root.dataset.python === "pytest", 1000, "Python ready");
  assert.equal(text(root, ".tl-status"), "Ready");
  assert.equal(root.tlCell.editor.getCode(), "# starter of e-1\n");
  assert.equal(root.querySelector(".tl-stop").disabled, true);
});

test("Check shows one row per test, saves the result with its code, and announces it", async (t) => {
  const s = setup(exerciseHTML(data("e-1")));
  t.after(s.dispose);
  const heard = [];
  s.document.addEventListener("tl:result", (e) => heard.push(e.detail));
  const cell = s.root.tlCell;
  cell.editor.setCode("answer = 1\n");
  const checking = cell.check();
  assert.equal(s.root.dataset.state, "running");
  assert.equal(s.root.dataset.status, undefined);
  assert.equal(s.root.querySelector(".tl-run").disabled, true);
  assert.equal(s.root.querySelector(".tl-stop").disabled, false);
  await checking;
  assert.equal(s.root.dataset.status, "passed");
  assert.deepEqual(rows(s.root), [["test_one", "passed"], ["test_two", "passed"]]);
  assert.equal(text(s.root, ".tl-summary"), "All 2 tests pass.");
  assert.equal(s.root.querySelector("li[data-test] .tl-sr").textContent.trim(), "passed");
  const saved = s.store.get(keys.result("e-1"));
  assert.equal(saved.code, "answer = 1\n");
  assert.equal(saved.status, "passed");
  assert.equal(heard.length, 1);
  assert.equal(heard[0].slug, "e-1");
  await until(() => !s.root.querySelector(".tl-diff").hidden, 500, "the diff after a pass");
  assert.equal(text(s.root, ".tl-diff summary"), "You passed: compare your code with the reference");
  assert.ok(s.root.querySelector(".tl-diff-del").textContent.includes("answer = 1"));
});

test("while a new check runs, the previous rows are marked stale, and the new result replaces them", async (t) => {
  let release = null;
  const behave = (msg, api) => {
    api.started();
    const outcome = msg.files[msg.learner].includes("fail") ? "failed" : "passed";
    const answer = () => api.result({ status: outcome === "passed" ? "passed" : "failed", stdout: "", traceback: "",
      tests: msg.names.map((name) => ({ name, outcome, message: "" })) });
    if (msg.files[msg.learner].includes("slow")) release = answer;
    else answer();
  };
  const s = setup(exerciseHTML(data("e-1")), { pythonOptions: { fake: { behave } } });
  t.after(s.dispose);
  const cell = s.root.tlCell;
  cell.editor.setCode("fail\n");
  await cell.check();
  assert.deepEqual(rows(s.root), [["test_one", "failed"], ["test_two", "failed"]]);
  assert.equal(s.root.querySelector("li[data-stale]"), null);

  cell.editor.setCode("slow\n");
  const second = cell.check();
  const list = s.root.querySelector(".tl-results");
  assert.equal(list.querySelectorAll("li[data-stale=true]").length, 2, "both old rows are stale");
  assert.equal(list.getAttribute("aria-busy"), "true");
  assert.equal(list.querySelector(".tl-sr").textContent, " failed (from the previous check)");
  assert.match(text(s.root, ".tl-summary"), /^Checking… The results below are from your previous check\.$/);
  assert.deepEqual(rows(s.root), [["test_one", "failed"], ["test_two", "failed"]], "still there, still readable");
  await until(() => release, 1000, "the slow check to start");
  release();
  await second;
  assert.deepEqual(rows(s.root), [["test_one", "passed"], ["test_two", "passed"]]);
  assert.equal(list.querySelector("li[data-stale]"), null);
  assert.equal(list.hasAttribute("aria-busy"), false);
  assert.equal(list.querySelector(".tl-sr").textContent, " passed");
});

test("a check that cannot be sent un-stales the rows it left on screen", async (t) => {
  const s = setup(exerciseHTML(data("e-1")));
  t.after(s.dispose);
  const cell = s.root.tlCell;
  await cell.check();
  s.ctx.loadBundle = null;
  const broken = setup(exerciseHTML(data("e-1")), { storage: s.storage, bundles: {} });
  t.after(broken.dispose);
  assert.equal(rows(broken.root).length, 2, "the saved result is shown on load");
  assert.match(text(broken.root, ".tl-summary"), /^Last check: All 2 tests pass\.$/);
  await broken.root.tlCell.check();
  assert.match(text(broken.root, ".tl-summary"), /hidden tests could not be loaded \(exercise e-1: HTTP 404\)/);
  assert.equal(broken.root.querySelector("li[data-stale]"), null);
  assert.equal(broken.root.dataset.state, "idle");
});

test("Run streams output as text, keeps the last check's rows, and Shift+Enter runs", async (t) => {
  const s = setup(exerciseHTML(data("e-1")));
  t.after(s.dispose);
  const cell = s.root.tlCell;
  await cell.check();
  cell.editor.setCode("print:<b>bold</b>");
  await cell.run();
  assert.equal(s.root.dataset.status, "ok");
  const out = s.root.querySelector(".tl-output");
  assert.equal(out.hidden, false);
  assert.equal(out.textContent, "<b>bold</b>\n");
  assert.equal(out.querySelector("b"), null, "learner output is text, never HTML");
  assert.equal(rows(s.root).length, 2);
  assert.equal(text(s.root, ".tl-summary"), "Ran without errors.");
  s.editors.made[0].setCode("print:again");
  s.editors.made[0].secondary();
  await until(() => s.root.dataset.status === "ok" && out.textContent === "again\n", 1000, "the second run");
});

test("Stop ends a runaway run and the code is still there; the next run works", async (t) => {
  const s = setup(exerciseHTML(data("e-1")));
  t.after(s.dispose);
  const cell = s.root.tlCell;
  cell.editor.setCode("stuck");
  const running = cell.run();
  await until(() => [...s.python.pending.values()].some((r) => r.started), 1000, "the run to start");
  s.root.querySelector(".tl-stop").click();
  await running;
  assert.equal(s.root.dataset.status, "stopped");
  assert.equal(text(s.root, ".tl-summary"), "Stopped. Your code is still here.");
  assert.equal(cell.editor.getCode(), "stuck");
  cell.editor.setCode("print:42");
  await cell.run();
  assert.equal(s.root.querySelector(".tl-output").textContent, "42\n");
  assert.equal(s.python.restarts, 1);
});

test("the time limit in settings stops code without a click, and the summary names it", async (t) => {
  const s = setup(exerciseHTML(data("e-1")));
  t.after(s.dispose);
  const cell = s.root.tlCell;
  cell.settings.timeLimit = 0.05;
  cell.editor.setCode("stuck");
  await cell.run();
  assert.equal(s.root.dataset.status, "timeout");
  assert.match(text(s.root, ".tl-summary"), /time limit of 0\.05 s/);
});

test("a module needs its direct requirement first, as ol says it; nothing is judged without it", async (t) => {
  const s = setup(exerciseHTML(data("m-2", { requires: ["m-0", "m-1"] })));
  t.after(s.dispose);
  const deps = s.root.querySelector(".tl-deps");
  await until(() => !deps.hidden, 1000, "the dependencies said up front");
  assert.match(deps.textContent, /^M2 needs M1: M1 has not passed here yet\. Pass M1 and M0 first/);
  assert.equal(deps.querySelector("label").textContent, " Use the reference M1, M0");
  await s.root.tlCell.check();
  assert.equal(text(s.root, ".tl-summary"), "M2 needs M1.");
  assert.equal(rows(s.root).length, 0);
  const learnerChecks = () => s.workers[0].log.filter((m) => m.type === "check" && !m.files[m.learner].startsWith("# reference"));
  assert.equal(learnerChecks().length, 0, "no check was sent");

  // The box: the reference of every exercise M2 builds on, and a check at once.
  const box = deps.querySelector("input.tl-refdeps");
  box.checked = true;
  box.dispatchEvent(new (s.document.defaultView.Event)("change"));
  await until(() => s.root.dataset.status === "passed", 1000, "the check with the references");
  const [sent] = learnerChecks();
  assert.deepEqual(Object.keys(sent.files).sort(), ["tinyllm/m_0.py", "tinyllm/m_1.py", "tinyllm/m_2.py"]);
  assert.equal(sent.files["tinyllm/m_1.py"], "# reference of M1\n");
  assert.deepEqual(s.store.get(keys.prefs("m-2")), { refDeps: true });
  assert.match(deps.textContent, /^Checking against the reference M1 and M0, not your own code: you have not passed M1 and M0 here yet\./);
});

test("a transitive dependency is named with the one it comes through; passed code is what is imported", async (t) => {
  const storage = new SharedStorage();
  const seed = createStore(storage.tab(null));
  seed.set(keys.result("m-1"), { status: "passed", tests: [], code: "# my M1\n" });
  const s = setup(exerciseHTML(data("m-2", { requires: ["m-0", "m-1"] })), { storage });
  t.after(s.dispose);
  await s.root.tlCell.check();
  assert.equal(text(s.root, ".tl-summary"), "M2 needs M0 (through M1).");
  seed.set(keys.result("m-0"), { status: "passed", tests: [], code: "# my M0\n" });
  s.store.refresh(keys.result("m-0"));
  await s.root.tlCell.check();
  assert.equal(s.root.dataset.status, "passed");
  const sent = s.workers[0].log.filter((m) => m.type === "check").at(-1);
  assert.equal(sent.files["tinyllm/m_1.py"], "# my M1\n");
  assert.equal(sent.files["tinyllm/m_0.py"], "# my M0\n");
  assert.equal(s.root.querySelector(".tl-deps").hidden, true, "nothing to say once both passed");
});

test("every change is saved shortly after, through the store; Reset puts the starter back and saves it", async (t) => {
  const s = setup(exerciseHTML(data("e-1")));
  t.after(s.dispose);
  const editor = s.editors.made[0];
  editor.type("x = 1\n");
  assert.equal(s.store.get(keys.code("e-1")), null, "not at once: the save waits for a pause");
  await until(() => s.store.get(keys.code("e-1")), 500, "the autosave");
  assert.equal(s.store.get(keys.code("e-1")).code, "x = 1\n");
  assert.deepEqual([...s.storage.map.keys()].filter((k) => !k.startsWith("tinyllm:v1:")), [], "only store.js keys");
  s.root.querySelector(".tl-reset").click();
  assert.equal(editor.getCode(), "# starter of e-1\n");
  assert.equal(s.store.get(keys.code("e-1")).code, "# starter of e-1\n");
  assert.match(text(s.root, ".tl-summary"), /Starter code restored/);
  // A reload finds the saved code.
  const again = setup(exerciseHTML(data("e-1")), { storage: s.storage });
  t.after(again.dispose);
  assert.equal(again.root.tlCell.editor.getCode(), "# starter of e-1\n");
});

test("pagehide saves at once, and destroy removes every listener", async (t) => {
  const s = setup(exerciseHTML(data("e-1")), {});
  const editor = s.editors.made[0];
  editor.type("late = 1\n");
  s.win.dispatchEvent(new Event("pagehide"));
  assert.equal(s.store.get(keys.code("e-1")).code, "late = 1\n");
  const listeners = [];
  const real = s.win.removeEventListener.bind(s.win);
  s.win.removeEventListener = (type, fn) => { listeners.push(type); real(type, fn); };
  s.dispose();
  assert.deepEqual(listeners.sort(), ["pagehide", "storage", "storage"], "the autosave's and the help's");
  assert.equal(editor.destroyed, true);
  assert.equal(s.root.tlCell, undefined);
  assert.equal(s.root.querySelector(".tl-toolbar"), null);
  editor.type("after = 1\n");
  s.win.dispatchEvent(new Event("pagehide"));
  await tick(20);
  assert.equal(s.store.get(keys.code("e-1")).code, "late = 1\n", "a destroyed cell saves nothing");
});

test("two tabs: the second tab's edits go to a draft until the learner chooses", async (t) => {
  const storage = new SharedStorage();
  const one = setup(exerciseHTML(data("e-1")), { storage });
  const two = setup(exerciseHTML(data("e-1")), { storage });
  t.after(() => { one.dispose(); two.dispose(); });
  one.editors.made[0].type("# tab one\n");
  await until(() => storage.map.has("tinyllm:v1:code:e-1"), 500, "tab one's save");
  const bar = two.root.querySelector(".tl-conflict");
  assert.equal(bar.hidden, false, "tab two is told");
  assert.match(bar.textContent, /changed in another tab/);
  two.editors.made[0].type("# tab two\n");
  await until(() => storage.map.has("tinyllm:v1:draft:e-1"), 500, "tab two's draft");
  assert.equal(JSON.parse(storage.map.get("tinyllm:v1:code:e-1")).code, "# tab one\n", "not over tab one's work");
  const keep = [...bar.querySelectorAll("button")].find((b) => b.textContent === "Keep this version");
  keep.click();
  assert.equal(JSON.parse(storage.map.get("tinyllm:v1:code:e-1")).code, "# tab two\n");
  assert.equal(storage.map.has("tinyllm:v1:draft:e-1"), false);
  assert.equal(bar.hidden, true);
  assert.equal(one.root.querySelector(".tl-conflict").hidden, false, "now tab one is asked");
  const theirs = [...one.root.querySelectorAll(".tl-conflict button")].find((b) => b.textContent === "Use the other tab's version");
  theirs.click();
  assert.equal(one.root.tlCell.editor.getCode(), "# tab two\n");
});

test("a draft left by an unresolved conflict is offered on the next visit", async (t) => {
  const storage = new SharedStorage({
    "tinyllm:v1:code:e-1": JSON.stringify({ code: "saved\n" }),
    "tinyllm:v1:draft:e-1": JSON.stringify({ code: "draft\n" }),
  });
  const s = setup(exerciseHTML(data("e-1")), { storage });
  t.after(s.dispose);
  const bar = s.root.querySelector(".tl-conflict");
  assert.match(bar.textContent, /unsaved draft/);
  [...bar.querySelectorAll("button")].find((b) => b.textContent === "Restore the draft").click();
  assert.equal(s.root.tlCell.editor.getCode(), "draft\n");
  assert.equal(JSON.parse(storage.map.get("tinyllm:v1:code:e-1")).code, "draft\n");
  assert.equal(storage.map.has("tinyllm:v1:draft:e-1"), false);
});

test("example cells are keyed by their code, not their place: adding one above moves nothing", async (t) => {
  const storage = new SharedStorage();
  const first = setup(exampleHTML("print('b')\n"), { storage });
  first.editors.made[0].type("print('my b')\n");
  first.win.dispatchEvent(new Event("pagehide"));
  first.dispose();
  const keysNow = [...storage.map.keys()];
  assert.equal(keysNow.length, 1);
  assert.match(keysNow[0], /^tinyllm:v1:code:example:\/t1\/lesson\/#[0-9a-f]{8}$/);
  // The author adds an example above: each cell still finds its own code.
  const later = setup(exampleHTML("print('a')\n") + exampleHTML("print('b')\n"), { storage });
  t.after(later.dispose);
  const [a, b] = later.cells;
  assert.equal(a.editor.getCode(), "print('a')\n");
  assert.equal(b.editor.getCode(), "print('my b')\n");
  assert.equal(later.root.querySelector(".tl-check"), null, "examples run; they have no hidden tests");
  later.editors.made[0].primary(); // Ctrl/⌘+Enter runs an example
  await until(() => later.root.dataset.status === "ok", 1000, "the example's run");
});

test("an id in the example's data is its key; identical examples are told apart by order", (t) => {
  const s = setup(exampleHTML("x = 1\n", { id: "warm-up" }) + exampleHTML("y\n") + exampleHTML("y\n"));
  t.after(s.dispose);
  s.cells.forEach((c, i) => c.editor.setCode(`# mine ${i}\n`));
  s.win.dispatchEvent(new Event("pagehide"));
  const saved = [...s.storage.map.keys()].sort();
  assert.equal(saved.length, 3);
  assert.ok(saved.includes("tinyllm:v1:code:example:/t1/lesson/#warm-up"));
  assert.equal(saved.filter((k) => k.endsWith("-2")).length, 1);
});

test("code saved under an example's old position key moves to its new key once, nothing lost", (t) => {
  const old0 = "tinyllm:v1:code:example-/t1/lesson/-0";
  const old1 = "tinyllm:v1:code:example-/t1/lesson/-1";
  const storage = new SharedStorage({
    [old0]: JSON.stringify({ code: "mine a\n", at: 1 }),
    [old1]: JSON.stringify({ code: "mine b\n", at: 2 }),
    "tinyllm:v1:draft:example-/t1/lesson/-1": JSON.stringify({ code: "draft b\n" }),
  });
  const s = setup(exampleHTML("a\n") + exampleHTML("b\n"), { storage });
  t.after(s.dispose);
  assert.equal(s.cells[0].editor.getCode(), "mine a\n");
  assert.equal(s.cells[1].editor.getCode(), "mine b\n");
  assert.equal(storage.map.has(old0), false);
  assert.equal(storage.map.has(old1), false);
  const moved = [...storage.map.keys()].filter((k) => k.includes("example:"));
  assert.equal(moved.length, 3, "both codes and the draft, under the new keys");
  assert.match(s.document.querySelectorAll(".tl-conflict")[1].textContent, /unsaved draft/);
  // Run again: nothing more to move, nothing changes.
  const again = setup(exampleHTML("a\n") + exampleHTML("b\n"), { storage });
  t.after(again.dispose);
  assert.equal(again.cells[1].editor.getCode(), "mine b\n");
});

test("a migration never overwrites code already under the new key", (t) => {
  const first = setup(exampleHTML("a\n"));
  first.cells[0].editor.setCode("new a\n");
  first.win.dispatchEvent(new Event("pagehide"));
  first.dispose();
  const old = "tinyllm:v1:code:example-/t1/lesson/-0";
  first.storage.map.set(old, JSON.stringify({ code: "old a\n" }));
  const s = setup(exampleHTML("a\n"), { storage: first.storage });
  t.after(s.dispose);
  assert.equal(s.cells[0].editor.getCode(), "new a\n");
  assert.equal(JSON.parse(first.storage.map.get(old)).code, "old a\n", "left alone: it stays in the export");
});

test("a restored result with the judge's phase says why nothing ran; without it, the old wording", (t) => {
  const storage = new SharedStorage({
    "tinyllm:v1:result:e-1": JSON.stringify({ status: "error", phase: "collect", code: "x", stdout: "", traceback: "",
      tests: NAMES.map((name) => ({ name, outcome: "error", message: "not run: ImportError" })) }),
  });
  const s = setup(exerciseHTML(data("e-1")), { storage });
  t.after(s.dispose);
  assert.equal(text(s.root, ".tl-summary"), "Last check: The hidden tests could not start against your code; no test could pass.");
  assert.equal(s.root.dataset.status, "error");
});

test("once Python is ready, one silent check against the reference warms the judge; nothing is shown", async (t) => {
  const s = setup(exerciseHTML(data("m-2", { requires: ["m-0", "m-1"] })));
  t.after(s.dispose);
  await until(() => s.workers[0].log.some((m) => m.type === "check"), 2000, "the warm-up check");
  const [warm] = s.workers[0].log.filter((m) => m.type === "check");
  assert.equal(warm.files["tinyllm/m_2.py"], "# reference of M2\n");
  assert.equal(warm.files["tinyllm/m_0.py"], "# reference of M0\n");
  await tick(20);
  assert.equal(s.root.dataset.status, undefined);
  assert.equal(rows(s.root).length, 0);
  assert.equal(s.store.get(keys.result("m-2")), null);
  assert.equal(s.workers[0].log.filter((m) => m.type === "check").length, 1, "once");
});

test("the page warms Python up for its first exercise before its cell is mounted, and the cell, once mounted, not again", async (t) => {
  const s = setup(exampleHTML("x = 1\n") + exerciseHTML(data("m-2", { requires: ["m-0", "m-1"] })), { mount: false });
  const cancel = warmUpPage(s.document, s.ctx);
  t.after(() => { cancel(); s.dispose(); });
  await until(() => s.workers[0].log.some((m) => m.type === "check"), 2000, "the page's warm-up check");
  const [warm] = s.workers[0].log.filter((m) => m.type === "check");
  assert.equal(warm.files["tinyllm/m_2.py"], "# reference of M2\n", "the exercise's, not the example's");
  const cell = mountCell(s.document.querySelector('.tl-cell[data-kind="exercise"]'), s.ctx); // the reader comes near
  t.after(() => cell.destroy());
  await tick(400);
  assert.equal(s.workers[0].log.filter((m) => m.type === "check").length, 1, "once, whoever asks first");
});

test("no warm-up when the learner asked for something first", async (t) => {
  const s = setup(exerciseHTML(data("e-1")), { pythonOptions: { fake: { autoBoot: false } } });
  t.after(s.dispose);
  s.root.tlCell.editor.setCode("stuck");
  const running = s.root.tlCell.run();
  s.workers[0].boot();
  await tick(400);
  assert.equal(s.workers[0].log.filter((m) => m.type === "check").length, 0);
  s.python.stop();
  await running;
});

test("a pass imported from ol is 'checked elsewhere' until the page checks that code, dependencies first", async (t) => {
  const storage = new SharedStorage();
  const seed = createStore(storage.tab(null));
  for (const slug of ["m-0", "m-1"]) {
    seed.set(keys.code(slug), { code: `# mine ${slug}\n` });
    seed.set(keys.elsewhere(slug), { status: "passed", by: "ol", when: "2026-12-01T10:00:00", code: `# mine ${slug}\n` });
  }
  const s = setup(exerciseHTML(data("m-1", { requires: ["m-0"] })), { storage });
  t.after(s.dispose);
  const note = s.root.querySelector(".tl-elsewhere");
  assert.ok(note && /M1 passed with ol on 2026-12-01 \(checked elsewhere\)/.test(note.textContent));
  await until(() => s.store.get(keys.result("m-1"), null), 4000, "the background verification");
  for (const slug of ["m-0", "m-1"]) {
    assert.equal(s.store.get(keys.result(slug)).status, "passed");
    assert.equal(s.store.get(keys.result(slug)).code, `# mine ${slug}\n`);
    assert.equal(s.store.get(keys.elsewhere(slug), null), null, "verified: the imported pass is replaced by the page's own");
  }
  await until(() => !s.root.querySelector(".tl-elsewhere"), 1000, "the note to go");
  await until(() => rows(s.root).length === NAMES.length, 1000, "the rows of the verified check");
  assert.deepEqual(rows(s.root), NAMES.map((n) => [n, "passed"]));
});

test("imported code that fails here is shown as failed, not as passed", async (t) => {
  const storage = new SharedStorage();
  const seed = createStore(storage.tab(null));
  seed.set(keys.code("e-1"), { code: "fail here\n" });
  seed.set(keys.elsewhere("e-1"), { status: "passed", by: "ol", code: "fail here\n" });
  const s = setup(exerciseHTML(data("e-1")), { storage });
  t.after(s.dispose);
  await until(() => s.store.get(keys.result("e-1"), null), 4000, "the background verification");
  assert.equal(s.store.get(keys.result("e-1")).status, "failed");
  await until(() => s.root.dataset.status === "failed", 1000, "the cell to show it");
});

test("an example that uses an exercise runs with the learner's saved code and its dependencies' code", async (t) => {
  const storage = new SharedStorage();
  const log = [];
  const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==";
  const behave = (msg, api) => {
    if (msg.type !== "run") return defaultBehaviour(msg, api);
    api.reply({ type: "progress", text: "Loading matplotlib (9.8 MB, once)…" });
    setTimeout(() => {
      api.reply({ type: "progress", text: "" });
      api.started();
      api.result({ status: "ok", stdout: "drawn\n", traceback: "",
        figures: [{ kind: "image", mime: "image/png", data: PNG, alt: "tries", at: 0 }] });
    }, 20);
  };
  const bundles = { ...BUNDLES, "m-2": { ...BUNDLES["m-2"], requires: ["m-0", "m-1"], starter: "# starter of m-2\n" } };
  // The exercise's own cell on the same page, where the learner types (saved by cell/autosave.js), and the example.
  const s = setup(exerciseHTML(data("m-2")) + exampleHTML("import tinyllm\n", { uses: "m-2" }), { storage, bundles,
    pythonOptions: { fake: { behave, log } } });
  t.after(s.dispose);
  s.cells[0].editor.setCode("# my m-2\n");
  await until(() => s.store.get(keys.code("m-2"), null)?.code === "# my m-2\n", 1000, "the autosave");
  s.store.set(keys.result("m-1"), { status: "passed", code: "# my passed m-1\n", tests: [] });
  const example = s.cells[1];
  const exampleRoot = s.document.querySelectorAll(".tl-cell")[1];
  const running = example.run();
  await until(() => exampleRoot.querySelector(".tl-summary").textContent.startsWith("Loading matplotlib"), 1000,
    "progress");
  await running;
  const sent = log.find((m) => m.type === "run");
  assert.deepEqual(sent.files, {
    [BUNDLES["m-0"].importPath]: BUNDLES["m-0"].reference, // not passed here: the reference
    [BUNDLES["m-1"].importPath]: "# my passed m-1\n",
    [BUNDLES["m-2"].importPath]: "# my m-2\n",
  });
  const img = exampleRoot.querySelector(".tl-output img");
  assert.equal(img.getAttribute("alt"), "tries");
  assert.equal(exampleRoot.querySelector(".tl-output").textContent, "drawn\n");
  assert.equal(exampleRoot.dataset.status, "ok");

  // Nothing saved yet: the exercise's starter, whose stubs the example handles.
  s.store.remove(keys.code("m-2"));
  await example.run();
  assert.equal(log.filter((m) => m.type === "run").at(-1).files[BUNDLES["m-2"].importPath], "# starter of m-2\n");
});

// ---- help when stuck: the known mistake, hints, the reference on the author's terms (cell/help.js) -------------

const MISTAKES = [
  { mutant: "s01", pitfall: "accepting on u <= r", number: 1, fingerprint: ["test_one failed 3 AssertionError"] },
  { mutant: "loose", pitfall: "a sum that is not left to right", number: null, fingerprint: ["test_two failed 9 X"] },
];
const HELPED = { ...BUNDLES, "e-1": bundle("e-1", "E1", { directRequires: [], checkOrder: [], mistakes: MISTAKES }) };
const helpPage = (extra = {}, hints = ["First, a nudge.", "Then the <em>decisive</em> idea."]) =>
  exerciseHTML(data("e-1", extra), { hints }) + '<table><tr><td><span id="pitfall-1"></span>1.</td></tr></table>';
const shown = (root, selector) => [...root.querySelectorAll(selector)].filter((n) => !n.closest("[hidden]"));

test("a failing check that looks like a known mistake names its pitfall and links the page's row", async (t) => {
  const s = setup(helpPage(), { bundles: HELPED });
  t.after(s.dispose);
  const help = s.root.querySelector(".tl-help");
  assert.equal(help.hidden, true, "no help before anything failed");
  s.root.tlCell.editor.setCode("fail, mistake:s01\n");
  await s.root.tlCell.check();
  const sent = s.workers[0].log.find((m) => m.type === "check" && m.files["tinyllm/e_1.py"].includes("mistake"));
  assert.deepEqual(sent.mistakes, MISTAKES, "the bundle's known mistakes go with the check");
  const box = s.root.querySelector("[data-diagnosis]");
  assert.equal(box.hidden, false);
  assert.match(box.textContent, /This looks like a known mistake:\s*pitfall 1: accepting on u <= r/);
  assert.deepEqual([...box.querySelectorAll("[data-pitfall]")].map((n) => n.dataset.pitfall), ["1"]);
  assert.equal(box.querySelector("a").getAttribute("href"), "#pitfall-1");
  assert.deepEqual(s.store.get(keys.result("e-1")).diagnosis[0].mutants, ["s01"], "saved with the result");
  // Turned off: nothing named, and the choice is kept with the learner's progress.
  const toggle = s.root.querySelector(".tl-diagnoses");
  toggle.checked = false;
  toggle.dispatchEvent(new (s.document.defaultView.Event)("change"));
  assert.equal(box.hidden, true);
  assert.equal(s.store.get(keys.setting("diagnoses")), false);
  s.root.tlCell.editor.setCode("fail, mistake:loose\n");
  await s.root.tlCell.check();
  assert.equal(box.hidden, true, "still off");
  toggle.checked = true;
  toggle.dispatchEvent(new (s.document.defaultView.Event)("change"));
  assert.deepEqual([...box.querySelectorAll("[data-pitfall]")].map((n) => n.dataset.pitfall), ["loose"],
    "an unnumbered pitfall is named by its mutant");
  assert.equal(box.querySelector("a"), null);
  s.root.tlCell.editor.setCode("fail, nothing known\n");
  await s.root.tlCell.check();
  assert.equal(box.hidden, true, "a failure the mutants do not cover names nothing");
  assert.deepEqual(s.store.get(keys.help("e-1")).pitfalls, ["1. accepting on u <= r", "a sum that is not left to right"],
    "every pitfall named is kept with the help taken (shown or not), each once, for a teacher's class view");
  s.root.tlCell.editor.setCode("all good\n");
  await s.root.tlCell.check();
  assert.equal(box.hidden, true, "nor does a pass");
});

test("hints come one at a time after a failed check, stay through Reset and a reload, and count", async (t) => {
  const storage = new SharedStorage();
  const s = setup(helpPage(), { bundles: HELPED, storage });
  const next = s.root.querySelector(".tl-hint-next");
  assert.equal(s.root.querySelector(".tl-help").hidden, true);
  s.root.tlCell.editor.setCode("fail\n");
  await s.root.tlCell.check();
  assert.equal(next.hidden, false);
  assert.equal(next.textContent, "Show a hint (1 of 2)");
  next.click();
  assert.deepEqual(shown(s.root, "[data-hint]").map((n) => n.dataset.hint), ["1"]);
  assert.match(s.root.querySelector("[data-hint='1']").textContent, /Hint 1 of 2\s*First, a nudge\./);
  assert.equal(next.textContent, "Show the next hint (2 of 2)");
  next.click();
  assert.equal(s.root.querySelector("[data-hint='2'] em").textContent, "decisive", "the page's own HTML");
  assert.equal(next.hidden, true, "no third");
  s.root.querySelector(".tl-reset").click();
  assert.equal(shown(s.root, "[data-hint]").length, 2, "Reset of the code hides no hint");
  assert.deepEqual(s.store.get(keys.help("e-1")), { hints: 2, failed: 1 });
  s.dispose();
  const again = setup(helpPage(), { bundles: HELPED, storage });
  t.after(again.dispose);
  assert.equal(again.root.querySelector(".tl-help").hidden, false);
  assert.equal(shown(again.root, "[data-hint]").length, 2, "revealed hints survive a reload");
});

test("after-attempts: the reference only after N failed checks and every hint, confirmed, recorded, not a pass", async (t) => {
  const s = setup(helpPage({ revealAfter: 2 }), { bundles: HELPED });
  t.after(s.dispose);
  const button = s.root.querySelector(".tl-reveal");
  const rule = s.root.querySelector(".tl-reveal-rule");
  s.root.tlCell.editor.setCode("fail\n");
  await s.root.tlCell.check();
  assert.equal(button.hidden, true);
  assert.match(rule.textContent, /after 2 failed checks and every hint \(so far: 1 of 2 failed checks, 0 of 2 hints\)/);
  await s.root.tlCell.check();
  assert.equal(button.hidden, true, "two failures, but the hints are not all seen");
  s.root.querySelector(".tl-hint-next").click();
  s.root.querySelector(".tl-hint-next").click();
  assert.equal(button.hidden, false);
  button.click();
  const confirm = s.root.querySelector(".tl-reveal-box .tl-confirm");
  assert.equal(confirm.hidden, false, "a confirmation first");
  confirm.querySelector(".tl-confirm-no").click();
  assert.equal(confirm.hidden, true);
  assert.equal(s.root.querySelector("[data-reveal]").hidden, true, "Not yet shows nothing");
  button.click();
  confirm.querySelector(".tl-confirm-yes").click();
  await until(() => !s.root.querySelector("[data-reveal]").hidden, 500, "the reference");
  assert.equal(s.root.querySelector("[data-reveal] pre").textContent, "# reference of E1\n");
  assert.equal(typeof s.store.get(keys.help("e-1")).revealed, "number", "recorded");
  assert.equal(s.store.get(keys.result("e-1")).status, "failed", "and not a pass");
});

test("after-pass (the default): no reveal before a pass, however many failures", async (t) => {
  const s = setup(helpPage(), { bundles: HELPED });
  t.after(s.dispose);
  s.root.tlCell.editor.setCode("fail\n");
  for (let i = 0; i < 3; i += 1) await s.root.tlCell.check();
  s.root.querySelector(".tl-hint-next").click();
  s.root.querySelector(".tl-hint-next").click();
  assert.equal(s.root.querySelector(".tl-reveal-box").hidden, true);
  assert.equal(s.store.get(keys.help("e-1")).failed, 3);
});
