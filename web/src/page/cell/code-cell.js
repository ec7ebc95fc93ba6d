/**
 * A code cell: the editor, Run / Check / Stop / Reset, the learner's output, and one row per hidden test.
 *
 * The cell is one state object (cell/state.js) changed by named actions, and small views that render from it
 * (cell/*-view.js). This module only wires them to the world: the worker (worker-client.js), storage through
 * store.js (cell/autosave.js), the exercise bundles, and the dependency rule (dependencies.js). The verdict shown
 * is the judge's (checker/judge.py in the worker); nothing here decides pass or fail.
 */
import { nearViewport, oneAtATime, plainFirst } from "./plain-editor.js";
import { keys } from "../store.js";
import { diffLines } from "./diff.js";
import { applyRule } from "./dependencies.js";
import { STAGE } from "../../shared/protocol.js";
import { actions, createModel, initialState } from "./state.js";
import { describeCell, migrateExample } from "./identity.js";
import { createAutosave, SAVE_DELAY_MS } from "./autosave.js";
import { loadBundle, rewriting } from "./bundles.js";
import { createStatusView, shownStage } from "./status-view.js";
import { createConflictView } from "./conflict-view.js";
import { createEditorView } from "./editor-view.js";
import { createToolbarView } from "./toolbar-view.js";
import { createDepsView } from "./deps-view.js";
import { createOutputView, createSummaryView } from "./output-view.js";
import { createResultsView } from "./results-view.js";
import { createDiffView } from "./diff-view.js";
import { createHelp } from "./help.js";
import { createHelpView } from "./help-view.js";
import { verifyImported } from "./verify.js";
import { createConsoleView } from "./console-view.js";

export { summarise } from "./summary.js";

const WARM_UP_DELAY_MS = 300;
/** Runs on this page, numbered: the worker keeps the last Run's namespace for the console under that number. */
let runsOnPage = 0;

/**
 * The page's editors: a textarea first, CodeMirror (a chunk of its own) once Python has settled and the editor
 * nears the viewport, one at a time, or at once when the learner touches it (plain-editor.js). One `settled()`
 * per Python worker, shared by its cells.
 */
const editorsFor = new WeakMap();
function pageEditor(python) {
  if (!editorsFor.has(python)) {
    const settled = python.settled();
    const turn = oneAtATime();
    editorsFor.set(python, plainFirst({
      load: () => import("./editor.js").then((m) => m.createEditor),
      upgradeWhen: (area) => settled.then(() => nearViewport(area)).then(turn),
    }));
  }
  return editorsFor.get(python);
}

/**
 * Mount one cell.
 * @param {HTMLElement} root  a .tl-cell placeholder (mdwidgets)
 * @param {{store: object, python: import("../worker-client.js").PythonWorker, base: URL|string,
 *          createEditor?: Function, loadBundle?: (slug: string) => Promise<object>, pathname?: string,
 *          win?: EventTarget, saveDelay?: number}} ctx
 *   createEditor, loadBundle, pathname, win and saveDelay default to the page's (plain-editor.js, fetch, location,
 *   window, 300 ms); tests pass fakes
 * @returns {{editor: object, run: () => Promise<void>, check: () => Promise<void>, settings: {timeLimit: number},
 *            readonly state: object, destroy: () => void}}
 * @throws {import("../widgets.js").WidgetError} when the placeholder's data is missing or unreadable
 */
