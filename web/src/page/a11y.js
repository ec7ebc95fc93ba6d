/**
 * Accessibility repairs of markup the site does not write itself: the theme's (mkdocs-material's) search dialog
 * and its table wrappers. The axe-core audit of the end-to-end suite (tests/e2e/test_a11y.py) found both:
 *
 * - the search box is a `role="dialog"` without a name, so a screen reader announces "dialog" and nothing more;
 * - a wide table or formula sits in a scrolling box (the theme's `.md-typeset__scrollwrap` around tables, and
 *   `div.arithmatex` around display math) that the keyboard cannot scroll unless it happens to hold a link. On a
 *   phone most tables and some formulas are wider than the screen.
 *
 * Doing this in the page keeps the theme's templates untouched (no copy of them to keep in step with the theme).
 */

function headingBefore(node) {
  for (let el = node.previousElementSibling; el; el = el.previousElementSibling) {
    if (/^H[1-6]$/.test(el.tagName)) return el.textContent.trim();
  }
  return "";
}

const SCROLLERS = [
  [".md-typeset__scrollwrap", "Table"],
  [".md-typeset div.arithmatex", "Formula"],
  // The theme made a wide code block focusable itself; the page does it now (web/src/page/theme.js says why).
  [".md-typeset pre > code", "Code"],
];

/**
 * Make a scroller that overflows a named, focusable region, so arrow keys can scroll it; one that fits
 * (again) has no extra tab stop.
 * @param {HTMLElement} box  a table or formula scroller
 * @param {string} what      "Table" or "Formula", for its name
 */
export function keyboardScroller(box, what = "Table", overflows = box.scrollWidth > box.clientWidth + 1) {
  if (overflows && !box.hasAttribute("data-tl-scroller")) {
    const heading = headingBefore(box.closest(".tl-catalogue") || box);
    box.setAttribute("tabindex", "0");
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", heading ? `${what} under “${heading}”, scrolls sideways` : `${what}, scrolls sideways`);
    box.setAttribute("data-tl-scroller", "");
  } else if (!overflows && box.hasAttribute("data-tl-scroller")) {
    for (const name of ["tabindex", "role", "aria-label", "data-tl-scroller"]) box.removeAttribute(name);
  }
}

/**
 * Keep one scroller made after the page loaded (the progress page's table) keyboard-reachable as its size
 * changes. Returns a function that stops watching it.
 */
export function watchScroller(box, what = "Table") {
  keyboardScroller(box, what);
  if (typeof ResizeObserver === "undefined") return () => {};
  const observer = new ResizeObserver(() => keyboardScroller(box, what));
  observer.observe(box);
  return () => observer.disconnect();
}

/**
 * Apply the repairs. Tables are wrapped by the theme once the document has loaded, so scrollers are looked for
 * then, and watched for size changes: a narrower window, or a table revealed by a prediction.
 */
export function mountA11y(doc = document) {
  const search = doc.querySelector('.md-search[role="dialog"]');
  if (search && !search.hasAttribute("aria-label")) search.setAttribute("aria-label", "Search this site");
  const watch = () => {
    const kinds = new Map();
    for (const [selector, what] of SCROLLERS) doc.querySelectorAll(selector).forEach((box) => kinds.set(box, what));
    if (!kinds.size) return;
    // Every size read first, then every change: one layout for all the boxes a change of width reports, not one
    // per box (a change made between two reads lays the page out again for the second).
    const observer = new ResizeObserver((entries) => {
      const overflowing = entries.map((e) => e.target.scrollWidth > e.target.clientWidth + 1);
      entries.forEach((e, i) => keyboardScroller(e.target, kinds.get(e.target), overflowing[i]));
    });
    kinds.forEach((_, box) => observer.observe(box));
  };
  if (doc.readyState === "complete") watch();
  else window.addEventListener("load", watch, { once: true });
}
