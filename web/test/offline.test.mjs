import { test } from "node:test";
import assert from "node:assert/strict";

import { describe, fillsByItself, mountOffline } from "../src/page/offline.js";
import { page } from "./fakes.mjs";

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

test("what the box says: complete, filling, partial (with the save-data reason), no service worker yet", () => {
  assert.match(describe({ cached: 9, total: 9 }).text, /whole site \(9 files\).*works offline/);
  assert.equal(describe({ cached: 9, total: 9 }).button, false);
  assert.match(describe({ cached: 3, total: 9, filling: true }).text, /3 of 9 files so far/);
  const partial = describe({ cached: 3, total: 9 }, true);
  assert.equal(partial.button, true);
  assert.match(partial.text, /3 of 9 files.*asks to save data/);
  assert.doesNotMatch(describe({ cached: 3, total: 9 }, false).text, /save data/);
  assert.match(describe(null).text, /once a page has finished loading/);
});

test("the button asks the service worker to complete the copy and the box follows its progress", async () => {
  const { document } = page('<div class="tl-offline"></div>');
  const root = document.querySelector(".tl-offline");
  let state = { type: "tl-sw-status", cached: 2, total: 5, filling: false };
  const sw = container((msg) => (msg.type === "tl-sw-status" ? state : null));
  mountOffline(root, { container: sw, saveData: true, every: 1 });
  await tick();
  const button = root.querySelector("button");
  assert.equal(button.hidden, false);
  assert.match(root.querySelector(".tl-offline-state").textContent, /2 of 5/);
  state = { ...state, cached: 4, filling: true };
  button.click();
  assert.equal(button.hidden, true, "no second press while it downloads");
  await tick();
  assert.ok(sw.sent.includes("tl-sw-fill"));
  state = { ...state, cached: 5, filling: false };
  await new Promise((r) => setTimeout(r, 250));
  assert.match(root.querySelector(".tl-offline-state").textContent, /whole site \(5 files\)/);
  assert.equal(button.hidden, true);
});
