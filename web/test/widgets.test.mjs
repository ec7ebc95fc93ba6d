// web/src/page/widgets.js: widget data read with a guard, and each widget mounted on its own, so one bad widget (its
// data missing or corrupt) shows an error in its place while the rest of the page works.
import { test } from "node:test";
import assert from "node:assert/strict";

import { defaultYield, mountEach, mountInTurns, mountWhenNear, widgetData, WidgetError } from "../src/page/widgets.js";
import { mountCell } from "../src/page/cell/code-cell.js";
import { mountNumeric } from "../src/page/prompts.js";
import { createStore } from "../src/page/store.js";
import { exampleHTML, exerciseHTML, fakeEditor, fakePython, page, SharedStorage, until } from "./fakes.mjs";

const holder = (json) => page(`<div class="w">${json === undefined ? "" : `<script type="application/json" class="tl-data">${json}</script>`}</div>`)
  .document.querySelector(".w");

test("widgetData reads the JSON, and names what is wrong instead of throwing a SyntaxError", () => {
  assert.deepEqual(widgetData(holder('{"a": 1}')), { a: 1 });
  assert.deepEqual(widgetData(holder(undefined)), {}, "no data and nothing required: an empty object");
  const cases = [
    [holder("{"), {}, "its data is not valid JSON"],
    [holder("[1, 2]"), {}, "its data is not an object"],
    [holder("null"), {}, "its data is not an object"],
    [holder(undefined), { slug: "string" }, "its data is missing"],
    [holder('{"slug": 3}'), { slug: "string" }, 'its data has no string "slug"'],
    [holder('{"answer": "1"}'), { answer: "array" }, 'its data has no array "answer"'],
  ];
  for (const [root, required, message] of cases) {
    assert.throws(() => widgetData(root, required), (err) => err instanceof WidgetError && err.message === message, message);
  }
});

test("a bad widget shows an error in its place; every other widget of the page still works", async (t) => {
  const good = { slug: "e-1", id: "E1", path: "python/e1.py", importPath: "tinyllm/e1.py", starter: "# starter\n", requires: [] };
  const numeric = (json) => `<div class="tl-numeric" data-prompt="p"><script type="application/json" class="tl-data">${json}</script>`
    + '<div class="tl-explain" hidden>worked answer</div></div>';
  const { document } = page([
    exerciseHTML({ slug: "broken" }, { raw: '{"slug": "broken", ' }), // cut off: not JSON
    '<div class="tl-cell" data-exercise="bare" data-kind="exercise"><div class="tl-fallback"><pre>x</pre></div></div>',
    exerciseHTML(good),
    exampleHTML("print('hi')\n"),
    numeric("{oops"),
    numeric(JSON.stringify({ exercise: "e-1", prompt: "p", answer: [0.5], tolerance: 1e-9, feedback: [] })),
  ].join(""));
  const win = new EventTarget();
  const store = createStore(new SharedStorage().tab(win), { events: win });
  const { python } = fakePython({ spare: false });
  python.start();
  const editors = fakeEditor();
  t.after(() => python.dispose());
  const ctx = { store, python, base: "http://site.test/", createEditor: editors.create, win, pathname: "/p/",
    loadBundle: async () => ({ id: "E1", importPath: "tinyllm/e1.py", reference: "", tests: {}, names: ["test_a"], directRequires: [], checkOrder: [] }) };

  const cells = mountEach(document, ".tl-cell", (root) => mountCell(root, ctx));
  const prompts = mountEach(document, ".tl-numeric", (root) => mountNumeric(root, store));
  assert.equal(cells.mounted.length, 2);
  assert.deepEqual(cells.failed.map((r) => r.dataset.exercise), ["broken", "bare"]);
  assert.equal(prompts.mounted.length, 1);
  assert.equal(prompts.failed.length, 1);

  const [broken, bare, working, example] = document.querySelectorAll(".tl-cell");
  assert.match(broken.querySelector(".tl-widget-error").textContent, /could not be shown \(its data is not valid JSON\)/);
  assert.equal(broken.querySelector(".tl-widget-error").getAttribute("role"), "alert");
  assert.match(bare.querySelector(".tl-widget-error").textContent, /its data is missing/);
  assert.ok(bare.querySelector(".tl-fallback"), "the code stays readable without the editor");
  assert.equal(broken.tlCell, undefined);
  assert.equal(working.querySelector(".tl-widget-error"), null);

  // The good cells work.
  working.tlCell.editor.setCode("ok = 1\n");
  await working.tlCell.check();
  assert.equal(working.dataset.status, "passed");
  example.tlCell.editor.setCode("print:hi");
  await example.tlCell.run();
  assert.equal(example.querySelector(".tl-output").textContent, "hi\n");
  // So does the good prompt.
  const [badPrompt, goodPrompt] = document.querySelectorAll(".tl-numeric");
  assert.match(badPrompt.textContent, /its data is not valid JSON/);
  goodPrompt.querySelector("input").value = "1/2";
  goodPrompt.querySelector("form").dispatchEvent(new (document.defaultView.Event)("submit", { cancelable: true }));
  await until(() => goodPrompt.dataset.verdict, 500, "the prompt's verdict");
  assert.equal(goodPrompt.dataset.verdict, "correct");
});

