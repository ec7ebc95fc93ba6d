/**
 * Reader of the worker's file packs (tools/pack.py writes them and documents the format): a JSON header and the
 * files' bytes back to back, in one zstd frame. Writing each file from JavaScript replaces Python's zipfile
 * running in WebAssembly (~320 ms for numpy).
 */
import { isZstd, zstd, zstdNow } from "./zstd.js";

const MAGIC = "TLPK1\n";

/** The bytes of a downloaded file: a zstd frame (tools/pack.py) decoded, anything else as it is. */
export async function unwrap(bytes) {
  return isZstd(bytes) ? zstd(bytes) : bytes;
}

/** The same for a file needed at once (an import waiting for it, boot/later.js), decoded without waiting. */
export function unwrapNow(bytes) {
  return isZstd(bytes) ? zstdNow(bytes) : bytes;
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

/** Write every file of a pack under `dir` in an Emscripten file system (pyodide.FS); returns their paths in the
 * pack. */
export function extract(fs, raw, dir) {
  const made = new Set();
  const files = entries(raw);
  for (const [path, bytes] of files) {
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
  return files.map(([path]) => path);
}
