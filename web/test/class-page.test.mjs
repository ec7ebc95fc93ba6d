// The class page (web/src/page/class/class-page.js) on a linkedom page, checking through real PythonWorker clients
// over fake workers (fakes.mjs): the golden class gives the golden CSV, a loop is stopped by the time limit, the
// pool is as large as the cores allow and no larger, and nothing is stored unless the teacher asks.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { mountClass } from "../src/page/class/class-page.js";
import { gather, plan } from "../src/page/class/model.js";
import { poolSize } from "../src/page/class/recheck.js";
import { createStore, keys } from "../src/page/store.js";
import { PythonWorker } from "../src/page/worker-client.js";
import { FakeWorker, page, SharedStorage, until } from "./fakes.mjs";

const GOLDEN = new URL("../../tests/fixtures/class/", import.meta.url);
const GOLD = JSON.parse(readFileSync(new URL("cases.json", GOLDEN), "utf8"));
const CASE = GOLD.cases["a-class"];
const FILES = CASE.files.map((name) => ({ name, bytes: new Uint8Array(readFileSync(new URL(`files/${name}`, GOLDEN))) }));
const BUNDLES = Object.fromEntries(GOLD.columns.map((c) => [c.slug, {
  slug: c.slug, id: c.id, importPath: `fixture/${c.slug.replace("-", "_")}.py`, tests: { "test_x.py": "" },
  names: ["test_a"], timeLimit: 0.2, reference: `# reference of ${c.slug}\n`, requires: c.requires,
}]));

/** The golden case's check results, by the code they judge (each claimed pass's code is its own). */
function byCode() {
  const found = gather(FILES, GOLD.columns);
  return new Map(plan(found.learners, GOLD.columns).map(([l, c]) => [l.work[c.slug].code, CASE.rechecks[`${l.key}|${c.slug}`]]));
}

/** A fake judge answering each check with the golden result of its code; a `while True` spins until stopped. */
function golden(log, running) {
  const results = byCode();
  return (msg, api) => {
    if (msg.type !== "check") return api.result({ status: "ok", stdout: "", traceback: "" });
    log.push(msg);
    running.now += 1;
    running.most = Math.max(running.most, running.now);
    api.started();
    const code = msg.files[msg.learner];
    if (code.includes("while True")) return undefined; // never answers: the client's time limit ends it
    setTimeout(() => {
      running.now -= 1;
      const r = results.get(code);
      const tests = r.tests.map((t) => ({ message: "", ...t })); // as the worker sends them (protocol.js)
      api.result({ stdout: "", traceback: "", phase: r.phase || "tests", ...r, tests });
    }, 5);
    return undefined;
  };
}

/** A learner's worker that has every module in at once (its status's handedOff) and serves what it is asked. */
class Loaded extends FakeWorker {
  boot(last) {
    super.boot(last);
    this.send({ type: "status", stage: "pytest", ms: 1, handedOff: true }); // every later module is in
  }
}

/** A learner's worker client over a Loaded fake, for the separated path every check takes. */
const fakeLearner = (served = []) => new PythonWorker({ base: "http://site.test/assets/", spare: false, graceMs: 20,
  createWorker: () => new Loaded({ behave: (msg, a) => { if (msg.type === "serve") { served.push(msg); a.started(); } } }) }).start();

function setup({ cores = 2, storage = new SharedStorage() } = {}) {
  const { document } = page('<div class="tl-class"><p class="tl-fallback">…</p></div>');
  const log = [];
  const running = { now: 0, most: 0 };
  const clients = [];
  const store = createStore(storage.tab(null));
  const root = document.querySelector(".tl-class");
  const api = mountClass(root, {
    store, base: "http://site.test/assets/", cores, separate: true, makeLearner: () => fakeLearner(),
    index: async () => GOLD.columns.map((c) => ({ ...c, kind: "module" })),
    bundle: async (slug) => BUNDLES[slug],
    makeWorker: () => {
      const client = new PythonWorker({ base: "http://site.test/assets/", spare: false, graceMs: 20,
        createWorker: () => new FakeWorker({ behave: golden(log, running) }) }).start();
      clients.push(client);
      return client;
    },
  });
  return { document, root, api, log, running, clients, store, storage };
}

