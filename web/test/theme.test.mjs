// The theme's components the page mounts itself (web/src/page/theme.js): the table of contents' current section,
// back to top, details opened for an anchor and for printing, a search's terms highlighted. The real theme's
// markup in a browser is tests/e2e/test_lesson.py's.
import { test } from "node:test";
import assert from "node:assert/strict";
import { backToTop, closeOnTarget, followContents, headerTitle, highlightSearch, mountPalette, openDetails, searchPattern,
  THEME_SCRIPT_AT, themeScriptLater } from "../src/page/theme.js";
import { page, tick } from "./fakes.mjs";

const TOC = `<nav><ul data-tl-component="toc">
  <li><a class="md-nav__link" href="#one">One</a>
    <nav><ul><li><a class="md-nav__link" href="#one-a">One a</a></li></ul></nav></li>
  <li><a class="md-nav__link" href="#two">Two</a></li>
  <li><a class="md-nav__link" href="#gone">Not on the page</a></li>
</ul></nav>
<div data-tl-component="content"><article>
  <h2 id="one">One</h2><p>text</p><h3 id="one-a">One a</h3><p>more</p><h2 id="two">Two</h2>
</article></div>`;

/** A window with an IntersectionObserver the test makes report, and the theme's other needs. */
function windowWith(window, href = "http://site/page/") {
  const observers = [];
  const listeners = {};
  window.IntersectionObserver = class {
    constructor(callback, options) { Object.assign(this, { callback, options, watched: [] }); observers.push(this); }
    observe(el) { this.watched.push(el); }
    disconnect() { this.off = true; }
  };
  Object.assign(window, {
    scrollY: 0, scrolled: [], frames: [],
    requestAnimationFrame: (fn) => window.frames.push(fn),
    scrollTo: (to) => window.scrolled.push(to),
  });
  const add = window.addEventListener.bind(window);
  window.addEventListener = (type, fn, options) => { (listeners[type] ||= []).push(fn); add(type, fn, options); };
  Object.defineProperty(window, "location", { configurable: true, value: new URL(href) });
  return { observers, fire: (type) => (listeners[type] || []).forEach((fn) => fn(new window.Event(type))) };
}

const at = (target, top, rootTop = 64) => ({ target, boundingClientRect: { top, width: 100, height: 20 },
  rootBounds: { top: rootTop } });

test("the table of contents marks the headings passed, and the last of them as the current section", () => {
  const { document, window } = page(TOC);
  const { observers } = windowWith(window);
  followContents(document, window);
  const [observer] = observers;
  assert.equal(observer.watched.length, 3, "every heading the contents link to, and only those");
  assert.equal(observer.options.rootMargin, "-64px 0px 0px 0px");
  const [one, oneA, two] = ["one", "one-a", "two"].map((id) => document.getElementById(id));
  const link = (id) => document.querySelector(`a[href="#${id}"]`).className;
  observer.callback([at(one, 10), at(oneA, 400), at(two, 900)]);
  assert.match(link("one"), /md-nav__link--passed/);
  assert.match(link("one"), /md-nav__link--active/);
  assert.doesNotMatch(link("one-a"), /passed|active/);
  observer.callback([at(oneA, 30)]);
  assert.match(link("one"), /md-nav__link--passed/);
  assert.doesNotMatch(link("one"), /active/);
  assert.match(link("one-a"), /md-nav__link--active/);
  observer.callback([at(oneA, 200), at(one, 200)]); // scrolled back up
  assert.doesNotMatch(link("one") + link("one-a"), /passed|active/);
  observer.callback([{ ...at(two, 0), boundingClientRect: { top: 0, width: 0, height: 0 } }]);
  assert.doesNotMatch(link("two"), /passed/, "a heading that is not drawn (a closed reveal) is never passed");
});

