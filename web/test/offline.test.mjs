import { test } from "node:test";
import assert from "node:assert/strict";

import { describe, fillsByItself, mountOffline, requestFill, size } from "../src/page/offline.js";
import { page } from "./fakes.mjs";
import { freshBrowser, ORIGIN, precacheOf, serviceWorker } from "./sw-fakes.mjs";

/** A stand-in ServiceWorkerContainer: a controller that answers status requests with `reply()`. */
function container(reply) {
  const listeners = { message: [], controllerchange: [] };
  const sent = [];
  const self = {
    sent,
    controller: {
      postMessage(msg) {
        sent.push(msg.type);
        const data = reply(msg);
        if (data) queueMicrotask(() => listeners.message.forEach((fn) => fn({ data })));
      },
    },
    ready: Promise.resolve({ active: { postMessage: (msg) => sent.push(msg.type) } }),
    addEventListener: (type, fn) => listeners[type].push(fn),
  };
  return self;
}

const tick = () => new Promise((r) => setTimeout(r, 5));

test("the rest of the copy is downloaded by itself except on a save-data connection", () => {
  assert.equal(fillsByItself({}), true);
  assert.equal(fillsByItself({ connection: { saveData: false } }), true);
  assert.equal(fillsByItself({ connection: { saveData: true } }), false);
});

