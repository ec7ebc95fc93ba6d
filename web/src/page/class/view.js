/**
 * The class page's views: the table (a row per learner, a cell per exercise, with the fixed hooks
 * `tr[data-learner]` and `td[data-exercise][data-verdict]`), the files refused (`[data-class-rejected]`), the
 * progress of the checking (a bar and a polite live region), and the summary per exercise. Each is a small object
 * with its `dom` and an update function; learner text reaches the DOM only as text.
 */
import { el } from "../dom.js";
import { watchScroller } from "../a11y.js";
import { many, summary } from "./model.js";

export const VERDICT_TEXT = {
  passed: "passed", failed: "failed", untried: "not tried", "not-reproduced": "claimed pass did not hold",
};
const ANNOUNCE_MS = 3000; // a screen reader hears the progress at most this often (and at the end)
// Verdicts reach the table in batches at most this often: each change of a cell lays the whole table out again,
// which for 200 learners costs the main thread about a frame's budget several times over (bench/class_view.py).
const FLUSH_MS = 2000;
const SHOW_MS = 500; // the bar and the count follow the results at most this often

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** The words of a cell's details: checks, hints, the reference, pitfalls, wrong prompts, what failed. */
export function details(cell) {
  const parts = [];
  if (cell.checks) parts.push(plural(cell.checks, "check"));
  if (cell.hints) parts.push(plural(cell.hints, "hint"));
  if (cell.revealed) parts.push("saw the reference");
  if (cell.failing && cell.failing.length) parts.push(`failing now: ${cell.failing.join(", ")}`);
  if (cell.pitfalls.length) parts.push(`pitfalls: ${cell.pitfalls.join("; ")}`);
  if (cell.prompts.length) parts.push(`prompts answered wrong: ${cell.prompts.join(", ")}`);
  if (cell.last) parts.push(`last ${cell.last}`);
  return parts;
}

/** Fill one table cell from its data (model.js `cell`); a claimed pass being checked has no verdict yet. A claimed
 * pass has a button that shows its code (codeView): what no check can tell apart, a teacher can read. */
export function fillCell(td, cell) {
  if (cell.verdict) {
    td.dataset.verdict = cell.verdict;
    delete td.dataset.pending;
  } else {
    delete td.dataset.verdict;
    td.dataset.pending = "";
  }
  // Two elements a cell: a table of 200 learners is thousands of cells, and each verdict repaints them.
  const word = el("strong", { class: "tl-verdict" }, cell.verdict ? VERDICT_TEXT[cell.verdict] : "claimed pass, checking again…");
  const parts = details(cell);
  const read = cell.verdict === "passed" || cell.verdict === "not-reproduced"
    ? [el("button", { type: "button", class: "tl-class-read", "data-read-code": "" }, "code")] : [];
  td.replaceChildren(word, ...(parts.length ? [el("span", { class: "tl-class-details" }, parts.join(" · "))] : []), ...read);
}

/**
 * The code of one learner's claimed pass, in a dialog, as text: opened by a cell's "code" button.
 * @param {(key: string, id: string) => {learner: string, id: string, code: string}|null} codeOf
 */
export function codeView(codeOf) {
  const title = el("h2", { id: "tl-class-code-title" });
  const code = el("code");
  const pre = el("pre", { tabindex: "0" });
  pre.append(code);
  const close = el("button", { type: "button", class: "md-button" }, "Close");
  const dom = el("dialog", { class: "tl-class-code", "aria-labelledby": "tl-class-code-title", "data-class-code": "" });
  dom.append(title, pre, close);
  close.addEventListener("click", () => dom.close());
  return {
    dom,
    /** Show the code of the cell whose button was pressed (a click anywhere in the table comes here). */
    open(target) {
      const button = target.closest?.("button[data-read-code]");
      const td = button?.closest("td[data-exercise]");
      const found = td && codeOf(td.closest("tr")?.dataset.key || "", td.dataset.exercise);
      if (!found) return false;
      title.textContent = `${found.learner}: ${found.id}, the code of the claimed pass`;
      code.textContent = found.code;
      if (typeof dom.showModal === "function") dom.showModal();
      else dom.setAttribute("open", "");
      return true;
    },
  };
}

/**
 * The class table.
 * @param {{id: string, title: string}[]} columns
 * @returns {{dom: HTMLElement, show: (rows: {key: string, row: object}[]) => void,
 *            update: (key: string, id: string, cell: object, passed: number) => void}}
 */