test("back to top shows while the reader scrolls up far enough down, and goes to the top", async () => {
  const { document, window } = page('<button data-tl-component="top" hidden>Back to top</button>');
  const { fire } = windowWith(window);
  backToTop(document, window);
  const button = document.querySelector("button");
  const scrollTo = (y) => {
    window.scrollY = y;
    fire("scroll");
    fire("scroll"); // twice in a frame: read once
    assert.equal(window.frames.length, 1);
    window.frames.shift()();
  };
  scrollTo(2000);
  assert.equal(button.hidden, true, "scrolling down keeps it hidden");
  scrollTo(1500);
  assert.equal(button.hidden, false);
  assert.equal(button.hasAttribute("tabindex"), false);
  scrollTo(1600);
  assert.equal(button.hidden, true);
  assert.equal(button.getAttribute("tabindex"), "-1", "a hidden button is out of the tab order");
  scrollTo(100);
  assert.equal(button.hidden, true, "near the top there is nothing to go back to");
  button.dispatchEvent(new window.Event("click"));
  assert.deepEqual(window.scrolled, [{ top: 0 }]);
  await tick();
});

test("a closed details element opens for the anchor inside it, and every closed one while printing", () => {
  const { document, window } = page(`<article><details id="a"><summary>A</summary><p id="inside">x</p></details>
    <details id="b"><summary>B</summary></details><details id="c" open><summary>C</summary></details></article>`);
  const { fire } = windowWith(window, "http://site/page/#inside");
  let scrolled = 0;
  document.getElementById("inside").scrollIntoView = () => { scrolled += 1; };
  openDetails(document, window);
  const open = () => ["a", "b", "c"].map((id) => document.getElementById(id).hasAttribute("open"));
  assert.deepEqual(open(), [true, false, true]);
  assert.equal(scrolled, 1);
  document.getElementById("a").removeAttribute("open");
  fire("beforeprint");
  assert.deepEqual(open(), [true, true, true]);
  fire("afterprint");
  assert.deepEqual(open(), [false, false, true], "printing changes nothing for the reader");
});

test("a search's terms are marked where a word starts, outside code cells, as text", () => {
  assert.equal(searchPattern(""), null);
  assert.equal(searchPattern(null), null);
  const pattern = searchPattern("resid dist");
  assert.deepEqual([..."the residual distribution (dist.) of undistorted".matchAll(pattern)].map((m) => m[2]),
    ["resid", "dist", "dist"]);
  assert.equal("1+1".match(searchPattern("1+1"))[0], "1+1", "a term is found as written, not as a pattern");
  const { document, window } = page(`<div data-tl-component="content"><article>
    <p>The residual is <b>Residual</b>: not a presidual.</p><div class="tl-cell"><p>residual</p></div>
    <p>a &lt;b&gt; residual</p></article></div>`);
  windowWith(window, "http://site/page/?h=residual");
  assert.equal(highlightSearch(document, window), 3);
  const marks = [...document.querySelectorAll("mark[data-md-highlight]")].map((m) => m.textContent);
  assert.deepEqual(marks, ["residual", "Residual", "residual"]);
  assert.equal(document.querySelector(".tl-cell mark"), null, "a code cell's text is the learner's, left alone");
  assert.match(document.querySelector("article").textContent, /a <b> residual/, "the page's text is unchanged");
  windowWith(window, "http://site/page/");
  assert.equal(highlightSearch(document, window), 0, "without a search, nothing is marked");
});

const PALETTE = `<header data-md-component="header"></header><form data-tl-component="palette">
  <input data-md-color-media="(prefers-color-scheme: light)" data-md-color-scheme="default" data-md-color-primary="indigo"
    data-md-color-accent="deep-orange" type="radio" name="__palette" id="__palette_0"><label for="__palette_1" hidden>dark</label>
  <input data-md-color-media="(prefers-color-scheme: dark)" data-md-color-scheme="slate" data-md-color-primary="indigo"
    data-md-color-accent="orange" type="radio" name="__palette" id="__palette_1"><label for="__palette_0" hidden>light</label>
</form>`;

function paletteWindow(window, { dark = false, saved = null } = {}) {
  const store = { __palette: saved };
  const writes = [];
  Object.assign(window, {
    matchMedia: (q) => ({ matches: q === (dark ? "(prefers-color-scheme: dark)" : "(prefers-color-scheme: light)") }),
    __md_get: (key) => store[key],
    __md_set: (key, value) => { store[key] = value; writes.push(value); },
    getComputedStyle: () => ({ backgroundColor: "rgb(63, 81, 181)", colorScheme: dark ? "dark" : "normal" }),
  });
  return writes;
}

