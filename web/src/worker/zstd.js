/**
 * zstd frames decoded by zstd's own decoder compiled to WebAssembly (the zstddec package, ~45 kB, carried in
 * this script): the compact copies (tools/pack.py compact) and the core (tools/precompress.py). Measured in
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

/** The bytes a zstd frame holds, at once (zstdReady must have settled). */
export function zstdNow(bytes) {
  if (!ready) throw new Error("the zstd decoder is not ready");
  return decoder.decode(bytes);
}

/** The bytes a zstd frame holds, once the decoder is ready. */
export async function zstd(bytes) {
  await zstdReady();
  return zstdNow(bytes);
}