export function tableView(columns, codeOf = () => null) {
  const dom = el("div", { class: "tl-class-table" });
  const reader = codeView(codeOf);
  dom.addEventListener("click", (event) => reader.open(event.target));
  const cells = new Map();
  let unwatch = () => {};
  function show(rows) {
    cells.clear();
    unwatch();
    if (!rows.length) {
      dom.replaceChildren();
      return;
    }
    const table = el("table", { style: `--tl-class-columns: ${columns.length}` });
    const caption = el("caption", {}, `The class: ${plural(rows.length, "learner")}, one row each, and `
      + `${plural(columns.length, "exercise")}. A pass counts once it has been checked again in this browser.`);
    const head = el("tr");
    head.append(el("th", { scope: "col", class: "tl-class-who" }, "Learner"));
    for (const c of columns) head.append(el("th", { scope: "col" }, `${c.id} ${c.title}`));
    head.append(el("th", { scope: "col", class: "tl-class-count" }, "Passed"),
      el("th", { scope: "col", class: "tl-class-when" }, "Last activity (UTC)"));
    const body = el("tbody");
    for (const { key, row } of rows) {
      const tr = el("tr", { "data-learner": row.learner, "data-key": key });
      const th = el("th", { scope: "row" }, row.learner);
      if (row.files.length > 1 || row.files[0] !== row.learner) {
        th.append(el("span", { class: "tl-class-files" }, ` (${row.files.join(", ")})`));
      }
      if (row.problem) {
        tr.dataset.conflict = "";
        th.append(el("span", { class: "tl-class-problem" }, ` ${row.problem}`));
      }
      tr.append(th);
      for (const c of columns) {
        const td = el("td", { "data-exercise": c.id });
        fillCell(td, row.cells[c.id]);
        cells.set(`${key}|${c.id}`, td);
        tr.append(td);
      }
      const passed = el("td", { "data-passed": "" }, String(row.passed));
      cells.set(`${key}|passed`, passed);
      tr.append(passed, el("td", {}, row.last));
      body.append(tr);
    }
    const thead = el("thead");
    thead.append(head);
    table.append(caption, thead, body);
    const wrap = el("div", { class: "md-typeset__scrollwrap" });
    const inner = el("div", { class: "md-typeset__table" });
    inner.append(table);
    wrap.append(inner);
    dom.replaceChildren(wrap, reader.dom);
    unwatch = watchScroller(wrap, "Table");
  }
  const queued = new Map();
  let timer = null;
  function flush() {
    clearTimeout(timer);
    timer = null;
    for (const [learner, id, cell, passed] of queued.values()) {
      const td = cells.get(`${learner}|${id}`);
      if (td) fillCell(td, cell);
      const count = cells.get(`${learner}|passed`);
      if (count) count.textContent = String(passed);
    }
    queued.clear();
  }
  /** A cell's new verdict, shown with the others that arrive within FLUSH_MS (flush() shows them at once). */
  function update(key, id, cell, passed) {
    queued.set(`${key}|${id}`, [key, id, cell, passed]);
    if (!timer) timer = setTimeout(flush, FLUSH_MS);
  }
  return { dom, show: (rows) => { queued.clear(); show(rows); }, update, flush };
}

/** The files refused, a line each, with the file's name and why. */
export function rejectedView() {
  const dom = el("div", { class: "tl-class-rejected", hidden: "" });
  const list = el("ul");
  dom.append(el("p", {}, "Files that could not be used (the rest of the class is graded):"), list);
  return {
    dom,
    show(rejected) {
      list.replaceChildren(...rejected.map(([file, why]) => el("li", { "data-class-rejected": file }, `${file}: ${why}.`)));
      dom.hidden = rejected.length === 0;
    },
  };
}

/** The progress of the checking: a bar and a status line that a screen reader hears now and then. */
export function progressView(now = () => performance.now()) {
  const dom = el("div", { class: "tl-class-progress" });
  const bar = el("progress", { max: "1", value: "0", "aria-label": "Passes checked again", hidden: "" });
  const line = el("p", { class: "tl-class-status" });
  const spoken = el("p", { class: "tl-sr", role: "status", "aria-live": "polite" });
  dom.append(bar, line, spoken);
  let said = -Infinity;
  let shown = -Infinity;
  let latest = null;
  let timer = null;
  const show = () => {
    clearTimeout(timer);
    timer = null;
    shown = now();
    const p = latest;
    bar.hidden = p.total === 0;
    bar.max = Math.max(1, p.total);
    bar.value = p.done;
    line.textContent = `Checking the passes again: ${p.done} of ${plural(p.total, "exercise")} `
      + `(${p.learnersDone} of ${plural(p.learners, "learner")} done).`;
    if (now() - said >= ANNOUNCE_MS) {
      said = now();
      spoken.textContent = line.textContent;
    }
  };
  return {
    dom,
    /** The count so far, drawn at most every SHOW_MS (each drawing repaints the page around the table).
     * @param {{done: number, total: number, learnersDone: number, learners: number}} p */
    update(p) {
      latest = p;
      if (now() - shown >= SHOW_MS || p.done === p.total) show();
      else if (!timer) timer = setTimeout(show, SHOW_MS);
    },
    /** The end of a run, or any other news: shown and said at once. */
    say(text) {
      clearTimeout(timer);
      timer = null;
      line.textContent = text;
      spoken.textContent = text;
      said = now();
    },
  };
}

/** The summary per exercise (model.js `summary`), for the screen and for print. */
export function summaryView() {
  const dom = el("section", { class: "tl-class-summary", "aria-label": "Summary per exercise" });
  return {
    dom,
    show(rows, columns) {
      const parts = [];
      for (const s of summary(rows, columns)) {
        const n = s.counts;
        const box = el("div", { class: "tl-class-exercise", "data-exercise": s.id });
        box.append(el("h3", {}, `${s.id} ${s.title}`),
          el("p", {}, `Passed ${n.passed} of ${s.learners} (${s.rate}%); claimed passes that did not hold ${n["not-reproduced"]}; `
            + `failed ${n.failed}; not tried ${n.untried}.`),
          el("p", {}, `Pitfalls hit most: ${many(s.pitfalls)}.`),
          el("p", {}, `Prompts answered wrong most: ${many(s.prompts)}.`));
        parts.push(box);
      }
      dom.replaceChildren(...(rows.length ? [el("h2", {}, "Per exercise"), ...parts] : []));
    },
  };
}