test("the palette: the page's drawn palette is left alone, a dark system's is applied, a switch is kept", async () => {
  const { document, window } = page(PALETTE);
  ["scheme", "primary", "accent"].forEach((k, i) => document.body.setAttribute(`data-md-color-${k}`,
    ["default", "indigo", "deep-orange"][i]));
  const writes = paletteWindow(window);
  const idle = [];
  let changed = 0;
  new window.MutationObserver(() => { changed += 1; }).observe(document.body, { attributes: true });
  mountPalette(document, window, (fn) => idle.push(fn));
  await tick();
  assert.equal(changed, 0, "the light palette the template drew: no attribute of the body is touched");
  assert.deepEqual(writes, [], "nothing is saved until the reader switches");
  const labels = [...document.querySelectorAll("label")];
  assert.deepEqual(labels.map((l) => l.hidden), [false, true], "the switch to the dark palette shows");
  idle.forEach((fn) => fn());
  assert.equal(document.querySelector('meta[name="theme-color"]').content, "#3f51b5");
  assert.equal(document.querySelector('meta[name="color-scheme"]'), null, "a light page says no colour scheme");
  const dark = document.getElementById("__palette_1");
  dark.checked = true;
  dark.dispatchEvent(new window.Event("change"));
  assert.equal(document.body.getAttribute("data-md-color-scheme"), "slate");
  assert.equal(document.body.getAttribute("data-md-color-accent"), "orange");
  assert.deepEqual(labels.map((l) => l.hidden), [true, false]);
  assert.deepEqual(writes.at(-1), { index: 1, color: { media: "(prefers-color-scheme: dark)", scheme: "slate",
    primary: "indigo", accent: "orange" } });

  const other = page(PALETTE);
  paletteWindow(other.window, { dark: true });
  mountPalette(other.document, other.window, (fn) => fn());
  assert.equal(other.document.body.getAttribute("data-md-color-scheme"), "slate", "a dark system, nothing saved");
  assert.equal(other.document.querySelector('meta[name="color-scheme"]').content, "dark", "the browser's parts dark");
  const saved = page(PALETTE);
  paletteWindow(saved.window, { dark: true, saved: { index: 0, color: {} } });
  mountPalette(saved.document, saved.window, () => {});
  assert.equal(saved.document.body.getAttribute("data-md-color-scheme"), "default", "a saved choice wins");
});

test("the header shows the page's title once the page's heading has gone under the header, the site's before", () => {
  const { document, window } = page(`<header><div class="md-header__title" data-tl-component="header-title">
    </div></header><div class="md-content"><article><h1>The page</h1><p>text</p></article></div>`);
  const { observers } = windowWith(window);
  headerTitle(document, window);
  const [observer] = observers;
  const h1 = document.querySelector("h1");
  assert.deepEqual(observer.watched, [h1]);
  const title = document.querySelector(".md-header__title");
  const report = (top, height = 40) => observer.callback([{ target: h1, rootBounds: { top: 64 },
    boundingClientRect: { top, bottom: top + height, height } }]);
  report(100);
  assert.ok(!title.classList.contains("md-header__title--active"), "the heading is in view");
  report(40);
  assert.ok(!title.classList.contains("md-header__title--active"), "half of it is still below the header");
  report(10);
  assert.ok(title.classList.contains("md-header__title--active"), "all of it has gone under the header");
  report(-200, 0);
  assert.ok(!title.classList.contains("md-header__title--active"), "a heading not drawn is no heading passed");
});

const THEMED = `<header><label class="md-header__button" for="__search">search</label>
  <div class="md-search"><input class="md-search__input"></div></header>
  <main><textarea class="tl-editor"></textarea><button class="tl-check">Check</button></main>
  <script type="text/x-tl-later" data-tl="theme-script" data-src="../assets/javascripts/bundle.0123abcd.min.js">
  </script>`;

/** A page whose theme script tag is inert, on a screen `wide` or not; what the loader loaded and dispatched. */
function themed({ wide = false, href } = {}) {
  const { document, window } = page(THEMED);
  windowWith(window, href);
  const media = [];
  window.matchMedia = (q) => { const m = { q, matches: wide && q === THEME_SCRIPT_AT, listeners: [],
    addEventListener: (t, fn) => m.listeners.push(fn) }; media.push(m); return m; };
  window.KeyboardEvent = class extends window.Event {
    constructor(type, init) { super(type, init); Object.assign(this, { key: init.key, code: init.code }); }
  };
  const dispatched = [];
  const dispatch = window.dispatchEvent.bind(window);
  window.dispatchEvent = (e) => { if (e.type === "keydown") dispatched.push(e.key); return dispatch(e); };
  const scripts = () => [...document.querySelectorAll("script[src]")];
  const key = (key, target = document.body, more = {}) => {
    const event = new window.Event("keydown", { bubbles: true, cancelable: true });
    Object.assign(event, { key, ...more });
    target.dispatchEvent(event);
    return event;
  };
  return { document, window, media, dispatched, scripts, key };
}

