// Unit tests of web/src/protocol.js: the shape check every request passes before the worker acts on it.
import { test } from "node:test";
import assert from "node:assert/strict";

import { requestProblem, REQUESTS, REPLIES, STAGES } from "../src/protocol.js";

const GOOD = {
  init: { type: "init", id: 1, indexURL: "http://127.0.0.1:8000/assets/pyodide/", judgeURL: "checker.zip", wheels: [] },
  run: { type: "run", id: 2, code: "print(1)", filename: "main.py", files: {} },
  check: {
    type: "check", id: 3, tests: { "test_x.py": "def test_a(): pass" }, files: { "tinyllm/x.py": "" },
    learner: "tinyllm/x.py", names: ["test_a"], timeLimit: 20,
  },
  cancel: { type: "cancel", id: 2 },
  ping: { type: "ping", id: 4 },
};

test("every request type has a well-formed example", () => {
  assert.deepEqual(Object.keys(GOOD).sort(), [...REQUESTS].sort());
  for (const [type, msg] of Object.entries(GOOD)) assert.equal(requestProblem(msg), "", type);
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

test("check needs learner, files, tests and names", () => {
  for (const broken of [{ learner: undefined }, { learner: 3 }, { files: undefined }, { tests: "x" },
    { names: undefined }, { names: "test_a" }]) {
    assert.equal(requestProblem({ ...GOOD.check, ...broken }), "check needs learner, files, tests and names",
      JSON.stringify(broken));
  }
});

test("the vocabularies are fixed", () => {
  for (const list of [REQUESTS, REPLIES, STAGES]) assert.ok(Object.isFrozen(list));
  assert.deepEqual([...STAGES], ["python", "numpy", "judge"]);
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
