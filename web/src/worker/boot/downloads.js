/**
 * Start-up's downloads as they arrive, against what the build says they total (the wheels list's startBytes, for
 * the copies this start fetches: expectLoading), posted to the page as "loading" at most every LOADING_MS and once
 * more when all are in, so that a slow first visit shows a progress bar (page/cell/status-view.js).
 */
import { zstd } from "../zstd.js";

const LOADING_MS = 200;

/** @typedef {{received: number, total: number, last: number, over: boolean}} Loading
 *   bytes arrived of `total` (0: not known yet), when the page was last told, whether all are in */

/** Nothing arrived yet, of a total not known yet. @returns {Loading} */
export const noneArrived = () => ({ received: 0, total: 0, last: 0, over: false });

const reportLoading = ({ post, t0, loading }) => post({ type: "loading",
  received: Math.min(loading.received, loading.total), total: loading.total, ms: Math.round(performance.now() - t0) });

/** `bytes` more have arrived: tell the page, unless it was told less than LOADING_MS ago. */
export function arrived(ctx, bytes) {
  const { loading } = ctx;
  loading.received += bytes;
  const now = performance.now();
  if (loading.total && !loading.over && now - loading.last >= LOADING_MS) {
    loading.last = now;
    reportLoading(ctx);
  }
}

/** The total is known (the list is read, the copies chosen); `allIn` settles when every download is in. */
export function expectLoading(ctx, total, allIn) {
  if (!total) return;
  const { loading } = ctx;
  loading.total = total;
  allIn.finally(() => {
    loading.over = true;
    loading.received = total;
    reportLoading(ctx);
  });
}

/**
 * The bytes at `url`, counted as they arrive; throws when they cannot be had. `head(bytes)`, when given, is called
 * once with the first `headBytes` of them as soon as they are in (before the rest; in a buffer of their own, not
 * the chunks'), or with the bytes returned when the file is no longer.
 */
export async function fetchBytes(ctx, url, { headBytes = 0, head = null } = {}) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  if (!response.body) return headed(new Uint8Array(await response.arrayBuffer()), headBytes, head);
  // Read as it arrives, to count it (the progress bar); one copy at the end, of a few MB at most.
  const chunks = [];
  let received = 0;
  for (const reader = response.body.getReader(); ;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    arrived(ctx, value.byteLength);
    received += value.byteLength;
    if (head && headBytes && received >= headBytes) {
      head(backToBack(chunks).subarray(0, headBytes)); // backToBack copies: no second copy
      head = null;
    }
  }
  // One chunk that is the whole of its buffer is the file as it is; a chunk may also be a view into a larger
  // buffer (Firefox hands those out for files from its cache), which the readers of packs must not be given.
  const [one] = chunks;
  const whole = chunks.length === 1 && one.byteOffset === 0 && one.byteLength === one.buffer.byteLength;
  const bytes = whole ? one : backToBack(chunks);
  head?.(bytes); // the file was no longer than `headBytes`: all of it, not a second copy
  return bytes;
}

/**
 * The snapshot's bytes from its parts (`urls`, in order), or null when one cannot be read (then Python starts
 * cold). The parts are downloaded side by side, as one download alone does not reach the line's speed; the build
 * makes three (tools/build_outputs.py SNAPSHOT_PARTS), as a browser opens six connections to an HTTP/1.1 host and
 * the core, the standard library and the packs are downloading on the others (bench/README.md, "Start-up design
 * decisions"). They finish within moments of each other. The parts are one zstd frame cut into pieces
 * (tools/pack.py cut), decoded once they are all in, joined back to back, into `into` when given (the buffer
 * Pyodide was handed ahead, python.js: it must be exactly the snapshot's size).
 */
export async function fetchSnapshot(ctx, urls, into = null) {
  try {
    const parts = await Promise.all(urls.map((url) => fetchBytes(ctx, url)));
    return await zstd(backToBack(parts), into); // straight into `into`, which must be its size
  } catch {
    return null;
  }
}

/** `bytes`, after handing `head` (fetchBytes) its first `headBytes`. */
function headed(bytes, headBytes, head) {
  head?.(headBytes && headBytes < bytes.length ? bytes.slice(0, headBytes) : bytes);
  return bytes;
}

/** The bytes of `pieces`, in order, in one buffer. */
export function backToBack(pieces) {
  const out = new Uint8Array(pieces.reduce((n, piece) => n + piece.length, 0));
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/** A promise whose failure is reported where it is awaited, not as an unhandled rejection. */
export const quietly = (promise) => {
  promise?.catch(() => {});
  return promise;
};
