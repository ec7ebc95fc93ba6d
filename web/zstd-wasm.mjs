// zstd's decoder compiled to WebAssembly, as the zstddec package ships it (base64 inside its script), for the build
// (web/build.mjs writes it beside the worker's script: the worker fetches it, web/src/worker/zstd.js) and for the
// tests under Node.js, which hand its bytes to zstdReady. Also zstd's licence, which must travel with it. Node only.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const source = () => readFileSync(fileURLToPath(import.meta.resolve("zstddec")), "utf8");

/** The decoder's WebAssembly module, as bytes. */
export function zstdWasm() {
  const found = /const wasm = "([A-Za-z0-9+/=]+)"/.exec(source());
  if (!found) throw new Error("zstddec: its WebAssembly module was not found in its script (has the package changed?)");
  return new Uint8Array(Buffer.from(found[1], "base64"));
}

/** zstd's licence (BSD), as the package carries it. */
export function zstdLicence() {
  const found = /\/\*\*\s*\*\s*BSD License[\s\S]*?\*\//.exec(source());
  if (!found) throw new Error("zstddec: zstd's licence was not found in its script (has the package changed?)");
  return `${found[0].split("\n").map((line) => line.replace(/^\s*\/?\*+\/?\s?/, "")).join("\n").trim()}\n`;
}
