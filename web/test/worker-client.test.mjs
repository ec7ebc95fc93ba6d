// Unit tests of web/src/page/worker-client.js with fake workers (test/fakes.mjs) over real MessageChannels: queueing,
// Stop (interrupt and replacement), time limits, the spare worker, the tampered-worker retry, reply validation.
import { test } from "node:test";
import assert from "node:assert/strict";

import { defaultBehaviour, fakePython, tick, until } from "./fakes.mjs";

/** Whether the client has heard "started" for every pending request (Stop then interrupts rather than withdraws). */
const started = (python) => python.pending.size > 0 && [...python.pending.values()].every((r) => r.started);

/** Run `code` and press Stop once it has started: its result, and how long after Stop it came. */
async function stopOnceStarted(python, code) {
  const done = python.request("run", { code, filename: "a.py" });
  await until(() => started(python), 1000, "the run to start");
  const stoppedAt = performance.now();
  python.stop();
  const result = await done;
  return { result, waited: performance.now() - stoppedAt };
}

const CHECK = { tests: { "test_x.py": "def test_a(): pass" }, files: { "x.py": "ok = 1" }, learner: "x.py", names: ["test_a", "test_b"] };

test("a run is queued until Python is ready, then answered with its output streamed", async (t) => {
  const { python, workers } = fakePython({ fake: { autoBoot: false }, spare: false });
  t.after(() => python.dispose());
  const seen = [];
  python.subscribe((s) => seen.push(s.stage));
  const printed = [];
  const done = python.request("run", { code: "print:42", filename: "a.py", files: {} }, { onStdout: (x) => printed.push(x) });
  await until(() => workers[0].log.length === 1, 1000, "the request to reach the worker");
  await tick(10);
  assert.equal(workers[0].queue.length, 1, "it waits there for numpy");
  workers[0].boot();
  const result = await done;
  assert.equal(result.status, "ok");
  assert.equal(result.stdout, "42\n");
  assert.deepEqual(printed, ["42\n"]);
  assert.equal(typeof result.ms, "number");
  assert.deepEqual(seen.filter((s, i) => s !== seen[i - 1]), ["", "python", "numpy", "pytest"]);
  assert.equal(python.stage, "pytest");
});

test("Stop before the request started withdraws it: status stopped, and the worker is told to cancel", async (t) => {
  const { python, workers } = fakePython({ fake: { autoBoot: false }, spare: false });
  t.after(() => python.dispose());
  const done = python.request("run", { code: "print:1", filename: "a.py" }, {});
  await tick(5);
  // The fake worker starts requests only after boot; stop it first.
  workers[0].behave = () => {};
  python.stop();
  const result = await done;
  assert.equal(result.status, "stopped");
  await until(() => workers[0].log.some((m) => m.type === "cancel"), 500, "the cancel message");
  assert.equal(python.restarts, 0);
});

test("Stop without isolation replaces the stuck worker with the warm spare", async (t) => {
  const { python, workers } = fakePython();
  t.after(() => python.dispose());
  assert.equal((await python.request("run", { code: "print:1", filename: "a.py" })).status, "ok");
  await until(() => workers.length === 2, 500, "the spare worker");
  const spare = workers[1];
  const done = python.request("run", { code: "stuck", filename: "a.py" });
  await until(() => started(python), 1000, "the stuck run to start");
  await tick(5);
  python.stop();
  const result = await done;
  assert.equal(result.status, "stopped");
  assert.equal(result.restarted, true);
  assert.equal(workers[0].terminated, true);
  assert.equal(python.restarts, 1);
  assert.equal(python.live.worker, spare, "the spare took over");
  assert.equal((await python.request("run", { code: "print:2", filename: "a.py" })).stdout, "2\n");
});

test("Stop with isolation interrupts Python in place: no restart", async (t) => {
  const { python, workers } = fakePython({ isolated: true, spare: false });
  t.after(() => python.dispose());
  const done = python.request("run", { code: "loop", filename: "a.py" });
  await until(() => started(python), 1000, "the loop to start");
  await tick(10);
  python.stop();
  const result = await done;
  assert.equal(result.status, "stopped", "the worker's timeout is reported as the learner's Stop");
  assert.equal(python.restarts, 0);
  assert.equal(workers.length, 1);
  assert.equal(workers[0].interrupt[0], 0, "Python took the interrupt");
  workers[0].interrupt[0] = 2; // a Stop pressed as the run ended, never taken
  const next = await python.request("run", { code: "print:3", filename: "a.py" });
  assert.equal(next.stdout, "3\n");
  assert.equal(workers[0].interrupt[0], 0, "each request clears the interrupt first");
});

