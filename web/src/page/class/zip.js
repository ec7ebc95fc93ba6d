/**
 * Zips of progress files, read in the browser with nothing downloaded: the central directory read here, stored
 * entries taken as they are and deflated ones inflated by the browser's own DecompressionStream("deflate-raw").
 * The rules are ol/classroom.py `entries`'s, so a zip gives the same files on the page and in `ol class`: entries
 * named `<zip>/<path inside>`, folders and a Mac's resource forks left out, each refused with a line of its own
 * when its path leads out of the zip, its name is there twice, it is encrypted, compressed another way, larger
 * than FILE_CAP, inflates more than ZIP_RATIO times over or is damaged; at most ZIP_ENTRIES files and ZIP_TOTAL
 * bytes inflated, then one line for the rest.
 */
import { BOMB, ENTRY_UNREADABLE, ESCAPES, FILE_CAP, RATIO_FLOOR, TOO_LARGE, ZIP_CAP, ZIP_ENTRIES, ZIP_RATIO, ZIP_TOO_LARGE,
  ZIP_TOO_MUCH, ZIP_TOTAL, ZIP_UNREADABLE } from "./model.js";

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
// Names without the UTF-8 flag are code page 437, as Python's zipfile reads them (its high half, 0x80-0xFF).
const CP437 = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0";

/** Whether `bytes` start as a zip does (a file's local header, or the end record of an empty zip). */
export const isZip = (bytes) => bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b
  && ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6));

/** Entries that are nobody's work: folders, and a Mac's resource forks (`__MACOSX/`, `._x`). */
export const skippedEntry = (name) => name.endsWith("/") || name.startsWith("__MACOSX/")
  || name.split("/").pop().startsWith("._");

/** An entry's name as Python's zipfile reads it: UTF-8 when flagged, else code page 437, cut at a NUL byte. */
const nameOf = (bytes, utf8) => {
  const raw = bytes.indexOf(0) >= 0 ? bytes.subarray(0, bytes.indexOf(0)) : bytes;
  return utf8 ? new TextDecoder().decode(raw) : Array.from(raw, (b) => (b < 0x80 ? String.fromCharCode(b) : CP437[b - 0x80])).join("");
};

/** Whether an entry's path leads out of where it would be unpacked: absolute, a drive, or through `..`. */
export const escapes = (name) => /^[/\\]|^[A-Za-z]:/.test(name) || name.split(/[/\\]/).includes("..");

/** The central directory's entries: {name, flags, method, compressed, size, crc, local}; throws when damaged. */
export function directory(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 0xffff); i -= 1) {
    if (view.getUint32(i, true) === EOCD) {
      end = i;
      break;
    }
  }
  if (end < 0) throw new Error("it has no central directory");
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  if (count === 0xffff || at === 0xffffffff) throw new Error("it is a zip64 archive");
  const entries = [];
  for (let n = 0; n < count; n += 1) {
    if (at + 46 > end || view.getUint32(at, true) !== CENTRAL) throw new Error("its central directory is damaged");
    const flags = view.getUint16(at + 8, true);
    const length = view.getUint16(at + 28, true);
    entries.push({
      name: nameOf(bytes.subarray(at + 46, at + 46 + length), flags & 0x800), flags, method: view.getUint16(at + 10, true),
      crc: view.getUint32(at + 16, true), compressed: view.getUint32(at + 20, true), size: view.getUint32(at + 24, true),
      local: view.getUint32(at + 42, true),
    });
    at += 46 + length + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return entries;
}

