/**
 * The service worker (web/src/sw/sw.js) under node --test: its source run in a context of its own, with the globals
 * tools/offline.py prepends, a fake Cache Storage, a fake site behind `fetch` (every download recorded) and a
 * fake HTTP cache, so its fills and updates can be driven event by event without a browser.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import vm from "node:vm";

const SOURCE = readFileSync(new URL("../src/sw/sw.js", import.meta.url), "utf8");
export const ORIGIN = "http://127.0.0.1:8000/";
const HANDOFF = "tinyllm-handoff";
const HASH = "X-TL-SHA256";

/** The sha256 prefix tools/offline.py lists for `body`. */
export const digest = (body) => createHash("sha256").update(body).digest("hex").slice(0, 16);

/**
 * PRECACHE as tools/offline.py writes it, for a site of `files` ({url: body}) grouped as given.
 * @param {Record<string, string>} files
 * @param {{platform?: string[], units?: {name: string, pages: string[], files: string[]}[], version?: string}} groups
 *   without `platform`, the list has no groups (an older build's)
 */
export function precacheOf(files, { platform, units = [], version = "v1" } = {}) {
  const urls = Object.keys(files);
  const at = (url) => {
    if (!urls.includes(url)) throw new Error(`${url} is not a file of the site`);
    return urls.indexOf(url);
  };
  const list = { version, files: urls.map((url) => [url, digest(files[url]), Buffer.byteLength(files[url])]),
    bytes: urls.reduce((n, url) => n + Buffer.byteLength(files[url]), 0) };
  if (!platform) return list;
  return { ...list, platform: platform.map(at),
    units: units.map((u) => ({ name: u.name, pages: u.pages.map(at), files: u.files.map(at) })) };
}

class FakeCache {
  constructor() {
    this.entries = new Map();
  }

  async match(request) {
    const url = String(request.url || request).split(/[?#]/)[0];
    const found = this.entries.get(url);
    return found ? found.clone() : undefined;
  }

  async put(request, response) {
    const body = await response.arrayBuffer();
    this.entries.set(String(request.url || request), new Response(body, { status: response.status, headers: response.headers }));
  }

  async keys() {
    return [...this.entries.keys()].map((url) => ({ url }));
  }

  async delete(request) {
    return this.entries.delete(String(request.url || request));
  }
}

/** Cache Storage, shared by every service worker of one "browser" (one origin). */
export class FakeCaches {
  constructor() {
    this.named = new Map();
  }

  async open(name) {
    if (!this.named.has(name)) this.named.set(name, new FakeCache());
    return this.named.get(name);
  }

  async has(name) {
    return this.named.has(name);
  }

  async delete(name) {
    return this.named.delete(name);
  }

  async keys() {
    return [...this.named.keys()];
  }

  /** The URLs (relative to the origin) a cache holds, sorted. */
  held(name) {
    const cache = this.named.get(name);
    return cache ? [...cache.entries.keys()].map((u) => u.slice(ORIGIN.length)).sort() : [];
  }

  /** Put `files` ({url: body}) in the hand-off cache, as the Python worker does with its downloads. */
  async handOff(files) {
    const cache = await this.open(HANDOFF);
    for (const [url, body] of Object.entries(files)) await cache.put(ORIGIN + url, new Response(body));
  }
}

/**
 * One installed version of sw.js: `site` ({url: body}) is what the server answers, `precache` its PRECACHE,
 * `browser` the origin's storage ({caches, httpCache: {url: body}}), shared between versions.
 * `downloads` lists every URL fetched from the server (relative), `events` what each event's waitUntil awaited.
 */
export function serviceWorker({ site, precache, browser }) {
  const listeners = {};
  const downloads = [];
  const told = [];
  const fakeFetch = async (input, init = {}) => {
    const url = String(input.url || input);
    const path = url.slice(ORIGIN.length);
    if (browser.offline) throw new TypeError("Failed to fetch (offline)");
    if (init.cache === "only-if-cached") {
      if (!(path in browser.httpCache)) throw new TypeError("not in the HTTP cache");
      return new Response(browser.httpCache[path], { status: 200 });
    }
    if (!url.startsWith(ORIGIN)) {
      (browser.elsewhere ||= []).push(url);
      return new Response("another origin", { status: 200 });
    }
    downloads.push(path);
    if (!(path in site)) return new Response("not found", { status: 404 });
    return new Response(site[path], { status: 200 });
  };
  const self = {
    location: new URL("sw.js", ORIGIN),
    addEventListener: (type, fn) => { listeners[type] = fn; },
    skipWaiting: async () => {},
    clients: { claim: async () => {}, matchAll: async () => [{ postMessage: (m) => told.push(m) }],
      get: async (id) => (browser.clients || {})[id] },
  };
  const hashed = []; // the length of every body hashed
  const crypto = { subtle: { digest: (algorithm, body) => {
    hashed.push(body.byteLength);
    return globalThis.crypto.subtle.digest(algorithm, body);
  } } };
  const context = vm.createContext({ self, caches: browser.caches, fetch: fakeFetch, crypto,
    Response, Headers, URL, Blob, console, setTimeout, clearTimeout });
  const head = `const PRECACHE = ${JSON.stringify(precache)};\nconst HANDOFF = ${JSON.stringify(HANDOFF)};\n`
    + `const HASH = ${JSON.stringify(HASH)};\n`;
  vm.runInContext(head + SOURCE, context, { filename: "sw.js" });

  /** Fire an event; resolves once what it handed to waitUntil settles. */
  async function fire(type, fields = {}) {
    const waits = [];
    listeners[type]({ ...fields, waitUntil: (p) => waits.push(p) });
    await Promise.all(waits);
  }
  /** The reply to a message from a page (`tl-sw-status`), or null. */
  async function ask(data) {
    let reply = null;
    await fire("message", { data, source: { postMessage: (m) => { reply = m; } } });
    return reply;
  }
  /** What this worker answers a page's GET of `path` (its `mode`: "navigate" for a page). */
  async function serve(path, { mode = "cors", destination = "", method = "GET", clientId = "" } = {}) {
    let answer = null;
    const waits = [];
    const request = { url: /^https?:/.test(path) ? path : ORIGIN + path, method, mode, destination };
    listeners.fetch({ request, clientId, respondWith: (p) => { answer = p; }, waitUntil: (p) => waits.push(p) });
    const response = answer ? await answer : undefined;
    await Promise.all(waits); // what it keeps as the answer passes
    return response;
  }
  return {
    downloads, told, context, fire, ask, serve, hashed,
    install: () => fire("install"),
    activate: () => fire("activate"),
    /** scopeOf(page) with relative URLs in and out, sorted. */
    scopeOf: (page) => Array.from(context.scopeOf(ORIGIN + page), (u) => u.slice(ORIGIN.length)).sort(),
    cacheName: `tinyllm-${precache.version}`,
  };
}

/** A fresh browser for one origin: empty Cache Storage and HTTP cache. */
export const freshBrowser = () => ({ caches: new FakeCaches(), httpCache: {} });
