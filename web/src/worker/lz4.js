/**
 * Decoder of the LZ4 containers tools/pack.py writes (the memory snapshot and the file packs): a magic line, the
 * uncompressed size, then one raw LZ4 block. Plain JavaScript, several times faster here than gzip through
 * DecompressionStream, on a path every page load waits for.
 *
 * LZ4 block format: a run of sequences, each a token byte (high nibble: literal count, low nibble: match length
 * minus 4; 15 means "more bytes follow, each added, until one is not 255"), the literals, then a 2-byte
 * little-endian offset back into the output and the match. The last sequence has literals only.
 */

const MAGIC = [0x54, 0x4c, 0x5a, 0x34, 0x31, 0x0a]; // "TLZ41\n"

export function isContainer(bytes) {
  return bytes.length >= MAGIC.length + 4 && MAGIC.every((b, i) => bytes[i] === b);
}

/** How many bytes a container holds (its header says). */
export function containedSize(bytes) {
  if (!isContainer(bytes)) throw new Error("not a TLZ41 container");
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(MAGIC.length, true);
}

/**
 * The bytes a container holds, written into `into` when given (exactly that long: a slice of a larger buffer, so
 * that parts are decoded straight into place instead of copied there); throws Error("corrupt LZ4 data ...") on
 * anything malformed.
 */
export function decode(bytes, into = undefined) {
  const size = containedSize(bytes);
  if (into && into.length !== size) throw new Error(`the container holds ${size} bytes, not ${into.length}`);
  const out = into ?? new Uint8Array(size);
  const end = decodeBlock(bytes.subarray(MAGIC.length + 4), out);
  if (end !== size) throw new Error(`corrupt LZ4 data: ${end} bytes decoded, ${size} expected`);
  return out;
}

function decodeBlock(src, dst) {
  const bad = (what) => new Error(`corrupt LZ4 data: ${what}`);
  let s = 0;
  let d = 0;
  // A length nibble of 15 continues in the next bytes, each added, up to the first that is not 255.
  const extension = (what) => {
    let sum = 0;
    let b;
    do {
      if (s >= src.length) throw bad(`${what} runs past the end`);
      b = src[s++];
      sum += b;
    } while (b === 255);
    return sum;
  };
  while (s < src.length) {
    const token = src[s++];
    let literals = token >>> 4;
    if (literals === 15) literals += extension("literal length");
    if (s + literals > src.length || d + literals > dst.length) throw bad("literals run past the end");
    if (literals < 32) {
      for (let i = 0; i < literals; i++) dst[d + i] = src[s + i];
    } else {
      dst.set(src.subarray(s, s + literals), d);
    }
    s += literals;
    d += literals;
    if (s === src.length) break; // the last sequence: literals only
    if (s + 2 > src.length) throw bad("offset runs past the end");
    const offset = src[s] | (src[s + 1] << 8);
    s += 2;
    if (offset === 0 || offset > d) throw bad(`offset ${offset} at output byte ${d}`);
    let length = token & 15;
    if (length === 15) length += extension("match length");
    length += 4;
    if (d + length > dst.length) throw bad("match runs past the end");
    let from = d - offset;
    if (offset >= length && length >= 32) {
      dst.copyWithin(d, from, from + length);
      d += length;
    } else {
      // Overlapping matches repeat what they are still writing, byte by byte.
      for (const stop = d + length; d < stop;) dst[d++] = dst[from++];
    }
  }
  return d;
}
