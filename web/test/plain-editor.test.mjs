// The plain editor a cell shows first, and its hand-over to CodeMirror (web/src/page/cell/plain-editor.js). CodeMirror is
// a fake here; the real hand-over in a browser is tests/e2e/test_lesson.py's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { nearViewport, oneAtATime, plainFirst } from "../src/page/cell/plain-editor.js";
import { page, tick } from "./fakes.mjs";

/** A stand-in for editor.js's createEditor that records what it was given. */
function fakeCodeMirror() {
  const made = [];
  const create = (options) => {
    let code = options.doc;
    const editor = {
      options, focused: 0, destroyed: false, view: { fake: true },
      getCode: () => code,
      setCode(text) { code = text; options.onChange(text); },
      focus() { this.focused += 1; },
      destroy() { this.destroyed = true; },
    };
    options.parent.append(options.parent.ownerDocument.createElement("cm-fake"));
    made.push(editor);
    return editor;
  };
  return { create, made };
}

function deferred() {
  let resolve, reject;
  const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
}

function setUp({ upgradeWhen = new Promise(() => {}), load } = {}) {
  const { document, window } = page('<div class="tl-editor"></div>');
  const parent = document.querySelector(".tl-editor");
  const cm = fakeCodeMirror();
  const calls = { changes: [], primary: 0, secondary: 0, loads: 0, errors: [] };
  const create = plainFirst({
    load: load || (async () => { calls.loads += 1; return cm.create; }),
    upgradeWhen,
    onError: (err) => calls.errors.push(err),
  });
  const editor = create({
    parent, doc: "x = 1\n", label: "Code for e-1",
    onChange: (code) => calls.changes.push(code),
    onPrimary: () => { calls.primary += 1; },
    onSecondary: () => { calls.secondary += 1; },
  });
  const area = parent.querySelector("textarea");
  return { document, window, parent, area, editor, cm, calls };
}

/** A keydown with KeyboardEvent's fields (linkedom has no KeyboardEvent). */
function key(window, { key: name, ctrlKey = false, metaKey = false, shiftKey = false, altKey = false }) {
  const event = new window.Event("keydown", { bubbles: true, cancelable: true });
  Object.assign(event, { key: name, ctrlKey, metaKey, shiftKey, altKey });
  return event;
}

function typeInto(window, area, text) {
  area.value = text;
  area.dispatchEvent(new window.Event("input", { bubbles: true }));
}

test("the plain editor shows the code, labelled, and reports typing and the cell's shortcuts", async () => {
  const { window, area, editor, calls } = setUp();
  assert.equal(area.className, "tl-editor-plain");
  assert.equal(area.value, "x = 1\n");
  assert.equal(area.getAttribute("aria-label"), "Code for e-1");
  typeInto(window, area, "x = 2\n");
  assert.deepEqual(calls.changes, ["x = 2\n"]);
  assert.equal(editor.getCode(), "x = 2\n");

  const check = key(window, { key: "Enter", ctrlKey: true });
  area.dispatchEvent(check);
  area.dispatchEvent(key(window, { key: "Enter", metaKey: true }));
  const run = key(window, { key: "Enter", shiftKey: true });
  area.dispatchEvent(run);
  const newline = key(window, { key: "Enter" });
  area.dispatchEvent(newline);
  assert.equal(calls.primary, 2);
  assert.equal(calls.secondary, 1);
  assert.equal(check.defaultPrevented, true);
  assert.equal(run.defaultPrevented, true);
  assert.equal(newline.defaultPrevented, false, "a plain Enter is a new line");
  await tick();
  assert.equal(calls.loads, 0, "nothing asked for CodeMirror yet");
});

test("setCode before the hand-over replaces the text and reports it, as CodeMirror's does", () => {
  const { area, editor, calls } = setUp();
  editor.setCode("y = 3\n");
  assert.equal(area.value, "y = 3\n");
  assert.equal(editor.getCode(), "y = 3\n");
  assert.deepEqual(calls.changes, ["y = 3\n"]);
  assert.equal(editor.view, null);
});

test("when upgradeWhen settles, CodeMirror takes over with the text as typed and the selection", async () => {
  const when = deferred();
  const { window, parent, area, editor, cm, calls } = setUp({ upgradeWhen: when.promise });
  typeInto(window, area, "typed = True\n");
  area.selectionStart = 2;
  area.selectionEnd = 5;
  area.selectionDirection = "forward";
  when.resolve();
  assert.equal(await editor.upgraded, true);
  assert.equal(calls.loads, 1);
  assert.equal(cm.made.length, 1);
  const [made] = cm.made;
  assert.equal(made.options.doc, "typed = True\n");
  assert.deepEqual(made.options.selection, { anchor: 2, head: 5 });
  assert.equal(made.options.label, "Code for e-1");
  assert.equal(parent.querySelector("textarea"), null, "the textarea is gone");
  assert.equal(made.focused, 0, "an editor that had no focus does not take it");
  assert.equal(editor.view, made.view);
  editor.setCode("after\n");
  assert.equal(editor.getCode(), "after\n");
  assert.equal(calls.changes.at(-1), "after\n");
  made.options.onPrimary();
  assert.equal(calls.primary, 1, "CodeMirror is given the cell's shortcuts");
});

