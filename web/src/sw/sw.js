/**
 * The site's service worker: offline use and cross-origin isolation on any static host.
 *
 * - Every byte once: the build lists every file of the offline copy with its sha256 and size (PRECACHE.files). The
 *   copy is filled from what the browser already holds before anything is downloaded: on install, each file comes
 *   from the previous version's copy when its hash is unchanged, else from what the Python worker handed off
 *   (worker/boot/handoff.js handingOff), else from the HTTP cache (`only-if-cached`, which the page has just filled); a file
 *   fetched through this worker is kept as it passes. Every file is checked against its hash before it is kept, so
 *   a stale or truncated answer is never served offline, and again when it is served or carried over to a new
 *   version (`verified`, once in this worker's lifetime: `memo`): the bytes, never the header a stored response
 *   carries. An entry rewritten on this device is thrown away and downloaded again, or refused offline with a 503
 *   that says why.
 * - What the learner uses, not the whole course (issue 34): files are downloaded only when a page asks
 *   (`tl-sw-fill`). main.js asks once Python is ready and the page is idle, unless the connection asks to save
 *   data, for that page's scope (`scopeOf`): the platform every page needs, and the page's unit, its chapter or
 *   module with the pages and bundles of what they build on (tools/offline.py groups them). "Save the whole course
 *   for offline use" (offline.js, on the home and progress pages) asks for everything, and shows its size first.
 * - Updates: a new build writes a new PRECACHE.version whenever any file changes, so the browser sees a new
 *   sw.js on the next navigation and installs it; the install downloads only the files whose hash changed of those
 *   the copy held (revalidating, so an unchanged file costs a 304), drops the old copy and tells open pages to
 *   reload.
 * - Python first: while a page's Python runs something the learner asked for (a Run or a Check), the page says so
 *   (`tl-sw-hold`) and a fill takes no new file until it is over (`unheld`), or after HOLD_MS at most (a page that
 *   closed mid-run): the copy's downloads and hashing would otherwise share the CPU with the learner's verdict.
 * - Isolation: the pages and worker scripts it serves carry COOP/COEP/CORP headers, so pages it controls are
 *   cross-origin isolated even on hosts that cannot set headers, and Stop can interrupt Python in place.
 *
 * tools/offline.py prepends `const PRECACHE = {version, files: [[url, sha256 prefix, bytes], ...], platform: [i],
 * units: [{name, pages: [i], files: [i]}], bytes}` (indices into `files`), `const HANDOFF` (the hand-off cache's
 * name) and `const HASH` (the header kept on every stored response with its hash: the next version looks at the bytes
 * only of a file whose header says it is unchanged, and the Python worker hands off no file of this copy), from tools/build_outputs.py RUNTIME,
 * as the worker reads them from shared/build-outputs.js, when it copies this file to the site root.
 */
/* global PRECACHE, HANDOFF, HASH */
const CACHE = `tinyllm-${PRECACHE.version}`;
const SCOPE = new URL("./", self.location).href;
const URLS = PRECACHE.files.map(([file]) => new URL(file, SCOPE).href);
const WANTED = new Map(PRECACHE.files.map(([, hash], i) => [URLS[i], hash]));
const SIZE = new Map(PRECACHE.files.map(([, , bytes], i) => [URLS[i], Number(bytes) || 0]));
const named = (indices) => (indices || []).map((i) => URLS[i]).filter(Boolean);
// A list without groups (an older build's) is all platform: the whole site is saved, as it was.
const PLATFORM = PRECACHE.platform ? named(PRECACHE.platform) : URLS;
const UNITS = (PRECACHE.units || []).map((unit) => named(unit.files));
const UNIT_OF = new Map((PRECACHE.units || []).flatMap((unit, i) => named(unit.pages).map((page) => [page, i])));
const PARALLEL = 4;

