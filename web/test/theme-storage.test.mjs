// overrides/main.html's first <head> script: unreadable theme settings (mkdocs-material's `__palette` and the
// like, under its scope's path) are removed before the theme's own inline scripts parse them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";

const TEMPLATE = readFileSync(new URL("../../overrides/main.html", import.meta.url), "utf8");
const SCRIPT = /<script data-tl="theme-storage">([\s\S]*?)<\/script>/.exec(TEMPLATE)[1];

// mkdocs-material 9.8.2, partials/javascripts/base.html and partials/javascripts/palette.html (minified, as
// shipped): how the theme defines __md_get and reads the palette on every page load.
const THEME_BASE = '__md_scope=new URL(SCOPE,location),__md_hash=e=>[...e].reduce(((e,_)=>(e<<5)-e+_.charCodeAt(0)),0),__md_get=(e,_=localStorage,t=__md_scope)=>JSON.parse(_.getItem(t.pathname+"."+e)),__md_set=(e,_,t=localStorage,a=__md_scope)=>{try{t.setItem(a.pathname+"."+e,JSON.stringify(_))}catch(e){}}';
const THEME_PALETTE = 'var palette=__md_get("__palette");if(palette&&palette.color){for(var[key,value]of Object.entries(palette.color))document.body.setAttribute("data-md-color-"+key,value)}';

class FakeStorage {
  constructor(entries) { this.map = new Map(Object.entries(entries)); }
  get length() { return this.map.size; }
  key(i) { return [...this.map.keys()][i] ?? null; }
  getItem(k) { return this.map.has(k) ? this.map.get(k) : null; }
  setItem(k, v) { this.map.set(k, String(v)); }
  removeItem(k) { this.map.delete(k); }
}

/** Run the head as a page at `href` would: our script (unless `skip`), then the theme's. */
function loadPage(entries, { href = "http://127.0.0.1:8000/m07/rejection-sampling/", baseUrl = "../..", skip = false } = {}) {
  const attributes = {};
  const context = vm.createContext({
    URL, location: { href, toString: () => href }, localStorage: new FakeStorage(entries),
    document: { body: { setAttribute: (k, v) => { attributes[k] = v; } } },
  });
  const ours = SCRIPT.replace(/\{\{ config\.extra\.scope \| d\(base_url\) \}\}/, baseUrl);
  if (!skip) vm.runInContext(ours, context);
  vm.runInContext(THEME_BASE.replace("SCOPE", JSON.stringify(baseUrl)), context);
  vm.runInContext(THEME_PALETTE, context);
  return { storage: context.localStorage.map, attributes };
}

test("the template's script is the one tested, and it reads the theme's scope as the theme does", () => {
  assert.match(TEMPLATE, /\{\{ config\.extra\.scope \| d\(base_url\) \}\}/);
  assert.ok(TEMPLATE.indexOf('data-tl="theme-storage"') < TEMPLATE.indexOf("__tlEarlyWorker"));
  assert.match(TEMPLATE,
    /\{% block site_meta %\}\s*\{\{ super\(\) \}\}\s*<script data-tl="errors">[\s\S]*?<\/script>\s*<script data-tl="theme-storage">/,
    "in site_meta, the first blocks of the head: before base.html defines and uses __md_get");
});

test("the page keeps what it throws, the first 50, for the engine tests' WebKit driver", () => {
  const source = /<script data-tl="errors">([\s\S]*?)<\/script>/.exec(TEMPLATE)[1];
  const handlers = {};
  const context = vm.createContext({ addEventListener: (type, fn) => { handlers[type] = fn; } });
  context.window = context;
  vm.runInContext(source, context);
  handlers.error({ message: "boom" });
  handlers.unhandledrejection({ reason: new Error("late") });
  for (let i = 0; i < 60; i += 1) handlers.error({ message: `again ${i}` });
  assert.equal(context.tlErrors.length, 50);
  assert.deepEqual(JSON.parse(JSON.stringify(context.tlErrors.slice(0, 2).map((e) => e.split("\n")[0]))),
    ["boom", "Error: late"]);
});

test("without the script, a corrupt palette throws on every page load (the bug)", () => {
  assert.throws(() => loadPage({ "/.__palette": "{" }, { skip: true }), { name: "SyntaxError" });
});

test("a corrupt palette is removed before the theme reads it; the theme then uses its default", () => {
  const { storage, attributes } = loadPage({ "/.__palette": "{", "tinyllm:v1:code:e7-3": "{also not json" });
  assert.equal(storage.has("/.__palette"), false);
  assert.deepEqual(attributes, {});
  assert.equal(storage.get("tinyllm:v1:code:e7-3"), "{also not json", "the site's own entries are store.js's business");
});

test("a readable palette is kept and applied; other theme entries are checked the same way", () => {
  const palette = JSON.stringify({ index: 1, color: { media: "", scheme: "slate", primary: "indigo", accent: "indigo" } });
  const { storage, attributes } = loadPage({ "/.__palette": palette, "/.__tabs": "[oops", "/.__consent": "{}" });
  assert.equal(storage.get("/.__palette"), palette);
  assert.equal(attributes["data-md-color-scheme"], "slate");
  assert.equal(storage.has("/.__tabs"), false);
  assert.equal(storage.get("/.__consent"), "{}");
});

test("the scope is the site's root path, for a site served under a sub-path too", () => {
  const { storage } = loadPage({ "/course/.__palette": "{", "/.__palette": "{" },
    { href: "http://host.test/course/e7/page/", baseUrl: "../.." });
  assert.equal(storage.has("/course/.__palette"), false);
  assert.equal(storage.get("/.__palette"), "{", "another site's entry on the same origin is left alone");
});

test("no storage at all: the script is silent", () => {
  const context = vm.createContext({ URL, location: { href: "http://x.test/" } });
  Object.defineProperty(context, "localStorage", { get() { throw new Error("denied"); } });
  assert.doesNotThrow(() => vm.runInContext(SCRIPT.replace(/\{\{[^}]*\}\}/, "."), context));
});
