/**
 * The site's service worker: offline use and cross-origin isolation on any static host.
 *
 * - Every byte once: the build lists every file of the offline copy with its sha256 (PRECACHE.files). The copy
 *   is filled from what the browser already holds before anything is downloaded: on install, each file comes
 *   from the previous version's copy when its hash is unchanged, else from what the Python worker handed off
 *   (worker/boot/handoff.js handingOff), else from the HTTP cache (`only-if-cached`, which the page has just filled); a file
 *   fetched through this worker is kept as it passes. What is still missing is downloaded only when a page
 *   asks (`tl-sw-fill`): main.js asks once Python is ready and the page is idle, unless the connection asks to
 *   save data; then the learner asks, from the home page or the progress page (offline.js). Every file is checked against its hash before it is kept, so
 *   a stale or truncated answer is never served offline.
 * - Updates: a new build writes a new PRECACHE.version whenever any file changes, so the browser sees a new
 *   sw.js on the next navigation and installs it; the install downloads only the files whose hash changed
 *   (revalidating, so an unchanged file costs a 304), drops the old copy and tells open pages to reload.
 * - Isolation: the pages and worker scripts it serves carry COOP/COEP/CORP headers, so pages it controls are
 *   cross-origin isolated even on hosts that cannot set headers, and Stop can interrupt Python in place.
 *
 * tools/offline.py prepends `const PRECACHE = {version, files: [[url, sha256 prefix], ...]}`, `const HANDOFF` (the
 * hand-off cache's name) and `const HASH` (the header kept on every stored response with its hash, so the next
 * version can reuse it without reading it, and the Python worker hands off no file of this copy), from
 * tools/build_outputs.py RUNTIME, as the worker reads them from shared/build-outputs.js, when it copies this file
 * to the site root.
 */
/* global PRECACHE, HANDOFF, HASH */
const CACHE = `tinyllm-${PRECACHE.version}`;
const SCOPE = new URL("./", self.location).href;
const WANTED = new Map(PRECACHE.files.map(([file, hash]) => [new URL(file, SCOPE).href, hash]));
const PARALLEL = 4;
let filling = null;

/** The copies of other versions (not this one's, not the hand-off). */
const olderCopies = async () => (await caches.keys())
  .filter((n) => n.startsWith("tinyllm-") && n !== CACHE && n !== HANDOFF);

const hex = (buffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
const key = (url) => url.split(/[?#]/)[0];

function isolate(response) {
  if (!response || response.type === "opaque" || response.type === "error") return response;
  const headers = new Headers(response.headers);
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Cross-Origin-Embedder-Policy", "require-corp");
  headers.set("Cross-Origin-Resource-Policy", "same-origin");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** The response to keep for `url`, or null unless it is a complete 200 with the build's bytes. */
async function verified(url, response) {
  const want = WANTED.get(url);
  if (!want || !response || response.status !== 200) return null;
  const body = await response.arrayBuffer();
  if (hex(await crypto.subtle.digest("SHA-256", body)).slice(0, want.length) !== want) return null;
  const headers = new Headers(response.headers);
  headers.delete("Content-Encoding"); // the body is stored decoded
  headers.delete("Content-Length");
  headers.set(HASH, want);
  return new Response(body, { status: 200, statusText: response.statusText, headers });
}

/** The same file in an older version's copy: {same: its response when its hash is the one wanted, held: whether
 * that copy had the file at all}. */
async function fromOlderCopy(url, older) {
  let held = false;
  for (const name of older) {
    const response = await (await caches.open(name)).match(url);
    if (response && response.headers.get(HASH) === WANTED.get(url)) return { same: response, held: true };
    held = held || Boolean(response);
  }
  return { same: null, held };
}

const quietFetch = (url, init) => fetch(url, init).catch(() => null);

/** `url` as the Python worker handed it off, verified, or null. */
async function fromHandoff(url) {
  if (!(await caches.has(HANDOFF))) return null;
  return verified(url, await (await caches.open(HANDOFF)).match(url));
}

/** Files of the copy on their way in, by URL: a verified response (or null) once downloaded and kept. A second
 * request for one waits for it instead of downloading it again. */
const inflight = new Map();

/** Keep `response` (or, when it is a promise, what it resolves to) as `url`'s copy once it is verified. */
function keep(url, cache, response) {
  if (!inflight.has(url)) {
    const kept = Promise.resolve(response).then((r) => verified(url, r))
      .then(async (r) => {
        if (r) await cache.put(url, r.clone());
        return r;
      })
      .catch(() => null)
      .finally(() => inflight.delete(url));
    inflight.set(url, kept);
  }
  return inflight.get(url);
}

/**
 * Put every missing file in the copy. `network`: "none" takes only what costs no download (an older copy, the
 * hand-off, the HTTP cache); "changed" also downloads the files an older copy had in another version (an update:
 * a package the learner never used, and so never had, stays for the idle fill); "all" downloads the rest,
 * revalidating what the HTTP cache holds.
 */
async function fill(network) {
  const cache = await caches.open(CACHE);
  const held = new Set((await cache.keys()).map((r) => r.url));
  const older = await olderCopies();
  const missing = [...WANTED.keys()].filter((url) => !held.has(url));
  const one = async (url) => {
    if (inflight.has(url)) await inflight.get(url);
    if (await cache.match(url)) return; // fetched through this worker meanwhile
    const { same, held: hadIt } = await fromOlderCopy(url, older);
    let response = same || (await fromHandoff(url));
    if (!response) {
      response = await verified(url, await quietFetch(url, { cache: "only-if-cached", mode: "same-origin" }));
    }
    if (response) await cache.put(url, response);
    else if (network === "all" || (network === "changed" && hadIt)) {
      await keep(url, cache, quietFetch(url, { cache: "no-cache" }));
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    while (missing.length) await one(missing.shift());
  }));
  if (network === "all" && (await cache.keys()).length >= WANTED.size) await caches.delete(HANDOFF);
}

async function status() {
  const cache = await caches.open(CACHE);
  const held = (await cache.keys()).filter((r) => WANTED.has(r.url)).length;
  return { type: "tl-sw-status", version: PRECACHE.version, cached: held, total: WANTED.size, filling: !!filling };
}

async function tellPages(message) {
  for (const client of await self.clients.matchAll({ type: "window" })) client.postMessage(message);
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const update = (await olderCopies()).length > 0;
    await fill(update ? "changed" : "none"); // an update downloads what changed now; a first visit takes what the page fetched
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const old = await olderCopies();
    await Promise.all(old.map((n) => caches.delete(n)));
    await self.clients.claim();
    if (old.length) await tellPages({ type: "tl-sw-updated", version: PRECACHE.version });
  })());
});