test("an interrupt Python does not answer within the grace period replaces the worker", async (t) => {
  const { python, workers } = fakePython({ isolated: true, spare: false, graceMs: 20 });
  t.after(() => python.dispose());
  const { result } = await stopOnceStarted(python, "stuck");
  assert.equal(result.status, "stopped");
  assert.equal(python.restarts, 1);
  assert.equal(workers.length, 2);
  assert.deepEqual(python.losses, ["stopped: Python did not respond to the interrupt"]);
});

test("Python that took the interrupt but unwinds past the grace period is waited for, not replaced", async (t) => {
  const { python, workers } = fakePython({ isolated: true, spare: false, graceMs: 20, unwindMs: 1000 });
  t.after(() => python.dispose());
  const { result } = await stopOnceStarted(python, "unwind:120");
  assert.equal(result.status, "stopped");
  assert.ok(result.ms >= 100, `answered after the grace period (${result.ms} ms)`);
  assert.equal(python.restarts, 0);
  assert.equal(workers.length, 1);
});

test("code that catches the KeyboardInterrupt and carries on gets a new worker once the unwind time is up",
  async (t) => {
    const { python, workers } = fakePython({ isolated: true, spare: false, graceMs: 20, unwindMs: 60 });
    t.after(() => python.dispose());
    const { result, waited } = await stopOnceStarted(python, "swallow");
    assert.equal(result.status, "stopped");
    assert.ok(waited >= 150, `not before it was interrupted twice, 2 × (grace + unwind) (${waited} ms)`);
    assert.equal(python.restarts, 1);
    assert.equal(workers.length, 2);
    assert.deepEqual(python.losses, ["stopped: Python did not finish after the interrupt"]);
    assert.equal((await python.request("run", { code: "print:4", filename: "a.py" })).stdout, "4\n");
  });

test("an interrupt taken but never answered is sent once more, and the second one ends the code in the same worker",
  async (t) => {
    const { python, workers } = fakePython({ isolated: true, spare: false, graceMs: 20, unwindMs: 60 });
    t.after(() => python.dispose());
    const { result, waited } = await stopOnceStarted(python, "lose");
    assert.equal(result.status, "stopped");
    assert.ok(waited >= 75, `after grace + unwind (${waited} ms)`);
    assert.equal(python.restarts, 0);
    assert.equal(workers.length, 1);
    assert.deepEqual(python.losses, []);
  });

test("the time limit stops code without a click, counted from 'started'", async (t) => {
  const { python, workers } = fakePython({ spare: false });
  t.after(() => python.dispose());
  const t0 = Date.now();
  const result = await python.request("run", { code: "stuck", filename: "a.py" }, { timeLimit: 0.05 });
  assert.equal(result.status, "timeout");
  assert.ok(Date.now() - t0 >= 45, "not before the limit");
  assert.equal(workers[0].terminated, true);
  assert.equal(python.restarts, 1);
});

test("Stop leaves background work (the warm-up check) alone", async (t) => {
  const { python, workers } = fakePython({ spare: false, fake: { behave: (msg, api) => api.started() } });
  t.after(() => python.dispose());
  const background = python.request("check", CHECK, { background: true });
  let settled = false;
  background.then(() => { settled = true; });
  await until(() => started(python), 1000, "the check to start");
  python.stop();
  await tick(20);
  assert.equal(settled, false);
  assert.equal(workers[0].terminated, false);
});

test("a check refused because an earlier run tampered is retried once on a clean worker", async (t) => {
  // The first worker refuses (tainted before); its replacement judges normally.
  const behave = (msg, api) => defaultBehaviour(api.worker === workers[0] ? msg
    : { ...msg, files: { "x.py": "clean" } }, api);
  const { python, workers } = fakePython({ spare: false, fake: { behave } });
  t.after(() => python.dispose());
  const result = await python.request("check", { ...CHECK, files: { "x.py": "tamper" } });
  assert.equal(result.status, "passed");
  assert.equal(result.retried, true);
  assert.equal(workers[0].terminated, true);
  assert.equal(python.restarts, 1);
  assert.equal(workers[1].log.length, 1);
  assert.equal(workers[1].log[0].retried, undefined, "the retry is the client's business, not a wire field");
});

test("a second tampered refusal is not retried again: the learner sees the error", async (t) => {
  const { python, workers } = fakePython({ spare: false });
  t.after(() => python.dispose());
  const result = await python.request("check", { ...CHECK, files: { "x.py": "tamper" } });
  assert.equal(result.status, "error");
  assert.equal(result.tainted, "before");
  assert.equal(result.retried, true);
  assert.equal(workers.length, 3, "replaced after each refusal");
  assert.equal(python.restarts, 2);
});

