/**
 * The class page (`/// class`, docs/class.md): a teacher drops or picks many progress files, or zips of them; each
 * learner becomes a row, each exercise a column, every claimed pass is checked again here (recheck.js) with a bar
 * and a count while it runs, and the class goes out as CSV and as a printable summary.
 *
 * Nothing leaves the teacher's machine: files are read by the page, the learners' code runs in this browser's
 * workers, and the downloads are made here. Nothing is stored either, unless the teacher ticks "Keep this class",
 * which keeps the files' text through store.js (keys.keptClass) until it is unticked or the class cleared.
 * Loaded as a chunk of its own, only on the page that has the widget (main.js).
 */
import { keys } from "../store.js";
import { el } from "../dom.js";
import { loadIndex } from "../progress.js";
import { loadBundle } from "../cell/bundles.js";
import { learnerWorker, PythonWorker } from "../worker-client.js";
import { expand, isZip } from "./zip.js";
import { csvText, FILE_CAP, gather, plan, row, summaryText, textOf, TOO_LARGE, verdict, ZIP_CAP, ZIP_TOO_LARGE } from "./model.js";
import { checkAgain, learnerPool, poolSize } from "./recheck.js";
import { progressView, rejectedView, summaryView, tableView } from "./view.js";

const SUMMARY_EVERY_MS = 2000; // the summary follows the results at most this often while the checks run

/** A picked or dropped file as {file: {name, bytes}} or, when it is refused unread, {rejected: [name, why]}. */
async function readPicked(file) {
  if (file.size > FILE_CAP) {
    const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
    if (!isZip(head)) return { rejected: [file.name, TOO_LARGE] };
    if (file.size > ZIP_CAP) return { rejected: [file.name, ZIP_TOO_LARGE] };
  }
  return { file: { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) } };
}

