/**
 * What arrives after ready (issue 30): the rest of the standard library (a zip Python imports from where
 * RUNTIME.stdlibRest puts it), of numpy (a pack written into site-packages beside numpy's start-up part), which
 * start-up does not import, and the sources of the judge's wheels' modules, which the snapshot holds (a cold start
 * imports them: it waits for them). They are requested once Python is ready (`fetchLater`), and handed off to the offline
 * copy as every download is (handoff.js). An import that needs them before they arrive must not fail: checker/later.py
 * puts a finder for their module names in Python (`expectLater`), which calls `now` here; that fetches them at
 * once with a synchronous request (a worker may make one), decodes and writes them, unless they have arrived.
 * A synchronous request made while the asynchronous one is on its way downloads them a second time; it happens
 * only when code imports one of these modules in the moments after ready.
 */
import { RUNTIME } from "../../shared/build-outputs.js";
import { extract, unwrap, unwrapNow } from "../pack.js";
import { fetchBytes } from "./downloads.js";

/**
 * @typedef {{files: string[], bytes: Promise<Uint8Array[]>|null, written: boolean}} Later
 *   the later files' URLs (the stdlib's rest, numpy's, the wheels'), their bytes once requested, whether written
 */

/**
 * Tell Python which modules arrive later, before any learner code runs.
 * @param {import("./context.js").Boot} ctx
 * @param {import("./judge.js").Session} session
 * @returns {Later|null}  null when the build made no later parts
 */
export function expectLater(ctx, session) {
  const { list } = session;
  if (!list.stdlibRest && !list.numpyRest && !list.wheelsRest) return null;
  const later = { files: [list.stdlibRest, list.numpyRest, list.wheelsRest].map((name) => (name ? ctx.index + name : "")),
    bytes: null, written: false };
  const parts = [{ root: RUNTIME.stdlibRest, modules: list.laterStdlib },
    { root: session.sitePackages, modules: [...list.laterNumpy, ...list.laterWheels] }];
  session.bridge.expectLater(JSON.stringify(parts), () => writeNow(session, later));
  return later;
}

/** Request the later parts (once Python is ready) and write them when they arrive. */
export async function fetchLater(ctx, session, later) {
  if (!later || later.bytes || later.written) return; // written already: an import fetched them (writeNow)
  later.bytes = Promise.all(later.files.map((url) => (url ? fetchBytes(ctx, url).then(unwrap) : null)));
  const bytes = await later.bytes.catch(() => null);
  if (bytes && !later.written) write(session, later, bytes);
}

/** Python's finder needs them now: unless written already (fetchLater writes them as soon as they arrive), a
 * synchronous request for each. */
function writeNow(session, later) {
  if (later.written) return;
  write(session, later, later.files.map((url) => (url ? unwrapNow(fetchNow(url)) : null)));
}

function fetchNow(url) {
  const request = new XMLHttpRequest();
  request.open("GET", url, false);
  request.responseType = "arraybuffer";
  request.send();
  if (request.status !== 200) throw new Error(`${url}: HTTP ${request.status}`);
  return new Uint8Array(request.response);
}

function write(session, later, [stdlib, ...packs]) {
  const { py } = session;
  if (stdlib) py.FS.writeFile(RUNTIME.stdlibRest, stdlib, { canOwn: true });
  for (const pack of packs) if (pack) extract(py.FS, pack, session.sitePackages);
  later.written = true;
  session.bridge.laterArrived();
}
