/**
 * Five of the theme's components, mounted by the page instead of mkdocs-material's script: the palette switch,
 * the table of contents' current section, the back-to-top button, the header's title (and the menu closed when a
 * link to a heading is followed), and the article's own jobs
 * (a details element opened for the anchor inside it and for printing; the terms of a search highlighted on the
 * page it opened). And that script itself, loaded when it is needed (`themeScriptLater`).
 * The build renames their `data-md-component` so the theme leaves them alone (tools/page_html.py says why: its
 * versions read element sizes after changing the page, each read a layout of a whole long page on a phone's
 * main thread, and its palette restyled the whole page three times as it loaded).
 * These do the same with observers and scroll positions, which never force a layout, and nothing at all until
 * the page is parsed.
 */

/** How far below the viewport's top a heading counts as passed: the theme's header, and a little more. */
const HEADER_PX = 64;
/** The back-to-top button shows while the reader scrolls up, once this far down. */
const TOP_AFTER_PX = 400;

/**
 * The table of contents: every link to a heading passed is `md-nav__link--passed`, the last of them
 * `md-nav__link--active`, as the theme marks them (both tables: the sidebar's and the one in the phone's menu).
 * @returns {() => void} stops following
 */
export function followContents(doc = document, win = window) {
  const links = new Map();
  for (const link of doc.querySelectorAll('[data-tl-component="toc"] a.md-nav__link[href^="#"]')) {
    const heading = doc.getElementById(decodeURIComponent(link.getAttribute("href").slice(1)));
    if (!heading) continue;
    if (!links.has(heading)) links.set(heading, []);
    links.get(heading).push(link);
  }
  if (!links.size || typeof win.IntersectionObserver !== "function") return () => {};
  const headings = [...links.keys()];
  const passed = new Set();
  const paint = () => {
    const last = headings.filter((h) => passed.has(h)).pop();
    for (const [heading, anchors] of links) {
      for (const a of anchors) {
        a.classList.toggle("md-nav__link--passed", passed.has(heading));
        a.classList.toggle("md-nav__link--active", heading === last);
      }
    }
  };
  const observer = new win.IntersectionObserver((entries) => {
    for (const entry of entries) {
      const box = entry.boundingClientRect;
      const hidden = box.width === 0 && box.height === 0; // not rendered (a revealed section still closed)
      if (!hidden && box.top < (entry.rootBounds ? entry.rootBounds.top : HEADER_PX) + 1) passed.add(entry.target);
      else passed.delete(entry.target);
    }
    paint();
  }, { rootMargin: `-${HEADER_PX}px 0px 0px 0px`, threshold: [0, 1] });
  headings.forEach((h) => observer.observe(h));
  return () => observer.disconnect();
}

/** The back-to-top button: shown while the reader scrolls up, far enough down; a click goes to the top. */
export function backToTop(doc = document, win = window) {
  const button = doc.querySelector('[data-tl-component="top"]');
  if (!button) return;
  let last = null; // read at the first scroll, not now: reading it now would lay out the page as it loads
  let queued = false;
  const show = (visible) => {
    if (button.hidden === !visible) return;
    button.hidden = !visible;
    if (visible) button.removeAttribute("tabindex");
    else {
      button.setAttribute("tabindex", "-1");
      button.blur();
    }
  };
  win.addEventListener("scroll", () => {
    if (queued) return;
    queued = true;
    win.requestAnimationFrame(() => {
      queued = false;
      const y = win.scrollY;
      show(last !== null && y < last && y > TOP_AFTER_PX);
      last = y;
    });
  }, { passive: true });
  button.addEventListener("click", (event) => {
    event.preventDefault();
    win.scrollTo({ top: 0 });
  });
}

/** Open the closed details element the address's anchor is in (now and at each change), and every closed one
 * while the page prints. */
export function openDetails(doc = document, win = window) {
  const openTarget = () => {
    const id = decodeURIComponent(win.location.hash.slice(1));
    const target = id && doc.getElementById(id);
    const details = target && target.closest("details:not([open])");
    if (!details) return;
    details.setAttribute("open", "");
    target.scrollIntoView();
  };
  openTarget();
  win.addEventListener("hashchange", openTarget);
  let opened = [];
  win.addEventListener("beforeprint", () => {
    opened = [...doc.querySelectorAll("article details:not([open])")];
    opened.forEach((d) => d.setAttribute("open", ""));
  });
  win.addEventListener("afterprint", () => {
    opened.forEach((d) => d.removeAttribute("open"));
    opened = [];
  });
}

/** The words of a search (`?h=…`, which the theme's search results add) as a pattern that finds each at the
 * start of a word, as the theme's highlighter does; null when there are none. */
export function searchPattern(query) {
  const words = String(query || "").split(/[\s-]+/).filter(Boolean)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return words.length ? new RegExp(`(^|[^\\p{L}\\p{N}_])(${words.join("|")})`, "giu") : null;
}

