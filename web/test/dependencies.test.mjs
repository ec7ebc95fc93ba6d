// web/src/page/cell/dependencies.js: the dependency rule, which must say what `ol check` says (ol/cli.py,
// missing_dependency): every dependency must have passed, direct ones are named first, transitive ones with the
// requirement they come through, and --ref-deps means the reference of every one.
import { test } from "node:test";
import assert from "node:assert/strict";

import { applyRule } from "../src/page/cell/dependencies.js";

const dep = (slug) => ({ slug, id: slug.toUpperCase(), importPath: `${slug}.py`, reference: `# ${slug} reference\n` });
// X requires A and B; A requires C. In the rule's order, as the bundle's checkOrder gives it (course/manifest.py
// check_order, held to these orders by tests/unit/test_manifest.py): A, B, then C.
const DIAMOND = { id: "X", deps: ["a", "b", "c"].map(dep), direct: ["a", "b"] };
const passed = (...slugs) => (slug) => (slugs.includes(slug) ? `# my ${slug}\n` : null);

test("the first dependency that has not passed is named, direct before transitive", () => {
  const none = applyRule({ ...DIAMOND, passedCode: passed(), refDeps: false });
  assert.equal(none.needs, "X needs A");
  assert.deepEqual(none.missing, ["A", "B", "C"]);
  assert.match(none.text, /^X needs A: A has not passed here yet\. Pass A, B and C first, or check against the reference implementation of every exercise X builds on\.$/);
  assert.equal(applyRule({ ...DIAMOND, passedCode: passed("a"), refDeps: false }).needs, "X needs B");
  assert.equal(applyRule({ ...DIAMOND, passedCode: passed("a", "b"), refDeps: false }).needs, "X needs C (through A, B)");
});

test("when every dependency passed, the learner's passed code is imported and there is nothing to say", () => {
  const gate = applyRule({ ...DIAMOND, passedCode: passed("a", "b", "c"), refDeps: false });
  assert.equal(gate.needs, "");
  assert.equal(gate.text, "");
  assert.deepEqual(gate.files, { "a.py": "# my a\n", "b.py": "# my b\n", "c.py": "# my c\n" });
  assert.deepEqual(gate.borrowed, []);
});

test("with the reference preference, every dependency is the reference one (ol's --ref-deps), passed or not", () => {
  const some = applyRule({ ...DIAMOND, passedCode: passed("a"), refDeps: true });
  assert.equal(some.needs, "", "nothing blocks the check");
  assert.deepEqual(some.files, { "a.py": "# a reference\n", "b.py": "# b reference\n", "c.py": "# c reference\n" });
  assert.deepEqual(some.borrowed, ["A", "B", "C"]);
  assert.equal(some.text, "Checking against the reference A, B and C, not your own code: you have not passed B and C here yet.");
  assert.equal(some.label, "Use the reference A, B, C");
  const all = applyRule({ ...DIAMOND, passedCode: passed("a", "b", "c"), refDeps: true });
  assert.equal(all.text, "Checking against the reference A, B and C, not your own code.");
});

test("an exercise with no dependencies has an empty verdict", () => {
  const gate = applyRule({ id: "E", deps: [], direct: [], passedCode: passed(), refDeps: false });
  assert.deepEqual({ ...gate }, { files: {}, order: [], missing: [], borrowed: [], needs: "", text: "", label: "Use the reference ", refDeps: false });
  assert.equal(applyRule({ id: "E", deps: [], direct: [], passedCode: passed(), refDeps: true }).text, "");
});
