// Unit tests of web/src/shared/protocol.js: the shape checks of every request (the worker applies them before acting)
// and of every reply (worker-client.js applies them before use).
import { test } from "node:test";
import assert from "node:assert/strict";

import {
  CHECK_STATUSES, figureProblem, NEEDS, PHASES, reached, replyProblem, requestProblem, resultProblem, REQUESTS, REPLIES,
  STAGE, STAGES,
} from "../src/shared/protocol.js";

const GOOD = {
  init: { type: "init", id: 1, indexURL: "http://127.0.0.1:8000/assets/pyodide/", judgeURL: "checker.zip", wheels: [] },
  run: { type: "run", id: 2, code: "print(1)", filename: "main.py", files: {} },
  check: {
    type: "check", id: 3, tests: { "test_x.py": "def test_a(): pass" }, files: { "tinyllm/x.py": "" },
    learner: "tinyllm/x.py", names: ["test_a"],
  },
  explore: { type: "explore", id: 5, kind: "eval", code: "f(1)", run: 2, filename: "main.py", files: {} },
  cancel: { type: "cancel", id: 2 },
  ping: { type: "ping", id: 4 },
  serve: { type: "serve", id: 6, channel: new SharedArrayBuffer(32) },
};

test("every request type has a well-formed example", () => {
  assert.deepEqual(Object.keys(GOOD).sort(), [...REQUESTS].sort());
  for (const [type, msg] of Object.entries(GOOD)) assert.equal(requestProblem(msg), "", type);
});

