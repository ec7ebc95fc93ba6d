// A pack written by hand from the format tools/pack.py documents (TLPK1, a JSON header, the files back to back),
// uncompressed, for the tests of its readers; tests/unit/test_pack.py reads what the real writer produces.
const enc = new TextEncoder();

/** The pack of `files` ([[path, bytes], ...]); `magic` and `extra` (bytes after the last file) to spoil it. */
export function makePack(files, { magic = "TLPK1\n", extra = new Uint8Array() } = {}) {
  const header = enc.encode(JSON.stringify({ files: files.map(([p, d]) => [p, d.length]) }));
  const len = new Uint8Array(4);
  new DataView(len.buffer).setUint32(0, header.length, true);
  return new Uint8Array(Buffer.concat([enc.encode(magic), len, header, ...files.map(([, d]) => d), extra]));
}
