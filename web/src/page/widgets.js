/**
 * Widget placeholders (emitted by mdwidgets): reading their JSON data, and mounting each one on its own, so that
 * one with missing or unreadable data shows an error in its place while every other widget of the page works.
 */
import { el } from "./dom.js";

/** A widget that cannot be mounted: the message says why, in words a learner can read. */
export class WidgetError extends Error {}

const KINDS = {
  string: (v) => typeof v === "string",
  number: (v) => typeof v === "number" && Number.isFinite(v),
  array: Array.isArray,
  object: (v) => typeof v === "object" && v !== null && !Array.isArray(v),
};

/**
 * The JSON data of a widget placeholder (its `<script class="tl-data">`).
 * @param {Element} root
 * @param {Record<string, "string"|"number"|"array"|"object">} required  fields that must be present, by kind;
 *   with none, a placeholder without data reads as {}
 * @returns {object}
 * @throws {WidgetError} when the data is missing (and fields are required), not JSON, or lacks a field
 */
export function widgetData(root, required = {}) {
  const script = root.querySelector(":scope > script.tl-data");
  const fields = Object.entries(required);
  if (!script) {
    if (fields.length) throw new WidgetError("its data is missing");
    return {};
  }
  let data;
  try {
    data = JSON.parse(script.textContent);
  } catch {
    throw new WidgetError("its data is not valid JSON");
  }
  if (!KINDS.object(data)) throw new WidgetError("its data is not an object");
  for (const [field, kind] of fields) {
    if (!KINDS[kind](data[field])) throw new WidgetError(`its data has no ${kind} "${field}"`);
  }
  return data;
}

/** Put an error in the place of a widget that could not be mounted (as text; the rest of the page goes on). */
export function showWidgetError(root, err) {
  const reason = err instanceof WidgetError ? err.message : `an unexpected error: ${err && err.message ? err.message : err}`;
  root.dataset.widgetError = "";
  root.querySelector(":scope > .tl-widget-error")?.remove();
  root.prepend(el("p", { class: "tl-widget-error", role: "alert" },
    `This part of the page could not be shown (${reason}). The rest of the page still works; reloading may help.`));
}

/**
 * Mount every widget matching `selector` under `scope`, each in its own guard.
 * @param {ParentNode} scope
 * @param {string} selector
 * @param {(root: Element) => unknown} mount
 * @returns {{mounted: unknown[], failed: Element[]}} what each mount returned, and the roots that failed
 */
export function mountEach(scope, selector, mount) {
  const mounted = [];
  const failed = [];
  for (const root of scope.querySelectorAll(selector)) {
    try {
      mounted.push(mount(root));
    } catch (err) {
      failed.push(root);
      showWidgetError(root, err);
      if (!(err instanceof WidgetError)) console.error(err); // a bug, not bad data: worth a trace for authors
    }
  }
  return { mounted, failed };
}

/** How long a turn waits for a frame at most: a page hidden meanwhile draws none. */
const FRAME_WAIT_MS = 100;

/**
 * Give the browser a turn, and on a page that is shown, a frame: the next turn starts once the browser has drawn
 * what the last one changed. Without it the turns came back first (`scheduler.yield()`), the browser drew only
 * every few turns, and styling and laying out what those turns had mounted together was one long task (issue 51:
 * 160-330 ms at Lighthouse's 4× on E7.3, more than the turns' script). A hidden page (no frames) gets a task.
 * @param {object} [win]  the window (tests pass a fake)
 */
export function defaultYield(win = globalThis) {
  const shown = win.document && !win.document.hidden && typeof win.requestAnimationFrame === "function";
  if (!shown) {
    const scheduler = win.scheduler;
    if (scheduler && typeof scheduler.yield === "function") return scheduler.yield();
    return new Promise((resolve) => setTimeout(resolve, 0));
  }
  return new Promise((resolve) => {
    let done = false;
    const go = () => {
      if (done) return;
      done = true;
      resolve();
    };
    // A frame's callbacks run before it is styled and drawn; the task after them runs once it has been.
    win.requestAnimationFrame(() => setTimeout(go, 0));
    setTimeout(go, FRAME_WAIT_MS);
  });
}

/** A turn's budget, in the device's own time: under the 50 ms that makes a task long on a real phone, and also
 * where a phone is simulated from a desktop's trace at 4× (Lighthouse's mobile profile: 10 ms become 40). At 30 ms
 * the first turns were among a lesson page's longest tasks there (issue 51). */
export const TURN_MS = 10;