test("the golden class on the page: its table, its refusals, and the golden CSV byte for byte", async () => {
  const s = setup();
  await s.api.add(FILES);
  await until(() => s.root.dataset.state === "done", 5000, "every pass checked again");
  const verdicts = Object.fromEntries([...s.root.querySelectorAll("tr[data-learner]")].map((tr) => [tr.dataset.learner,
    Object.fromEntries([...tr.querySelectorAll("td[data-exercise][data-verdict]")].map((td) => [td.dataset.exercise, td.dataset.verdict]))]));
  assert.deepEqual(verdicts, Object.fromEntries(CASE.rows.map((r) => [r.learner,
    Object.fromEntries(Object.entries(r.cells).map(([id, c]) => [id, c.verdict]))])));
  assert.deepEqual([...s.root.querySelectorAll("[data-class-rejected]")].map((li) => li.dataset.classRejected).sort(),
    Object.keys(CASE.rejected).sort());
  assert.ok([...s.root.querySelectorAll("[data-class-rejected]")].every((li) => li.textContent.startsWith(li.dataset.classRejected)));
  assert.equal(s.api.csv, readFileSync(new URL(CASE.csv, GOLDEN), "utf8"));
  assert.equal(s.api.summary, readFileSync(new URL(CASE.summary, GOLDEN), "utf8"));
  assert.match(s.root.querySelector("td[data-exercise='T01.1'][data-verdict='not-reproduced']").textContent, /test_total_is_left_to_right/);
  assert.match(s.root.querySelector("td[data-exercise='T1.2'][data-verdict='not-reproduced']").textContent, /time limit/);
  assert.equal(s.clients.length, 2, "two cores, two workers");
  assert.ok(s.running.most <= 2);
  const table = s.root.querySelector("table");
  assert.match(table.querySelector("caption").textContent, /5 learners/);
  assert.equal(table.querySelectorAll("th[scope=col]").length, 3 + 3);
  assert.equal(table.querySelectorAll("th[scope=row]").length, 5);
  const conflicts = [...table.querySelectorAll("tr[data-conflict]")];
  assert.deepEqual(conflicts.map((tr) => tr.dataset.learner), ["Ada Lovelace", "ada lovelace"], "two files name Ada: two rows");
  assert.ok(conflicts.every((tr) => /conflict: 2 files name this learner/.test(tr.querySelector("th").textContent)));
  assert.equal(s.root.querySelector("progress").value, 6, "the bar at its end");
  assert.match(s.root.querySelector("[role=status]").textContent, /checked again: 5 learners, 3 exercises; 2 claimed passes did not hold/);
  assert.equal(s.root.querySelector(".tl-class-csv").disabled, false);
  assert.equal(s.store.get(keys.keptClass()), null, "nothing kept unless asked");
  await s.api.settled();
  assert.ok(s.clients.every((c) => c.disposed), "the workers are let go once the class is checked");
});

test("the pool is the cores, at least one and at most four (two in WebKit, whose count is made up)", () => {
  assert.deepEqual([undefined, 0, 1, 2, 3, 8, 64].map((n) => poolSize(n)), [1, 1, 1, 2, 3, 4, 4]);
  assert.deepEqual([1, 2, 4, 8].map((n) => poolSize(n, "Apple Computer, Inc.")), [1, 2, 2, 2]);
  assert.equal(poolSize(8, "Google Inc."), 4);
});

test("files added later join the class; what was checked is not checked again", async () => {
  const s = setup({ cores: 1 });
  // As picked in a browser: File objects, which newer browsers give a bytes() method of their own.
  const picked = FILES.slice(0, 2).map((f) => Object.assign(new File([f.bytes], f.name), { bytes: async () => f.bytes }));
  await s.api.add(picked);
  await until(() => s.root.dataset.state === "done", 5000, "the first files");
  const checks = s.log.length;
  assert.equal(s.root.querySelectorAll("tr[data-learner]").length, 2, "Ada's two files, a row each");
  await s.api.add(FILES.slice(2));
  await until(() => s.root.dataset.state === "done", 5000, "the rest");
  assert.equal(s.root.querySelectorAll("tr[data-learner]").length, 5);
  assert.equal(s.log.length - checks, 3, "only Bob's and Carol's passes are new");
  assert.equal(s.api.csv, readFileSync(new URL(CASE.csv, GOLDEN), "utf8"));
});