/** Mark the terms of the search that opened this page in the article (`mark[data-md-highlight]`, the theme's). */
export function highlightSearch(doc = document, win = window) {
  const pattern = searchPattern(new URL(win.location.href).searchParams.get("h"));
  const article = doc.querySelector('[data-tl-component="content"] article');
  if (!pattern || !article) return 0;
  const walker = doc.createTreeWalker(article, 4 /* NodeFilter.SHOW_TEXT */);
  const texts = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement.closest("script, style, textarea, .tl-cell")) texts.push(node);
  }
  let marked = 0;
  for (const node of texts) {
    const text = node.nodeValue;
    pattern.lastIndex = 0;
    if (!pattern.test(text)) continue;
    pattern.lastIndex = 0;
    const parts = doc.createDocumentFragment();
    let at = 0;
    for (const match of text.matchAll(pattern)) {
      const start = match.index + match[1].length;
      parts.append(text.slice(at, start));
      const mark = doc.createElement("mark");
      mark.setAttribute("data-md-highlight", "");
      mark.textContent = match[2];
      parts.append(mark);
      at = start + match[2].length;
      marked += 1;
    }
    parts.append(text.slice(at));
    node.replaceWith(parts);
  }
  return marked;
}

/** The theme's saved palette (`__palette`, through its own `__md_get`), or null. */
function savedPalette(win) {
  try {
    const saved = typeof win.__md_get === "function" ? win.__md_get("__palette") : null;
    return saved && Number.isInteger(saved.index) ? saved : null;
  } catch {
    return null;
  }
}

/** The browser's colours for its own parts (a phone's toolbar, scroll bars) from the header's: theme-color, and
 * color-scheme. Read once the page is idle: the page is styled by then, so the read forces nothing. */
function browserColours(doc, win) {
  const header = doc.querySelector("[data-md-component=header]");
  if (!header) return;
  const style = win.getComputedStyle(header);
  const hex = (style.backgroundColor.match(/\d+/g) || []).slice(0, 3).map((v) => (+v).toString(16).padStart(2, "0"));
  const wanted = [["theme-color", hex.length === 3 ? `#${hex.join("")}` : ""], ["color-scheme", style.colorScheme]];
  for (const [name, content] of wanted) {
    let meta = doc.head.querySelector(`meta[name="${name}"]`);
    // A page without a color-scheme is drawn light already: saying "light" changes nothing the reader sees, yet
    // the browser restyles the whole page for it (issue 51). Only a dark palette, or a change back, is said.
    if (!meta && name === "color-scheme" && !/dark/.test(content)) continue;
    if (!meta) {
      meta = doc.createElement("meta");
      meta.name = name;
      doc.head.append(meta);
    }
    if (content && meta.content !== content) meta.content = content;
  }
}

/**
 * The palette switch: the theme's own inputs and labels, each label switching to the next palette, kept in
 * `__palette` as the theme keeps it (its inline script applies it before the page is drawn). At load the body's
 * colours change only where the palette is not the one already drawn (nothing saved, a dark system), and nothing
 * is saved until the reader switches; the theme's version restyled the whole page three times as it loaded.
 */
export function mountPalette(doc = document, win = window, whenIdle = (fn) => setTimeout(fn, 0)) {
  const form = doc.querySelector('[data-tl-component="palette"]');
  const inputs = form ? [...form.querySelectorAll("input")] : [];
  if (!inputs.length) return;
  const colours = (input) => Object.fromEntries(["media", "scheme", "primary", "accent"]
    .map((key) => [key, input.getAttribute(`data-md-color-${key}`)]));
  const saved = savedPalette(win);
  const matching = inputs.findIndex((input) => win.matchMedia?.(input.getAttribute("data-md-color-media")).matches);
  let current = Math.max(0, Math.min(saved ? saved.index : matching, inputs.length - 1));
  const show = (index, save) => {
    current = index;
    const color = colours(inputs[index]);
    for (const [key, value] of Object.entries(color)) { // media too, as the theme does, only on a switch
      if (value !== null && (save || key !== "media") && doc.body.getAttribute(`data-md-color-${key}`) !== value) {
        doc.body.setAttribute(`data-md-color-${key}`, value);
      }
    }
    inputs.forEach((input, n) => {
      input.checked = n === index;
      if (input.nextElementSibling) input.nextElementSibling.hidden = n !== index;
    });
    if (save) win.__md_set?.("__palette", { index, color });
    whenIdle(() => browserColours(doc, win));
  };
  show(current, false);
  inputs.forEach((input, n) => input.addEventListener("change", () => show(n, true)));
  form.addEventListener("keydown", (event) => { // Enter on the focused switch, as the theme takes it
    if (event.key !== "Enter") return;
    event.preventDefault();
    const next = inputs[(current + 1) % inputs.length];
    next.click();
    next.focus();
  });
}

/**
 * The header's title: the page's title (`md-header__title--active`) once the page's heading has scrolled away
 * under the header, the site's before, as the theme swaps them. An observer, never a read of a size.
 */
