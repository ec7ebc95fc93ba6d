/**
 * The author's course check (`/// course-check`, on a page left out of the nav): every exercise's reference,
 * starter and first mutant checked one after another in one Python worker, in the browser the page is opened in,
 * with a table of what did not hold. It is `make validate`'s three core rules in a real browser: how an author
 * checks the course in Safari on a Mac or an iPhone, which no CI here has.
 *
 * For each exercise of the index (assets/tl/exercises/index.json), from its bundle (cell/bundles.js: hidden tests,
 * names, rewriting, reference, starter) and the author's output (assets/tl/authoring/<slug>.json: the first mutant's
 * source and the test it must fail, tools/bundle.py write_authoring):
 * - the reference must pass every test, the exercises it builds on given their references (as a module is checked
 *   with "Use the reference");
 * - the starter must not pass;
 * - the first mutant must fail the test it names.
 * The verdicts are the judge's (checker/judge.py in the worker); this module only compares them with the rules.
 * The page's address may name some exercises (`?only=E7.3,M07.6`, by id or slug): only those are checked, in the
 * index's order, and a name the course does not have is said, not skipped in silence.
 * Nothing is saved: the learner's storage is not touched.
 */
import { el } from "./dom.js";
import { rewriting } from "./cell/bundles.js";
import { pageURL } from "./progress.js";
import { watchScroller } from "./a11y.js";
import { OUTPUTS } from "../shared/build-outputs.js";
import { STAGE } from "../shared/protocol.js";

/** The files a check of `code` as `bundle`'s exercise imports: what it builds on as their references. */
export function checkFiles(bundle, deps, code) {
  const files = {};
  for (const dep of deps) files[dep.importPath] = dep.reference;
  files[bundle.importPath] = code;
  return files;
}

/**
 * The entries of `index` that `only` names (ids or slugs, separated by commas or spaces; none: every entry), and the
 * names that matched nothing.
 * @param {{slug: string, id: string}[]} index
 * @param {string|null|undefined} only
 */
export function chosen(index, only) {
  const names = String(only || "").split(/[\s,]+/).filter(Boolean);
  if (!names.length) return { entries: index, unknown: [] };
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  const entries = index.filter((e) => wanted.has(e.slug.toLowerCase()) || wanted.has(e.id.toLowerCase()));
  const known = new Set(index.flatMap((e) => [e.slug.toLowerCase(), e.id.toLowerCase()]));
  const unknown = names.filter((n) => !known.has(n.toLowerCase()));
  return { entries, unknown };
}

const notPassed = (result) => (result.tests || []).filter((t) => t.outcome !== "passed").map((t) => t.name);

/** What a result was, in a few words: "passed", "failed: test_a, test_b", "error (import)". */
export function verdictText(result) {
  if (result.status === "passed") return "passed every test";
  const failing = notPassed(result);
  const where = result.phase && result.phase !== "tests" ? ` (${result.phase})` : "";
  return `${result.status}${where}${failing.length ? `: ${failing.join(", ")}` : ""}`;
}

/**
 * The three rules for one exercise, given the judge's results: [{what, ok, expected, got}], in order.
 * @param {{reference: object, starter: object, mutant?: object|null}} results
 * @param {{name: string, fails: string}|null} mutant
 */
export function judgeRules(results, mutant) {
  const rules = [{
    what: "reference", ok: results.reference.status === "passed", expected: "passes every test",
    got: verdictText(results.reference),
  }, {
    what: "starter", ok: results.starter.status !== "passed", expected: "does not pass",
    got: verdictText(results.starter),
  }];
  if (mutant && results.mutant) {
    const named = (results.mutant.tests || []).find((t) => t.name === mutant.fails);
    rules.push({
      what: `first mutant (${mutant.name})`, ok: results.mutant.status !== "passed" && named?.outcome !== "passed",
      expected: `fails ${mutant.fails}`,
      got: named ? `${mutant.fails} ${named.outcome}` : verdictText(results.mutant),
    });
  }
  return rules;
}

/**
 * Check one exercise: its reference, starter and first mutant, one after another in `python`.
 * @param {{request: Function}} python  a PythonWorker (worker-client.js)
 * @param {string} slug
 * @param {{bundle: (slug: string) => Promise<object>, authoring: (slug: string) => Promise<object>}} load
 * @param {(what: string) => void} step  told what is being checked
 * @returns {Promise<{slug: string, rules: object[], ms: number}>}
 */
