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
  const { budget = TURN_MS, yieldNow = defaultYield, now = () => performance.now() } = options;
  const all = { mounted: [], failed: [] };
  if (!kinds.length) return all;
  const roots = [...scope.querySelectorAll(kinds.map(([selector]) => selector).join(", "))];
  let started = now();
  for (const root of roots) {
    const [, mount] = kinds.find(([selector]) => root.matches(selector));
    const { mounted, failed } = mountEach({ querySelectorAll: () => [root] }, "", mount);
    all.mounted.push(...mounted);
    all.failed.push(...failed);
    if (now() - started >= budget) {
      await yieldNow();
      started = now();
    }
  }
  return all;
}