test("a malformed reply becomes an error result for its request, never a throw", async (t) => {
  const bad = [
    { status: "passed", tests: "all", stdout: "", traceback: "" },
    { status: "great", tests: [], stdout: "", traceback: "" },
    { status: "passed", tests: [{ name: "t", outcome: "maybe", message: "" }], stdout: "", traceback: "" },
    { status: "passed", tests: [], stdout: 3, traceback: "" },
    { status: "failed", tests: [], stdout: "", traceback: "", phase: "somewhere" },
    null,
  ];
  for (const reply of bad) {
    const { python } = fakePython({
      spare: false,
      fake: { behave: (msg, api) => { api.started(); api.result(reply); } },
    });
    const result = await python.request("check", CHECK);
    python.dispose();
    assert.equal(result.status, "error", JSON.stringify(reply));
    assert.match(result.traceback, /malformed reply/);
    assert.deepEqual(result.tests, []);
  }
});

test("a result with phase, tainted, durations and where passes validation unchanged", async (t) => {
  const judged = {
    status: "failed", phase: "tests", stdout: "hi\n", traceback: "", durations: { test_a: 1.5, test_b: 0.2 },
    tests: [{ name: "test_a", outcome: "passed", message: "" },
      { name: "test_b", outcome: "failed", message: "expected 1", where: "x.py:3" }],
  };
  const { python } = fakePython({ spare: false, fake: { behave: (msg, api) => { api.started(); api.result(judged); } } });
  t.after(() => python.dispose());
  const result = await python.request("check", CHECK);
  const { ms, ...rest } = result;
  assert.deepEqual(rest, judged);
});

test("an error reply for a request ends it with the worker's message", async (t) => {
  const { python } = fakePython({ spare: false });
  t.after(() => python.dispose());
  const result = await python.request("check", { ...CHECK, names: "test_a" });
  assert.equal(result.status, "error");
  assert.match(result.traceback, /internal error: check needs learner, files, tests and names/);
});

test("replies from the wrong worker, for unknown ids, or off the private port are ignored", async (t) => {
  const { python, workers } = fakePython({ spare: false, fake: { behave: (msg, api) => api.started() } });
  t.after(() => python.dispose());
  const done = python.request("check", CHECK, { timeLimit: 0.1 });
  await until(() => workers[0].log.length === 1, 500, "the check");
  const forged = { status: "passed", tests: [], stdout: "", traceback: "" };
  workers[0].send({ type: "result", id: 99999, result: forged });
  workers[0].send({ type: "status", stage: "bogus", ms: 1 });
  assert.equal(workers[0].onmessage, undefined, "nothing listens on the worker's global channel");
  const result = await done;
  assert.equal(result.status, "timeout");
});

test("a fatal reply fails the running request plainly and brings up a new worker", async (t) => {
  const { python, workers } = fakePython({
    spare: false,
    fake: { behave: (msg, api) => { api.started(); api.worker.send({ type: "fatal", message: "Your code closed the Python worker (js.close())." }); } },
  });
  t.after(() => python.dispose());
  const result = await python.request("run", { code: "x", filename: "a.py" });
  assert.equal(result.status, "error");
  assert.equal(result.restarted, true);
  assert.match(result.traceback, /closed the Python worker[\s\S]*Python has been restarted/);
  assert.equal(workers.length, 2);
  assert.equal(python.restarts, 1);
});

test("a worker that dies before any stage is reported as failed, and the next request starts a new one", async (t) => {
  const { python, workers } = fakePython({ spare: false, fake: { autoBoot: false } });
  t.after(() => python.dispose());
  const done = python.request("run", { code: "print:1", filename: "a.py" });
  await tick(5);
  workers[0].onerror({ message: "pyodide.asm.wasm: HTTP 404" });
  const result = await done;
  assert.equal(result.status, "error");
  assert.match(python.status.failed, /HTTP 404/);
  assert.equal(python.restarts, 0);
  python.request("run", { code: "print:1", filename: "a.py" });
  assert.equal(workers.length, 2, "a new worker for the next try");
});

test("the spare worker starts only once the live one is ready for checks", async (t) => {
  const { python, workers } = fakePython({ fake: { autoBoot: false } });
  t.after(() => python.dispose());
  workers.length = 0;
  const done = python.request("run", { code: "print:1", filename: "a.py" });
  await tick(5);
  workers[0].boot("numpy");
  await done;
  await tick(30);
  assert.equal(workers.length, 1, "no spare while the live worker is still loading");
  workers[0].boot();
  await until(() => workers.length === 2, 500, "the spare");
  await tick(30);
  assert.equal(workers.length, 2, "one spare, not more");
});

test("the spare worker waits for spareAfter as well", async (t) => {
  let allow;
  const { python, workers } = fakePython({ spareAfter: new Promise((resolve) => { allow = resolve; }) });
  t.after(() => python.dispose());
  workers.length = 0;
  await python.request("run", { code: "print:1", filename: "a.py" });
  await tick(30);
  assert.equal(workers.length, 1, "no spare before spareAfter settles");
  allow();
  await until(() => workers.length === 2, 500, "the spare");
});

