// Unit tests of web/src/page/cell/bundles.js's `rewriting`: what of a bundle's build-time rewriting a check request
// carries. A malformed one must not make the worker refuse the learner's check (protocol.js requestProblem).
import { test } from "node:test";
import assert from "node:assert/strict";

import { rewriting } from "../src/page/cell/bundles.js";
import { requestProblem } from "../src/shared/protocol.js";

const CHECK = { type: "check", id: 1, tests: { "test_x.py": "def test_a(): pass" }, files: { "x.py": "" }, learner: "x.py",
  names: ["test_a"] };

test("a bundle's well-formed rewriting goes into the check request, which the worker accepts", () => {
  const rewritten = { tag: "cb0d0d0a-pytest-8.3.5", tests: { "test_x.py": "eJwLSS0u" } };
  assert.deepEqual(rewriting({ rewritten }), { rewritten });
  assert.equal(requestProblem({ ...CHECK, ...rewriting({ rewritten }) }), "");
});

test("a bundle without rewriting, or with a malformed one, adds nothing: the check still goes through", () => {
  for (const bundle of [{}, null, { rewritten: null }, { rewritten: "x" }, { rewritten: { tests: {} } },
    { rewritten: { tag: "t", tests: [] } }, { rewritten: { tag: "t", tests: { "test_x.py": 3 } } },
    { rewritten: { tag: 1, tests: {} } }]) {
    assert.deepEqual(rewriting(bundle), {}, JSON.stringify(bundle));
    assert.equal(requestProblem({ ...CHECK, ...rewriting(bundle) }), "", JSON.stringify(bundle));
  }
});