test("focusing the plain editor hands over at once, keeping the focus and a backward selection", async () => {
  const { window, document, area, editor, cm, calls } = setUp();
  Object.defineProperty(document, "activeElement", { configurable: true, get: () => area });
  area.selectionStart = 1;
  area.selectionEnd = 4;
  area.selectionDirection = "backward";
  area.dispatchEvent(new window.Event("focus"));
  area.dispatchEvent(new window.Event("focus"));
  assert.equal(await editor.upgraded, true);
  assert.equal(calls.loads, 1, "loaded once");
  assert.deepEqual(cm.made[0].options.selection, { anchor: 4, head: 1 });
  assert.equal(cm.made[0].focused, 1);
});

test("a CodeMirror that fails to load leaves a working plain editor and says why", async () => {
  const { window, area, editor, calls } = setUp({
    upgradeWhen: Promise.resolve(),
    load: async () => { throw new Error("chunk missing"); },
  });
  assert.equal(await editor.upgraded, false);
  assert.equal(calls.errors[0].message, "chunk missing");
  assert.equal(area.isConnected, true);
  typeInto(window, area, "still = 1\n");
  assert.equal(editor.getCode(), "still = 1\n");
});

test("a cell removed before CodeMirror arrives creates no editor", async () => {
  const loaded = deferred();
  const { cm, editor, parent } = setUp({ upgradeWhen: Promise.resolve(), load: () => loaded.promise });
  editor.destroy();
  assert.equal(parent.querySelector("textarea"), null);
  const cmCreate = cm.create;
  loaded.resolve(cmCreate);
  assert.equal(await editor.upgraded, false);
  await tick();
  assert.equal(cm.made.length, 0);
});

test("a composition under way (an input method) finishes in the plain editor before the hand-over", async () => {
  const when = deferred();
  const { window, area, editor, cm } = setUp({ upgradeWhen: when.promise });
  area.dispatchEvent(new window.Event("compositionstart"));
  when.resolve();
  await tick();
  await tick();
  assert.equal(cm.made.length, 0, "no hand-over mid-composition");
  typeInto(window, area, "ü = 1\n");
  area.dispatchEvent(new window.Event("compositionend"));
  assert.equal(await editor.upgraded, true);
  assert.equal(cm.made[0].options.doc, "ü = 1\n");
});

test("upgradeWhen given as a function is asked about each editor's own textarea", async () => {
  const asked = [];
  const when = deferred();
  const { editor, cm, area } = setUp({ upgradeWhen: (textarea) => { asked.push(textarea); return when.promise; } });
  assert.deepEqual(asked, [area]);
  await tick();
  assert.equal(cm.made.length, 0, "nothing is handed over before its own promise settles");
  when.resolve();
  assert.equal(await editor.upgraded, true);
});

/** An IntersectionObserver stand-in whose instances the test makes report. */
function fakeObserverWindow() {
  const made = [];
  class IntersectionObserver {
    constructor(callback, options) { Object.assign(this, { callback, options, watched: [], off: false }); made.push(this); }
    observe(el) { this.watched.push(el); }
    disconnect() { this.off = true; }
  }
  return { win: { IntersectionObserver }, made };
}

test("nearViewport resolves once its element comes within a viewport's height, and stops watching", async () => {
  const { win, made } = fakeObserverWindow();
  let near = false;
  nearViewport("the editor", win).then(() => { near = true; });
  const [observer] = made;
  assert.deepEqual(observer.watched, ["the editor"]);
  assert.equal(observer.options.rootMargin, "100% 0px 100% 0px");
  observer.callback([{ isIntersecting: false }]);
  await tick();
  assert.equal(near, false, "still far below");
  observer.callback([{ isIntersecting: true }]);
  await tick();
  assert.equal(near, true);
  assert.equal(observer.off, true);
  assert.equal(await Promise.race([nearViewport("x", {}).then(() => "at once"), tick(5).then(() => "waited")]), "at once",
    "without IntersectionObserver nothing is held back");
});

test("oneAtATime gives each turn an idle moment of its own, in the order asked", async () => {
  const idle = [];
  const turn = oneAtATime({ requestIdleCallback: (fn) => idle.push(fn) });
  const order = [];
  turn().then(() => order.push("first"));
  turn().then(() => order.push("second"));
  await tick();
  assert.equal(idle.length, 1, "the second waits for the first's moment to pass");
  idle.shift()();
  await tick();
  assert.deepEqual(order, ["first"]);
  assert.equal(idle.length, 1);
  idle.shift()();
  await tick();
  assert.deepEqual(order, ["first", "second"]);
});