test("a widget whose mount throws a bug (not bad data) is reported the same way, and logged", () => {
  const { document } = page('<div class="x"></div><div class="x"></div>');
  const logged = [];
  const real = console.error;
  console.error = (err) => logged.push(err);
  try {
    const { mounted, failed } = mountEach(document, ".x", (root) => {
      if (root === document.querySelector(".x")) throw new TypeError("cannot read properties of undefined");
      return "ok";
    });
    assert.deepEqual(mounted, ["ok"]);
    assert.equal(failed.length, 1);
  } finally {
    console.error = real;
  }
  assert.match(document.querySelector(".tl-widget-error").textContent, /an unexpected error: cannot read properties/);
  assert.equal(logged.length, 1);
});

test("mountInTurns mounts in the page's order, each in its guard, and yields once a turn has used its budget", async () => {
  const { document } = page('<p class="b" id="1"></p><p class="a" id="2"></p><p class="b" id="3"></p>'
    + '<p class="a bad" id="4"></p><p class="a" id="5"></p>');
  let clock = 0;
  const log = [];
  const mount = (kind) => (root) => {
    clock += 20; // each mount takes 20 ms of the page's clock
    if (root.classList.contains("bad")) throw new WidgetError("its data is missing");
    log.push(`${kind}${root.id}`);
    return root.id;
  };
  const { mounted, failed } = await mountInTurns(document, [[".a", mount("a")], [".b", mount("b")]], {
    budget: 30, now: () => clock, yieldNow: async () => { log.push("yield"); },
  });
  assert.deepEqual(log, ["b1", "a2", "yield", "b3", "yield", "a5"]); // the failed 4 used its time too
  assert.deepEqual(mounted, ["1", "2", "3", "5"]);
  assert.deepEqual(failed.map((r) => r.id), ["4"]);
  assert.match(document.getElementById("4").textContent, /could not be shown \(its data is missing\)/);
  assert.deepEqual(await mountInTurns(document, []), { mounted: [], failed: [] });
});

test("defaultYield waits for the next frame to be drawn on a shown page, and not on a hidden one", async () => {
  const frames = [];
  const shown = { document: { hidden: false }, requestAnimationFrame: (fn) => frames.push(fn) };
  let back = false;
  const turn = defaultYield(shown).then(() => { back = true; });
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(back, false, "the turn came back before any frame was drawn");
  assert.equal(frames.length, 1);
  frames[0](); // the frame: the turn comes back in the task after it
  await turn;
  assert.equal(back, true);
  // A hidden page draws no frame: a task, and no frame asked for.
  const hidden = { document: { hidden: true }, requestAnimationFrame: () => assert.fail("a frame was asked for") };
  await defaultYield(hidden);
  // A frame that never comes (the page hidden after asking) does not hold the turn for ever.
  const stalled = { document: { hidden: false }, requestAnimationFrame: () => {} };
  const started = Date.now();
  await defaultYield(stalled);
  assert.ok(Date.now() - started < 1000);
});

