/**
 * The course around the pages: a chapter's lessons (`/// chapter`) and a milestone's module map with its gate
 * (`/// module-map`). The build writes the whole structure as HTML (mdwidgets/course.py); this module only fills in
 * this learner's status of each written lesson or module, derived from saved work by progress-model.js, and opens
 * the gate when every module of the milestone passes. Statuses are refreshed when the page comes back into view
 * and when another tab saves, so a chapter page left open follows the work done on a lesson page.
 */
import { codeState, exerciseStatus, STATUS_TEXT } from "./progress-model.js";
import { widgetData } from "./widgets.js";

/** A `get(key)` that rereads storage, so data saved by another tab or page is seen (memory-only stores keep theirs). */
function freshGetter(store) {
  return (key) => {
    if (store.persistent) store.refresh(key);
    return store.get(key, null);
  };
}

function setStatus(node, status) {
  node.dataset.status = status;
  const label = node.querySelector(".tl-course-status");
  if (label) label.textContent = STATUS_TEXT[status];
}

/** Re-run `render` whenever saved work may have changed: another tab saved, or the page was shown again. */
function followChanges(render, store) {
  store.onExternalChange(() => render());
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) render(); // back/forward cache: the page was frozen while the learner worked elsewhere
  });
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") render();
  });
  document.addEventListener("tl:result", render); // a Check on this same page
}

/**
 * Fill in the status of each written lesson of a chapter overview.
 * @param {HTMLElement} root  the `.tl-chapter` element built by mdwidgets
 * @param {object} store      the page's store (store.js)
 * @returns {() => void} render, to refresh on demand
 */
export function mountChapter(root, store) {
  const data = widgetData(root);
  const render = () => {
    const get = freshGetter(store);
    for (const entry of data.lessons || []) {
      const item = root.querySelector(`li[data-exercise="${entry.slug}"]`);
      if (item) setStatus(item, exerciseStatus(get, entry));
    }
  };
  render();
  followChanges(render, store);
  return render;
}

/**
 * The gate of a milestone: open when every member module's last check passed.
 * @returns {{open: boolean, passed: string[], missing: string[]}} slugs that pass and that do not yet
 */
export function gateState(get, members) {
  const passed = members.filter((slug) => codeState(get, slug).state === "passed");
  return { open: passed.length === members.length, passed, missing: members.filter((s) => !passed.includes(s)) };
}

/**
 * Fill in each module's status on a module map (the SVG and the list) and the milestone gate's state.
 * @param {HTMLElement} root  the `.tl-module-map` element built by mdwidgets
 * @param {object} store      the page's store (store.js)
 * @returns {() => void} render, to refresh on demand
 */
export function mountModuleMap(root, store) {
  const data = widgetData(root);
  const idOf = new Map((data.nodes || []).map((n) => [n.slug, n.id]));
  const render = () => {
    const get = freshGetter(store);
    for (const entry of data.nodes || []) {
      const status = exerciseStatus(get, entry);
      for (const node of root.querySelectorAll(`[data-exercise="${entry.slug}"]`)) setStatus(node, status);
    }
    const gate = gateState(get, data.members || []);
    const state = gate.open ? "open" : "closed";
    for (const node of root.querySelectorAll("[data-gate]")) {
      node.dataset.state = state;
      const label = node.querySelector(".tl-gate-state");
      if (label) label.textContent = node.tagName.toLowerCase() === "g" ? `${data.milestone} gate: ${state}` : `gate ${state}`;
    }
    const count = root.querySelector(".tl-gate-count");
    if (count) {
      const total = (data.members || []).length;
      count.textContent = gate.open
        ? `Open: all ${total} of its modules pass.`
        : `Closed: ${gate.passed.length} of ${total} modules pass. Still to pass: ${gate.missing.map((s) => idOf.get(s) || s).join(", ")}.`;
    }
  };
  render();
  followChanges(render, store);
  return render;
}
