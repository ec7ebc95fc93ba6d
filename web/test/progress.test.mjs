// The progress page (web/src/page/progress.js) on a linkedom page with a stubbed exercise index: its table sits in a
// scrolling box of the theme's kind, as a table wider than a phone must (tests/e2e/test_a11y.py checks the layout).
import { test } from "node:test";
import assert from "node:assert/strict";

import { mountProgress } from "../src/page/progress.js";
import { createStore, keys } from "../src/page/store.js";
import { page, SharedStorage, until } from "./fakes.mjs";

test("the progress table is drawn inside a scroll box, one row per exercise, again after a reset", async (t) => {
  const { document } = page('<div class="tl-progress"><p class="tl-fallback">…</p></div>');
  const index = [{ slug: "t1-2", id: "T1.2", title: "Fixture lesson", kind: "lesson", page: "t1/fixture-lesson.md", prompts: ["p"], choices: [] }];
  const realFetch = globalThis.fetch;
  globalThis.fetch = async () => ({ ok: true, json: async () => index });
  t.after(() => { globalThis.fetch = realFetch; });
  const store = createStore(new SharedStorage().tab(null));
  store.set(keys.code("t1-2"), { code: "x" });
  const root = document.querySelector(".tl-progress");
  mountProgress(root, { store, base: "http://site.test/assets/" });
  await until(() => root.querySelector("table") || root.querySelector(".tl-progress-status").textContent, 1000, "the table");
  assert.equal(root.querySelector(".tl-progress-status").textContent, "");
  const table = root.querySelector("table");
  assert.equal(table.parentElement.className, "md-typeset__table");
  assert.equal(table.parentElement.parentElement.className, "md-typeset__scrollwrap");
  assert.equal(table.hasAttribute("class"), false, "class-less, so the theme styles it");
  assert.equal(root.querySelector('tr[data-exercise="t1-2"]').dataset.status, "in-progress");
  root.querySelector(".tl-reset-all").click();
  root.querySelector(".tl-confirm-yes").click();
  assert.equal(root.querySelectorAll(".md-typeset__scrollwrap").length, 1, "redrawn in place, not added");
  assert.equal(root.querySelector('tr[data-exercise="t1-2"]').dataset.status, "not-started");
});

test("an export asks once for the learner's name, carries it, and lets it be changed", async (t) => {
  const { document } = page('<div class="tl-progress"><p class="tl-fallback">…</p></div>');
  const realFetch = globalThis.fetch;
  const realURL = URL.createObjectURL;
  const blobs = [];
  globalThis.fetch = async (url) => ({ ok: true, json: async () => (String(url).endsWith("build.json") ? { version: "b1" } : []) });
  URL.createObjectURL = (blob) => { blobs.push(blob); return "blob:x"; };
  t.after(() => { globalThis.fetch = realFetch; URL.createObjectURL = realURL; });
  const store = createStore(new SharedStorage().tab(null));
  const root = document.querySelector(".tl-progress");
  mountProgress(root, { store, base: "http://site.test/assets/" });
  const exported = async () => {
    const before = blobs.length;
    root.querySelector(".tl-export").click();
    await until(() => blobs.length > before, 1000, "the export");
    return JSON.parse(await blobs.at(-1).text());
  };
  const field = root.querySelector("[data-learner-name]");
  assert.ok(field, "asked before the first export");
  assert.equal(root.querySelector(`label[for="${field.id}"]`).textContent.includes("name"), true);
  field.value = "  Ada \t Lovelace ";
  assert.equal((await exported()).learner, "Ada Lovelace");
  assert.equal(root.querySelector("[data-learner-name]"), null, "asked once");
  assert.match(root.querySelector(".tl-learner").textContent, /carry the name Ada Lovelace/);
  assert.equal((await exported()).learner, "Ada Lovelace", "remembered");
  assert.deepEqual(store.get(keys.learner()), { name: "Ada Lovelace" });
  assert.equal("local:learner" in (await exported()).data, false, "the name is the file's, not an entry");
  root.querySelector(".tl-learner-change").click();
  root.querySelector("[data-learner-name]").value = "";
  assert.equal("learner" in (await exported()), false, "changed to none");
  assert.match(root.querySelector(".tl-learner").textContent, /carry no name/);
});