/**
 * Mount a page's widgets in turns: every root matching one of `kinds`' selectors, in the page's order (the top
 * first), each in its own guard as `mountEach` does, yielding to the browser whenever a turn has run for
 * `budget` ms. A long lesson's set-up (its cells, prompts, choices and tables) then never holds the main thread
 * for long: a reader can scroll, type an answer or press a button between two widgets (issue 51).
 * @param {ParentNode} scope
 * @param {Array<[string, (root: Element) => unknown]>} kinds  a selector and its mount, per kind of widget
 * @param {{budget?: number, yieldNow?: () => Promise<unknown>, now?: () => number}} [options]
 * @returns {Promise<{mounted: unknown[], failed: Element[]}>}
 */
export async function mountInTurns(scope, kinds, options = {}) {
  const all = { mounted: [], failed: [] };
  if (!kinds.length) return all;
  const roots = [...scope.querySelectorAll(kinds.map(([selector]) => selector).join(", "))];
  await inTurns(roots, (root) => {
    const { mounted, failed } = mountRoot(root, kinds);
    all.mounted.push(...mounted);
    all.failed.push(...failed);
  }, options);
  return all;
}

/** One root, with the mount of the first kind whose selector it matches, in its own guard (`mountEach`). */
function mountRoot(root, kinds) {
  const [, mount] = kinds.find(([selector]) => root.matches(selector));
  return mountEach({ querySelectorAll: () => [root] }, "", mount);
}

/** `step` over `items` in order, yielding to the browser whenever a turn has run for `budget` ms. */
async function inTurns(items, step, { budget = TURN_MS, yieldNow = defaultYield, now = () => performance.now() } = {}) {
  let started = now();
  for (const item of items) {
    step(item);
    if (now() - started >= budget) {
      await yieldNow();
      started = now();
    }
  }
}

/** How far ahead of the screen a widget mounts: one screen's height above and below it. */
export const NEAR_MARGIN = "100% 0px";

/**
 * Mount each widget as the reader comes near it (issue 51): those within a screen of the viewport as the page
 * opens, in turns (`mountInTurns`'s budget and yield), and each other one once scrolling brings it that near.
 * Widgets the reader never comes near are never mounted: a long lesson's code cells below the fold were most of
 * what its main thread did after the first paint (Lighthouse's mobile audit, 5 runs: E7.5's blocking time 532 ->
 * 189 ms, M07.6's 297 -> 195; bench/README.md). Their text is in the page from the build, so it reads, prints
 * and is found by search; the controls come with the mount. A widget also mounts at once when the reader reaches
 * into it (a pointer or a focus inside it), everything left mounts before printing, and at the first Tab, so that
 * a keyboard never passes over controls that are not there yet. Each root waiting carries `tlLater` (a property:
 * an attribute would restyle it). Without IntersectionObserver, every widget mounts in turns as before.
 * @param {Document} scope
 * @param {Array<[string, (root: Element) => unknown]>} kinds  a selector and its mount, per kind of widget
 * @param {{margin?: string, win?: object, budget?: number, yieldNow?: () => Promise<unknown>, now?: () => number}} [options]
 * @returns {{pending: () => number, mountAll: () => Promise<unknown>}}
 */
export function mountWhenNear(scope, kinds, options = {}) {
  const { margin = NEAR_MARGIN, win = globalThis, ...turns } = options;
  const selector = kinds.map(([s]) => s).join(", ");
  const order = kinds.length ? [...scope.querySelectorAll(selector)] : [];
  if (typeof win.IntersectionObserver !== "function") {
    const all = mountInTurns(scope, kinds, turns);
    return { pending: () => 0, mountAll: () => all };
  }
  const pending = new Set(order);
  const mountOne = (root) => {
    if (!pending.delete(root)) return;
    observer.unobserve(root);
    delete root.tlLater;
    mountRoot(root, kinds);
  };
  const someInTurns = (roots) => inTurns(roots.filter((root) => pending.has(root)), mountOne, turns);
  const observer = new win.IntersectionObserver((entries) => {
    const near = new Set(entries.filter((e) => e.isIntersecting).map((e) => e.target));
    someInTurns(order.filter((root) => near.has(root))).catch((err) => console.error(err));
  }, { rootMargin: margin });
  for (const root of order) {
    root.tlLater = true;
    observer.observe(root);
  }
  const reach = (event) => {
    const root = event.target && typeof event.target.closest === "function" ? event.target.closest(selector) : null;
    if (root && pending.has(root)) mountOne(root);
  };
  const mountAll = () => someInTurns(order);
  scope.addEventListener("pointerdown", reach, true);
  scope.addEventListener("focusin", reach, true);
  scope.addEventListener("keydown", (event) => {
    if (event.key === "Tab" && pending.size) mountAll().catch((err) => console.error(err));
  }, true);
  win.addEventListener?.("beforeprint", () => order.forEach(mountOne));
  return { pending: () => pending.size, mountAll };
}
