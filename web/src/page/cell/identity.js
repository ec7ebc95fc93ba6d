/**
 * What a cell placeholder is: an exercise (keyed by its slug) or a runnable example, keyed by a stable id — the
 * `id` in its data when the block gives one, otherwise a short hash of its code — so that adding an example
 * above another does not move a learner's saved code onto the wrong cell. Examples used to be keyed by their
 * position on the page; `migrateExample` moves code saved that way to the new key once, losing nothing.
 */
import { keys } from "../store.js";
import { widgetData } from "../widgets.js";

const EXERCISE = { slug: "string", id: "string", path: "string", importPath: "string", starter: "string" };
const EXAMPLE = { code: "string" };

/** A short, stable hash of a text (FNV-1a, 32 bits, as 8 hex digits). */
export function shortHash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

const exampleId = (data) => (typeof data.id === "string" && data.id ? data.id : shortHash(data.code));

/**
 * Read a cell placeholder.
 * @param {Element} root  a `.tl-cell` placeholder (mdwidgets)
 * @param {{pathname: string}} page  the page's path: example ids are unique within a page
 * @throws {import("../widgets.js").WidgetError} when its data is missing or unreadable
 */
export function describeCell(root, { pathname }) {
  if (root.dataset.kind === "exercise") {
    const data = widgetData(root, EXERCISE);
    return {
      kind: "exercise", data, slug: data.slug, id: data.id, path: data.path, filename: data.importPath,
      starter: data.starter, label: `Code editor for ${data.id}: ${data.path}`,
      requires: Array.isArray(data.requires) ? data.requires : [], timeLimit: data.timeLimit || 20,
      // Hints are the page's HTML (mdwidgets renders them, hidden, in the placeholder); the reveal policy is data.
      hintNodes: [...root.querySelectorAll(":scope > .tl-hint-source")],
      revealAfter: Number.isInteger(data.revealAfter) && data.revealAfter > 0 ? data.revealAfter : 0,
    };
  }
  const data = widgetData(root, EXAMPLE);
  const examples = [...root.ownerDocument.querySelectorAll(".tl-cell[data-kind=example]")];
  const id = exampleId(data);
  // Two examples with the same code on one page are told apart by their order among those.
  const twins = examples.slice(0, examples.indexOf(root)).filter((other) => {
    try {
      return exampleId(widgetData(other, EXAMPLE)) === id;
    } catch {
      return false;
    }
  }).length;
  return {
    kind: "example", data, slug: `example:${pathname}#${id}${twins ? `-${twins + 1}` : ""}`, id: "", path: "example",
    filename: "example.py", starter: data.code, label: "Example code editor", requires: [],
    uses: typeof data.uses === "string" ? data.uses : "",
    timeLimit: data.timeLimit || 20, legacySlug: `example-${pathname}-${examples.indexOf(root)}`,
  };
}

/**
 * Move an example's code (and draft) saved under its old, position-based key to its stable key. Nothing is
 * lost: the old entry is removed only once the new one holds the same value; when the new key already has
 * different code, the old entry is left alone (it stays in the progress export).
 * @returns {number} how many entries moved
 */
export function migrateExample(store, from, to) {
  let moved = 0;
  for (const key of [keys.code, keys.draft]) {
    const old = store.get(key(from), null);
    if (old === null) continue;
    const current = store.get(key(to), null);
    if (current === null) {
      if (store.set(key(to), old)) {
        store.remove(key(from));
        moved += 1;
      }
    } else if (JSON.stringify(current) === JSON.stringify(old)) {
      store.remove(key(from));
    }
  }
  return moved;
}