self.addEventListener("message", (event) => {
  const type = event.data && event.data.type;
  if (type === "tl-sw-status") {
    event.waitUntil(status().then((s) => event.source.postMessage(s)));
  } else if (type === "tl-sw-fill") {
    filling = filling || fill("all").finally(() => { filling = null; });
    event.waitUntil(filling.then(status).then(tellPages));
  }
});

const escapeHTML = (text) => text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

/**
 * The answer to a page of the site opened offline before the offline copy holds it: a page of its own saying so,
 * with a link to every page that is saved (their titles read from the copy), home first.
 */
async function notSavedYet(url, cache) {
  const pages = [];
  for (const request of await cache.keys()) {
    const address = request.url;
    if (!address.endsWith("/") || !WANTED.has(address)) continue;
    const html = await (await cache.match(request)).text();
    const title = /<title>([^<]*)<\/title>/.exec(html)?.[1]?.trim() || address.slice(SCOPE.length) || "Home";
    pages.push({ address, title });
  }
  pages.sort((a, b) => (a.address === SCOPE ? -1 : b.address === SCOPE ? 1 : a.title.localeCompare(b.title)));
  const list = pages.map((p) => `<li><a href="${escapeHTML(p.address)}">${p.title}</a></li>`).join("\n");
  const body = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Not saved for offline use yet</title>
<style>body{font:1rem/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}</style></head>
<body><main><h1>This page is not saved for offline use yet</h1>
<p>You are offline, and <code>${escapeHTML(url.slice(SCOPE.length) || "/")}</code> had not been saved on this device
before the connection went. It will be once you are back online and open the site again.</p>
${pages.length ? `<p>These pages are saved and work offline:</p>\n<ul>\n${list}\n</ul>` : "<p>No page is saved yet.</p>"}
</main></body></html>`;
  return new Response(body, { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(SCOPE)) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    let response = await cache.match(request, { ignoreSearch: true });
    const url = key(request.url);
    if (!response && inflight.has(url)) response = (await inflight.get(url))?.clone();
    if (!response && WANTED.has(url)) {
      // Downloaded by a Python worker this worker did not control (the first one of a first visit): a second
      // one (the spare, a restart) takes it from there, and so does the copy.
      response = await fromHandoff(url);
      if (response) await cache.put(url, response.clone());
    }
    if (!response) {
      try {
        response = await fetch(request);
      } catch (err) {
        // Offline: a page of the site that is not saved yet says so and links to the saved ones; any other
        // address is the site's own "not found" page.
        if (request.mode === "navigate") {
          response = WANTED.has(url) ? isolate(await notSavedYet(url, cache))
            : await cache.match(new URL("404.html", SCOPE));
        }
        if (!response) return Response.error();
      }
      // A file of the offline copy, fetched through here: kept as it passes, so it is never downloaded again.
      if (WANTED.has(url) && response.status === 200) event.waitUntil(keep(url, cache, response.clone()));
    }
    // Isolation needs the headers only on documents and worker scripts (same-origin subresources load under
    // COEP without them). Everything else is returned as the cache holds it, which lets the browser serve it
    // without pumping it through this worker, and keep its compiled-WebAssembly cache for the core.
    return request.mode === "navigate" || request.destination === "worker" ? isolate(response) : response;
  })());
});