/** An IntersectionObserver the test drives: `show(...roots)` reports those near the viewport, the others not. */
function fakeObserverWindow() {
  const observers = [];
  class IntersectionObserver {
    constructor(callback, options) {
      this.callback = callback;
      this.options = options;
      this.watched = new Set();
      observers.push(this);
    }
    observe(el) { this.watched.add(el); }
    unobserve(el) { this.watched.delete(el); }
  }
  const listeners = {};
  return {
    IntersectionObserver,
    observers,
    addEventListener: (type, fn) => { (listeners[type] ||= []).push(fn); },
    fire: (type) => (listeners[type] || []).forEach((fn) => fn({ type })),
    show: async (...roots) => {
      for (const o of observers) {
        o.callback([...o.watched].map((target) => ({ target, isIntersecting: roots.includes(target) })));
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
    },
  };
}

test("mountWhenNear mounts the widgets near the viewport, then each as it comes near, or when reached into", async () => {
  const { document, window } = page('<p class="a" id="1"><button id="b1"></button></p><p class="b" id="2"></p>'
    + '<p class="a" id="3"><button id="b3"></button></p><p class="b" id="4"></p><p class="a" id="5"></p>');
  const win = fakeObserverWindow();
  const log = [];
  const mount = (root) => log.push(root.id);
  const el = (id) => document.getElementById(id);
  const near = mountWhenNear(document, [[".a", mount], [".b", mount]], { win, yieldNow: async () => {} });
  assert.equal(win.observers[0].options.rootMargin, "100% 0px");
  assert.deepEqual(log, [], "nothing mounts before the observer says what is near");
  assert.equal(el("3").tlLater, true);
  await win.show(el("2"), el("1")); // the observer's first report: the top of the page
  assert.deepEqual(log, ["1", "2"], "in the page's order");
  assert.equal(el("1").tlLater, undefined);
  assert.equal(near.pending(), 3);
  await win.show(el("4"));
  assert.deepEqual(log, ["1", "2", "4"]);
  await win.show(el("4"), el("1")); // reported again: mounted once
  assert.deepEqual(log, ["1", "2", "4"]);
  el("b3").dispatchEvent(new window.Event("pointerdown", { bubbles: true })); // a tap into one far away
  assert.deepEqual(log, ["1", "2", "4", "3"], "mounted at once, before the tap's click");
  assert.equal(win.observers[0].watched.has(el("3")), false);
  document.dispatchEvent(Object.assign(new window.Event("keydown", { bubbles: true }), { key: "Tab" }));
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(log, ["1", "2", "4", "3", "5"], "a keyboard's first Tab mounts everything left");
  assert.equal(near.pending(), 0);
});

test("mountWhenNear mounts everything before printing, and mounts in turns where there is no IntersectionObserver", async () => {
  const { document } = page('<p class="a" id="1"></p><p class="a" id="2"></p>');
  const win = fakeObserverWindow();
  const log = [];
  mountWhenNear(document, [[".a", (root) => log.push(root.id)]], { win });
  win.fire("beforeprint");
  assert.deepEqual(log, ["1", "2"]);
  const plain = page('<p class="a" id="3"></p><p class="a" id="4"></p>');
  const none = mountWhenNear(plain.document, [[".a", (root) => log.push(root.id)]], { win: {}, yieldNow: async () => {} });
  await none.mountAll();
  assert.deepEqual(log, ["1", "2", "3", "4"]);
});