export function headerTitle(doc = document, win = window) {
  const title = doc.querySelector('[data-tl-component="header-title"]');
  const heading = doc.querySelector(".md-content h1");
  if (!title || !heading || typeof win.IntersectionObserver !== "function") return () => {};
  const observer = new win.IntersectionObserver(([entry]) => {
    const top = entry.rootBounds ? entry.rootBounds.top : HEADER_PX;
    const box = entry.boundingClientRect;
    title.classList.toggle("md-header__title--active", box.height > 0 && box.bottom <= top + 1);
  }, { rootMargin: `-${HEADER_PX}px 0px 0px 0px`, threshold: [0, 1] });
  observer.observe(heading);
  return () => observer.disconnect();
}

/** The menu (the phone's drawer) and the search close when the reader follows a link to a heading, as the theme
 * closes them, a moment later, so the tap is seen. Unchecked by a click, as the theme does, so their change is
 * heard. */
export function closeOnTarget(doc = document, win = window, later = (fn) => setTimeout(fn, 125)) {
  win.addEventListener("hashchange", () => later(() => {
    for (const id of ["__drawer", "__search"]) {
      const toggle = doc.getElementById(id);
      if (toggle && toggle.checked) toggle.click();
    }
  }));
}

/** Where the theme's script sizes its sidebars itself (its `tablet$` media): there it is loaded at once (the page
 * keeps its `no-js` class until it runs, so the sidebars are drawn at full length until then), as a desktop's CPU
 * runs it in little time. overrides/main.html's head script holds the same width. */
export const THEME_SCRIPT_AT = "(min-width: 60em)";
/** The keys the theme's script answers outside a text field: search (f, s, /), previous and next page (p , n .)
 * and Enter on a focused menu label (only there: Enter on Check must not wait for it). The first such key loads
 * it, and is given to it once it runs. */
const THEME_KEYS = new Set(["f", "s", "/", "p", ",", "n", "."]);
const SEARCH_KEYS = new Set(["f", "s", "/"]); // also the browser's quick find in Firefox: kept from it, as the theme does

function inTextField(target) {
  return !!(target && target.closest && target.closest("input, textarea, select, [contenteditable], .cm-editor"));
}

/**
 * The theme's script (mkdocs-material's bundle), which the build left inert (tools/page_html.py says why): loaded
 * at once where the theme sizes its sidebars (a screen of THEME_SCRIPT_AT), and on any screen at the
 * first use of what only it does: the search (its box focused, its button tapped, a search in the address) or one
 * of its keys, which it then receives. The search button's tap also focuses the box itself, as the theme does, so
 * a phone's keyboard comes up in the same user gesture.
 * @returns {() => Promise<boolean>} loads it (once); resolves once it has run (true) or failed to load (false)
 */
export function themeScriptLater(doc = document, win = window) {
  const holder = doc.querySelector('script[data-tl="theme-script"]');
  let loaded = null;
  let ran = false;
  const load = () => {
    if (!holder) return Promise.resolve(false);
    loaded ||= new Promise((resolve) => {
      const script = doc.createElement("script");
      script.src = holder.getAttribute("data-src");
      script.onload = () => {
        ran = true;
        resolve(true);
      };
      script.onerror = () => resolve(false); // the page reads on without it, as it did before it loaded
      holder.after(script);
    });
    return loaded;
  };
  if (!holder) return load;
  const box = doc.querySelector(".md-search__input");
  doc.querySelector(".md-search")?.addEventListener("focusin", load, { once: true });
  doc.querySelector('header [for="__search"]')?.addEventListener("click", () => {
    box?.focus();
    load();
  }, { once: true });
  const keys = (event) => {
    if (ran) return win.removeEventListener("keydown", keys, true); // it hears the keys itself now
    const label = event.key === "Enter" && event.target && event.target.tagName === "LABEL";
    if (!(THEME_KEYS.has(event.key) || label) || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.isComposing || inTextField(event.target)) return;
    if (SEARCH_KEYS.has(event.key)) event.preventDefault();
    const { key, code, shiftKey } = event;
    load().then((ok) => ok && win.dispatchEvent(new win.KeyboardEvent("keydown", { key, code, shiftKey, bubbles: true,
                                                                            cancelable: true })));
  };
  win.addEventListener("keydown", keys, true);
  const wide = win.matchMedia ? win.matchMedia(THEME_SCRIPT_AT) : null;
  if (new URL(win.location.href).searchParams.has("q")) load();
  else if (wide && wide.matches) load();
  else wide?.addEventListener?.("change", (event) => event.matches && load());
  return load;
}

/** Mount them all; the search terms once the page is idle (they change text the reader is about to read). */
export function mountTheme(doc = document, win = window, whenIdle = (fn) => setTimeout(fn, 0)) {
  mountPalette(doc, win, whenIdle);
  followContents(doc, win);
  backToTop(doc, win);
  openDetails(doc, win);
  headerTitle(doc, win);
  closeOnTarget(doc, win);
  whenIdle(() => highlightSearch(doc, win));
  return themeScriptLater(doc, win);
}