/** Offer `text` as a file download, made here (a blob: address). */
function download(doc, name, text, type) {
  const a = el("a", { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  doc.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

/** The widget's controls: the file input, drop hint, keep box, and the buttons. */
function controls() {
  const input = el("input", { type: "file", multiple: "", accept: ".json,.zip,application/json,application/zip",
    class: "tl-sr", "data-class-files": "" });
  const pick = el("label", { class: "md-button tl-class-pick" }, "Choose progress files or zips");
  pick.append(input);
  const keep = el("input", { type: "checkbox", id: "tl-class-keep", "data-class-keep": "" });
  const keepLabel = el("label", { for: "tl-class-keep" }, " Keep this class in this browser for next time");
  const button = (cls, text) => el("button", { type: "button", class: `md-button ${cls}`, disabled: "" }, text);
  return {
    input, pick, keep, keepLabel,
    csv: button("tl-class-csv", "Download the table (CSV)"), text: button("tl-class-text", "Download the summary (text)"),
    print: button("tl-class-print", "Print the summary"), clear: button("tl-class-clear", "Start a new class"),
  };
}

/** The widget's parts, placed in `root`: the drop zone, the keep box, progress, refusals, table, tools, summary. */
function layout(root) {
  const ui = controls();
  const views = { table: tableView([]), rejected: rejectedView(), progress: progressView(), summary: summaryView() };
  const tools = el("div", { class: "tl-class-tools" });
  tools.append(ui.csv, ui.text, ui.print, ui.clear);
  const drop = el("div", { class: "tl-class-drop" });
  drop.append(ui.pick, el("span", {}, " or drop them here (any number, zips too)."));
  const keepBox = el("p", { class: "tl-class-keep" });
  ui.kept = el("span", { class: "tl-class-kept" });
  keepBox.append(ui.keep, ui.keepLabel, ui.kept);
  root.querySelector(":scope > .tl-fallback")?.remove();
  root.append(drop, keepBox, views.progress.dom, views.rejected.dom, views.table.dom, tools, views.summary.dom);
  root.dataset.state = "empty";
  return { ui, views };
}

/** Keep the class's files in this browser, when the teacher ticked the box: their text, and the lines of those
 * refused unread or not text, so that the class comes back with the same rows and the same CSV. */
function keepClass(store, ui, state) {
  if (!ui.keep.checked) return;
  const files = [];
  const refused = [...state.refused];
  for (const f of state.files) {
    try {
      files.push({ name: f.name, text: textOf(f.bytes) });
    } catch (err) {
      refused.push([f.name, err.message]);
    }
  }
  const ok = store.set(keys.keptClass(), { files, refused, at: Date.now() });
  ui.kept.textContent = ok ? ` (kept: ${files.length} file${files.length === 1 ? "" : "s"})`
    : " (this browser would not keep it: its storage is full or refused)";
}

/**
 * The class and its checking: the files read so far, the learners gathered from them, their verdicts, and the
 * run that checks what is left (recheck.js); a newer class (files added, the class cleared) makes an older run stop
 * taking checks, and the results it had are kept by the code they judged.
 */
function createClass({ root, ui, views, store, bundle, makeWorker, makeLearner, size, index }) {
  const state = { columns: [], files: [], refused: [], rejected: [], learners: [], verdicts: {}, results: {}, cache: new Map(),
    generation: 0, ranFor: 0, running: null, summaryTimer: null };
  const ready = index().then((entries) => {
    state.columns = entries.map((e) => ({ slug: e.slug, id: e.id, title: e.title, requires: e.requires || [], prompts: e.prompts || [] }));
    const table = tableView(state.columns, (key, id) => {
      const learner = state.learners.find((l) => l.key === key);
      const column = state.columns.find((c) => c.id === id);
      return learner && column ? { learner: learner.name, id, code: learner.work[column.slug].code } : null;
    });
    views.table.dom.replaceWith(table.dom);
    views.table = table;
  });
  const rows = () => state.learners.map((l) => row(l, state.columns, state.verdicts[l.key], state.results[l.key]));
  const tasks = () => plan(state.learners, state.columns);
  const learnersDone = () => state.learners.filter((l) => state.columns.every((c) => state.verdicts[l.key][c.slug])).length;

  function showSummary() {
    clearTimeout(state.summaryTimer);
    state.summaryTimer = null;
    views.summary.show(rows(), state.columns);
  }

  /** Update the bar and the count; true when every claimed pass has its verdict. */
  function progress() {
    const all = tasks();
    const done = all.filter(([l, c]) => state.verdicts[l.key][c.slug]).length;
    views.progress.update({ done, total: all.length, learnersDone: learnersDone(), learners: state.learners.length });
    if (!state.summaryTimer) state.summaryTimer = setTimeout(showSummary, SUMMARY_EVERY_MS);
    return done === all.length;
  }

  function finished() {
    views.table.flush();
    const all = rows();
    const lost = all.reduce((n, r) => n + Object.values(r.cells).filter((x) => x.verdict === "not-reproduced").length, 0);
    root.dataset.state = state.learners.length ? "done" : "empty";
    for (const b of [ui.csv, ui.text, ui.print]) b.disabled = !state.learners.length;
    ui.clear.disabled = !state.files.length && !state.refused.length;
    showSummary();
    if (state.learners.length) {
      views.progress.say(`Every claimed pass was checked again: ${all.length} learners, ${state.columns.length} exercises; `
        + `${lost} claimed pass${lost === 1 ? "" : "es"} did not hold.`);
    }
  }

  /** Read the files and draw the class; the checking follows (run). */
  function regather() {
    state.generation += 1;
    const found = gather(state.files, state.columns);
    state.learners = found.learners;
    state.rejected = [...state.refused, ...found.rejected];
    state.verdicts = Object.fromEntries(found.learners.map((l) => [l.key, Object.fromEntries(state.columns
      .map((c) => [c.slug, verdict(l.work[c.slug], null)]))]));
    state.results = Object.fromEntries(found.learners.map((l) => [l.key, {}]));
    views.rejected.show(state.rejected);
    const all = rows();
    views.table.show(found.learners.map((l, i) => ({ key: l.key, row: all[i] })));
    for (const b of [ui.csv, ui.text, ui.print]) b.disabled = true;
    ui.clear.disabled = !state.files.length && !state.refused.length;
    root.dataset.state = "checking";
    if (progress()) finished();
    else run();
  }

  function onResult(mine) {
    return (learner, column, result, v) => {
      if (state.generation !== mine) return;
      state.verdicts[learner.key][column.slug] = v;
      state.results[learner.key][column.slug] = result;
      const r = row(learner, state.columns, state.verdicts[learner.key], state.results[learner.key]);
      views.table.update(learner.key, column.id, r.cells[column.id], r.passed);
      progress();
    };
  }

  /** Check what is left, newest class first, with workers started only when a check needs one. */
  function run() {
    if (state.running || !makeLearner) return; // a page that cannot check apart checks nothing (showBoundary)
    const started = [];
    const workers = Array.from({ length: size }, (_, i) => ({
      request: (...args) => {
        started[i] = started[i] || makeWorker();
        return started[i].request(...args);
      },
    }));
    const separate = makeLearner ? learnerPool(makeLearner) : null;
    state.running = (async () => {
      while (state.ranFor !== state.generation) {
        const mine = state.generation;
        state.ranFor = mine;
        await checkAgain({
          learners: state.learners, columns: state.columns, bundle, cache: state.cache, onResult: onResult(mine),
          workers: workers.slice(0, Math.max(1, Math.min(size, tasks().length))), cancelled: () => state.generation !== mine,
          separate,
        });
        if (state.generation === mine) finished();
      }
    })().finally(() => {
      for (const w of started) w?.dispose();
      separate?.dispose();
      state.running = null;
    });
  }

  const keepNow = () => keepClass(store, ui, state);

  return {
    ready, rows, keepNow,
    get csv() { return csvText(rows(), state.columns, state.rejected); },
    get summary() { return summaryText(rows(), state.columns); },
    settled: () => Promise.resolve(state.running),
    /** Add files (File objects, or {name, bytes}), zips opened, and grade the class again; `refused`: lines of
     * files refused before (a kept class's). */
    async add(picked, refused = []) {
      await ready;
      state.refused.push(...refused);
      // A File has a bytes() method in newer browsers: what is already read is told apart by its Uint8Array.
      const read = await Promise.all([...picked].map((f) => (f.bytes instanceof Uint8Array ? { file: f } : readPicked(f))));
      const opened = await expand(read.filter((r) => r.file).map((r) => r.file));
      state.refused.push(...read.filter((r) => r.rejected).map((r) => r.rejected), ...opened.rejected);
      state.files.push(...opened.files);
      keepNow();
      regather();
    },
    /** Start a new class: nothing of the old one is shown or kept. */
    clear() {
      state.files = [];
      state.refused = [];
      ui.keep.checked = false;
      store.remove(keys.keptClass());
      ui.kept.textContent = "";
      regather();
      views.progress.say("The class was cleared; nothing of it is kept in this browser.");
    },
  };
}

/** The files, buttons and keep box of the widget, wired to the class. */
function wire(root, ui, klass, store) {
  const doc = root.ownerDocument;
  ui.input.addEventListener("change", () => {
    const files = [...(ui.input.files || [])];
    ui.input.value = "";
    if (files.length) klass.add(files);
  });
  root.addEventListener("dragover", (event) => {
    event.preventDefault();
    root.classList.add("tl-dragging");
  });
  root.addEventListener("dragleave", () => root.classList.remove("tl-dragging"));
  root.addEventListener("drop", (event) => {
    event.preventDefault();
    root.classList.remove("tl-dragging");
    if (event.dataTransfer?.files?.length) klass.add(event.dataTransfer.files);
  });
  ui.keep.addEventListener("change", () => {
    if (ui.keep.checked) klass.keepNow();
    else {
      store.remove(keys.keptClass());
      ui.kept.textContent = " (not kept: nothing of this class is stored in this browser)";
    }
  });
  const stamp = () => new Date().toISOString().slice(0, 10);
  ui.csv.addEventListener("click", () => download(doc, `tinyllm-class-${stamp()}.csv`, klass.csv, "text/csv;charset=utf-8"));
  ui.text.addEventListener("click", () => download(doc, `tinyllm-class-summary-${stamp()}.txt`, klass.summary,
    "text/plain;charset=utf-8"));
  ui.print.addEventListener("click", () => doc.defaultView?.print());
  ui.clear.addEventListener("click", () => klass.clear());
}

/** Whether this page can keep learner code apart from the judge: two workers need a SharedArrayBuffer between
 * them, which a browser gives only to a cross-origin isolated page, and the learner's worker is confined by the
 * offline copy's service worker (sw/sw.js LEARNER_POLICY), which must control the page (it also makes the pages
 * it serves isolated: a host's own headers are not enough). */
export const canSeparate = () => globalThis.crossOriginIsolated === true && typeof SharedArrayBuffer !== "undefined"
  && Boolean(globalThis.navigator?.serviceWorker?.controller);

const ISOLATING = "tlClassIsolating"; // in the history entry's state: this tab has reloaded once, to come back isolated
const CONTROL_WAIT_MS = 30_000; // a service worker that has not taken the page by then will not (refused, failed)
const OL_CLASS = "To grade the same folder, run ol class FOLDER in a terminal (pip install the tinyllm-ol package "
  + "from this site's home page): it checks every claimed pass apart, in the same way.";

/**
 * How this page keeps learner code from the judge (issue 52): it grades only apart. `data-boundary` says where it
 * stands: "separated" (isolated: every check's code in a worker of its own), "isolating" (a first visit: the page
 * waits for the offline copy's service worker to take it, then reloads itself once, and the pages that worker
 * serves are cross-origin isolated: sw/sw.js), or "refused" (no service worker here: a file:// page, a private
 * window that refuses one, or one that did not take the page: no verdicts, and why, and ol class).
 * @param {{container?: object, reload?: () => void, entry?: History|null, waitMs?: number, protocol: string}} how
 *   container: navigator.serviceWorker (absent: none); entry: the page's history, whose state (kept across a
 *   reload of the same entry) remembers the one reload
 */
function showBoundary(root, separate, { container, reload, entry, waitMs = CONTROL_WAIT_MS, protocol }) {
  const state = () => (entry?.state && typeof entry.state === "object" ? entry.state : {});
  const mark = (on) => {
    try {
      const { [ISOLATING]: _, ...rest } = state();
      entry?.replaceState(on ? { ...rest, [ISOLATING]: 1 } : rest, "");
    } catch { /* at worst, the page asks again */ }
  };
  const note = el("p", { class: "tl-class-boundary", "data-class-boundary": "" });
  root.querySelector(".tl-class-drop")?.after(note);
  const say = (state, text) => {
    root.dataset.boundary = state;
    note.textContent = text;
  };
  const refuse = (why) => {
    say("refused", `This page shows no verdicts here: ${why} A submission's code is checked only apart from the `
      + `hidden tests, which this browser allows only on a page its offline copy serves. ${OL_CLASS}`);
    for (const input of root.querySelectorAll("input, button[data-class-pick]")) input.disabled = true;
  };
  if (separate) {
    if (state()[ISOLATING]) mark(false);
    say("separated", "Each claimed pass is checked with the learner's code in a Python of its own, apart from the "
      + "hidden tests, in a worker that may ask nothing of the network but this site's own files and is cut off "
      + "from its saved data: it cannot forge a pass.");
    return;
  }
  if (!container || !/^https?:$/.test(protocol)) {
    refuse(protocol === "file:" ? "it is opened from a file, where a browser runs no service worker."
      : "this browser runs no service worker for this site (a private window may refuse one).");
    return;
  }
  if (!entry || state()[ISOLATING]) {
    refuse("the page reloaded once under its offline copy and still did not come back cross-origin isolated.");
    return;
  }
  say("isolating", "Getting ready to check apart: this page waits for its offline copy to be installed, then "
    + "reloads itself once. Nothing to do.");
  for (const input of root.querySelectorAll("input")) input.disabled = true;
  let done = false;
  const go = () => {
    if (done) return;
    done = true;
    mark(true);
    reload();
  };
  if (container.controller) go();
  else {
    container.addEventListener("controllerchange", go, { once: true });
    setTimeout(() => {
      if (done) return;
      done = true;
      refuse("its offline copy's service worker did not start (this browser or window may refuse one).");
    }, waitMs);
  }
}

/** A learner's worker of a separated check: a Python worker with nothing else to do, confined by the service
 * worker (worker-client.js learnerWorker) and by itself (worker/confine.js). */
const makeLearnerWorker = (base) => () => new PythonWorker({ base, spare: false, createWorker: learnerWorker }).start();

/**
 * Mount the class widget.
 * @param {HTMLElement} root  the `.tl-class` placeholder
 * @param {{store: object, base: URL|string, cores?: number, vendor?: string, makeWorker?: () => object,
 *          index?: () => Promise<object[]>, bundle?: (slug: string) => Promise<object>}} ctx
 *   cores, vendor: how many checks run at once is poolSize(cores, vendor) (navigator's); makeWorker, index and
 *   bundle default to the page's (PythonWorker, the exercise index, the bundles); tests pass fakes; separate:
 *   whether to check on the separated path (canSeparate() by default), its learners' workers from makeLearner
 *   (makeWorker by default)
 * @returns {{add: Function, ready: Promise<void>, rows: () => object[], csv: string, summary: string,
 *            workers: number, settled: () => Promise<void>}}
 */
export function mountClass(root, ctx) {
  const { store } = ctx;
  const { ui, views } = layout(root);
  const size = poolSize(ctx.cores ?? globalThis.navigator?.hardwareConcurrency, ctx.vendor ?? globalThis.navigator?.vendor);
  const separate = ctx.separate ?? canSeparate();
  const nav = globalThis.navigator;
  showBoundary(root, separate, {
    container: "serviceWorker" in ctx ? ctx.serviceWorker : nav?.serviceWorker,
    reload: ctx.reload || (() => location.reload()), entry: "history" in ctx ? ctx.history : globalThis.history,
    waitMs: ctx.waitMs,
    protocol: ctx.protocol ?? globalThis.location?.protocol ?? "",
  });
  const makeWorker = ctx.makeWorker || (() => new PythonWorker({ base: ctx.base, spare: false }).start());
  const klass = createClass({
    root, ui, views, store, size, makeWorker,
    makeLearner: separate ? (ctx.makeLearner || makeLearnerWorker(ctx.base)) : null,
    bundle: ctx.bundle || ((slug) => loadBundle(ctx.base, slug)),
    index: ctx.index || (() => loadIndex(ctx.base)),
  });
  wire(root, ui, klass, store);
  const saved = separate ? store.get(keys.keptClass(), null) : null;
  if (saved && Array.isArray(saved.files) && saved.files.length) {
    ui.keep.checked = true;
    const encoder = new TextEncoder();
    const line = (r) => Array.isArray(r) && r.length === 2 && r.every((s) => typeof s === "string");
    klass.add(saved.files.filter((f) => f && typeof f.name === "string" && typeof f.text === "string")
      .map((f) => ({ name: f.name, bytes: encoder.encode(f.text) })), (saved.refused || []).filter(line));
    views.progress.say(`The class kept in this browser on ${new Date(saved.at || 0).toISOString().slice(0, 10)} is loaded `
      + "and checked again.");
  }
  const api = {
    add: separate ? klass.add : async () => {}, ready: klass.ready, settled: klass.settled, workers: size,
    get rows() { return klass.rows(); }, get csv() { return klass.csv; }, get summary() { return klass.summary; },
  };
  root.tlClass = api; // for automation and the end-to-end tests
  return api;
}