test("the class is kept only when the teacher asks, and comes back to be checked again", async () => {
  const storage = new SharedStorage();
  const s = setup({ storage });
  await s.api.add(FILES);
  await until(() => s.root.dataset.state === "done", 5000, "checked");
  const keep = s.root.querySelector("[data-class-keep]");
  keep.checked = true;
  keep.dispatchEvent(new (s.document.defaultView.Event)("change"));
  const kept = s.store.get(keys.keptClass());
  assert.equal(kept.files.length, FILES.length - 1, "every file that is text (not the latin-1 one)");
  assert.deepEqual(kept.refused.map(([name]) => name), ["latin1.json"], "and the line of the one that is not");
  const again = setup({ storage });
  await until(() => again.root.dataset.state === "done", 5000, "the kept class checked again");
  assert.equal(again.root.querySelector("[data-class-keep]").checked, true);
  assert.equal(again.api.csv, s.api.csv);
  again.root.querySelector(".tl-class-clear").click();
  assert.equal(again.store.get(keys.keptClass()), null, "a new class forgets the kept one");
  assert.equal(again.root.querySelectorAll("tr[data-learner]").length, 0);
  assert.equal(again.root.dataset.state, "empty");
});

test("checkAgain: a check waits for the dependencies the learner claims, and takes their code when it held", async () => {
  const { checkAgain } = await import("../src/page/class/recheck.js");
  const columns = [{ slug: "a", id: "A", title: "", requires: [], prompts: [] }, { slug: "b", id: "B", title: "", requires: ["a"], prompts: [] },
    { slug: "c", id: "C", title: "", requires: ["a", "b"], prompts: [] }];
  const claim = (code) => ({ claim: "passed", code, at: 1, hints: 0, failed: 0, revealed: 0, pitfalls: [], prompts: {}, last: null });
  const learners = [{ key: "x", name: "X", files: [], work: { a: claim("a good"), b: claim("b bad"), c: claim("c good") } }];
  const bundle = async (slug) => ({ importPath: `${slug}.py`, reference: `# reference ${slug}`, tests: {}, names: ["t"], timeLimit: 1 });
  const seen = [];
  const worker = { request: async (type, payload) => {
    seen.push(payload.files);
    await new Promise((r) => setTimeout(r, 5));
    const code = payload.files[payload.learner];
    return { status: code.includes("bad") ? "failed" : "passed", tests: [{ name: "t", outcome: code.includes("bad") ? "failed" : "passed", message: "" }] };
  } };
  const { verdicts } = await checkAgain({ learners, columns, bundle, workers: [worker, worker, worker] });
  assert.deepEqual(verdicts.x, { a: "passed", b: "not-reproduced", c: "passed" });
  assert.deepEqual(seen.map((f) => Object.keys(f).length), [1, 2, 3], "each after its dependencies, one at a time here");
  assert.deepEqual(seen[2], { "a.py": "a good", "b.py": "# reference b", "c.py": "c good" }, "own code where it held, else the reference");
});

test("a claimed pass's code can be read from its cell, as text", async () => {
  const s = setup();
  await s.api.add(FILES);
  await until(() => s.root.dataset.state === "done", 5000, "every pass checked again");
  const cell = s.root.querySelector("td[data-exercise='T01.1'][data-verdict='not-reproduced']");
  const button = cell.querySelector("button[data-read-code]");
  assert.ok(button, "a claimed pass that did not hold has its code to read");
  assert.equal(s.root.querySelector("td[data-verdict='untried'] button[data-read-code]"), null, "nothing to read");
  button.dispatchEvent(new s.document.defaultView.Event("click", { bubbles: true }));
  const dialog = s.root.querySelector("dialog[data-class-code]");
  const learner = cell.closest("tr").dataset.learner;
  const found = gather(FILES, GOLD.columns).learners.find((l) => l.name === learner);
  assert.equal(dialog.querySelector("code").textContent, found.work["t01-1"].code);
  assert.match(dialog.querySelector("h2").textContent, new RegExp(`${learner}: T01.1`));
  assert.equal(dialog.querySelector("code").children.length, 0, "learner text reaches the page only as text");
  await s.api.settled();
});

