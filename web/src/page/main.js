/**
 * Page wiring: one store, one Python worker started as the page opens, and every widget on the page mounted,
 * each on its own (widgets.js): one that fails shows an error in its place and the others still work.
 */
import { browserStorage, createStore } from "./store.js";
import { PythonWorker } from "./worker-client.js";
import { STAGE } from "../shared/protocol.js";
import { mountNumeric, mountChoice, mountReveal } from "./prompts.js";
import { mountCell, warmUpPage } from "./cell/code-cell.js";
import { renderMath } from "./math.js";
import { mountCatalogues } from "./catalogue.js";
import { mountProgress } from "./progress.js";
import { mountChapter, mountModuleMap } from "./course.js";
import { mountA11y } from "./a11y.js";
import { mountInTurns, mountWhenNear, showWidgetError } from "./widgets.js";
import { mountOlInstall } from "./ol-install.js";
import { fillsByItself, mountOffline, requestFill } from "./offline.js";
import { keepWhenSaved } from "./keep.js";
import { mountCourseCheck } from "./course-check.js";
import { mountTheme } from "./theme.js";

// tl.js lives at <site>/assets/tl/tl.js: everything else is found relative to it, so the site works under any
// path on any static host.
const base = new URL("../", import.meta.url);

function showNotice(text, link = null) {
  let box = document.querySelector(".tl-notices");
  if (!box) {
    box = document.createElement("div");
    box.className = "tl-notices";
    box.setAttribute("role", "status");
    const article = document.querySelector("article") || document.body;
    article.prepend(box);
  }
  const p = document.createElement("p");
  p.textContent = text;
  if (link) {
    const a = document.createElement("a");
    a.href = link.href;
    a.textContent = link.text;
    p.append(" ", a);
  }
  box.append(p);
}

/** The notice of keep.js, with a link to the progress page (assets/tl/build.json names it) for Export. */
async function tellToExport(text) {
  let href = "";
  try {
    const info = await (await fetch(new URL("tl/build.json", base))).json();
    if (typeof info.progress === "string" && info.progress) href = new URL(info.progress, new URL("../", base)).href;
  } catch { /* the notice still says what to do */ }
  showNotice(text, href ? { href, text: "Export your progress" } : null);
}

/** Tell the learner, once, that a newer version of the site has taken over this page. */
function watchForUpdates() {
  if (!("serviceWorker" in navigator)) return;
  const hadController = Boolean(navigator.serviceWorker.controller);
  let told = false;
  const tell = () => {
    if (told) return;
    told = true;
    showNotice("A new version of this site has been installed. Reload the page to use it; your work is saved.");
  };
  navigator.serviceWorker.addEventListener("message", (event) => {
    if (event.data && event.data.type === "tl-sw-updated") tell();
  });
  // A first install also takes control of the page; only a change of an existing controller is an update.
  navigator.serviceWorker.addEventListener("controllerchange", () => {
    if (hadController) tell();
  });
}

/** While the learner's Run or Check is in Python, the offline copy's fill takes no new file (sw.js `unheld`). */
function holdOfflineCopy(busy) {
  const controller = "serviceWorker" in navigator ? navigator.serviceWorker.controller : null;
  if (controller) controller.postMessage({ type: "tl-sw-hold", busy });
}

const whenIdle = (fn) => (window.requestIdleCallback ? requestIdleCallback(fn, { timeout: 5000 }) : setTimeout(fn, 2000));

/**
 * Register the service worker (offline use, isolation headers). It keeps what this page has fetched; what the page
 * needs offline besides (the platform, and the page's chapter or module with what it builds on: sw.js scopeOf) is
 * asked for once the page is idle, except on a connection that asks to save data (offline.js).
 */
function registerServiceWorker(handedOff = Promise.resolve(), failed = () => {}) {
  if (!("serviceWorker" in navigator) || !location.protocol.startsWith("http")) return;
  navigator.serviceWorker.register(new URL("../../sw.js", import.meta.url), { updateViaCache: "none" })
    .catch((err) => {
      failed();
      throw err;
    })
    .then(() => handedOff)
    .then(() => {
      if (fillsByItself(navigator)) {
        whenIdle(() => requestFill(navigator.serviceWorker, { page: location.href }).catch(() => {}));
      }
    })
    .catch(() => { /* offline use is a bonus; the page works without it */ });
}

/**
 * When the service worker controls this page: `inControl` settles then, or at once without one, or when
 * registering it fails (`failed`), or after a minute. A second Python worker (the spare) waits for it: started
 * before, it would download again what the first one fetched, in a private window, which keeps no large file in
 * the HTTP cache; started after, it takes those files from the service worker (the hand-off).
 */
function serviceWorkerControl() {
  const container = "serviceWorker" in navigator ? navigator.serviceWorker : null;
  let failed;
  const inControl = new Promise((resolve) => {
    failed = resolve;
    if (!container || container.controller || !location.protocol.startsWith("http")) resolve();
    else {
      container.addEventListener("controllerchange", resolve, { once: true });
      setTimeout(resolve, 60_000);
    }
  });
  return { inControl, failed };
}

