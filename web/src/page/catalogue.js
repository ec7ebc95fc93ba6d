/**
 * Test catalogue tables (`/// tests | ID`): each row shows this learner's latest result for that test, filled
 * from the saved result on load and live after every Check.
 */
import { keys } from "./store.js";

function fill(table, result) {
  const byName = new Map((result && result.tests ? result.tests : []).map((t) => [t.name, t]));
  for (const row of table.querySelectorAll("tbody tr[data-test]")) {
    const t = byName.get(row.dataset.test);
    const cell = row.querySelector(".tl-result");
    row.dataset.outcome = t ? t.outcome : "not-run";
    cell.textContent = t ? (t.outcome === "passed" ? "✓ passed" : `✗ ${t.outcome}`) : "not run";
    cell.title = t && t.message ? t.message : "";
  }
}

/** Mount every catalogue table under `root`. */
export function mountCatalogues(root, store) {
  const tables = [...root.querySelectorAll(".tl-catalogue")];
  for (const table of tables) fill(table, store.get(keys.result(table.dataset.exercise), null));
  document.addEventListener("tl:result", (e) => {
    for (const table of tables) if (table.dataset.exercise === e.detail.slug) fill(table, e.detail.result);
  });
}