export function mountCell(root, ctx) {
  const doc = root.ownerDocument;
  const env = {
    store: ctx.store, python: ctx.python, doc,
    win: ctx.win !== undefined ? ctx.win : doc.defaultView || globalThis.window || null,
    loadBundle: ctx.loadBundle || ((slug) => loadBundle(ctx.base, slug)),
  };
  const cell = describeCell(root, { pathname: ctx.pathname ?? globalThis.location?.pathname ?? "/" });
  if (cell.legacySlug) migrateExample(env.store, cell.legacySlug, cell.slug);
  const settings = { timeLimit: cell.timeLimit }; // the author's (exercise.toml); automation may change it
  const model = createModel(initialState({ kind: cell.kind, starter: cell.starter, code: cell.starter }));
  const autosave = createAutosave({ store: env.store, slug: cell.slug, model, win: env.win, delay: ctx.saveDelay ?? SAVE_DELAY_MS });
  model.dispatch(actions.edited(autosave.restore(cell.starter)));

  const commands = createCommands(cell, env, model, autosave, settings);
  if (cell.kind === "exercise") {
    commands.help = createHelp({
      slug: cell.slug, revealAfter: cell.revealAfter, hints: cell.hintNodes.length, store: env.store, model,
      loadReference: () => env.loadBundle(cell.slug).then((b) => b.reference),
    });
  }
  const views = createViews(cell, model, autosave, commands, ctx.createEditor || pageEditor(env.python), env, settings);
  commands.editor = views.editor.editor;
  root.querySelector(":scope > .tl-fallback")?.remove();
  root.append(...views.all.map((v) => v.dom));
  const render = (state, prev) => {
    for (const view of views.all) view.update(state, prev);
    renderRoot(root, state);
  };
  render(model.state, null);
  const unsubscribe = model.subscribe(render);
  autosave.offerDraft();

  const stops = [env.python.subscribe((status) => model.dispatch(actions.python(status)))];
  if (cell.kind === "exercise") {
    stops.push(warmUp(cell, env, model, settings));
    stops.push(verifyImported(cell, env, { model, root, editorCode: () => views.editor.editor.getCode() }));
    if (cell.requires.length) commands.showDependencies(); // say up front what a module needs
    const last = env.store.get(keys.result(cell.slug), null);
    if (last && typeof last === "object" && Array.isArray(last.tests)) {
      model.dispatch(actions.finished(last, { timeLimit: settings.timeLimit, restored: true }));
      commands.showDiff(last);
    }
  }
  const api = {
    editor: views.editor.editor, run: commands.run, check: commands.check, settings,
    get state() { return model.state; },
    /** Remove every listener and the cell's views (the placeholder stays, to mount again). */
    destroy() {
      for (const stop of stops) stop();
      commands.help?.destroy();
      unsubscribe();
      autosave.destroy();
      for (const view of views.all) {
        view.destroy();
        view.dom.remove();
      }
      delete root.tlCell;
    },
  };
  root.tlCell = api; // a handle for automation and the end-to-end tests (set code, read it back)
  return api;
}

/** The stable hooks on the root: data-state (running|idle), data-status (the last result's), data-python. */
function renderRoot(root, state) {
  root.dataset.state = state.busy ? "running" : "idle";
  if (state.status) root.dataset.status = state.status;
  else delete root.dataset.status;
  root.dataset.python = shownStage(state.python);
}

function createViews(cell, model, autosave, commands, createEditor, env, settings) {
  const exercise = cell.kind === "exercise";
  const editor = createEditorView({
    createEditor, code: model.state.code, label: cell.label,
    onChange: (code) => {
      model.dispatch(actions.edited(code));
      autosave.later(code);
    },
    onPrimary: () => (exercise ? commands.check() : commands.run()),
    onSecondary: () => commands.run(),
  });
  const all = [
    createStatusView({ path: cell.path }),
    createConflictView({ onResolve: (choice) => autosave.resolve(choice === "theirs" ? model.state.conflict.theirs : model.state.code) }),
    editor,
    createToolbarView({ exercise, commands }),
    createDepsView({ onToggle: commands.setRefDeps }),
    createSummaryView(),
    createOutputView(),
    createResultsView(),
    ...(exercise ? [createHelpView({ hintNodes: cell.hintNodes, revealAfter: cell.revealAfter,
      commands: commands.help })] : []),
    createDiffView(),
    createConsoleView({
      slug: cell.slug, store: env.store, python: env.python, filename: cell.filename,
      timeLimit: () => settings.timeLimit, runNumber: () => commands.runNumber, files: commands.runFiles,
      highlight: (line) => editor.editor.highlightLine?.(line), stop: () => env.python.stop(),
    }),
  ];
  return { editor, all };
}