let table = null;
/** CRC-32 of `bytes` (the zip's check of each entry, as Python's zipfile verifies it). */
export function crc32(bytes) {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n += 1) {
      let c = n;
      for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (const b of bytes) crc = table[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Inflate raw deflate data, giving up past `cap` bytes (a header may lie about the size). */
async function inflate(data, cap) {
  const reader = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  const parts = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > cap) {
      await reader.cancel();
      throw new Error(`it inflates to more than ${cap} bytes`);
    }
    parts.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** One entry's bytes, checked against its size and CRC-32; throws with the reason when it cannot be read. */
async function entryBytes(bytes, entry) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (entry.local + 30 > bytes.length || view.getUint32(entry.local, true) !== LOCAL) throw new Error("its header is damaged");
  const start = entry.local + 30 + view.getUint16(entry.local + 26, true) + view.getUint16(entry.local + 28, true);
  if (start + entry.compressed > bytes.length) throw new Error("it is cut short");
  const data = bytes.subarray(start, start + entry.compressed);
  const out = entry.method === 0 ? data : await inflate(data, entry.size);
  if (out.length !== entry.size || crc32(out) !== entry.crc) throw new Error("its check sum does not match (damaged)");
  return out;
}

/** Why one entry is not read, or "" (ol/classroom.py `_entry_problem`); `names` counts each name's entries. */
function entryProblem(entry, names, limits) {
  if (escapes(entry.name)) return ESCAPES;
  if (names.get(entry.name) > 1) return `the zip holds ${names.get(entry.name)} entries of this name, so none of them was read`;
  if (entry.flags & 1) return "it is encrypted in the zip";
  if (entry.method !== 0 && entry.method !== 8) return 'it is compressed with a method this cannot read (zip it with the usual "deflate")';
  if (entry.size > FILE_CAP) return TOO_LARGE;
  if (entry.size > RATIO_FLOOR && entry.size > limits.ratio * entry.compressed) return BOMB;
  return "";
}

/**
 * The files of a zip, and a line for each one that cannot be read (or for the whole zip, or the rest of it).
 * @param {string} file  the zip's name
 * @param {Uint8Array} bytes
 * @param {{total?: number, ratio?: number}} [limits]  ZIP_TOTAL and ZIP_RATIO unless a test asks for less
 * @returns {Promise<{files: {name: string, bytes: Uint8Array}[], rejected: [string, string][]}>}
 */
export async function unzip(file, bytes, { total = ZIP_TOTAL, ratio = ZIP_RATIO } = {}) {
  if (bytes.length > ZIP_CAP) {
    return { files: [], rejected: [[file, ZIP_TOO_LARGE]] };
  }
  let entries;
  try {
    entries = directory(bytes).filter((e) => !skippedEntry(e.name));
  } catch {
    return { files: [], rejected: [[file, ZIP_UNREADABLE]] };
  }
  const names = new Map();
  for (const entry of entries) names.set(entry.name, (names.get(entry.name) || 0) + 1);
  const files = [];
  const rejected = [];
  const said = new Set();
  let inflated = 0;
  for (const [n, entry] of entries.entries()) {
    const name = `${file}/${entry.name}`;
    if (n >= ZIP_ENTRIES) {
      rejected.push([file, `it holds more than ${ZIP_ENTRIES} files; the rest were not read`]);
      break;
    }
    const why = entryProblem(entry, names, { ratio });
    if (why) {
      if (!said.has(entry.name)) rejected.push([name, why]);
      said.add(entry.name);
      continue;
    }
    inflated += entry.size;
    if (inflated > total) {
      rejected.push([file, ZIP_TOO_MUCH]);
      break;
    }
    try {
      files.push({ name, bytes: await entryBytes(bytes, entry) });
    } catch {
      rejected.push([name, ENTRY_UNREADABLE]); // damaged: its header, its length, its check sum
    }
  }
  return { files, rejected };
}

/** Files as given, every zip among them replaced by the files it holds; the lines of what could not be read. */
export async function expand(files) {
  const out = [];
  const rejected = [];
  for (const f of files) {
    if (!isZip(f.bytes)) {
      out.push(f);
      continue;
    }
    const inner = await unzip(f.name, f.bytes);
    out.push(...inner.files);
    rejected.push(...inner.rejected);
  }
  return { files: out, rejected };
}