const hex = (buffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, "0")).join("");
const key = (url) => url.split(/[?#]/)[0];

/**
 * What a visit of `page` saves: the platform (what every page needs), the page itself, and when the page belongs
 * to a unit, that unit's files (its chapter or module, and the pages and bundles of what they build on).
 * @param {string} page  the page's address
 * @returns {string[]} addresses of files of the copy
 */
function scopeOf(page) {
  const address = key(String(page || ""));
  const unit = UNIT_OF.get(address);
  const own = WANTED.has(address) ? [address] : [];
  return [...new Set([...PLATFORM, ...own, ...(unit === undefined ? [] : UNITS[unit])])];
}

/** The total size of `urls`, from the build's list. */
const bytesOf = (urls) => urls.reduce((sum, url) => sum + (SIZE.get(url) || 0), 0);

/** The copies of other versions (not this one's, not the hand-off). */
const olderCopies = async () => (await caches.keys())
  .filter((n) => n.startsWith("tinyllm-") && n !== CACHE && n !== HANDOFF);

function isolate(response, policy = "") {
  if (!response || response.type === "opaque" || response.type === "error") return response;
  const headers = new Headers(response.headers);
  if (policy) headers.set("Content-Security-Policy", policy);
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Cross-Origin-Embedder-Policy", "require-corp");
  headers.set("Cross-Origin-Resource-Policy", "same-origin");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * Files this worker has hashed in its lifetime (`verified`), by URL: their bytes and their type, served from here
 * afterwards without reading or hashing again; up to MEMO_BYTES. A file read from the copy is kept as its stored
 * response's Blob: a handle on the bytes on disk, not a copy, which the browser streams to the page as it did a
 * stored response before issue 52, and which no later write to Cache Storage can change (a Blob never changes). A
 * file on its way in from the network is kept as the ArrayBuffer it was hashed in: making a Blob of it costs
 * Chromium a copy into its blob store, which slowed a first visit's first Check (bench/README.md, issue 52). So
 * each file is hashed once a lifetime: on a first visit as the install keeps it, on a later visit as the first
 * worker asks for it; a spare worker's start costs no hashing.
 */
const MEMO_BYTES = 64 * 1024 * 1024;
const memo = new Map();
let memoBytes = 0;
const sizeOf = (body) => (body instanceof Blob ? body.size : body.byteLength);

function remember(url, body, type) {
  if (memo.has(url) || memoBytes + sizeOf(body) > MEMO_BYTES) return;
  memo.set(url, { body, type });
  memoBytes += sizeOf(body);
}

/** A response carrying `body` (bytes already hashed: a Blob or an ArrayBuffer) with its type and hash, and no
 * other stored header. */
const answer = (url, body, type) => new Response(body, { status: 200,
  headers: { ...(type ? { "Content-Type": type } : {}), [HASH]: WANTED.get(url) } });

/** `url` as this worker has already hashed it, or null. */
function fromMemo(url) {
  const kept = memo.get(url);
  return kept ? answer(url, kept.body, kept.type) : null;
}

/**
 * `response` made again from its bytes when they are the build's (a complete 200 whose sha256 is the list's), else
 * null: for a file about to be kept (`stored` false: from the network), and for one the copy holds each time it is
 * served or carried over to a new version. Any script of the site's origin can write Cache Storage (learner code in
 * a lesson's worker can reach `caches`), so what the copy holds is never trusted for the hash header it carries: a
 * rewritten hidden test, judge or page is thrown away, never used. Only the type of a stored response is kept: its
 * other headers are not ours. What is served is the Blob or ArrayBuffer whose bytes were hashed.
 */
async function verified(url, response, stored = true) {
  const want = WANTED.get(url);
  if (!want || !response || response.status !== 200) return null;
  const body = stored ? await response.blob() : await response.arrayBuffer();
  const bytes = stored ? await body.arrayBuffer() : body;
  if (hex(await crypto.subtle.digest("SHA-256", bytes)).slice(0, want.length) !== want) return null;
  const type = response.headers.get("Content-Type") || "";
  remember(url, body, type);
  return answer(url, body, type);
}

/**
 * `url`, a file of the build's list, as this worker serves it from what it holds: the bytes it has hashed, else
 * the copy's entry once its bytes are found to be the build's. {response (null when neither), altered: the copy
 * held an entry whose bytes were not the build's, now deleted}.
 */
async function fromCopy(cache, url) {
  const kept = fromMemo(url);
  if (kept) return { response: kept, altered: false };
  const stored = await cache.match(url);
  const response = stored ? await verified(url, stored) : null;
  if (stored && !response) await cache.delete(url);
  return { response, altered: Boolean(stored && !response) };
}

/** The same file in an older version's copy: {same: it, made again from its bytes, when they are the ones wanted,
 * held: whether that copy had the file at all}. A rewritten entry is not carried over: the update downloads it. */
async function fromOlderCopy(url, older) {
  let held = false;
  for (const name of older) {
    const response = await (await caches.open(name)).match(url);
    const same = response && response.headers.get(HASH) === WANTED.get(url) ? await verified(url, response) : null;
    if (same) return { same, held: true };
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
    const kept = Promise.resolve(response).then((r) => verified(url, r, false))
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
 * Put missing files in the copy. Every missing file is taken when it costs no download (an older copy, the
 * hand-off, the HTTP cache); with `changed`, the files an older copy had in another version are downloaded too (an
 * update: what the copy did not hold stays out of it); the files of `download` are downloaded, revalidating what
 * the HTTP cache holds.
 * @param {{changed?: boolean, download?: string[]}} what
 */
async function fill({ changed = false, download = [] } = {}) {
  const cache = await caches.open(CACHE);
  const held = new Set((await cache.keys()).map((r) => r.url));
  const older = await olderCopies();
  const wanted = new Set(download);
  const missing = [...WANTED.keys()].filter((url) => !held.has(url));
  const one = async (url) => {
    if (inflight.has(url)) await inflight.get(url);
    if (await cache.match(url)) return; // fetched through this worker meanwhile
    const { same, held: hadIt } = await fromOlderCopy(url, older);
    let response = same || (await fromHandoff(url));
    if (!response) {
      response = await verified(url, await quietFetch(url, { cache: "only-if-cached", mode: "same-origin" }), false);
    }
    if (response) await cache.put(url, response);
    else if (wanted.has(url) || (changed && hadIt)) await keep(url, cache, quietFetch(url, { cache: "no-cache" }));
  };
  await Promise.all(Array.from({ length: PARALLEL }, async () => {
    while (missing.length) {
      await unheld();
      if (missing.length) await one(missing.shift());
    }
  }));
  if (wanted.size) await dropHandoffOnceTaken(cache);
}

/** The hand-off serves until the copy holds every file of it (those of another build are of no use). */
async function dropHandoffOnceTaken(cache) {
  if (!(await caches.has(HANDOFF))) return;
  const handed = (await (await caches.open(HANDOFF)).keys()).map((r) => r.url).filter((url) => WANTED.has(url));
  const held = new Set((await cache.keys()).map((r) => r.url));
  if (handed.every((url) => held.has(url))) await caches.delete(HANDOFF);
}

/** How long a page's hold lasts at most without another word from it (a page closed mid-run says nothing). */
const HOLD_MS = 30_000;
/** The pages whose Python is busy with the learner's work, by client id: when each hold lapses (ms since 1970). */
const holds = new Map();
/** Fills waiting for the holds to end: each is called once they do. */
let waiting = [];

/** Note a page's `busy` (its Python runs the learner's work, or no longer does), and wake the fills once none is. */
function hold(client, busy) {
  if (busy) holds.set(client, Date.now() + HOLD_MS);
  else holds.delete(client);
  wake();
}

/** A timer for the earliest lapse while fills wait. */
let lapse = null;

function wake() {
  const now = Date.now();
  for (const [client, until] of holds) if (until <= now) holds.delete(client);
  clearTimeout(lapse);
  lapse = null;
  if (holds.size) {
    if (waiting.length) lapse = setTimeout(wake, Math.min(...holds.values()) - now + 1);
    return;
  }
  const woken = waiting;
  waiting = [];
  for (const fn of woken) fn();
}

/** Resolves once no page holds the fills (at once when none does). */
function unheld() {
  return new Promise((resolve) => {
    waiting.push(resolve);
    wake();
  });
}

/** The fills asked for, one after another: how many are waiting or running, and whether one is for everything. */
const fills = { queue: Promise.resolve(), waiting: 0, whole: 0 };

/** Download `urls` (after the fills asked for before); `whole`: they are the whole copy ("Save the whole course"). */
function fillThese(urls, whole) {
  fills.waiting += 1;
  fills.whole += whole ? 1 : 0;
  fills.queue = fills.queue.then(() => fill({ download: urls })).catch(() => {}).finally(() => {
    fills.waiting -= 1;
    fills.whole -= whole ? 1 : 0;
  });
  return fills.queue;
}

/**
 * The copy's state: files and bytes held of the whole list, whether a fill is on its way (`whole`: one for
 * everything), how many pages hold the fills (`holds`), the files being downloaded into it (`inflight`, which an
 * update waits for: an event of this worker still running keeps a new version waiting), and, when `page` is given,
 * whether that page's scope is held (`pageSaved`).
 */
async function status(page) {
  const cache = await caches.open(CACHE);
  const held = (await cache.keys()).map((r) => r.url).filter((url) => WANTED.has(url));
  const reply = { type: "tl-sw-status", version: PRECACHE.version, cached: held.length, total: WANTED.size,
    heldBytes: bytesOf(held), bytes: bytesOf([...WANTED.keys()]), filling: fills.waiting > 0, whole: fills.whole > 0,
    holds: holds.size, inflight: [...inflight.keys()].map((url) => url.slice(SCOPE.length)) };
  if (page) {
    const have = new Set(held);
    reply.pageSaved = scopeOf(page).every((url) => have.has(url));
  }
  return reply;
}

async function tellPages(message) {
  for (const client of await self.clients.matchAll({ type: "window" })) client.postMessage(message);
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const update = (await olderCopies()).length > 0;
    await fill({ changed: update }); // an update downloads what changed of the copy now; a first visit takes what the page fetched
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
    event.waitUntil(status(event.data.page).then((s) => event.source.postMessage(s)));
  } else if (type === "tl-sw-hold") {
    hold(event.source && event.source.id, Boolean(event.data.busy));
  } else if (type === "tl-sw-fill") {
    // {page}: what a visit of that page saves (main.js, when the page is idle); without one, everything.
    const whole = !event.data.page;
    const done = fillThese(whole ? [...WANTED.keys()] : scopeOf(event.data.page), whole);
    event.waitUntil(done.then(() => status()).then(tellPages));
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
before the connection went. This site saves the pages you open, with their chapter or module; it will be saved once
you open it online, or with <a href="${escapeHTML(SCOPE)}">the home page</a>'s <strong>Save the whole course for
offline use</strong>.</p>
${pages.length ? `<p>These pages are saved and work offline:</p>\n<ul>\n${list}\n</ul>` : "<p>No page is saved yet.</p>"}
</main></body></html>`;
  return new Response(body, { status: 503, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

/** The answer, offline, for a file of the copy whose stored bytes were not the build's: refused, and said why. */
function alteredOffline(url) {
  const text = `${url.slice(SCOPE.length)} was changed on this device after it was saved for offline use, so it `
    + "was thrown away rather than used. Connect to the internet once and reload: it is downloaded again.";
  return new Response(text, { status: 503, statusText: "Altered offline copy",
    headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

/**
 * A learner's worker of a separated check (class-page.js, worker-client.js learnerWorker): its script's address
 * carries `?learner`. Its script is served with a Content-Security-Policy that lets it load scripts, WebAssembly
 * and data only from the site's own origin, and scripts from blobs it made itself (core.js imports Pyodide's
 * loader so): no other origin, no font, no nested worker, which the browser enforces for fetch, import() from
 * eval, FontFace and WebSocket alike. (A source with a path, `<site>/assets/`, would be narrower, but Firefox
 * ESR 153 then refuses the worker's own imports.) Each request it makes of the site is answered here from the
 * build's files alone (`learnerAnswer`): the network never sees one of its own choosing.
 */
const LEARNER = "learner";
const LEARNER_POLICY = [
  "default-src 'none'", "script-src 'self' blob: 'wasm-unsafe-eval' 'unsafe-eval'", "connect-src 'self'",
  "worker-src 'none'", "font-src 'none'", "img-src 'none'", "media-src 'none'", "object-src 'none'",
].join("; ");
const isLearnerScript = (request) => request.destination === "worker"
  && new URL(request.url).searchParams.has(LEARNER);

/** Whether a request comes from a learner's worker (its client's address), looked up once per client. */
const learnerClients = new Map();
async function fromLearner(event) {
  const id = event.clientId;
  if (!id) return false;
  if (!learnerClients.has(id)) {
    const client = await self.clients.get(id).catch(() => null);
    learnerClients.set(id, Boolean(client && new URL(client.url).searchParams.has(LEARNER)));
  }
  return learnerClients.get(id);
}

/** A learner worker's request: a GET of a file of the build, by its address alone (no query, no body, no
 * credentials), from the verified copy or else the host; anything else is refused without a request. */
async function learnerAnswer(request) {
  const url = key(request.url);
  if (request.method !== "GET" || !WANTED.has(url)) return Response.error();
  const { response: held } = await fromCopy(await caches.open(CACHE), url);
  if (held) return held;
  const response = await fetch(url, { credentials: "omit", cache: "no-cache" }).catch(() => null);
  return response || Response.error();
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const ours = request.method === "GET" && request.url.startsWith(SCOPE);
  if (!ours && !event.clientId) return;
  event.respondWith((async () => {
    if (await fromLearner(event)) return learnerAnswer(request);
    if (!ours) return fetch(request);
    const cache = await caches.open(CACHE);
    const url = key(request.url);
    // A file of the copy rewritten on this device (`altered`) is thrown away and fetched again below.
    let { response, altered } = WANTED.has(url) ? await fromCopy(cache, url)
      : { response: await cache.match(request, { ignoreSearch: true }), altered: false };
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
        if (altered) return isolate(alteredOffline(url));
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
    // COEP without them). A file of the copy is served from the bytes hashed (the worker compiles the core from
    // its zstd copy's bytes, so no compiled-WebAssembly cache is lost).
    if (isLearnerScript(request)) return isolate(response, LEARNER_POLICY);
    return request.mode === "navigate" || request.destination === "worker" ? isolate(response) : response;
  })());
});
