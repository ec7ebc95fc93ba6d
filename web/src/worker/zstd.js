/**
 * zstd frames decoded by zstd's own decoder compiled to WebAssembly (the zstddec package, ~45 kB, carried in
 * this script): the snapshot and the packs (tools/pack.py) and the core (tools/precompress.py). Measured in
 * Chromium on this project's machine (issue 30), the 9.6 MB core decodes in 30–90 ms, as fast as the browser's
 * own gzip and 4–6 times faster than the JavaScript decoder (fzstd) used before, which took 280–550 ms.
 * `zstdReady` is started as the worker starts (core.js) and must have settled before `zstdNow` is called.
 */
import { ZSTDDecoder } from "zstddec";

const decoder = new ZSTDDecoder();
let ready = false;
let starting = null;

/** Settles once the decoder is instantiated. */
export function zstdReady() {
  starting ??= decoder.init().then(() => { ready = true; });
  return starting;
}

const MAGIC = [0x28, 0xb5, 0x2f, 0xfd];

/** Whether `bytes` begin as a zstd frame. */
export const isZstd = (bytes) => bytes.length > 4 && MAGIC.every((b, i) => bytes[i] === b);

/**
 * The size a zstd frame says it holds (its header's Frame_Content_Size), or -1 when it does not say. The build's
 * frames all say (tools/pack.py, tools/precompress.py).
 */
export function contentSize(bytes) {
  if (!isZstd(bytes) || bytes.length < 6) return -1;
  const descriptor = bytes[4];
  const single = (descriptor >> 5) & 1;
  const flag = descriptor >> 6;
  const width = [single, 2, 4, 8][flag];
  if (!width) return -1;
  let at = 5 + (single ? 0 : 1) + [0, 1, 2, 4][descriptor & 3];
  if (bytes.length < at + width) return -1;
  let size = 0;
  for (let i = width - 1; i >= 0; i -= 1) size = size * 256 + bytes[at + i];
  return flag === 1 ? size + 256 : size;
}

/**
 * The bytes one zstd frame holds, at once (zstdReady must have settled). zstd's decoder reports a damaged or
 * truncated frame only by its return value, which the package does not look at; so the result is held to the
 * size the frame declares, and anything else is an error, never bytes that are not the file.
 */
export function zstdNow(bytes) {
  if (!ready) throw new Error("the zstd decoder is not ready");
  const size = contentSize(bytes);
  if (size < 0) throw new Error("a zstd frame that does not say its size");
  const out = decoder.decode(bytes, size);
  if (out.length !== size) throw new Error(`a damaged zstd frame: ${out.length} bytes decoded, ${size} declared`);
  return out;
}

/** The bytes one zstd frame holds, once the decoder is ready. */
export async function zstd(bytes) {
  await zstdReady();
  return zstdNow(bytes);
}