test("where the page can separate, each check's learner code goes to a fresh worker of its own, ended after", async () => {
  const served = [];
  const learners = [];
  const s = setup();
  const { document } = page('<div class="tl-class"></div>');
  const log = [];
  const running = { now: 0, most: 0 };
  const judge = golden(log, running);
  const root = document.querySelector(".tl-class");
  const api = mountClass(root, {
    store: createStore(new SharedStorage().tab(null)), base: "http://site.test/assets/", cores: 2, separate: true,
    index: async () => GOLD.columns.map((c) => ({ ...c, kind: "module" })),
    bundle: async (slug) => BUNDLES[slug],
    makeWorker: () => new PythonWorker({ base: "http://site.test/assets/", spare: false, graceMs: 20,
      createWorker: () => new FakeWorker({ behave: judge }) }).start(),
    makeLearner: () => {
      const fakes = [];
      const client = new PythonWorker({ base: "http://site.test/assets/", spare: false, graceMs: 20,
        createWorker: () => {
          const fake = new Loaded({ behave: (msg, a) => { if (msg.type === "serve") { served.push(msg); a.started(); } } });
          fakes.push(fake);
          return fake;
        } }).start();
      learners.push({ client, fakes });
      return client;
    },
  });
  assert.equal(root.dataset.boundary, "separated");
  assert.match(root.querySelector("[data-class-boundary]").textContent, /a Python of its own/);
  await api.add(FILES);
  await until(() => root.dataset.state === "done", 5000, "every pass checked again");
  assert.equal(api.csv, readFileSync(new URL(CASE.csv, GOLDEN), "utf8"), "the same verdicts, the same CSV");
  assert.ok(log.length > 0 && log.every((m) => m.channel instanceof SharedArrayBuffer), "every check is separated");
  assert.equal(served.length, log.length, "one learner's worker served each check");
  assert.ok(served.every((m) => m.channel instanceof SharedArrayBuffer));
  await api.settled();
  assert.ok(learners.every(({ client }) => client.disposed), "each learner's worker is ended, the spare too");
  await s.api.settled();
});

/** A class page that cannot separate (not isolated), mounted with `how` (serviceWorker, session, protocol...). */
function unisolated(how) {
  const { document } = page('<div class="tl-class"></div>');
  const root = document.querySelector(".tl-class");
  const made = [];
  const api = mountClass(root, { store: createStore(new SharedStorage().tab(null)), base: "http://site.test/assets/",
    cores: 1, separate: false, index: async () => GOLD.columns.map((c) => ({ ...c, kind: "module" })),
    bundle: async (slug) => BUNDLES[slug], makeWorker: () => { made.push(1); return null; }, protocol: "http:", ...how });
  return { root, api, made, note: () => root.querySelector("[data-class-boundary]").textContent };
}

test("a first visit waits for the service worker to take the page, then reloads itself once, checking nothing", async () => {
  const listeners = {};
  const container = { controller: null, addEventListener: (type, fn) => { listeners[type] = fn; } };
  const history = { state: null, replaceState(state) { this.state = state; } };
  let reloaded = 0;
  const first = unisolated({ serviceWorker: container, history, reload: () => { reloaded += 1; } });
  assert.equal(first.root.dataset.boundary, "isolating");
  assert.ok(first.root.querySelector("input[type=file]").disabled, "no file is taken before the page is isolated");
  await first.api.add(FILES);
  assert.equal(first.root.querySelectorAll("tr[data-learner]").length, 0);
  assert.equal(first.made.length, 0, "no Python is started for a check");
  listeners.controllerchange();
  assert.equal(reloaded, 1, "the page reloads itself once the service worker controls it");
  const again = unisolated({ serviceWorker: { ...container, controller: {} }, history, reload: () => { reloaded += 1; } });
  assert.equal(reloaded, 1, "never a second time: a page that came back unisolated says so");
  assert.equal(again.root.dataset.boundary, "refused");
  assert.match(again.note(), /no verdicts.*ol class/s);
  const apart = unisolated({ separate: true, makeLearner: () => fakeLearner(), serviceWorker: container, history });
  assert.equal(apart.root.dataset.boundary, "separated");
  assert.deepEqual(history.state, {}, "an isolated page forgets the reload, so a later first visit may reload again");
});

test("without a service worker (a file, a private window) the class page shows no verdicts and says why", async () => {
  const file = unisolated({ serviceWorker: undefined, protocol: "file:" });
  assert.equal(file.root.dataset.boundary, "refused");
  assert.match(file.note(), /opened from a file.*ol class/s);
  const none = unisolated({ serviceWorker: undefined });
  assert.match(none.note(), /runs no service worker/);
  await none.api.add(FILES);
  assert.equal(none.made.length, 0);
  const listeners = {};
  const stuck = unisolated({ serviceWorker: { controller: null, addEventListener: (t, fn) => { listeners[t] = fn; } },
    history: { state: null, replaceState() {} }, waitMs: 10, reload: () => assert.fail("no reload without a service worker in control") });
  await until(() => stuck.root.dataset.boundary === "refused", 1000, "a service worker that never takes the page");
  assert.match(stuck.note(), /did not start/);
});