test("a console request names its kind, its Run and its code; its result may be incomplete, fresh, a trace", () => {
  assert.equal(requestProblem({ ...GOOD.explore, kind: "trace" }), "");
  assert.match(requestProblem({ ...GOOD.explore, kind: "debug" }), /explore's kind/);
  assert.match(requestProblem({ ...GOOD.explore, run: -1 }), /integer run/);
  assert.match(requestProblem({ ...GOOD.run, run: "1" }), /run's run/);
  const traced = { status: "ok", stdout: "", traceback: "", steps: REPLY.steps.steps, cut: true, fresh: true };
  assert.equal(resultProblem(traced, "explore"), "");
  assert.equal(resultProblem({ status: "incomplete", stdout: "", traceback: "" }, "explore"), "");
  assert.match(resultProblem({ status: "incomplete", stdout: "", traceback: "" }, "run"), /unknown result status/);
  assert.match(resultProblem({ ...traced, steps: [{ line: 0, stack: [], vars: {}, changed: [] }] }, "explore"), /steps/);
  assert.match(replyProblem({ ...REPLY.steps, steps: [{ line: 2 }] }), /steps needs a list of steps/);
});

test("a message must be an object", () => {
  for (const msg of [null, undefined, "run", 42, true]) {
    assert.equal(requestProblem(msg), "a message must be an object");
  }
});

test("unknown types are rejected by name", () => {
  assert.equal(requestProblem({ type: "eval", id: 1 }), 'unknown message type "eval"');
  assert.equal(requestProblem({ id: 1 }), "unknown message type undefined");
  // Replies are not requests.
  assert.equal(requestProblem({ type: "result", id: 1 }), 'unknown message type "result"');
});

test("run needs string code and filename", () => {
  for (const broken of [{ code: undefined }, { filename: undefined }, { code: 42 }, { filename: null }]) {
    assert.equal(requestProblem({ ...GOOD.run, ...broken }), "run needs string fields code and filename");
  }
});

test("a check may carry the build's rewriting of its tests: a string tag and tests mapping names to strings", () => {
  const rewritten = { tag: "cb0d0d0a-pytest-8.3.5", tests: { "test_x.py": "eJwLSS0u" } };
  assert.equal(requestProblem({ ...GOOD.check, rewritten }), "");
  for (const broken of [null, "x", [], { tests: rewritten.tests }, { tag: 1, tests: rewritten.tests },
    { tag: rewritten.tag }, { tag: rewritten.tag, tests: { "test_x.py": 3 } }]) {
    assert.equal(requestProblem({ ...GOOD.check, rewritten: broken }),
      "check's rewritten needs a string tag and tests mapping names to strings", JSON.stringify(broken));
  }
});

test("check needs learner, files, tests and names", () => {
  for (const broken of [{ learner: undefined }, { learner: 3 }, { files: undefined }, { tests: "x" },
    { names: undefined }, { names: "test_a" }]) {
    assert.equal(requestProblem({ ...GOOD.check, ...broken }), "check needs learner, files, tests and names",
      JSON.stringify(broken));
  }
});

test("the vocabularies are fixed", () => {
  for (const list of [REQUESTS, REPLIES, STAGES]) assert.ok(Object.isFrozen(list));
  assert.deepEqual([...STAGES], ["python", "numpy", "pytest"]);
  assert.ok(REPLIES.includes("result") && REPLIES.includes("error") && REPLIES.includes("fatal"));
});

test("check with files or tests null is rejected", () => {
    assert.notEqual(requestProblem({ ...GOOD.check, files: null }), "");
    assert.notEqual(requestProblem({ ...GOOD.check, tests: null }), "");
  });

test("requests without an id are rejected", () => {
    const { id, ...noId } = GOOD.ping;
    assert.equal(id, 4);
    assert.notEqual(requestProblem(noId), "");
  });

test("check's files, tests and names must hold strings: the worker serialises them for Python", () => {
  assert.match(requestProblem({ ...GOOD.check, files: { "x.py": 3 } }), /must map names to sources/);
  assert.match(requestProblem({ ...GOOD.check, tests: { "t.py": null } }), /must map names to sources/);
  assert.match(requestProblem({ ...GOOD.check, names: ["a", 1] }), /names must be strings/);
  assert.match(requestProblem({ ...GOOD.run, files: { "m.py": ["x"] } }), /run's files/);
  assert.equal(requestProblem({ ...GOOD.run, files: undefined }), "");
});

test("init's interrupt is a SharedArrayBuffer when given", () => {
  assert.equal(requestProblem({ ...GOOD.init, interrupt: new SharedArrayBuffer(1) }), "");
  assert.equal(requestProblem({ ...GOOD.init, interrupt: null }), "");
  assert.match(requestProblem({ ...GOOD.init, interrupt: new ArrayBuffer(1) }), /SharedArrayBuffer/);
});

test("stage names exist once: STAGE by name, NEEDS per request, reached() in order", () => {
  assert.deepEqual(Object.values(STAGE), [...STAGES]);
  assert.deepEqual({ ...NEEDS }, { run: "numpy", check: "pytest", explore: "numpy", serve: "pytest" });
  assert.equal(reached("pytest", STAGE.numpy), true);
  assert.equal(reached("numpy", STAGE.numpy), true);
  assert.equal(reached("python", STAGE.numpy), false);
  assert.equal(reached("", STAGE.python), false);
});

const CHECKED = {
  status: "failed", stdout: "", traceback: "", phase: "tests", durations: { test_a: 1.5 },
  tests: [{ name: "test_a", outcome: "failed", message: "expected 1, got 2", where: "tinyllm/x.py:3" }],
};
const REPLY = {
  status: { type: "status", stage: "pytest", ms: 812.5 },
  loading: { type: "loading", received: 3_200_000, total: 14_800_000, ms: 1250 },
  started: { type: "started", id: 3 },
  stdout: { type: "stdout", id: 2, text: "42\n" },
  steps: { type: "steps", id: 5, steps: [{ line: 3, stack: [{ function: "f", line: 3 }], changed: ["p"],
    vars: { p: { type: "ndarray", text: "[0.5 0.5]", shape: [2], dtype: "float64" } } }] },
  progress: { type: "progress", id: 2, text: "Loading matplotlib (9.8 MB, once)…" },
  result: { type: "result", id: 3, result: CHECKED },
  error: { type: "error", id: 3, message: "check needs learner, files, tests and names" },
  fatal: { type: "fatal", message: "The Python runtime stopped" },
};

test("every reply type has a well-formed example", () => {
  assert.deepEqual(Object.keys(REPLY).sort(), [...REPLIES].sort());
  for (const [type, msg] of Object.entries(REPLY)) assert.equal(replyProblem(msg, "check"), "", type);
  assert.equal(replyProblem({ ...REPLY.status, stage: "python", snapshot: true }), "");
  assert.equal(replyProblem({ ...REPLY.status, stage: "pytest", handedOff: true }), "");
  assert.equal(replyProblem({ ...REPLY.status, stage: "pytest", marks: { restored: 1.5e12, numpyIn: 1.5e12 } }), "");
  assert.equal(replyProblem({ type: "error", message: "a message must be an object" }), "", "an error may lack an id");
  for (const bad of [{ received: -1 }, { total: "14 MB" }, { ms: undefined }]) {
    assert.match(replyProblem({ ...REPLY.loading, ...bad }), /loading needs received, total and ms/, JSON.stringify(bad));
  }
});

test("malformed replies are named", () => {
  const cases = [
    [null, /must be an object/],
    [{ type: "hello", id: 1 }, /unknown reply type "hello"/],
    [{ ...REPLY.status, stage: "judge" }, /unknown stage "judge"/], // the old name of "pytest"
    [{ ...REPLY.status, ms: "soon" }, /needs ms/],
    [{ ...REPLY.status, snapshot: "yes" }, /snapshot/],
    [{ ...REPLY.status, handedOff: 1 }, /handedOff/],
    [{ ...REPLY.status, marks: { restored: "soon" } }, /marks/],
    [{ ...REPLY.status, marks: [1, 2] }, /marks/],
    [{ type: "started" }, /started needs the id/],
    [{ ...REPLY.stdout, text: 42 }, /stdout needs text/],
    [{ type: "fatal" }, /fatal needs a message/],
    [{ type: "error", id: "x", message: "m" }, /error's id/],
    [{ ...REPLY.result, result: undefined }, /a result must be an object/],
  ];
  for (const [msg, problem] of cases) assert.match(replyProblem(msg, "check"), problem, JSON.stringify(msg));
});

test("results: statuses per request type, rows, and the optional phase, tainted, durations and where", () => {
  const run = { status: "ok", stdout: "", traceback: "" };
  assert.equal(resultProblem(run, "run"), "");
  assert.equal(resultProblem(run, "ping"), "");
  assert.match(resultProblem({ ...run, status: "passed" }, "run"), /unknown result status "passed"/);
  assert.match(resultProblem(run, "check"), /unknown result status "ok"/);
  assert.match(resultProblem({ ...CHECKED, tests: undefined }, "check"), /needs tests/);
  assert.match(resultProblem({ status: "ok", stdout: "" }, "run"), /stdout and traceback/);
  for (const phase of PHASES) assert.equal(resultProblem({ ...CHECKED, phase }, "check"), "", phase);
  assert.equal(resultProblem({ ...CHECKED, phase: undefined }, "check"), "", "phase is optional");
  assert.match(resultProblem({ ...CHECKED, phase: "import-ish" }, "check"), /unknown phase/);
  assert.equal(resultProblem({ ...CHECKED, status: "error", tainted: "during" }, "check"), "");
  assert.match(resultProblem({ ...CHECKED, tainted: "yes" }, "check"), /unknown tainted/);
  assert.match(resultProblem({ ...CHECKED, durations: { test_a: "1 ms" } }, "check"), /durations/);
  const row = CHECKED.tests[0];
  for (const bad of [{ ...row, outcome: "skipped" }, { ...row, message: undefined }, { ...row, where: 3 }, "test_a"]) {
    assert.match(resultProblem({ ...CHECKED, tests: [bad] }, "check"), /malformed test result/, JSON.stringify(bad));
  }
  assert.ok(CHECK_STATUSES.includes("stopped"), "the client's own results are checks too");
});

test("a check may carry known mistakes, and its result a diagnosis drawn from them", () => {
  const check = { type: "check", id: 1, tests: {}, files: {}, learner: "a.py", names: [] };
  const mistake = { mutant: "s01", pitfall: "u <= r", number: 1, fingerprint: ["t failed 3 AssertionError"] };
  assert.equal(requestProblem({ ...check, mistakes: [mistake, { ...mistake, number: null }] }), "");
  for (const bad of [{}, [{ ...mistake, fingerprint: "t" }], [{ ...mistake, number: 1.5 }], [{ ...mistake, mutant: 1 }]]) {
    assert.match(requestProblem({ ...check, mistakes: bad }), /mistakes/, JSON.stringify(bad));
  }
  const found = { pitfall: "u <= r", number: 1, mutants: ["s01"], also: [] };
  assert.equal(resultProblem({ ...CHECKED, diagnosis: [found] }, "check"), "");
  assert.equal(resultProblem({ ...CHECKED, tests: [{ ...CHECKED.tests[0], case: "3 AssertionError" }] }, "check"), "");
  assert.match(resultProblem({ ...CHECKED, tests: [{ ...CHECKED.tests[0], case: 3 }] }, "check"), /malformed/);
  for (const bad of [found, [{ ...found, mutants: "s01" }], [{ ...found, number: "1" }], [{ ...found, also: [1] }]]) {
    assert.match(resultProblem({ ...CHECKED, diagnosis: bad }, "check"), /diagnosis/, JSON.stringify(bad));
  }
});

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==";
const IMAGE = { kind: "image", mime: "image/png", data: PNG, alt: "exact against naive", at: 12 };

test("progress needs text; it may be empty (the request starts now)", () => {
  assert.equal(replyProblem({ type: "progress", id: 2, text: "" }, "run"), "");
  assert.match(replyProblem({ type: "progress", id: 2 }, "run"), /progress needs text/);
  assert.match(replyProblem({ type: "progress", text: "x" }, "run"), /progress needs the id/);
});

test("a run's figures: images of base64 PNG with a text alternative, and notes, each placed or after the text", () => {
  const run = { status: "ok", stdout: "hello\n", traceback: "" };
  const note = { kind: "note", text: "5 more figures were not shown" };
  assert.equal(resultProblem({ ...run, figures: [IMAGE, { ...IMAGE, at: null }, note] }, "run"), "");
  assert.equal(resultProblem({ ...run, figures: [] }, "run"), "");
  const bad = [
    [{ ...run, figures: {} }, /figures must be a list/],
    [{ ...run, figures: [{ ...IMAGE, kind: "svg" }] }, /unknown figure/],
    [{ ...run, figures: [{ ...IMAGE, mime: "text/html" }] }, /unknown image type "text\/html"/],
    [{ ...run, figures: [{ ...IMAGE, data: "<script>" }] }, /base64/],
    [{ ...run, figures: [{ ...IMAGE, data: "" }] }, /base64/],
    [{ ...run, figures: [{ ...IMAGE, data: "abc" }] }, /base64/],
    [{ ...run, figures: [{ ...IMAGE, alt: "  " }] }, /text alternative/],
    [{ ...run, figures: [{ ...IMAGE, at: -1 }] }, /offset/],
    [{ ...run, figures: [{ ...IMAGE, at: 1.5 }] }, /offset/],
    [{ ...run, figures: [{ kind: "note" }] }, /a note needs text/],
    [{ ...run, figures: [null] }, /unknown figure/],
  ];
  for (const [result, expected] of bad) assert.match(resultProblem(result, "run"), expected, JSON.stringify(result));
  assert.match(replyProblem({ type: "result", id: 2, result: bad[2][0] }, "run"), /unknown image type/);
  assert.equal(figureProblem(IMAGE), "");
});

test("a separated check's two requests carry the channel, a SharedArrayBuffer, and nothing else will do", () => {
  assert.equal(requestProblem({ ...GOOD.check, channel: new SharedArrayBuffer(32) }), "");
  assert.match(requestProblem({ ...GOOD.check, channel: new ArrayBuffer(32) }), /check's channel/);
  assert.match(requestProblem({ type: "serve", id: 1 }), /serve needs a SharedArrayBuffer/);
  assert.match(requestProblem({ type: "serve", id: 1, channel: {} }), /serve needs a SharedArrayBuffer/);
});
