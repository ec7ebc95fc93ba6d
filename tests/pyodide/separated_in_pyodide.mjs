// Separated checks in the browser's runtime without a browser: the hidden tests in one Pyodide (a worker thread),
// each learner's code in another, fresh for each check, joined by web/src/shared/sync-channel.js over a
// SharedArrayBuffer, as the class page joins its two workers. Prints one JSON line: each check's result, and the
// round trips' timing.
// usage: node separated_in_pyodide.mjs <repo> <pyodide assets dir (the built site's assets/pyodide)> <jobs.json>
//   jobs.json: [{tests, files, learner, names, time_limit}, ...] (checker/judge.py check's arguments)
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { channelBuffer, channelEnd, closeChannel, SIDES } from "../../web/src/shared/sync-channel.js";
import { pyodideWithJudge } from "./judge_in_node.mjs";

const HERE = fileURLToPath(import.meta.url);

async function learnerThread({ repo, assets, buffer }) {
  const py = await pyodideWithJudge(repo, assets, "learner");
  py.globals.set("end", channelEnd(buffer, SIDES.learner));
  py.runPython("import numpy");
  parentPort.postMessage("ready");
  py.runPython(`
import numpy
from pathlib import Path
from checker import separated
try:
    separated.serve_learner(separated.JsChannel(end), Path("/tmp/learner"), [])
except Exception:
    pass
`);
  parentPort.postMessage("done");
}

async function testsThread({ repo, assets }) {
  const py = await pyodideWithJudge(repo, assets, "tests");
  py.runPython(`
import json
from checker import boundary, judge, separated

def check(job_json, end):
    used = []
    def connect():
        if used:
            raise boundary.LearnerGone("your code's interpreter was stopped; the tests after it were not run")
        used.append(1)
        return separated.JsChannel(end)
    job = json.loads(job_json)
    return json.dumps(judge.check(workdir="/tmp/tests", separate=connect, **job))
`);
  const check = py.globals.get("check");
  parentPort.postMessage("ready");
  parentPort.on("message", ({ job, buffer }) => {
    const started = performance.now();
    const result = JSON.parse(check(JSON.stringify(job), channelEnd(buffer, SIDES.tests)));
    parentPort.postMessage({ result, ms: performance.now() - started });
  });
}

function once(worker, what) {
  return new Promise((ok, fail) => {
    worker.once("message", ok);
    worker.once("error", fail);
    if (what) worker.postMessage(what);
  });
}

async function main() {
  const [repo, assets, jobsFile] = process.argv.slice(2).map((p) => resolve(p));
  const jobs = JSON.parse(readFileSync(jobsFile, "utf8"));
  const tests = new Worker(HERE, { workerData: { role: "tests", repo, assets } });
  await once(tests);
  const out = [];
  // Each check gets a fresh learner interpreter; the next ones start while this check runs.
  const start = () => {
    const buffer = channelBuffer();
    const learner = new Worker(HERE, { workerData: { role: "learner", repo, assets, buffer } });
    learner.on("error", () => closeChannel(buffer));
    learner.on("exit", () => closeChannel(buffer));
    const t0 = performance.now();
    return { buffer, learner, ready: once(learner).then(() => performance.now() - t0) };
  };
  // Two start ahead (a cold Pyodide is seconds of one core's work; the machine has two).
  const AHEAD = 2;
  const booting = jobs.slice(0, AHEAD).map(() => start());
  for (const [i, job] of jobs.entries()) {
    const { buffer, learner, ready } = booting.shift();
    const bootMs = await ready;
    if (i + AHEAD < jobs.length) booting.push(start());
    const { result, ms } = await once(tests, { job, buffer });
    closeChannel(buffer);
    await learner.terminate();
    out.push({ result, ms: Math.round(ms), bootMs: Math.round(bootMs) });
  }
  await tests.terminate();
  console.log(JSON.stringify(out));
}

if (isMainThread) await main();
else if (workerData.role === "tests") await testsThread(workerData);
else await learnerThread(workerData);