test("the theme's script waits on a phone until its search or one of its keys is used, then gets that key", async () => {
  const { document, window, scripts, key, dispatched } = themed();
  themeScriptLater(document, window);
  assert.deepEqual(scripts(), [], "not with the page on a narrow screen");
  key("s", document.querySelector("textarea"));
  key("n", document.body, { ctrlKey: true });
  key("Enter", document.querySelector(".tl-check"));
  key("x");
  assert.deepEqual(scripts(), [], "typing in a field, a shortcut of the browser's, Enter on Check, another key");
  const slash = key("/");
  assert.ok(slash.defaultPrevented, "the browser's quick find does not take the search key");
  const [script] = scripts();
  assert.equal(script.getAttribute("src"), "../assets/javascripts/bundle.0123abcd.min.js");
  key("p");
  assert.equal(scripts().length, 1, "loaded once");
  assert.deepEqual(dispatched, [], "the key waits for the script to have run");
  script.onload();
  await tick();
  assert.deepEqual(dispatched, ["/", "p"], "each key, in order, once it runs");
});

test("the theme's script loads for the search button, which focuses the search box in the same tap", () => {
  const { document, window, scripts } = themed();
  let focused = null;
  document.querySelector(".md-search__input").focus = function () { focused = this; };
  themeScriptLater(document, window);
  document.querySelector('label[for="__search"]').dispatchEvent(new window.Event("click", { bubbles: true }));
  assert.equal(focused, document.querySelector(".md-search__input"));
  assert.equal(scripts().length, 1);
  const other = themed();
  themeScriptLater(other.document, other.window);
  other.document.querySelector(".md-search__input").dispatchEvent(new other.window.Event("focusin",
    { bubbles: true }));
  assert.equal(other.scripts().length, 1, "the search box focused (a wide screen's, or by Tab)");
});

test("the theme's script loads at once where it sizes the sidebars, or for a search in the address", () => {
  const wide = themed({ wide: true });
  themeScriptLater(wide.document, wide.window);
  assert.equal(wide.scripts().length, 1);
  const narrow = themed();
  themeScriptLater(narrow.document, narrow.window);
  narrow.media.find((m) => m.q === THEME_SCRIPT_AT).listeners.forEach((fn) => fn({ matches: true }));
  assert.equal(narrow.scripts().length, 1, "a phone turned or a window widened to that size");
  const linked = themed({ href: "http://site/page/?q=residual" });
  themeScriptLater(linked.document, linked.window);
  assert.equal(linked.scripts().length, 1, "a search in the address: the theme opens it");
  const none = page("<p>no theme script</p>");
  windowWith(none.window);
  none.window.matchMedia = () => ({ matches: true });
  assert.equal(typeof themeScriptLater(none.document, none.window), "function");
});

test("following a link to a heading closes the menu and the search a moment later, as the theme does", () => {
  const { document, window } = page(`<input type="checkbox" id="__drawer"><input type="checkbox" id="__search">
    <input type="checkbox" id="__other">`);
  const { fire } = windowWith(window);
  const later = [];
  closeOnTarget(document, window, (fn) => later.push(fn));
  const [drawer, search, other] = ["__drawer", "__search", "__other"].map((id) => document.getElementById(id));
  const changes = [];
  for (const box of [drawer, search, other]) {
    box.checked = true;
    box.click = () => { box.checked = !box.checked; changes.push(box.id); };
  }
  fire("hashchange");
  assert.ok(drawer.checked, "not at once: the tap is seen first");
  later.forEach((fn) => fn());
  assert.deepEqual([drawer.checked, search.checked, other.checked], [false, false, true]);
  assert.deepEqual(changes, ["__drawer", "__search"], "by a click, which the theme's own listeners hear");
  fire("hashchange");
  later.slice(1).forEach((fn) => fn());
  assert.deepEqual(changes, ["__drawer", "__search"], "a closed menu is left closed");
});