/** What the learner can ask a cell to do, and the work behind each. */
function createCommands(cell, env, model, autosave, settings) {
  const { store, python } = env;
  const dispatch = (action) => model.dispatch(action);
  const commands = { editor: null, runNumber: 0 };

  /** The code as the editor has it now (automation may have set it a moment ago). */
  const current = () => {
    const code = commands.editor ? commands.editor.getCode() : model.state.code;
    dispatch(actions.edited(code));
    return code;
  };

  /** The dependency rule's verdict for this exercise, from the bundles and this browser's saved results. */
  async function dependencies() {
    const own = await env.loadBundle(cell.slug);
    const order = own.checkOrder; // the rule's order, computed once by the build (course/manifest.py check_order)
    const deps = await Promise.all(order.map(env.loadBundle));
    const passedCode = (slug) => {
      const last = store.get(keys.result(slug), null);
      return last && last.status === "passed" && typeof last.code === "string" ? last.code : null;
    };
    return applyRule({
      id: cell.id, passedCode, refDeps: Boolean((store.get(keys.prefs(cell.slug), {}) || {}).refDeps),
      deps: deps.map((b, i) => ({ slug: order[i], id: b.id, importPath: b.importPath, reference: b.reference })),
      direct: own.directRequires,
    });
  }

  /**
   * An example that uses an exercise (`/// pycell` with `uses`): that exercise's code as this browser saved it
   * (its starter when nothing is saved), and its dependencies' passed code or else their references, importable
   * while the example runs, so it shows what the learner's own functions do.
   */
  async function usedFiles() {
    const own = await env.loadBundle(cell.uses);
    const deps = await Promise.all((own.requires || []).map(env.loadBundle));
    const passed = (slug) => {
      const last = store.get(keys.result(slug), null);
      return last && last.status === "passed" && typeof last.code === "string" ? last.code : null;
    };
    const files = Object.fromEntries(deps.map((d, i) => [d.importPath, passed(own.requires[i]) ?? d.reference]));
    const saved = store.get(keys.code(cell.uses), null); // as cell/autosave.js writes it: {code, at}
    files[own.importPath] = saved && typeof saved.code === "string" ? saved.code : own.starter;
    return files;
  }

  /** What a Run of this cell can import: its dependencies' files, or the files of the exercise an example uses. */
  commands.runFiles = async () => (cell.uses ? usedFiles().catch(() => ({}))
    : cell.requires.length ? (await dependencies().catch(() => ({ files: {} }))).files : {});

  commands.showDependencies = () => dependencies().then((gate) => dispatch(actions.deps(gate))).catch(() => {});

  commands.run = async () => {
    if (model.state.busy) return;
    const code = current();
    autosave.save(code);
    dispatch(actions.started("run"));
    const files = await commands.runFiles();
    commands.runNumber = ++runsOnPage;
    const result = await python.request("run", { code, filename: cell.filename, files, run: commands.runNumber }, {
      timeLimit: settings.timeLimit, onStdout: (text) => dispatch(actions.stdout(text)),
      onProgress: (text) => dispatch(actions.progress(text)),
    });
    dispatch(actions.finished({ ...result, tests: undefined }, { timeLimit: settings.timeLimit }));
  };

  commands.check = async () => {
    if (model.state.busy) return;
    commands.runNumber = 0; // the console starts afresh after a Check (the worker keeps its namespace otherwise)
    const code = current();
    autosave.save(code);
    dispatch(actions.started("check"));
    let bundle;
    let gate;
    try {
      [bundle, gate] = await Promise.all([env.loadBundle(cell.slug), dependencies()]);
    } catch (err) {
      dispatch(actions.blocked(`The hidden tests could not be loaded (${err.message}). Reload the page to try again.`));
      return;
    }
    dispatch(actions.deps(gate));
    if (gate.needs) {
      dispatch(actions.blocked(`${gate.needs}.`));
      return;
    }
    const result = await python.request("check", {
      tests: bundle.tests, files: { ...gate.files, [bundle.importPath]: code }, learner: bundle.importPath,
      names: bundle.names, ...rewriting(bundle),
      ...(Array.isArray(bundle.mistakes) ? { mistakes: bundle.mistakes } : {}),
    }, { timeLimit: settings.timeLimit });
    const saved = { ...result, code, at: Date.now() };
    dispatch(actions.finished(saved, { timeLimit: settings.timeLimit }));
    store.set(keys.result(cell.slug), saved);
    commands.help?.afterCheck(result);
    env.doc.dispatchEvent(new (env.doc.defaultView?.CustomEvent || CustomEvent)("tl:result", {
      detail: { slug: cell.slug, result, code },
    }));
    commands.showDiff(saved);
  };

  /** After a pass: the learner's code against the reference (the bundle has it). */
  commands.showDiff = async (result) => {
    if (result.status !== "passed" || typeof result.code !== "string") return;
    try {
      const bundle = await env.loadBundle(cell.slug);
      const lines = diffLines(result.code, bundle.reference);
      dispatch(actions.diff({ same: lines.every((l) => l.op === " "), lines }, result));
    } catch { /* the diff is a bonus */ }
  };

  commands.stop = () => python.stop();
  commands.reset = () => {
    commands.runNumber = 0; // the console starts afresh: Reset put the starter back
    dispatch(actions.reset());
    autosave.save(model.state.code);
  };
  commands.setRefDeps = (checked) => {
    store.set(keys.prefs(cell.slug), { ...(store.get(keys.prefs(cell.slug), {}) || {}), refDeps: checked });
    if (checked) commands.check();
    else commands.showDependencies();
  };
  return commands;
}

