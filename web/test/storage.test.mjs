// Who touches browser storage (ARCHITECTURE.md, "Nothing is lost silently"): on the page only page/store.js;
// Cache Storage only the worker's hand-off (worker/boot/handoff.js) and the service worker (sw/sw.js); and in the
// theme's template (overrides/main.html) the scrub of unreadable theme settings and the early worker's start
// switch, which run before any module. Code anywhere else that names localStorage, sessionStorage, indexedDB or
// caches fails here; comments may name them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";

const ROOT = new URL("../../", import.meta.url);
const ALLOWED = {
  "web/src/page/store.js": ["localStorage"],
  "web/src/worker/boot/handoff.js": ["caches"],
  "web/src/sw/sw.js": ["caches"],
  "overrides/main.html": ["localStorage"],
  // names them only to take them away from learner code in a class check
  "web/src/worker/confine.js": ["caches", "indexedDB", "localStorage", "sessionStorage"],
};
const STORAGE = /\b(localStorage|sessionStorage|indexedDB|caches)\b/g;

/** Every .js file under web/src, as paths from the repository's root. */
function sources(dir = new URL("web/src/", ROOT), prefix = "web/src/") {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory()
    ? sources(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`)
    : entry.name.endsWith(".js") ? [`${prefix}${entry.name}`] : []));
}

/** `text` without its comments (JavaScript's, and a template's Jinja and HTML ones), line breaks kept. */
export function code(text) {
  const blank = (m) => m.replace(/[^\n]/g, " ");
  return text.replace(/\{#[\s\S]*?#\}|<!--[\s\S]*?-->|\/\*[\s\S]*?\*\//g, blank)
    .replace(/(^|[^:"'\\])\/\/.*$/gm, (m, before) => before + blank(m.slice(before.length)));
}

/** "file:line name" for every storage API `files` ({path: text}) names in code outside what ALLOWED lets it. */
export function strayUses(files) {
  return Object.entries(files).flatMap(([file, text]) => [...code(text).matchAll(STORAGE)]
    .filter((m) => !(ALLOWED[file] || []).includes(m[1]))
    .map((m) => `${file}:${text.slice(0, m.index).split("\n").length} ${m[1]}`));
}

test("only the allowed files touch browser storage", () => {
  const names = [...sources(), "overrides/main.html"];
  assert.ok(names.includes("web/src/page/store.js") && names.length > 40, "the sources were found");
  const files = Object.fromEntries(names.map((f) => [f, readFileSync(new URL(f, ROOT), "utf8")]));
  assert.deepEqual(strayUses(files), []);
  for (const [file, apis] of Object.entries(ALLOWED)) {
    for (const api of apis) assert.match(code(files[file]), new RegExp(`\\b${api}\\b`), `${file} still uses ${api}`);
  }
});

test("a stray use is found, and a mention in a comment is not", () => {
  assert.deepEqual(strayUses({
    "web/src/page/main.js": '// localStorage is store.js\'s\nconst s = window.localStorage;\nfetch("http://x/"); caches.keys();',
    "web/src/worker/boot/files.js": "/* caches */\nawait caches.open(name);",
    "web/src/page/store.js": "backend = localStorage; sessionStorage.clear();",
    "overrides/main.html": "{# caches #}<script>indexedDB.open('x'); // caches\n</script>",
  }), [
    "web/src/page/main.js:2 localStorage",
    "web/src/page/main.js:3 caches",
    "web/src/worker/boot/files.js:2 caches",
    "web/src/page/store.js:1 sessionStorage",
    "overrides/main.html:1 indexedDB",
  ]);
});
