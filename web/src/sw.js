/**
 * The site's service worker: offline use and cross-origin isolation on any static host.
 *
 * - Offline: on install it precaches every file of the site (pages, Pyodide, numpy, pytest, bundles), so after
 *   one visit the whole site works with the server gone. Files are served cache-first.
 * - Updates: the build writes a new PRECACHE.version whenever any file changes, so the browser sees a new
 *   sw.js on the next navigation, installs it, drops the old cache and tells open pages to reload.
 * - Isolation: the pages and worker scripts it serves carry COOP/COEP/CORP headers, so pages it controls are
 *   cross-origin isolated even on hosts that cannot set headers, and Stop can interrupt Python in place.
 *
 * tools/offline.py prepends `const PRECACHE = {version, files}` when it copies this file to the site root.
 */
/* global PRECACHE */
const CACHE = `tinyllm-${PRECACHE.version}`;
const SCOPE = new URL("./", self.location).href;

function isolate(response) {
  if (!response || response.type === "opaque" || response.type === "error") return response;
  const headers = new Headers(response.headers);
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Cross-Origin-Embedder-Policy", "require-corp");
  headers.set("Cross-Origin-Resource-Policy", "same-origin");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // cache: "reload" bypasses the HTTP cache, so a new version never precaches an old file.
    await cache.addAll(PRECACHE.files.map((f) => new Request(new URL(f, SCOPE), { cache: "reload" })));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    const old = names.filter((n) => n.startsWith("tinyllm-") && n !== CACHE);
    await Promise.all(old.map((n) => caches.delete(n)));
    await self.clients.claim();
    if (old.length) {
      for (const client of await self.clients.matchAll({ type: "window" })) {
        client.postMessage({ type: "tl-sw-updated", version: PRECACHE.version });
      }
    }
  })());
});

self.addEventListener("message", (event) => {
  if (event.data && event.data.type === "tl-sw-status") {
    event.waitUntil((async () => {
      const cache = await caches.open(CACHE);
      const cached = (await cache.keys()).length;
      event.source.postMessage({ type: "tl-sw-status", version: PRECACHE.version, cached, total: PRECACHE.files.length });
    })());
  }
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(SCOPE)) return;
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    let response = await cache.match(request, { ignoreSearch: true });
    if (!response) {
      try {
        response = await fetch(request);
      } catch (err) {
        if (request.mode === "navigate") response = await cache.match(new URL("404.html", SCOPE));
        if (!response) return Response.error();
      }
    }
    // Isolation needs the headers only on documents and worker scripts (same-origin subresources load under
    // COEP without them). Everything else is returned as the cache holds it, which lets the browser serve it
    // without pumping it through this worker, and keep its compiled-WebAssembly cache for the 10 MB core.
    return request.mode === "navigate" || request.destination === "worker" ? isolate(response) : response;
  })());
});