/** The exercises whose warm-up check each Python worker has run: one each, whoever asks for it first. */
const warmed = new WeakMap();
function firstWarmUp(python, slug) {
  if (!warmed.has(python)) warmed.set(python, new Set());
  const done = warmed.get(python);
  if (done.has(slug)) return false;
  done.add(slug);
  return true;
}

/**
 * The warm-up check (below) for the page's first exercise cell, whether or not that cell is mounted yet: a cell
 * mounts only once the reader comes near it (widgets.js mountWhenNear), and the first Check should not wait for
 * that. The cell, once mounted, does not warm up what has been warmed up here.
 * @param {Document} doc
 * @param {{python: object, base: URL|string, loadBundle?: (slug: string) => Promise<object>}} ctx
 * @returns {() => void} cancels it
 */
export function warmUpPage(doc, ctx) {
  const root = doc.querySelector('.tl-cell[data-kind="exercise"]');
  if (!root) return () => {};
  let cell;
  try {
    cell = describeCell(root, { pathname: "/" });
  } catch {
    return () => {}; // the cell says what is wrong with it when it mounts
  }
  const env = { python: ctx.python, loadBundle: ctx.loadBundle || ((slug) => loadBundle(ctx.base, slug)) };
  const idle = { state: { busy: false } };
  return warmUp(cell, env, idle, { timeLimit: cell.timeLimit });
}

/**
 * Once Python is ready and the learner has not asked for anything yet, run the hidden suite once against the
 * reference, silently. The first check of a fresh interpreter pays for pytest's first session, the test
 * module's assertion rewriting and WebAssembly code that has not been optimised yet; paying it while the
 * learner reads makes their first Check as quick as a later one. Nothing is shown or saved.
 * @returns {() => void} cancels it
 */
function warmUp(cell, env, model, settings) {
  const { python } = env;
  let timer = null;
  let done = false;
  const idle = () => !model.state.busy && python.pending.size === 0;
  const go = async () => {
    if (!idle() || !firstWarmUp(python, cell.slug)) return;
    try {
      const [bundle, ...deps] = await Promise.all([cell.slug, ...cell.requires].map(env.loadBundle));
      const files = Object.fromEntries(deps.map((d) => [d.importPath, d.reference]));
      if (!idle()) return;
      await python.request("check", {
        tests: bundle.tests, files: { ...files, [bundle.importPath]: bundle.reference },
        learner: bundle.importPath, names: bundle.names, ...rewriting(bundle),
      }, { timeLimit: settings.timeLimit, background: true });
    } catch { /* only an optimisation */ }
  };
  let unsubscribe = () => {};
  unsubscribe = python.subscribe(({ stage }) => {
    if (stage !== STAGE.pytest || done) return;
    done = true;
    setTimeout(() => unsubscribe(), 0); // subscribe calls back before it returns
    timer = setTimeout(go, WARM_UP_DELAY_MS);
  });
  return () => {
    clearTimeout(timer);
    unsubscribe();
  };
}
