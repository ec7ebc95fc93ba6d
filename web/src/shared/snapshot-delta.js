/**
 * The memory snapshot as a delta against the core's own initial memory (issue 30). The snapshot begins with the
 * memory as the core's data segments lay it out (3.8 MB, most of it unchanged by the time the snapshot is
 * taken), which the browser already has: it is in the core. Before the snapshot is compressed (tools/snapshot.mjs)
 * its first `bytes` of memory are XORed with that initial memory, which leaves zeros wherever they are equal and
 * saves ~1.2 MB of the download; the worker undoes it (worker/boot/python.js) right before Pyodide copies the
 * snapshot in, when the memory still holds exactly the data segments (Pyodide calls `fsInit` after instantiating
 * the core and before any of its code has run). The initial memory's checksum, recorded by the build, is checked
 * first: a core whose memory differs could not restore this snapshot, and starts cold.
 *
 * The snapshot's layout is Pyodide's (its src/js/snapshot.ts): a header whose second 32-bit word is the offset of
 * the memory in it.
 */

/** Where the memory starts in a snapshot: its header says. */
export const memoryOffset = (snapshot) =>
  new DataView(snapshot.buffer, snapshot.byteOffset, 8).getUint32(4, true);

/** How much of a memory holds its initial data: up to its last non-zero byte, rounded up to 4 bytes. */
export function dataLength(heap) {
  let end = heap.length;
  while (end > 0 && heap[end - 1] === 0) end--;
  return Math.ceil(end / 4) * 4;
}

/** A 32-bit checksum (FNV-1a over 32-bit words) of `heap`'s first `bytes` (a multiple of 4). */
export function checksum(heap, bytes) {
  const words = new Uint32Array(heap.buffer, heap.byteOffset, bytes / 4);
  let h = 0x811c9dc5;
  for (let i = 0; i < words.length; i++) h = Math.imul(h ^ words[i], 0x01000193);
  return h >>> 0;
}

/**
 * XOR the snapshot's first `bytes` of memory with `heap`'s, in place: the build's delta, and the worker's undoing
 * of it (the same operation). Works on 32-bit words where the snapshot's memory is aligned to them.
 */
export function xorMemory(snapshot, heap, bytes) {
  const at = snapshot.byteOffset + memoryOffset(snapshot);
  if (at % 4 === 0 && heap.byteOffset % 4 === 0) {
    const a = new Uint32Array(snapshot.buffer, at, bytes / 4);
    const b = new Uint32Array(heap.buffer, heap.byteOffset, bytes / 4);
    for (let i = 0; i < a.length; i++) a[i] ^= b[i];
    return;
  }
  const mem = snapshot.subarray(at - snapshot.byteOffset, at - snapshot.byteOffset + bytes);
  for (let i = 0; i < bytes; i++) mem[i] ^= heap[i];
}