export async function checkExercise(python, slug, load, step = () => {}) {
  const started = Date.now();
  const bundle = await load.bundle(slug);
  const deps = await Promise.all((bundle.requires || []).map((dep) => load.bundle(dep)));
  let mutant = null;
  let unread = "";
  try {
    mutant = (await load.authoring(slug)).mutant || null; // null: the exercise has no mutant
  } catch (err) {
    unread = String(err.message || err);
  }
  const check = (code) => python.request("check", {
    tests: bundle.tests, files: checkFiles(bundle, deps, code), learner: bundle.importPath, names: bundle.names,
    ...rewriting(bundle),
  }, { timeLimit: bundle.timeLimit });
  const results = {};
  for (const [what, code] of [["reference", bundle.reference], ["starter", bundle.starter],
    ["mutant", mutant && mutant.source]]) {
    if (typeof code !== "string") continue;
    step(what === "mutant" ? "its first mutant" : `its ${what}`);
    results[what] = await check(code);
  }
  const rules = judgeRules(results, mutant);
  if (unread) rules.push({ what: "first mutant", ok: false, expected: "its source loads", got: unread });
  return { slug, rules, ms: Date.now() - started };
}

/** The summary line of a finished run. */
export function summaryText(done, ms) {
  const failing = done.filter((r) => r.rules.some((rule) => !rule.ok));
  const rules = done.reduce((n, r) => n + r.rules.filter((rule) => !rule.ok).length, 0);
  const time = `${(ms / 1000).toFixed(1)} s`;
  if (done.length === 1 && !failing.length) {
    return `The exercise holds: its reference passes, its starter fails, its first mutant fails its test (${time}).`;
  }
  if (!failing.length) {
    return `All ${done.length} exercises hold: every reference passes, every starter fails, every first mutant `
      + `fails its test (${time}).`;
  }
  return `${rules} ${rules === 1 ? "failure" : "failures"} in ${failing.length} of ${done.length} exercises `
    + `(${time}).`;
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/** Settles once `python` can judge (or has failed to start), so the first exercise's time is its own. */
function whenReady(python) {
  if (typeof python.subscribe !== "function") return Promise.resolve();
  return new Promise((resolve) => {
    let stop = null;
    let done = false;
    stop = python.subscribe(({ stage, failed }) => {
      if (done || !(stage === STAGE.pytest || failed)) return;
      done = true;
      resolve();
      queueMicrotask(() => stop?.());
    });
    if (done) stop();
  });
}

/** A table in the theme's scrolling box, reachable by keyboard when it is wider than the screen. */
function scrolling(table) {
  const wrap = el("div", { class: "md-typeset__scrollwrap" });
  const inner = el("div", { class: "md-typeset__table" });
  inner.append(table);
  wrap.append(inner);
  watchScroller(wrap, "Table");
  return wrap;
}

function tableOf(caption, headings) {
  const table = el("table");
  table.append(el("caption", {}, caption));
  const head = el("tr");
  for (const h of headings) head.append(el("th", { scope: "col" }, h));
  const thead = el("thead");
  thead.append(head);
  const body = el("tbody");
  table.append(thead, body);
  return { table, body };
}

/** The row of one exercise in the table of every exercise. */
function exerciseRow(entry, base) {
  const row = el("tr", { "data-check-row": "", "data-exercise": entry.slug, "data-outcome": "pending" });
  const name = el("td");
  name.append(el("a", { href: pageURL(base, entry.page) }, `${entry.id} ${entry.title}`));
  row.append(name, el("td", { "data-cell": "result" }, "waiting"), el("td", { "data-cell": "time" }, ""));
  return row;
}

/** Show one exercise's outcome in its row, and each broken rule as a row of the failures table. */
function showOutcome(row, failures, entry, outcome) {
  const broken = outcome.rules.filter((r) => !r.ok);
  row.dataset.outcome = broken.length ? "failed" : "passed";
  row.querySelector('[data-cell="result"]').textContent = broken.length
    ? `${broken.length} of ${outcome.rules.length} rules broken` : `all ${outcome.rules.length} rules hold`;
  row.querySelector('[data-cell="time"]').textContent = seconds(outcome.ms);
  for (const rule of broken) {
    const line = el("tr", { "data-check-failure": "", "data-exercise": entry.slug, "data-what": rule.what });
    line.append(el("td", {}, entry.id), el("td", {}, rule.what), el("td", {}, rule.expected), el("td", {}, rule.got));
    failures.append(line);
  }
}

/**
 * Mount the course check in `root`: a button that starts it, the progress (announced), a table of every exercise
 * with its time, a table of failures and a summary. Hooks: `root.dataset.state` (idle, running, done), rows
 * `[data-check-row][data-exercise][data-outcome]`, failures `[data-check-failure][data-exercise][data-what]`.
 * @param {HTMLElement} root  the .tl-course-check placeholder (mdwidgets/course_check.py)
 * @param {{base: URL, python: () => {request: Function}, fetchJSON?: (url: URL) => Promise<object>,
 *          now?: () => number, agent?: string, only?: string|null}} ctx  python: makes the one worker on the first
 *   run; only: the exercises to check (`chosen`), else every one
 */
export function mountCourseCheck(root, ctx) {
  const fetchJSON = ctx.fetchJSON || ((url) => fetch(url).then((r) => {
    if (!r.ok) throw new Error(`${url.pathname}: HTTP ${r.status}`);
    return r.json();
  }));
  const now = ctx.now || (() => Date.now());
  const some = Boolean(String(ctx.only || "").trim());
  const button = el("button", { type: "button", class: "md-button tl-course-check-start" },
    some ? `Check ${String(ctx.only).trim()} in this browser` : "Check every exercise in this browser");
  const progress = el("p", { class: "tl-course-check-progress", role: "status" });
  const summary = el("p", { class: "tl-course-check-summary" });
  const holder = el("div");
  root.querySelector(":scope > .tl-fallback")?.remove();
  root.dataset.state = "idle";
  root.append(button, progress, summary, holder);
  const load = {
    bundle: memo((slug) => fetchJSON(new URL(`tl/exercises/${slug}.json`, ctx.base))),
    authoring: (slug) => fetchJSON(new URL(`tl/${OUTPUTS.authoringDir}/${slug}.json`, ctx.base)),
  };
  let python = null;
  const run = async () => {
    button.disabled = true;
    root.dataset.state = "running";
    summary.textContent = "";
    progress.textContent = "Loading the list of exercises…";
    try {
      const { entries: index, unknown } = chosen(await fetchJSON(new URL("tl/exercises/index.json", ctx.base)),
        ctx.only);
      if (unknown.length) throw new Error(`this course has no exercise ${unknown.join(", ")} (the address's ?only=)`);
      const starting = now();
      python ??= ctx.python();
      progress.textContent = "Starting Python…";
      await whenReady(python);
      const start = seconds(now() - starting);
      const started = now();
      const done = await runAll(index, { python, load, base: ctx.base, holder, progress, now });
      summary.textContent = `${summaryText(done, now() - started)} Python started in ${start}. `
        + `${ctx.agent || navigator.userAgent}`;
      root.dataset.failures = String(done.reduce((n, r) => n + r.rules.filter((x) => !x.ok).length, 0));
    } catch (err) {
      summary.textContent = `The check could not run: ${err.message || err}`;
      root.dataset.failures = "";
    }
    progress.textContent = "Done.";
    root.dataset.state = "done";
    button.disabled = false;
    button.textContent = some ? `Check ${String(ctx.only).trim()} again` : "Check every exercise again";
  };
  button.addEventListener("click", () => { run(); });
  root.tlCourseCheck = { run };
  return root.tlCourseCheck;
}

/** Check every exercise of `index` in order, filling in the tables as each finishes; every outcome. */
async function runAll(index, { python, load, base, holder, progress, now }) {
  const all = tableOf("Every exercise", ["Exercise", "Result", "Time"]);
  const bad = tableOf("Failures", ["Exercise", "What", "Expected", "Got"]);
  const rows = new Map(index.map((entry) => [entry.slug, exerciseRow(entry, base)]));
  all.body.append(...rows.values());
  holder.replaceChildren(scrolling(all.table), scrolling(bad.table));
  const done = [];
  for (const [i, entry] of index.entries()) {
    const row = rows.get(entry.slug);
    row.dataset.outcome = "running";
    const say = (what) => { progress.textContent = `Checking ${entry.id} (${i + 1} of ${index.length}): ${what}…`; };
    const started = now();
    let outcome;
    try {
      outcome = await checkExercise(python, entry.slug, load, say);
    } catch (err) {
      outcome = { slug: entry.slug, ms: now() - started,
        rules: [{ what: "bundle", ok: false, expected: "loads", got: String(err.message || err) }] };
    }
    showOutcome(row, bad.body, entry, outcome);
    done.push(outcome);
  }
  if (!bad.body.children.length) {
    const none = el("tr");
    none.append(el("td", { colspan: "4" }, "None."));
    bad.body.append(none);
  }
  return done;
}

function memo(fn) {
  const found = new Map();
  return (key) => {
    if (!found.has(key)) found.set(key, fn(key).catch((err) => { found.delete(key); throw err; }));
    return found.get(key);
  };
}
