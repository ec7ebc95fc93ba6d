/**
 * A code cell: the editor, Run / Check / Stop / Reset, the learner's output, and one row per hidden test.
 *
 * The verdict shown is the judge's (checker/judge.py in the worker); this module only displays it. The code is
 * saved on every change, before anything runs, so no Stop, crash or reload can lose it.
 */
import { createEditor } from "./editor.js";
import { keys } from "./store.js";
import { widgetData } from "./prompts.js";
import { diffLines } from "./diff.js";
import { el } from "./dom.js";

const SAVE_DELAY_MS = 300;

const bundles = new Map();

/** Fetch (once) the exercise bundle with the hidden tests and the reference. */
export function loadBundle(base, slug) {
  if (!bundles.has(slug)) {
    bundles.set(slug, fetch(new URL(`tl/exercises/${slug}.json`, base)).then((r) => {
      if (!r.ok) throw new Error(`exercise ${slug}: HTTP ${r.status}`);
      return r.json();
    }).catch((err) => {
      bundles.delete(slug);
      throw err;
    }));
  }
  return bundles.get(slug);
}

const STATUS_TEXT = {
  "": "Starting Python…",
  python: "Python started · loading numpy…",
  numpy: "Ready to run · loading the checker…",
  judge: "Ready",
};

/** One-line summary of a result, for the status line and screen readers. */
export function summarise(result, timeLimit) {
  const tests = result.tests || [];
  const passed = tests.filter((t) => t.outcome === "passed").length;
  switch (result.status) {
    case "passed": return `All ${tests.length} tests pass.`;
    case "failed": return `${passed} of ${tests.length} tests pass.`;
    case "ok": return "Ran without errors.";
    case "timeout": return `Stopped at the time limit of ${timeLimit} s: an infinite loop, or far too slow. Your code is still here.`;
    case "stopped": return "Stopped. Your code is still here.";
    default: return tests.length ? "Your code did not run; no test could pass." : "Your code raised an error.";
  }
}

/**
 * Mount one cell.
 * @param {HTMLElement} root  .tl-cell placeholder
 * @param {{store: object, python: import("./worker-client.js").PythonWorker, base: URL}} ctx
 */