test("after dispose, requests resolve as stopped and no worker is started again", async () => {
  const { python, workers } = fakePython({ spare: false });
  await python.request("run", { code: "print:1", filename: "a.py" });
  python.dispose();
  assert.equal(workers[0].terminated, true);
  const late = await python.request("run", { code: "print:1", filename: "a.py" });
  assert.equal(late.status, "stopped");
  assert.equal(workers.length, 1);
});

test("localStorage's tl-start names the worker start=cold or start=snapshot, anything else nothing", async () => {
  const { workerName } = await import("../src/page/worker-client.js");
  const storage = (value) => ({ getItem: (k) => (k === "tl-start" ? value : null) });
  assert.equal(workerName(storage("cold")), "start=cold");
  assert.equal(workerName(storage("snapshot")), "start=snapshot");
  assert.equal(workerName(storage("compact")), "", "a start of older builds (the LZ4 copies are gone) forces nothing");
  assert.equal(workerName(storage("evil")), "");
  assert.equal(workerName(storage(null)), "");
  assert.equal(workerName(null), "");
  assert.equal(workerName({ getItem() { throw new Error("denied"); } }), "");
});

test("settled waits for Python to be ready and for a quiet moment after the last request", async (t) => {
  const { python, workers } = fakePython({ fake: { autoBoot: false }, spare: false });
  t.after(() => python.dispose());
  let settled = false;
  python.settled({ quietMs: 60, everyMs: 5 }).then(() => { settled = true; });
  const done = python.request("run", { code: "print:1", filename: "a.py" });
  await until(() => workers[0].log.length === 1, 1000, "the request to reach the worker");
  await tick(120);
  assert.equal(settled, false, "not before Python is ready, nor while a request is pending");
  workers[0].boot();
  assert.equal((await done).status, "ok");
  const over = performance.now();
  await until(() => settled, 1000, "settled once the run is over and the worker has been quiet");
  assert.ok(performance.now() - over >= 50, "only after the quiet moment");
});

test("settled gives up waiting after capMs, and settles at once for a worker that failed", async (t) => {
  const { python } = fakePython({ fake: { autoBoot: false }, spare: false });
  t.after(() => python.dispose());
  python.start();
  const since = performance.now();
  await python.settled({ quietMs: 10, capMs: 50, everyMs: 5 });
  assert.ok(performance.now() - since >= 45, "it waited for the cap: Python never became ready");
  python.live.failed = "the worker failed";
  await python.settled({ quietMs: 10_000, capMs: 60_000, everyMs: 5 });
});

test("the timeline: the worker's marks on the page's clock, and the first Check's moments (bench/engines.py)",
  async (t) => {
    const { python, workers } = fakePython({ fake: { autoBoot: false }, spare: false });
    t.after(() => python.dispose());
    python.start();
    await until(() => workers[0]?.port, 1000, "the worker to be told its port");
    const before = performance.now();
    workers[0].boot();
    await until(() => python.stage === "pytest", 1000, "ready");
    const { marks } = python.timeline;
    assert.deepEqual(Object.keys(marks), ["python", "numpy", "pytest"]);
    for (const [name, at] of Object.entries(marks)) {
      assert.ok(at >= before - 1 && at <= performance.now() + 1, `${name} at ${at}, not on the page's clock`);
    }
    await python.request("check", CHECK, { background: true });
    assert.equal(python.timeline.firstCheck, undefined, "the warm-up check is not the learner's");
    const sent = performance.now();
    await python.request("check", CHECK);
    const first = python.timeline.firstCheck;
    assert.ok(first.sent >= sent && first.started >= first.sent && first.done >= first.started, JSON.stringify(first));
    await python.request("check", CHECK);
    assert.equal(python.timeline.firstCheck, first, "only the first is kept");
  });

test("onBusy hears when the learner's work starts and ends, never for background work, and once per change", async (t) => {
  const told = [];
  const { python } = fakePython({ spare: false, onBusy: (busy) => told.push(busy) });
  t.after(() => python.dispose());
  await python.request("check", CHECK, { background: true });
  assert.deepEqual(told, [], "the warm-up check is not the learner's");
  const one = python.request("run", { code: "print:1", filename: "a.py" });
  const two = python.request("run", { code: "print:2", filename: "a.py" });
  assert.deepEqual(told, [true], "two requests in flight are one busy spell");
  await Promise.all([one, two]);
  assert.deepEqual(told, [true, false]);
  await python.request("run", { code: "print:3", filename: "a.py" });
  assert.deepEqual(told, [true, false, true, false]);
});
