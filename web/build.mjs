// Bundle the front end with esbuild into build/web/: tl.js (page) and its chunks, tl-worker.js (Python worker), tl.css
// (widgets + KaTeX, with KaTeX's fonts copied next to it). No CDN: every byte comes from node_modules.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { rmSync } from "node:fs";

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
await build({
  ...common, entryPoints: { tl: "web/src/page/tl.css" }, outdir: out,
  loader: { ".woff2": "file", ".woff": "file", ".ttf": "file" }, assetNames: "fonts/[name]",
});
console.log(`bundled into ${out}`);