export function mountCell(root, { store, python, base }) {
  const data = widgetData(root);
  const isExercise = root.dataset.kind === "exercise";
  const slug = isExercise ? data.slug : `example-${location.pathname}-${[...document.querySelectorAll(".tl-cell[data-kind=example]")].indexOf(root)}`;
  const filename = isExercise ? data.importPath : "example.py";
  const starter = isExercise ? data.starter : data.code;
  const codeKey = keys.code(slug);
  const saved = store.get(codeKey, null);
  const initial = saved && typeof saved.code === "string" ? saved.code : starter;

  const header = el("div", { class: "tl-cell-head" });
  header.append(el("code", { class: "tl-path" }, isExercise ? data.path : "example"));
  const status = el("span", { class: "tl-status", role: "status", "aria-live": "polite" });
  header.append(status);
  const host = el("div", { class: "tl-editor" });
  const bar = el("div", { class: "tl-toolbar" });
  const button = (label, cls, title) => el("button", { type: "button", class: `md-button ${cls}`, title }, label);
  const runB = button("Run", "tl-run", "Run your code (Shift+Enter)");
  const checkB = button("Check", "tl-check md-button--primary", "Run the hidden tests (Ctrl/⌘+Enter)");
  const stopB = button("Stop", "tl-stop", "Stop the running code");
  const resetB = button("Reset", "tl-reset", "Put the starter code back (undo with Ctrl/⌘+Z)");
  bar.append(runB);
  if (isExercise) bar.append(checkB);
  bar.append(stopB, resetB);
  const hint = el("span", { class: "tl-hint" },
    isExercise ? "Ctrl/⌘+Enter checks · Shift+Enter runs · Esc then Tab leaves the editor"
      : "Ctrl/⌘+Enter runs · Esc then Tab leaves the editor");
  bar.append(hint);
  const deps = el("div", { class: "tl-deps", hidden: "" });
  const summary = el("p", { class: "tl-summary", role: "status", "aria-live": "polite" });
  const output = el("pre", { class: "tl-output", hidden: "", tabindex: "0", role: "region", "aria-label": "Output" });
  const results = el("ul", { class: "tl-results", "aria-label": "Hidden tests" });
  const compare = el("details", { class: "tl-diff", hidden: "" });
  root.querySelector(":scope > .tl-fallback")?.remove();
  root.append(header, host, bar, deps, summary, output, results, compare);

  // Per-cell settings; the time limit is the author's (exercise.toml), adjustable here for automation.
  const settings = { timeLimit: data.timeLimit || 20 };
  let saveTimer = null;
  // While another tab's version of this code is unresolved, edits here go to a draft key instead, so neither
  // tab's work overwrites the other's without the learner choosing.
  let conflict = null;
  const draftKey = `draft:${slug}`;
  const save = (code) => (conflict ? store.set(draftKey, { code, at: Date.now() })
    : store.set(codeKey, { code, at: Date.now() }));
  const editor = createEditor({
    parent: host,
    doc: initial,
    label: isExercise ? `Code editor for ${data.id}: ${data.path}` : "Example code editor",
    onChange: (code) => {
      clearTimeout(saveTimer);
      saveTimer = setTimeout(() => save(code), SAVE_DELAY_MS);
    },
    onPrimary: () => (isExercise ? check() : run()),
    onSecondary: () => run(),
  });
  window.addEventListener("pagehide", () => save(editor.getCode()));

  const conflictBar = el("div", { class: "tl-conflict", role: "alert", hidden: "" });
  host.before(conflictBar);
  /** Offer the learner the choice between this editor's code and `theirs` (from another tab or a draft). */
  function showConflict(theirs, where) {
    conflict = { theirs };
    const text = el("p", {}, where === "tab"
      ? "This exercise was changed in another tab. Your edits here are kept as a draft until you choose."
      : "An unsaved draft of this exercise was found (from another tab). Which version do you want?");
    const useTheirs = el("button", { type: "button", class: "md-button" }, where === "tab" ? "Use the other tab's version" : "Restore the draft");
    const keepMine = el("button", { type: "button", class: "md-button" }, where === "tab" ? "Keep this version" : "Discard the draft");
    conflictBar.replaceChildren(text, useTheirs, keepMine);
    conflictBar.hidden = false;
    const resolve = (code) => {
      conflict = null;
      conflictBar.hidden = true;
      store.remove(draftKey);
      if (code !== editor.getCode()) editor.setCode(code);
      save(code);
    };
    useTheirs.addEventListener("click", () => resolve(theirs));
    keepMine.addEventListener("click", () => resolve(editor.getCode()));
  }
  window.addEventListener("storage", (event) => {
    if (event.key !== `tinyllm:v1:${codeKey}` || event.newValue === null) return;
    store.refresh(codeKey);
    const theirs = store.get(codeKey, null);
    if (theirs && typeof theirs.code === "string" && theirs.code !== editor.getCode()) showConflict(theirs.code, "tab");
  });
  const draft = store.get(draftKey, null);
  if (draft && typeof draft.code === "string") {
    if (draft.code !== editor.getCode()) showConflict(draft.code, "draft");
    else store.remove(draftKey);
  }

  let busy = false;
  function setBusy(on, label = "") {
    busy = on;
    runB.disabled = on;
    checkB.disabled = on;
    resetB.disabled = on;
    stopB.disabled = !on;
    root.dataset.state = on ? "running" : "idle";
    if (on) {
      summary.textContent = label;
      delete root.dataset.status; // a new request: the previous verdict no longer describes the code
    }
  }
  setBusy(false);

  function showStatus({ stage, failed, restarts }) {
    status.textContent = failed ? `Python could not start: ${failed}` : STATUS_TEXT[stage] || stage;
    status.dataset.stage = failed ? "failed" : stage || "starting";
    root.dataset.python = status.dataset.stage;
    if (restarts) status.title = `Python restarted ${restarts} time${restarts === 1 ? "" : "s"}`;
  }
  python.subscribe(showStatus);

  function showOutput(text) {
    output.hidden = !text;
    output.textContent = text;
  }

  function renderTests(result) {
    results.replaceChildren();
    for (const t of result.tests || []) {
      const row = el("li", { class: `tl-test tl-${t.outcome}`, "data-test": t.name, "data-outcome": t.outcome });
      const mark = el("span", { class: "tl-mark", "aria-hidden": "true" }, t.outcome === "passed" ? "✓" : t.outcome === "failed" ? "✗" : "!");
      const name = el("code", {}, t.name);
      const verdict = el("span", { class: "tl-sr" }, ` ${t.outcome}`);
      row.append(mark, name, verdict);
      if (t.message) row.append(el("span", { class: "tl-message" }, t.message));
      results.append(row);
    }
  }

  /** After a pass: the learner's code against the reference, line by line (the site's `ol diff`). */
  async function showDiff(result) {
    compare.hidden = true;
    if (!isExercise || result.status !== "passed" || typeof result.code !== "string") return;
    let bundle;
    try {
      bundle = await loadBundle(base, slug);
    } catch {
      return;
    }
    const lines = diffLines(result.code, bundle.reference);
    const same = lines.every((l) => l.op === " ");
    const summaryEl = el("summary", {}, same ? "Your code is identical to the reference"
      : "You passed: compare your code with the reference");
    const pre = el("pre", { class: "tl-diff-body", tabindex: "0", role: "region", "aria-label": "Differences: lines starting with minus are yours only, plus the reference's only" });
    for (const line of lines) {
      const span = el("span", { class: `tl-diff-${line.op === "+" ? "add" : line.op === "-" ? "del" : "same"}` });
      span.textContent = `${line.op} ${line.text}\n`;
      pre.append(span);
    }
    compare.replaceChildren(summaryEl, pre);
    compare.hidden = false;
  }

  function render(result, { restored = false } = {}) {
    root.dataset.status = result.status;
    const text = summarise(result, settings.timeLimit);
    summary.textContent = restored ? `Last check: ${text}` : text;
    showOutput([result.stdout, result.traceback].filter(Boolean).join(result.stdout && result.traceback ? "\n" : ""));
    if (result.tests) renderTests(result);
    if (result.tests) showDiff(result);
  }

  /**
   * The dependency files a check or run needs: the learner's own passed code, or the reference when they chose
   * it. `missing` names what is neither (nearest first); `borrowed` what the reference stands in for.
   */
  async function dependencies() {
    const files = {};
    const missing = [];
    const borrowed = [];
    const prefs = store.get(keys.prefs(slug), {}) || {};
    // Nearest first, so the message names the direct requirement: "M07.6 needs M07.1", not "needs M06.3".
    for (const dep of [...(data.requires || [])].reverse()) {
      const bundle = await loadBundle(base, dep);
      const last = store.get(keys.result(dep), null);
      if (last && last.status === "passed" && typeof last.code === "string") {
        files[bundle.importPath] = last.code;
      } else if (prefs.refDeps) {
        files[bundle.importPath] = bundle.reference;
        borrowed.push(bundle.id);
      } else {
        missing.push(bundle.id);
      }
    }
    return { files, missing, borrowed };
  }

  // Built once, updated in place: the checkbox stays where the learner clicked it.
  const depsText = el("p", { class: "tl-needs" });
  const depsBox = el("input", { type: "checkbox", class: "tl-refdeps" });
  const depsLabel = el("label");
  depsLabel.append(depsBox, " ");
  const depsLabelText = document.createTextNode("");
  depsLabel.append(depsLabelText);
  deps.append(depsText, depsLabel);
  depsBox.addEventListener("change", () => {
    store.set(keys.prefs(slug), { ...(store.get(keys.prefs(slug), {}) || {}), refDeps: depsBox.checked });
    if (depsBox.checked) check();
    else dependencies().then(showDeps).catch(() => {});
  });

  function showDeps({ missing, borrowed }) {
    const others = [...missing, ...borrowed];
    deps.hidden = others.length === 0;
    if (!others.length) return;
    const plural = others.length > 1 ? "s" : "";
    depsText.textContent = missing.length
      ? `${data.id} needs ${missing[0]}. Pass ${missing.join(" and ")} first, or check against the reference implementation${plural}.`
      : `Checking against the reference ${borrowed.join(" and ")}, which you have not passed here yet.`;
    depsBox.checked = missing.length === 0;
    depsLabelText.textContent = `Use the reference ${others.join(", ")}`;
  }

  async function run() {
    if (busy) return;
    const code = editor.getCode();
    save(code);
    setBusy(true, python.stage === "judge" || python.stage === "numpy" ? "Running…" : "Queued: runs as soon as Python is ready…");
    showOutput("");
    let files = {};
    if (isExercise && data.requires && data.requires.length) {
      const found = await dependencies().catch(() => ({ files: {}, missing: [] }));
      files = found.files;
    }
    let streamed = "";
    const result = await python.request("run", { code, filename, files }, {
      timeLimit: settings.timeLimit,
      onStdout: (text) => {
        streamed += text;
        showOutput(streamed);
      },
    });
    setBusy(false);
    render({ ...result, tests: undefined });
  }

  async function check() {
    if (busy) return;
    const code = editor.getCode();
    save(code);
    setBusy(true, python.stage === "judge" ? "Checking…" : "Queued: checks as soon as Python is ready…");
    showOutput("");
    let bundle;
    let found;
    try {
      [bundle, found] = await Promise.all([loadBundle(base, slug), dependencies()]);
    } catch (err) {
      setBusy(false);
      summary.textContent = `The hidden tests could not be loaded (${err.message}). Reload the page to try again.`;
      return;
    }
    showDeps(found);
    if (found.missing.length) {
      setBusy(false);
      summary.textContent = `${data.id} needs ${found.missing[0]}.`;
      return;
    }
    const result = await python.request("check", {
      tests: bundle.tests, files: { ...found.files, [bundle.importPath]: code }, learner: bundle.importPath,
      names: bundle.names,
    }, { timeLimit: settings.timeLimit });
    setBusy(false);
    const saved = { ...result, code, at: Date.now() };
    render(saved);
    store.set(keys.result(slug), saved);
    document.dispatchEvent(new CustomEvent("tl:result", { detail: { slug, result, code } }));
  }

  runB.addEventListener("click", run);
  checkB.addEventListener("click", check);
  stopB.addEventListener("click", () => python.stop());
  resetB.addEventListener("click", () => {
    editor.setCode(starter);
    save(starter);
    summary.textContent = "Starter code restored. Undo with Ctrl/⌘+Z if that was a mistake.";
  });

  if (isExercise) warmUp();

  /**
   * Once Python is ready and the learner has not asked for anything yet, run the hidden suite once against the
   * reference, silently. The first check of a fresh interpreter pays for pytest's first session, the test
   * module's assertion rewriting and WebAssembly code that has not been optimised yet; paying it while the
   * learner reads makes their first Check as quick as a later one. Nothing is shown or saved.
   */
  function warmUp() {
    const stop = python.subscribe(({ stage }) => {
      if (stage !== "judge") return;
      setTimeout(() => stop(), 0);
      setTimeout(async () => {
        if (busy || python.pending.size) return;
        try {
          const bundle = await loadBundle(base, slug);
          const deps = await Promise.all((data.requires || []).map((d) => loadBundle(base, d)));
          const files = Object.fromEntries(deps.map((d) => [d.importPath, d.reference]));
          if (busy || python.pending.size) return;
          await python.request("check", {
            tests: bundle.tests, files: { ...files, [bundle.importPath]: bundle.reference },
            learner: bundle.importPath, names: bundle.names,
          }, { timeLimit: settings.timeLimit, background: true });
        } catch { /* only an optimisation */ }
      }, 300);
    });
  }

  if (isExercise && data.requires && data.requires.length) {
    // Say up front what a module needs, rather than only when Check is pressed.
    dependencies().then(showDeps).catch(() => {});
  }
  if (isExercise) {
    const last = store.get(keys.result(slug), null);
    if (last && typeof last === "object" && Array.isArray(last.tests)) render(last, { restored: true });
  }
  const api = { editor, run, check, settings };
  root.tlCell = api; // a handle for automation and the end-to-end tests (set code, read it back)
  return api;
}