/**
 * The theme's search worker waits for this page's word before it builds its index (tools/search_later.py): on a
 * page with code cells that would compete with Python's start-up for the CPU. `allowSearch` says it, and answers
 * a worker that starts listening later. Without BroadcastChannel the worker starts by itself after a while.
 */
const SEARCH_CHANNEL = "tl-search"; // tools/search_later.py CHANNEL
function searchGate() {
  if (typeof BroadcastChannel !== "function") return () => {};
  const channel = new BroadcastChannel(SEARCH_CHANNEL);
  let allowed = false;
  channel.onmessage = (event) => {
    if (event.data === "asking" && allowed) channel.postMessage("start");
  };
  return () => {
    allowed = true;
    channel.postMessage("start");
  };
}

/** Run a page-wide step (accessibility repairs, catalogues) without letting its failure stop the rest. */
function attempt(step) {
  try {
    step();
  } catch (err) {
    console.error(err);
  }
}

function start() {
  // That the page's script runs, for tests and authors: a property, not a class on <html>. The theme's style sheet
  // has selectors that make any class change on an element restyle all of its insides, so a class added to the
  // root once the page was drawn restyled the whole page (issue 51: 120-200 ms at Lighthouse's 4× on E7.5).
  window.tinyllmStarted = true;
  // Python first: its start-up is the long pole, so it begins before anything else on the page is drawn.
  const hasCells = document.querySelector(".tl-cell") !== null;
  const control = serviceWorkerControl();
  const python = hasCells ? new PythonWorker({ base, spareAfter: control.inControl, onBusy: holdOfflineCopy }).start()
    : null;
  const allowSearch = searchGate();
  watchForUpdates();
  const store = createStore(browserStorage(), { events: window });
  store.notices().forEach((text) => showNotice(text));
  store.onNotice((text) => showNotice(text));
  // Once there is work to keep, ask the browser to keep it; say so once where it does not promise (keep.js).
  keepWhenSaved({ store, storage: navigator.storage || null, tell: tellToExport });
  renderMath().catch((err) => console.error(err));
  attempt(() => mountA11y(document));
  attempt(() => mountTheme(document, window, whenIdle)); // the theme's components the build left to the page
  attempt(() => mountCatalogues(document, store));
  // The code cells, prompts, choices and reveals as the reader comes near each (widgets.js mountWhenNear): a long
  // lesson has many, below the fold, and the reader meets them one screen at a time. Python warms up for the
  // page's first exercise whether or not its cell is mounted yet.
  const near = [
    [".tl-numeric", (root) => mountNumeric(root, store)],
    [".tl-choice", (root) => mountChoice(root, store)],
    [".tl-reveal", (root) => mountReveal(root, store)],
  ];
  if (python) {
    near.push([".tl-cell", (root) => mountCell(root, { store, python, base })]);
    warmUpPage(document, { python, base });
  }
  mountWhenNear(document, near);
  // Every other widget in the page's order, in turns (widgets.js mountInTurns): a long lesson's set-up never holds
  // the main thread for long, so the reader can scroll, type and press a button meanwhile.
  const widgets = [
    [".tl-progress", (root) => mountProgress(root, { store, base })],
    // The class page's code (and its workers) load only where a class widget is: a chunk of its own.
    [".tl-class", (root) => import("./class/class-page.js")
      .then((m) => m.mountClass(root, { store, base })).catch((err) => showWidgetError(root, err))],
    [".tl-chapter", (root) => mountChapter(root, store)],
    [".tl-module-map", (root) => mountModuleMap(root, store)],
    [".tl-ol-install", (root) => mountOlInstall(root, new URL("../../", import.meta.url))],
    [".tl-offline", (root) => mountOffline(root, {
      container: "serviceWorker" in navigator ? navigator.serviceWorker : undefined, saveData: !fillsByItself(navigator),
    })],
    // The author's course check: one Python worker of its own, started on the first run (no spare: nothing to stop).
    [".tl-course-check", (root) => mountCourseCheck(root, {
      base, python: () => new PythonWorker({ base, spare: false }).start(),
      only: new URLSearchParams(location.search).get("only"), // ?only=E7.3,M07.6: those exercises alone
    })],
  ];
  mountInTurns(document, widgets).catch((err) => console.error(err));
  if (python) {
    window.tinyllm = { python, store };
    // The offline copy takes what this page fetched and downloads what the page needs offline besides: start it
    // only once Python is ready and has been idle for a moment (the warm-up check, or a Check pressed as the page opened, is over),
    // so it never competes with the learner's first run for the network or the CPU. The page's scope is
    // asked for once the worker has handed off what it downloaded (or 15 s after Python is ready, should it
    // never say so).
    let handedOff;
    const handed = new Promise((resolve) => { handedOff = resolve; });
    let registered = false;
    const stop = python.subscribe(({ stage, failed, handedOff: done }) => {
      if ((stage === STAGE.pytest || failed) && !registered) {
        registered = true;
        setTimeout(handedOff, 15_000);
        python.settled().then(() => {
          allowSearch();
          registerServiceWorker(handed, control.failed);
        });
      }
      if (done || failed) {
        handedOff();
        setTimeout(() => stop(), 0);
      }
    });
  } else {
    window.tinyllm = { store };
    allowSearch();
    window.addEventListener("load", () => setTimeout(registerServiceWorker, 1000));
  }
}

start();
