// Bundle the front end with esbuild into build/web/: tl.js (page) and its chunks, tl-worker.js (Python worker), tl.css
// (the widgets' and the formulas' styles), zstd.wasm (the worker's decoder). No CDN: every byte comes
// from node_modules.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { rmSync, writeFileSync } from "node:fs";
import { OUTPUTS } from "./src/shared/build-outputs.js";
import { zstdLicence, zstdWasm } from "./zstd-wasm.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const out = `${root}build/web`;
rmSync(out, { recursive: true, force: true });

const common = { bundle: true, minify: true, sourcemap: true, target: "es2022", logLevel: "warning", absWorkingDir: root };
// The page's script splits off what it loads only sometimes (KaTeX: the build renders the maths, web/src/page/math.js)
// into chunks/; the worker is one file, so its start-up waits for no second request.
await build({
  ...common, entryPoints: { tl: "web/src/page/main.js" }, format: "esm", outdir: out, splitting: true,
  chunkNames: "chunks/[name]-[hash]",
});
await build({ ...common, entryPoints: { "tl-worker": "web/src/worker/worker.js" }, format: "esm", outdir: out });
// The formulas' font is not bundled: the site's build writes it beside tl.css, cut down to what the pages draw
// (tools/math_font.py).
await build({ ...common, entryPoints: { tl: "web/src/page/tl.css" }, outdir: out, external: [OUTPUTS.mathFont] });
// zstd's decoder beside the worker's script, which fetches it as it starts (web/src/worker/zstd.js), with its licence.
writeFileSync(`${out}/${OUTPUTS.zstdWasm}`, zstdWasm());
writeFileSync(`${out}/${OUTPUTS.zstdLicence}`, zstdLicence());
console.log(`bundled into ${out}`);
