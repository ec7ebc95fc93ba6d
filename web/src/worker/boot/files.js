/**
 * The files start-up needs besides the core: the wheels list read, then the snapshot (when worth restoring), the
 * packs and the judge requested, so their downloads overlap the interpreter's start; the start-up standard library
 * only for a cold start.
 */
import { OUTPUTS, readWheelsList } from "../../shared/build-outputs.js";
import { unwrap } from "../pack.js";
import { expectLoading, fetchBytes, fetchSnapshot, quietly } from "./downloads.js";
import { snapshotWorthIt } from "./line.js";

/**
 * @typedef {{list: import("../../shared/build-outputs.js").WheelsList,
 *   restoring: Promise<boolean>, snapshot: Promise<Uint8Array|null>, memory: Promise<Uint8Array|null>,
 *   numpyPack: Promise<Uint8Array>|null, numpyMore: Promise<Uint8Array|null>|null,
 *   wheelsPack: Promise<Uint8Array>|null, judgeZip: Promise<Uint8Array>}} Files
 *   Every download start-up needs, each a promise; a pack is null when the build made none. numpy's pack comes
 *   in two frames, each a pack, in one file (tools/snapshot.py): `numpyPack` is the first, what `import numpy`
 *   loads, decoded as soon as it is in, and `numpyMore` the second, the rest of start-up (numpy.random...), which
 *   resolves to null when the build made one frame.
 */

/**
 * Read the wheels list, then request what start-up needs: the snapshot when it is worth restoring
 * (line.js snapshotWorthIt; else `snapshot` resolves to null and Python starts cold) and the packs, which are
 * decoded after it.
 * @param {import("./context.js").Boot} ctx
 * @returns {Promise<Files>}
 */
export async function requestFiles(ctx) {
  const response = await fetch(ctx.index + OUTPUTS.wheelsList);
  if (!response.ok) throw new Error(`pyodide/${OUTPUTS.wheelsList}: HTTP ${response.status}`);
  const list = readWheelsList(await response.json());
  ctx.deltaBytes = list.snapshotDeltaBytes; // core.js keeps that much of the core's initial memory
  const named = (name) => ctx.index + name;
  const restoring = list.snapshot.length ? snapshotWorthIt(ctx, list.snapshotBytes) : Promise.resolve(false);
  // The buffer the snapshot is decoded into, made as soon as the restore is decided when the build says its size:
  // Pyodide is handed it at once and creates its memory and module while the parts download (python.js).
  const memory = restoring.then((yes) => (yes && list.snapshotSize > 0 ? new Uint8Array(list.snapshotSize) : null));
  const snapshot = restoring.then(async (yes) => {
    const bytes = yes ? fetchSnapshot(ctx, list.snapshot.map(named), await memory) : null;
    ctx.snapshotAsked.settle(); // fetchSnapshot has sent its requests
    return bytes;
  });
  restoring.catch(ctx.snapshotAsked.settle);
  restoring.then(() => ctx.mark("decided"), () => {});
  snapshot.then((b) => b && ctx.mark("snapshotIn"), () => {});
  // The packs are requested with the snapshot, once the line's measure has decided on it (before it, they would
  // share the line with the core and make the measure read low; requested after the snapshot, the downloads took
  // longer in all: bench/README.md, "Start-up design decisions"). They are decoded after the snapshot. numpy's
  // pack also waits until the core is nearly in (core.js NEARLY_IN_BYTES): on a line the core and the snapshot
  // then come sooner, Python is restored while numpy's pack is on its way, and uses the wait (boot.js
  // warmWhileWaiting). On localhost the core is in before the measure has decided, so nothing waits longer.
  const after = snapshot.catch(() => null);
  const asked = restoring.catch(() => false);
  const unpacked = (name, first = asked) => (name
    ? quietly(first.then(() => Promise.all([fetchBytes(ctx, named(name)), after])).then(([b]) => unwrap(b))) : null);
  const afterCore = asked.then(() => ctx.coreNearlyIn.promise);
  const numpy = list.numpyPack ? numpyFrames(ctx, named(list.numpyPack), list.numpyFirstBytes, afterCore, after) : {};
  const files = {
    list, restoring, snapshot, memory, numpyPack: numpy.first || null, numpyMore: numpy.more || null,
    wheelsPack: unpacked(list.wheelsPack),
    judgeZip: fetchBytes(ctx, new URL(`tl/${OUTPUTS.judgeZip}`, ctx.assets).href),
  };
  files.numpyPack?.then(() => ctx.mark("numpyIn"), () => {});
  files.numpyMore?.then((more) => more && ctx.mark("numpyMoreIn"), () => {});
  files.judgeZip.then(() => ctx.mark("judgeIn"), () => {});
  // A cold start needs the start-up standard library before Python starts: requested as soon as that is known. A
  // start restored from the snapshot reads it only after ready (later.js deferStdlib).
  restoring.then((restore) => {
    const stdlib = restore ? null : ctx.stdlib();
    expectLoading(ctx, list.startBytes + (restore ? 0 : list.stdlibBytes - list.snapshotBytes),
      Promise.allSettled([snapshot, files.numpyPack, files.numpyMore, files.wheelsPack, files.judgeZip,
        ctx.coreIn.promise, stdlib]));
  }, () => {});
  return files;
}

/**
 * numpy's pack, requested once `asked` settles: its first frame (`firstBytes` long) decoded as soon as it and
 * `after` are in, and the second once the whole file is; with `firstBytes` 0, the whole file is the first and the
 * second is null.
 */
function numpyFrames(ctx, url, firstBytes, asked, after) {
  let head;
  const headIn = new Promise((resolve) => { head = resolve; });
  const whole = asked.then(() => fetchBytes(ctx, url, { headBytes: firstBytes, head }));
  const headOrFailure = Promise.race([headIn, whole.then(() => headIn)]); // a failed download fails both
  const first = quietly(Promise.all([headOrFailure, after]).then(([b]) => unwrap(b)));
  const more = quietly(Promise.all([whole, after])
    .then(([b]) => (firstBytes && b.length > firstBytes ? unwrap(b.subarray(firstBytes)) : null)));
  return { first, more };
}
