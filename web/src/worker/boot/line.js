/**
 * The line's measure, and the one choice it still makes. Restoring the memory snapshot saves the work of starting
 * Python and importing numpy and pytest, about COLD_START_MS, but costs the snapshot's download; on a line too slow
 * to bring it in that time, a first visit starts cold instead: it is ready sooner and downloads less, and the
 * offline copy fetches the snapshot afterwards, for the visits after. The figures behind each threshold:
 * bench/README.md, "Start-up design decisions".
 *
 * Which copies travel is not the line's to choose (issue 41): the snapshot and the packs have one copy, a zstd
 * frame, fetched on every line and kept by the offline copy. It decodes as fast as the LZ4 copies did on a fast
 * line (localhost ready, bench/README.md "One copy for every line"), which the build no longer makes: a guess
 * between the two only cost bytes, a fast-looking line taking 2.8 MB more before ready.
 *
 * The line's speed is what the start-up downloads (the core, the standard library) have brought in since their
 * first byte, per ms, read once it can be told: when MEASURE_BYTES have come in, when `coreIn` settles (core.js:
 * the whole core is in, see `counted`; without its compressed copy, the core compiled), or DECIDE_MS after that
 * first byte, whichever is first. The snapshot is requested only then, so on a fast line the measure must not
 * wait for the whole core.
 */

import { arrived } from "./downloads.js";

export const COLD_START_MS = 3000;
const DECIDE_MS = 400;
/** Enough bytes to tell the line's speed by: on a fast line they are in long before the whole core is. */
const MEASURE_BYTES = 1 << 20;

/**
 * @typedef {{bytes: number, first: number, firstByte: () => void, enough: () => void,
 *   measured: Promise<unknown>}} Meter
 *   bytes counted since the `first` arrived (its time; 0: none yet); `measured` settles once the line's speed can
 *   be told (`enough`: MEASURE_BYTES are in)
 */

/** A meter that has counted nothing; `coreIn` settles once the core has arrived. @returns {Meter} */
export function createMeter(coreIn) {
  let firstByte;
  let enough;
  const firstByteSeen = new Promise((resolve) => { firstByte = resolve; });
  const enoughSeen = new Promise((resolve) => { enough = resolve; });
  const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });
  return { bytes: 0, first: 0, firstByte, enough,
    measured: Promise.race([coreIn, enoughSeen, firstByteSeen.then(() => sleep(DECIDE_MS))]) };
}

/**
 * `response` with its body counted as the network delivers it, by the line's meter (`ctx.line`) and by the progress
 * bar (downloads.js `arrived`): a branch of the body (tee) is read as fast as it arrives, so the count measures the
 * line, not the consumer (compiling the core, when the machine is busy, reads slower than a fast line delivers);
 * the tee holds the chunks for the consumer meanwhile. `whenIn` is called once, when the whole body is in (or
 * could not be read): for the core, that settles `coreIn` (core.js compileCore), which ends the line's measure.
 * (Before issue 30 it was also called with each chunk's size, so `coreIn` settled on the core's first chunk and
 * the measure ended early; and the core's and the standard library's bytes never reached the progress bar.)
 * @param {{line: Meter}} ctx  the start-up's context (context.js), whose progress count downloads.js keeps
 * @param {{left: number, then: () => void}|null} [nearly]  `then` is called once `left` bytes of the body are still
 *   to come, as its Content-Length says (without one, when it is all in): numpy's pack is asked for then (files.js)
 */
export function counted(ctx, response, whenIn = () => {}, nearly = null) {
  if (!response.body) return response;
  const meter = ctx.line;
  const [body, probe] = response.body.tee();
  const total = Number(response.headers.get("Content-Length")) || 0;
  let got = 0;
  const nearlyIn = () => { if (nearly) nearly.then(); nearly = null; };
  (async () => {
    const reader = probe.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!meter.first) {
        meter.first = performance.now();
        meter.firstByte();
      }
      meter.bytes += value.byteLength;
      if (meter.bytes >= MEASURE_BYTES) meter.enough();
      arrived(ctx, value.byteLength);
      got += value.byteLength;
      if (nearly && total && got >= total - nearly.left) nearlyIn();
    }
  })().catch(() => {}).finally(() => { nearlyIn(); whenIn(); });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The line's speed in bytes per ms, as the meter has it once measured; Infinity when nothing was counted. */
async function lineSpeed(meter) {
  await meter.measured;
  return meter.first ? meter.bytes / Math.max(1, performance.now() - meter.first) : Infinity;
}

/** Whether restoring a snapshot of `bytes` beats starting cold on this line. */
export async function snapshotWorthIt({ chosen, line }, bytes) {
  if (chosen) return chosen !== "cold";
  const perMs = await lineSpeed(line);
  if (!bytes || perMs === Infinity) return true;
  // The first downloads share the line with the page's own files and do not reach its full speed in their first
  // moments, so the measure runs low: starting cold is chosen only when the snapshot would take twice what it saves.
  return bytes / perMs < 2 * COLD_START_MS;
}
