// overrides/main.html's last <head> script starts the Python worker early, on pages with code cells, and names it
// `start=…` when localStorage forces how Python starts. Its rule is written again there (a plain inline script
// imports nothing), so it is held here to shared/build-outputs.js STARTS and startName, and to the key and rule
// of the workers the page starts later (page/store.js START_KEY, page/worker-client.js workerName).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";
import { STARTS, startName } from "../src/shared/build-outputs.js";
import { START_KEY } from "../src/page/store.js";
import { workerName } from "../src/page/worker-client.js";

const TEMPLATE = readFileSync(new URL("../../overrides/main.html", import.meta.url), "utf8");
const SCRIPTS = [...TEMPLATE.matchAll(/<script[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
const EARLY = SCRIPTS.filter((s) => s.includes("__tlEarlyWorker"));

/** The worker the script starts when localStorage holds `value` under START_KEY (null: nothing; a function: the
 * storage itself throws). */
function earlyWorker(value) {
  const started = [];
  const storage = {
    getItem: (key) => {
      if (typeof value === "function") value();
      return key === START_KEY ? value : null;
    },
  };
  const context = vm.createContext({
    localStorage: storage,
    Worker: class { constructor(url, options) { started.push({ url, options }); } },
  });
  context.window = context;
  vm.runInContext(EARLY[0].replace(/\{\{ base_url \}\}/g, ".."), context);
  assert.equal(started.length, 1, "one worker started");
  return { ...started[0], storage };
}

const INVALID = [null, "", "warm", "COLD", " cold", "cold\n", "start=cold", "cold|snapshot", "snapshotx", "xcompact",
  "compact"];

test("the template starts one worker early, a module worker at the site's assets/tl/tl-worker.js", () => {
  assert.equal(EARLY.length, 1);
  const { url, options } = earlyWorker(null);
  assert.equal(url, "../assets/tl/tl-worker.js");
  assert.equal(options.type, "module");
});

test("every start of STARTS names the early worker as startName does", () => {
  assert.ok(STARTS.length > 0);
  for (const start of STARTS) {
    assert.equal(earlyWorker(start).options.name, startName(start), start);
    assert.equal(earlyWorker(start).options.name, `start=${start}`, start);
  }
});

test("any other value names it nothing, as startName and workerName do", () => {
  for (const value of INVALID) {
    const { options, storage } = earlyWorker(value);
    assert.equal(options.name, "", JSON.stringify(value));
    assert.equal(options.name, startName(value), JSON.stringify(value));
    assert.equal(options.name, workerName(storage), JSON.stringify(value));
  }
});

test("storage that throws: the worker still starts, named nothing", () => {
  const { options } = earlyWorker(() => { throw new Error("denied"); });
  assert.equal(options.name, "");
});
