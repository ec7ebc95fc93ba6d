/**
 * Reader of the worker's file packs (tools/pack.py writes them and documents the format): a JSON header and the
 * files' bytes back to back, in an LZ4 container. Writing each file from JavaScript replaces Python's zipfile
 * running in WebAssembly (~320 ms for numpy).
 */
import { containedSize, decode, isContainer } from "./lz4.js";
import { isZstd, zstd, zstdNow } from "./zstd.js";

const MAGIC = "TLPK1\n";

/** The bytes of a downloaded file, decompressed: an LZ4 container, a compact copy (a zstd frame, tools/pack.py
 * compact), gzip (older builds), or as they are. */
export async function unwrap(bytes) {
  if (isContainer(bytes)) return decode(bytes);
  if (isZstd(bytes)) return zstd(bytes);
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The same for a file needed at once (an import waiting for it, boot/later.js): an LZ4 container or a compact
 * copy, decoded without waiting; anything else as it is. */
export function unwrapNow(bytes) {
  if (isContainer(bytes)) return decode(bytes);
  if (isZstd(bytes)) return zstdNow(bytes);
  return bytes;
}

/**
 * Parts of one file (the snapshot's, in order) joined into one buffer, `into` when given (it must be exactly their
 * size): each part an LZ4 container, decoded straight into its place (no copy of 25 MB, and that much less memory
 * at the peak), or bytes already decompressed (a compact copy, decoded as it arrived: unwrap), copied there.
 */
export function joined(parts, into = null) {
  if (!into && parts.length === 1 && !isContainer(parts[0])) return parts[0];
  const sizes = parts.map((part) => (isContainer(part) ? containedSize(part) : part.length));
  const total = sizes.reduce((n, size) => n + size, 0);
  if (into && into.length !== total) throw new Error(`the parts hold ${total} bytes, not ${into.length}`);
  const out = into ?? new Uint8Array(total);
  let offset = 0;
  parts.forEach((part, i) => {
    const slot = out.subarray(offset, offset + sizes[i]);
    if (isContainer(part)) decode(part, slot);
    else slot.set(part);
    offset += sizes[i];
  });
  return out;
}

/** [[path, bytes], ...] of a decompressed pack; throws an Error naming the problem when it is not one. */
export function entries(raw) {
  const magic = new TextDecoder().decode(raw.subarray(0, MAGIC.length));
  if (magic !== MAGIC || raw.length < MAGIC.length + 4) throw new Error("not a TLPK1 pack");
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const size = view.getUint32(MAGIC.length, true);
  let offset = MAGIC.length + 4;
  let header;
  try {
    header = JSON.parse(new TextDecoder().decode(raw.subarray(offset, offset + size)));
  } catch {
    throw new Error("the pack's header is damaged");
  }
  offset += size;
  const out = [];
  for (const [path, length] of header.files) {
    if (typeof path !== "string" || path.startsWith("/") || path.split("/").includes("..")) {
      throw new Error(`bad path in pack: ${path}`);
    }
    if (offset + length > raw.length) throw new Error(`pack truncated at ${path}`);
    out.push([path, raw.subarray(offset, offset + length)]);
    offset += length;
  }
  if (offset !== raw.length) throw new Error(`${raw.length - offset} stray bytes after the last file`);
  return out;
}

/** Write every file of a pack under `dir` in an Emscripten file system (pyodide.FS). */
export function extract(fs, raw, dir) {
  const made = new Set();
  for (const [path, bytes] of entries(raw)) {
    const full = `${dir}/${path}`;
    const folder = full.slice(0, full.lastIndexOf("/"));
    if (!made.has(folder)) {
      fs.mkdirTree(folder);
      made.add(folder);
    }
    // The file system keeps the pack's own bytes (a view of them) instead of copying each file: ~12 MB less for
    // numpy, and the pack is kept alive by its files either way.
    fs.writeFile(full, bytes, { canOwn: true });
  }
}
