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
 *
 * When Python is restored from the snapshot, the start-up standard library comes after ready too (`deferStdlib`):
 * the snapshot holds every module of it, imported.
 */
import { OUTPUTS, RUNTIME } from "../../shared/build-outputs.js";
import { extract, unwrap, unwrapNow } from "../pack.js";
import { fetchBytes } from "./downloads.js";

/**
 * @typedef {{written: boolean, write: (bytes: Uint8Array) => void}} DeferredStdlib
 *   the start-up standard library's file in Pyodide's file system, empty until `write` fills it (once)
 */

/**
 * The start-up standard library, when Python was restored from the snapshot (issue 41). The build imports every
 * module in it before it makes the snapshot (tools/snapshot.mjs), and the snapshot holds zipimport's index of it,
 * so Python reads the file again only for a module's source (a traceback's lines, inspect) or for a module
 * imported afresh (a reload). Pyodide was handed an empty file in its place (core.js); the file's first opening
 * before the real one has come fetches it at once, with a synchronous request, as an import of a later module
 * does; otherwise it is requested once Python is ready (fetchLater) and written when it arrives.
 * @param {import("./context.js").Boot} ctx
 * @param {any} FS  Pyodide's (Emscripten's) file system
 * @returns {DeferredStdlib|null}  null when Pyodide put no standard library zip in /lib
 */
export function deferStdlib(ctx, FS) {
  const name = FS.readdir("/lib").find((entry) => /^python\d+\.zip$/.test(entry));
  if (!name) return null;
  const path = `/lib/${name}`;
  const node = FS.lookupPath(path).node;
  const ops = node.stream_ops; // shared by every file of its file system: this file gets its own, opening first
  const stdlib = {
    written: false,
    write(bytes) {
      if (stdlib.written) return;
      stdlib.written = true; // before writing, which opens the file again
      FS.writeFile(path, bytes, { canOwn: true });
      ctx.mark("stdlibIn");
    },
  };
  let asked = false;
  node.stream_ops = {
    ...ops,
    open(stream) {
      if (!stdlib.written && !asked) {
        asked = true; // one attempt: offline without a copy, the opening reads the empty file and fails as Python says
        const url = ctx.index + OUTPUTS.stdlibStart;
        try {
          stdlib.write(unwrapNow(fetchNow(url + OUTPUTS.compactSuffix)));
        } catch {
          try { stdlib.write(fetchNow(url)); } catch { /* left empty */ }
        }
      }
      ops.open?.(stream);
    },
  };
  return stdlib;
}

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

/** Request the later parts (once Python is ready) and the start-up standard library when it was deferred
 * (`stdlib`, deferStdlib), and write them when they arrive. */
export async function fetchLater(ctx, session, later, stdlib = null) {
  const stdlibIn = stdlib && !stdlib.written
    ? ctx.stdlib().then((bytes) => stdlib.write(bytes), () => {}) : null;
  if (later && !later.bytes && !later.written) { // else written already: an import fetched them (writeNow)
    later.bytes = Promise.all(later.files.map((url) => (url ? fetchBytes(ctx, url).then(unwrap) : null)));
    const bytes = await later.bytes.catch(() => null);
    if (bytes && !later.written) write(session, later, bytes);
  }
  await stdlibIn;
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
