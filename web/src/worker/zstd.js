/**
 * zstd frames decoded by zstd's own decoder compiled to WebAssembly (zstddec's build of it, 54 kB): the snapshot and
 * the packs (tools/pack.py) and the core (tools/precompress.py). Measured in Chromium on this project's machine
 * (issue 30), the 9.6 MB core decodes in 30–90 ms, as fast as the browser's own gzip and 4–6 times faster than the
 * JavaScript decoder (fzstd) used before, which took 280–550 ms. The decoder is a file of its own beside the
 * worker's script (OUTPUTS.zstdWasm; web/build.mjs takes it out of the zstddec package): carried in the script as
 * base64 it was 72 of its 101 kB, which the worker waited for before its first request (issue 41).
 * `zstdReady(source)` is started as the worker starts (core.js) and must have settled before `zstdNow` is called.
 */

let decoder = null; // the instance's exports, once instantiated
let heap = null; // a view of its memory, made again after the memory grows
let starting = null;
let asked = null; // where the decoder comes from (the first call's `source`)

const imports = { env: { emscripten_notify_memory_growth: () => { heap = null; } } };
const memory = () => (heap ??= new Uint8Array(decoder.memory.buffer));

/**
 * Settles once the decoder is instantiated. The first call names where it comes from (`source`: its bytes, or a
 * function returning them or a response that holds them); later calls return the same promise.
 * @param {Uint8Array|ArrayBuffer|(() => Promise<Response|Uint8Array|ArrayBuffer>)|null} [source]
 */
export function zstdReady(source = null) {
  if (starting) return starting;
  asked ??= source;
  if (!asked) return Promise.reject(new Error("the zstd decoder was not asked for"));
  starting = (async () => {
    let bytes = typeof asked === "function" ? await asked() : asked;
    if (bytes instanceof Response) {
      if (!bytes.ok) throw new Error(`the zstd decoder: HTTP ${bytes.status}`);
      bytes = await bytes.arrayBuffer();
    }
    const { instance } = await WebAssembly.instantiate(bytes, imports);
    decoder = instance.exports;
  })();
  starting.catch(() => { starting = null; }); // asked again (a zstd frame to decode), it tries again
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
 * The bytes one zstd frame holds, at once (zstdReady must have settled), into `into` when given (which must be
 * their size: the snapshot's buffer, downloads.js) or a new array. The decoder says a frame is damaged or cut short
 * only by what it returns; anything but the size the frame declares is an error, never bytes that are not the file.
 */
export function zstdNow(bytes, into = null) {
  if (!decoder) throw new Error("the zstd decoder is not ready");
  const size = contentSize(bytes);
  if (size < 0) throw new Error("a zstd frame that does not say its size");
  if (into && into.length !== size) throw new Error(`the zstd frame holds ${size} bytes, not ${into.length}`);
  const from = decoder.malloc(bytes.length);
  const to = decoder.malloc(size);
  try {
    if (!from || !to) throw new Error(`no memory to decode a zstd frame of ${size} bytes`);
    memory().set(bytes, from);
    const got = decoder.ZSTD_decompress(to, size, from, bytes.length) >>> 0;
    if (got !== size) {
      const what = decoder.ZSTD_isError(got) ? "an error" : `${got} bytes`;
      throw new Error(`a damaged zstd frame: ${what} decoded, ${size} declared`);
    }
    const out = into || new Uint8Array(size);
    out.set(memory().subarray(to, to + size));
    return out;
  } finally {
    decoder.free(from);
    decoder.free(to);
  }
}

/** The bytes one zstd frame holds (into `into`, as zstdNow), once the decoder is ready. */
export async function zstd(bytes, into = null) {
  await zstdReady();
  return zstdNow(bytes, into);
}
