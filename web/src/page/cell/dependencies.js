/**
 * The dependency rule of a module that builds on others, the same as `ol check` (ol/cli.py,
 * `missing_dependency` and `--ref-deps`):
 *
 * - every exercise it builds on, directly or through another, must have passed here: its code is imported by the
 *   module's own code and by the hidden tests;
 * - the one named is the first that has not, direct requirements first (in dependency order), then the others
 *   nearest first: "M07.6 needs M07.1", and M07.1's own check will ask for M06.3; a transitive one says how it
 *   is reached: "M07.6 needs M06.3 (through M07.1)";
 * - or the learner chooses the reference implementation of every exercise it builds on instead (the site's
 *   "Use the reference" box, ol's --ref-deps).
 *
 * Here "passed" is the last check of that exercise in this browser, and the code used is the code that passed
 * (saved with the result), so a later edit of the dependency's editor does not change what a module imports.
 * Pure: the caller reads storage and bundles.
 */

/** "A", "A and B", "A, B and C". */
const list = (ids) => (ids.length > 1 ? `${ids.slice(0, -1).join(", ")} and ${ids[ids.length - 1]}` : ids.join(""));

/**
 * @typedef {{slug: string, id: string, importPath: string, reference: string}} Dependency
 * @typedef {{files: Record<string, string>, order: string[], missing: string[], borrowed: string[],
 *            needs: string, text: string, label: string, refDeps: boolean}} Gate
 *   files: the dependency sources a run or check imports; order: every dependency's id, in the rule's order;
 *   missing: ids that have not passed (first one first); borrowed: ids whose reference stands in; needs: "" or
 *   "M07.6 needs M07.1"; text: the sentence shown above the box ("" when there is nothing to say); label: the
 *   box's label
 */

/**
 * Apply the rule.
 * @param {{id: string, deps: Dependency[], direct: string[], passedCode: (slug: string) => string|null,
 *          refDeps: boolean}} input
 *   deps: every dependency, in the order the rule looks at them (the bundle's `checkOrder`, computed once by the
 *   build: course/manifest.py `check_order`, as `ol check` does); direct: the slugs the exercise requires itself;
 *   passedCode: the code of a dependency's last check when it passed, else null; refDeps: the learner chose the
 *   reference ones
 * @returns {Gate}
 */
export function applyRule({ id, deps, direct, passedCode, refDeps }) {
  const bySlug = new Map(deps.map((d) => [d.slug, d]));
  const files = {};
  const missing = [];
  for (const dep of deps) {
    const code = passedCode(dep.slug);
    if (typeof code !== "string") missing.push(dep);
    if (refDeps) files[dep.importPath] = dep.reference;
    else if (typeof code === "string") files[dep.importPath] = code;
  }
  const ids = deps.map((d) => d.id);
  const gate = {
    files, order: ids, missing: missing.map((d) => d.id), borrowed: refDeps ? ids : [], needs: "", text: "",
    label: `Use the reference ${ids.join(", ")}`, refDeps,
  };
  if (missing.length && !refDeps) {
    const first = missing[0];
    const via = direct.includes(first.slug) ? ""
      : ` (through ${direct.map((slug) => (bySlug.get(slug) || { id: slug }).id).join(", ")})`;
    gate.needs = `${id} needs ${first.id}${via}`;
    gate.text = `${gate.needs}: ${first.id} has not passed here yet. Pass ${list(gate.missing)} first, `
      + `or check against the reference implementation of every exercise ${id} builds on.`;
  } else if (refDeps && ids.length) {
    gate.text = `Checking against the reference ${list(ids)}, not your own code`
      + (missing.length ? `: you have not passed ${list(gate.missing)} here yet.` : ".");
  }
  return gate;
}
