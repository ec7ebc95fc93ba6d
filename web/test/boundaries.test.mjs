// Where code runs is its folder under web/src, and imports respect it: page/ runs on the page (tl.js), worker/ in
// the Python worker (tl-worker.js), sw/ as the service worker (copied, not bundled: tools/offline.py), shared/ in
// more than one of them or in the build's Node scripts (tools/*.mjs). The worker and the service worker can reach
// only themselves and the shared contract, the shared modules nothing runtime-specific, and the page never the
// worker's code (it talks to the worker only through messages: shared/protocol.js).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const SRC = new URL("../src/", import.meta.url);
const FOLDERS = ["page", "worker", "sw", "shared"];
/** What each folder may import besides itself (bare package names, such as "zstddec", are not the project's). */
const MAY_IMPORT = { page: ["shared"], worker: ["shared"], sw: ["shared"], shared: [] };

/** Every .js file under web/src, as paths relative to it. */
function sources(dir = SRC, prefix = "") {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory()
    ? sources(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`)
    : entry.name.endsWith(".js") ? [`${prefix}${entry.name}`] : []));
}

/** (line, relative specifier) of every import of `source`: static, re-exports, side-effect, dynamic with a
 * literal, and JSDoc type imports (a type is a dependency too). */
export function importsOf(source) {
  const found = [];
  const pattern = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(["'])(\.{1,2}\/[^"'\n]*)\1/g;
  for (const m of source.matchAll(pattern)) {
    found.push({ line: source.slice(0, m.index).split("\n").length, spec: m[2] });
  }
  return found;
}

/** The rule broken by `file` (relative to web/src) importing `spec`, or "". */
export function broken(file, spec) {
  const [folder] = file.split("/");
  if (!FOLDERS.includes(folder)) return `is outside ${FOLDERS.map((f) => `${f}/`).join(", ")}`;
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
  const [to] = target.split("/");
  if (to === folder || MAY_IMPORT[folder].includes(to)) return "";
  const allowed = [folder, ...MAY_IMPORT[folder]].map((f) => `${f}/`).join(" and ");
  return `imports ${target} (${folder}/ may import only ${allowed})`;
}

/** Every broken rule in `files` ({path: source}), one line each. */
export function violations(files) {
  return Object.entries(files).flatMap(([file, source]) => {
    const outside = broken(file, "./x.js");
    if (outside.startsWith("is outside")) return [`${file} ${outside}`];
    return importsOf(source).map(({ line, spec }) => [line, broken(file, spec)])
      .filter(([, why]) => why).map(([line, why]) => `${file}:${line} ${why}`);
  });
}

test("every file under web/src is in a runtime's folder and imports only what its folder may", () => {
  const files = Object.fromEntries(sources().map((f) => [f, readFileSync(new URL(f, SRC), "utf8")]));
  assert.ok(FOLDERS.every((folder) => Object.keys(files).some((f) => f.startsWith(`${folder}/`))), "the sources were found");
  assert.deepEqual(violations(files), []);
});

test("a worker, service-worker or shared module reaching outside is caught, and so is the page importing the worker", () => {
  const files = {
    "worker/boot/core.js": 'import { x } from "../pack.js";\nimport { keys } from "../../page/store.js";',
    "worker/worker.js": '/** @param {import("../page/cell/state.js").CellState} s */\nimport("../shared/protocol.js");',
    "sw/sw.js": 'import "../worker/zstd.js";',
    "shared/protocol.js": 'export { STAGE } from "../worker/worker.js";\nimport { ZSTDDecoder } from "zstddec";',
    "page/main.js": 'import { boot } from "../worker/boot/boot.js";\nimport { STAGE } from "../shared/protocol.js";',
    "page/cell/state.js": 'import { NEEDS } from "../../shared/protocol.js";\nimport { el } from "../dom.js";',
    "loose.js": "",
  };
  assert.deepEqual(violations(files), [
    "worker/boot/core.js:2 imports page/store.js (worker/ may import only worker/ and shared/)",
    "worker/worker.js:1 imports page/cell/state.js (worker/ may import only worker/ and shared/)",
    "sw/sw.js:1 imports worker/zstd.js (sw/ may import only sw/ and shared/)",
    "shared/protocol.js:1 imports worker/worker.js (shared/ may import only shared/)",
    "page/main.js:1 imports worker/boot/boot.js (page/ may import only page/ and shared/)",
    "loose.js is outside page/, worker/, sw/, shared/",
  ]);
});