test("what the box says: complete, saving the whole course, partial (with its size), no service worker yet", () => {
  const whole = describe({ cached: 9, total: 9, bytes: 12_400_000, heldBytes: 12_400_000 });
  assert.match(whole.text, /whole course \(9 files, 12\.4 MB\).*works offline/);
  assert.equal(whole.button, false);
  assert.match(describe({ cached: 3, total: 9, bytes: 12_400_000, heldBytes: 2_000_000, filling: true, whole: true }).text,
    /Saving the whole course.*2\.0 MB of 12\.4 MB so far/);
  const partial = describe({ cached: 3, total: 9, bytes: 12_400_000, heldBytes: 2_000_000 }, true);
  assert.equal(partial.button, true);
  assert.match(partial.text, /opened, with their chapter or module.*2\.0 MB of the course's 12\.4 MB.*asks to save data/);
  assert.equal(partial.label, "Save the whole course for offline use (10.4 MB more)", "the size is shown before the press");
  assert.equal(partial.missing, 10_400_000);
  const scoped = describe({ cached: 3, total: 9, bytes: 12_400_000, heldBytes: 2_000_000, filling: true, whole: false });
  assert.equal(scoped.button, true, "a page's own fill running does not hide the whole course's button");
  assert.doesNotMatch(describe({ cached: 3, total: 9, bytes: 9, heldBytes: 3 }, false).text, /save data/);
  assert.match(describe({ cached: 3, total: 9 }).text, /3 of 9 files/, "an older service worker's status, without sizes");
  assert.match(describe(null).text, /once a page has finished loading/);
});

test("sizes are written for a reader", () => {
  assert.equal(size(840_000), "840 kB");
  assert.equal(size(12_400_000), "12.4 MB");
  assert.equal(size(312_000_000), "312 MB");
  assert.equal(size(12), "1 kB");
});

test("a page asks for what its visit saves; the button for the whole course", async () => {
  const sent = [];
  const container = { ready: Promise.resolve({ active: { postMessage: (m) => sent.push(m) } }) };
  await requestFill(container, { page: "http://x/t1/lesson/" });
  await requestFill(container);
  assert.deepEqual(sent, [{ type: "tl-sw-fill", page: "http://x/t1/lesson/" }, { type: "tl-sw-fill" }]);
});

test("the button asks the service worker for the whole course and the box follows its progress", async () => {
  const { document } = page('<div class="tl-offline"></div>');
  const root = document.querySelector(".tl-offline");
  let state = { type: "tl-sw-status", cached: 2, total: 5, bytes: 5_000_000, heldBytes: 2_000_000, filling: false };
  const sw = container((msg) => (msg.type === "tl-sw-status" ? state : null));
  mountOffline(root, { container: sw, saveData: true, every: 1 });
  await tick();
  const button = root.querySelector("button");
  assert.equal(button.hidden, false);
  assert.equal(button.textContent, "Save the whole course for offline use (3.0 MB more)");
  assert.equal(button.dataset.bytes, "3000000");
  assert.match(root.querySelector(".tl-offline-state").textContent, /2\.0 MB of the course's 5\.0 MB/);
  state = { ...state, cached: 4, heldBytes: 4_000_000, filling: true, whole: true };
  button.click();
  assert.equal(button.hidden, true, "no second press while it downloads");
  await tick();
  assert.ok(sw.sent.includes("tl-sw-fill"));
  state = { ...state, cached: 5, heldBytes: 5_000_000, filling: false, whole: false };
  await new Promise((r) => setTimeout(r, 250));
  assert.match(root.querySelector(".tl-offline-state").textContent, /whole course \(5 files, 5\.0 MB\)/);
  assert.equal(button.hidden, true);
});

// ---- the service worker's fills (sw.js, run with sw-fakes.mjs) ----

/** A site of three units: a chapter (overview and lesson, whose code imports an optional package), a module and
 * one that builds on it; a module map that belongs to none; the platform. */
const SITE = {
  "": "<title>Home</title>", "404.html": "not found", "progress/": "<title>Progress</title>",
  "assets/tl/tl.js": "the page's script", "assets/pyodide/core.wasm": "Python, much of it",
  "t1/": "<title>Chapter T1</title>", "t1/lesson/": "<title>Lesson</title>", "assets/tl/exercises/t1-2.json": "{t1-2}",
  "base/": "<title>Base</title>", "assets/tl/exercises/base.json": "{base}",
  "next/": "<title>Next</title>", "assets/tl/exercises/next.json": "{next}",
  "modules/": "<title>Module map</title>", "assets/pyodide/plots.whl": "an optional package",
};
const PLATFORM = ["", "404.html", "progress/", "assets/tl/tl.js", "assets/pyodide/core.wasm"];
const UNITS = [
  { name: "chapter T1", pages: ["t1/", "t1/lesson/"],
    files: ["t1/", "t1/lesson/", "assets/tl/exercises/t1-2.json", "assets/pyodide/plots.whl"] },
  { name: "module Base", pages: ["base/"], files: ["base/", "assets/tl/exercises/base.json"] },
  { name: "module Next", pages: ["next/"],
    files: ["next/", "assets/tl/exercises/next.json", "base/", "assets/tl/exercises/base.json"] },
];
const GROUPED = precacheOf(SITE, { platform: PLATFORM, units: UNITS });
const sorted = (urls) => [...urls].sort();

/** A first visit of `page`: the page fetched itself and its script (the HTTP cache), the worker handed Python off. */
async function firstVisit(page, site = SITE, precache = GROUPED) {
  const browser = freshBrowser();
  browser.httpCache = { [page]: site[page], "assets/tl/tl.js": site["assets/tl/tl.js"] };
  await browser.caches.handOff({ "assets/pyodide/core.wasm": site["assets/pyodide/core.wasm"] });
  const sw = serviceWorker({ site, precache, browser });
  await sw.install();
  await sw.activate();
  return { browser, sw };
}

test("a page's scope: the platform, the page, its unit and what the unit builds on", () => {
  const sw = serviceWorker({ site: SITE, precache: GROUPED, browser: freshBrowser() });
  const next = sorted([...PLATFORM, "next/", "assets/tl/exercises/next.json", "base/", "assets/tl/exercises/base.json"]);
  assert.deepEqual(sw.scopeOf("next/"), next);
  assert.deepEqual(sw.scopeOf("next/?q=1#top"), next, "the address's query and fragment do not matter");
  assert.deepEqual(sw.scopeOf("t1/"), sorted([...PLATFORM, ...UNITS[0].files]), "an overview brings its chapter");
  assert.deepEqual(sw.scopeOf("modules/"), sorted([...PLATFORM, "modules/"]), "a page of no unit brings itself");
  assert.deepEqual(sw.scopeOf(""), sorted(PLATFORM));
  const older = serviceWorker({ site: SITE, precache: precacheOf(SITE), browser: freshBrowser() });
  assert.deepEqual(older.scopeOf("next/"), sorted(Object.keys(SITE)), "a list without groups saves everything");
});

test("a first visit downloads its unit and the platform, each file once, and no other unit", async () => {
  const { browser, sw } = await firstVisit("next/");
  assert.deepEqual(sw.downloads, [], "installing downloads nothing: it takes what the page fetched and the hand-off");
  assert.deepEqual(browser.caches.held(sw.cacheName), sorted(["next/", "assets/tl/tl.js", "assets/pyodide/core.wasm"]));
  assert.equal((await sw.ask({ type: "tl-sw-status", page: ORIGIN + "next/" })).pageSaved, false);
  await sw.fire("message", { data: { type: "tl-sw-fill", page: ORIGIN + "next/" } });
  assert.deepEqual(sorted(sw.downloads), sorted(["", "404.html", "progress/", "assets/tl/exercises/next.json", "base/",
    "assets/tl/exercises/base.json"]));
  const status = await sw.ask({ type: "tl-sw-status", page: ORIGIN + "next/" });
  assert.equal(status.pageSaved, true);
  assert.ok(status.cached < status.total && !status.filling, JSON.stringify(status));
  const held = sw.scopeOf("next/");
  assert.equal(status.heldBytes, held.reduce((n, url) => n + Buffer.byteLength(SITE[url]), 0));
  assert.equal(status.bytes, GROUPED.bytes);
  assert.ok(!(await browser.caches.has("tinyllm-handoff")), "the hand-off is dropped once the copy holds all of it");
  assert.equal(sw.told.at(-1).type, "tl-sw-status", "open pages hear that the fill is over");
});

test("while a page's Python runs the learner's work, a fill takes no file; it goes on once every page is done", async () => {
  const { sw } = await firstVisit("next/");
  const hold = (id, busy) => sw.fire("message", { data: { type: "tl-sw-hold", busy }, source: { id } });
  await hold("a", true);
  await hold("b", true);
  let filled = false;
  const fill = sw.fire("message", { data: { type: "tl-sw-fill", page: ORIGIN + "next/" } }).then(() => { filled = true; });
  await tick();
  assert.deepEqual(sw.downloads, [], "held by two pages");
  await hold("a", false);
  await tick();
  assert.deepEqual(sw.downloads, [], "still held by one");
  assert.equal(filled, false);
  await hold("b", false);
  await fill;
  assert.equal((await sw.ask({ type: "tl-sw-status", page: ORIGIN + "next/" })).pageSaved, true);
});

test("a page's hold lapses after 30 s without a word (a page closed mid-run), and the waiting fill goes on", async () => {
  const { sw } = await firstVisit("next/");
  let now = Date.now();
  const timers = [];
  Object.assign(sw.context, { Date: { now: () => now }, setTimeout: (fn, ms) => timers.push({ fn, ms }),
    clearTimeout: () => {} });
  await sw.fire("message", { data: { type: "tl-sw-hold", busy: true }, source: { id: "gone" } });
  const fill = sw.fire("message", { data: { type: "tl-sw-fill", page: ORIGIN + "next/" } });
  await tick();
  assert.deepEqual(sw.downloads, []);
  assert.equal(timers.at(-1).ms, 30_001, "the fill waits for the hold to lapse");
  now += 29_000;
  timers.at(-1).fn(); // early: still held
  await tick();
  assert.deepEqual(sw.downloads, []);
  now += 1_001;
  timers.at(-1).fn();
  await fill;
  assert.equal((await sw.ask({ type: "tl-sw-status", page: ORIGIN + "next/" })).pageSaved, true);
});

test("saving the whole course downloads the rest, once, and a later visit's fill downloads nothing", async () => {
  const { browser, sw } = await firstVisit("next/");
  await sw.fire("message", { data: { type: "tl-sw-fill", page: ORIGIN + "next/" } });
  await sw.fire("message", { data: { type: "tl-sw-fill" } });
  assert.deepEqual(sorted(sw.downloads), sorted(Object.keys(SITE).filter((u) => !["next/", "assets/tl/tl.js",
    "assets/pyodide/core.wasm"].includes(u))), "every file not held, each once");
  const status = await sw.ask({ type: "tl-sw-status" });
  assert.equal(status.cached, status.total);
  assert.equal(status.heldBytes, status.bytes);
  const before = sw.downloads.length;
  await sw.fire("message", { data: { type: "tl-sw-fill", page: ORIGIN + "t1/lesson/" } });
  assert.equal(sw.downloads.length, before);
  assert.deepEqual(browser.caches.held(sw.cacheName), sorted(Object.keys(SITE)));
});

test("what a page handed off later (an optional package) joins the copy without a download", async () => {
  const { browser, sw } = await firstVisit("next/");
  await browser.caches.handOff({ "assets/pyodide/plots.whl": SITE["assets/pyodide/plots.whl"] });
  await sw.fire("message", { data: { type: "tl-sw-fill", page: ORIGIN + "next/" } });
  assert.ok(browser.caches.held(sw.cacheName).includes("assets/pyodide/plots.whl"));
  assert.ok(!sw.downloads.includes("assets/pyodide/plots.whl"));
});

test("an update downloads only what changed of what the copy holds", async () => {
  const { browser, sw } = await firstVisit("next/");
  await sw.fire("message", { data: { type: "tl-sw-fill", page: ORIGIN + "next/" } });
  const had = browser.caches.held(sw.cacheName);
  const site = { ...SITE, "assets/tl/exercises/base.json": "{base, changed}", "t1/lesson/": "<title>Lesson 2</title>" };
  const update = serviceWorker({ site, precache: precacheOf(site, { platform: PLATFORM, units: UNITS, version: "v2" }),
    browser });
  await update.install();
  assert.deepEqual(update.downloads, ["assets/tl/exercises/base.json"], "the lesson, never held, stays out");
  assert.deepEqual(browser.caches.held(update.cacheName), had);
  await update.activate();
  assert.deepEqual(await browser.caches.keys(), [update.cacheName]);
  assert.equal(update.told.at(-1).type, "tl-sw-updated");
});

/** The copy of `sw` with `path`'s entry rewritten as a script of the origin can: other bytes, the same headers. */
async function rewrite(browser, sw, path, body) {
  const cache = await browser.caches.open(sw.cacheName);
  const stored = await cache.match(ORIGIN + path);
  await cache.put(ORIGIN + path, new Response(body, { status: 200, headers: stored.headers }));
}

/** The same version's service worker started again (a browser ends an idle one): nothing of the last in memory. */
const restarted = (browser) => serviceWorker({ site: SITE, precache: GROUPED, browser });

test("a rewritten file of the copy is never served: this lifetime serves what it hashed, the next one downloads it again", async () => {
  const { browser, sw } = await firstVisit("next/");
  await sw.fire("message", { data: { type: "tl-sw-fill", page: ORIGIN + "next/" } });
  assert.equal(await (await sw.serve("assets/tl/exercises/next.json")).text(), "{next}");
  const before = sw.downloads.length;
  await rewrite(browser, sw, "assets/tl/exercises/next.json", "{every test passes}");
  assert.equal(await (await sw.serve("assets/tl/exercises/next.json")).text(), "{next}", "the bytes it hashed");
  assert.equal(sw.downloads.length, before);
  const next = restarted(browser);
  assert.equal(await (await next.serve("assets/tl/exercises/next.json")).text(), "{next}");
  assert.deepEqual(next.downloads, ["assets/tl/exercises/next.json"], "hashed, found rewritten, downloaded again");
  const kept = await (await browser.caches.open(sw.cacheName)).match(ORIGIN + "assets/tl/exercises/next.json");
  assert.equal(await kept.text(), "{next}", "the copy holds the build's bytes again");
  const served = await next.serve("assets/tl/exercises/next.json");
  assert.equal(served.headers.get("X-TL-SHA256"), GROUPED.files.find(([u]) => u === "assets/tl/exercises/next.json")[1]);
});

test("offline, a rewritten file is refused with a 503 that says why, and a page likewise", async () => {
  const { browser, sw } = await firstVisit("next/");
  await sw.fire("message", { data: { type: "tl-sw-fill", page: ORIGIN + "next/" } });
  await rewrite(browser, sw, "assets/tl/exercises/next.json", "{every test passes}");
  await rewrite(browser, sw, "next/", "<title>Next</title><script>steal()</script>");
  browser.offline = true;
  const next = restarted(browser);
  const refused = await next.serve("assets/tl/exercises/next.json");
  assert.equal(refused.status, 503);
  assert.match(await refused.text(), /changed on this device .* thrown away/);
  const page = await next.serve("next/", { mode: "navigate" });
  assert.equal(page.status, 503);
  assert.doesNotMatch(await page.text(), /steal/);
  assert.equal(await (await next.serve("assets/tl/tl.js")).text(), SITE["assets/tl/tl.js"], "the rest still serves");
});

test("an update does not carry a rewritten entry over, though its hash header says it is unchanged", async () => {
  const { browser, sw } = await firstVisit("next/");
  await sw.fire("message", { data: { type: "tl-sw-fill", page: ORIGIN + "next/" } });
  await rewrite(browser, sw, "assets/tl/exercises/base.json", "{every test passes}");
  const site = { ...SITE, "t1/lesson/": "<title>Lesson 2</title>" };
  const update = serviceWorker({ site, precache: precacheOf(site, { platform: PLATFORM, units: UNITS, version: "v2" }),
    browser });
  await update.install();
  assert.deepEqual(update.downloads, ["assets/tl/exercises/base.json"]);
  const kept = await (await browser.caches.open(update.cacheName)).match(ORIGIN + "assets/tl/exercises/base.json");
  assert.equal(await kept.text(), SITE["assets/tl/exercises/base.json"]);
});

test("a learner's worker script gets the policy; its requests are answered from the build's files alone", async () => {
  const { browser, sw } = await firstVisit("next/");
  await sw.fire("message", { data: { type: "tl-sw-fill", page: ORIGIN + "next/" } });
  const script = await sw.serve("assets/tl/tl.js?learner=", { destination: "worker" });
  const policy = script.headers.get("Content-Security-Policy");
  assert.match(policy, /default-src 'none'/);
  assert.match(policy, /connect-src 'self'(;|$)/);
  assert.doesNotMatch(policy, /http|\*/, "no other origin");
  assert.equal(script.headers.get("Cross-Origin-Embedder-Policy"), "require-corp");
  const plain = await sw.serve("assets/tl/tl.js", { destination: "worker" });
  assert.equal(plain.headers.get("Content-Security-Policy"), null, "the lesson's worker is not a learner's");

  browser.clients = { learner: { url: `${ORIGIN}assets/tl/tl.js?learner=` }, page: { url: `${ORIGIN}next/` } };
  const before = sw.downloads.length;
  const held = await sw.serve("assets/tl/exercises/next.json?leak=secret", { clientId: "learner" });
  assert.equal(await held.text(), "{next}", "a file of the build, from the copy");
  for (const [path, how] of [["assets/tl/nothing-here?leak=secret", {}], ["assets/tl/exercises/next.json", { method: "POST" }],
    ["http://elsewhere.test/leak", {}]]) {
    const refused = await sw.serve(path, { ...how, clientId: "learner" });
    assert.equal(refused.type, "error", `${how.method || "GET"} ${path} is refused`);
  }
  const fresh = await sw.serve("t1/lesson/?leak=secret", { clientId: "learner" });
  assert.equal(fresh.status, 200);
  assert.deepEqual(sw.downloads.slice(before), ["t1/lesson/"], "fetched by its address alone, without the query");
  assert.equal(browser.elsewhere, undefined, "nothing went to another origin");
  const page = await sw.serve("assets/tl/nothing-here", { clientId: "page" });
  assert.equal(page.status, 404, "a page's own request goes to the host as before");
});

test("each file is hashed once in a worker's lifetime: what the install kept serves a spare without hashing", async () => {
  const { browser, sw } = await firstVisit("next/");
  await sw.fire("message", { data: { type: "tl-sw-fill", page: ORIGIN + "next/" } });
  const before = sw.hashed.length;
  for (let i = 0; i < 3; i += 1) assert.equal(await (await sw.serve("assets/pyodide/core.wasm")).text(), SITE["assets/pyodide/core.wasm"]);
  assert.equal(sw.hashed.length, before, "kept by this worker: served from the bytes it hashed then");
  const next = restarted(browser);
  for (let i = 0; i < 3; i += 1) await next.serve("assets/pyodide/core.wasm");
  assert.equal(next.hashed.length, 1, "a new lifetime hashes it once");
});
