/**
 * The progress page (`/// progress`): every exercise, prompt and prediction with its state and last result,
 * and export, import and reset of everything this browser has saved. No server involved: export is a file
 * download, import reads a file the learner picks.
 */
import { codeState, exerciseStatus, promptState, STATUS_TEXT } from "./progress-model.js";
import { el } from "./dom.js";
import { watchScroller } from "./a11y.js";

const PROMPT_TEXT = {
  correct: "correct", incorrect: "not yet right", revealed: "answer shown", committed: "prediction made",
  answered: "answered", unanswered: "not answered",
};

/** The exercise index written by the build (tools/bundle.py). */
export async function loadIndex(base) {
  const response = await fetch(new URL("tl/exercises/index.json", base));
  if (!response.ok) throw new Error(`exercise index: HTTP ${response.status}`);
  return response.json();
}

/** The site URL of an exercise's page (`e7/rejection-correction.md` → `<root>/e7/rejection-correction/`). */
export function pageURL(base, page) {
  return new URL(`../${page.replace(/(^|\/)index\.md$/, "$1").replace(/\.md$/, "/")}`, base).href;
}

function renderTable(index, store, base) {
  const get = (key) => store.get(key, null);
  const table = el("table"); // no class: mkdocs-material styles only class-less tables
  const head = el("tr");
  for (const title of ["Exercise", "Status", "Code", "Prompts and predictions"]) head.append(el("th", { scope: "col" }, title));
  const body = el("tbody");
  table.append(el("thead"), body);
  table.firstChild.append(head);
  for (const entry of index) {
    const row = el("tr", { "data-exercise": entry.slug });
    const name = el("td");
    const link = el("a", { href: pageURL(base, entry.page) }, `${entry.id} ${entry.title}`);
    name.append(link);
    const status = exerciseStatus(get, entry);
    row.dataset.status = status;
    const code = codeState(get, entry.slug);
    const codeText = code.total ? `${code.passed} of ${code.total} tests pass` : code.state === "edited" ? "edited, not checked" : "not started";
    const prompts = el("td");
    const list = el("ul", { class: "tl-prompt-states" });
    for (const id of entry.prompts || []) {
      const state = promptState(get, entry.slug, id, "numeric");
      list.append(el("li", { "data-prompt": id, "data-state": state }, `${id}: ${PROMPT_TEXT[state]}`));
    }
    for (const c of entry.choices || []) {
      const state = promptState(get, entry.slug, c.id, c.kind);
      list.append(el("li", { "data-prompt": c.id, "data-state": state }, `${c.id}: ${PROMPT_TEXT[state]}`));
    }
    if (list.children.length) prompts.append(list);
    else prompts.textContent = "none";
    row.append(name, el("td", { class: `tl-status-${status}` }, STATUS_TEXT[status]), el("td", {}, codeText), prompts);
    body.append(row);
  }
  return table;
}

/** Mount the progress widget. */
export function mountProgress(root, { store, base }) {
  const status = el("p", { class: "tl-progress-status", role: "status", "aria-live": "polite" });
  const holder = el("div", { class: "tl-progress-holder" });
  const tools = el("div", { class: "tl-progress-tools" });
  const exportB = el("button", { type: "button", class: "md-button tl-export" }, "Export progress to a file");
  const importLabel = el("label", { class: "md-button tl-import" }, "Import progress from a file");
  const importInput = el("input", { type: "file", accept: "application/json,.json", class: "tl-sr" });
  importLabel.append(importInput);
  const resetB = el("button", { type: "button", class: "md-button tl-reset-all" }, "Reset all progress…");
  const confirmBox = el("div", { class: "tl-confirm", hidden: "" });
  const yes = el("button", { type: "button", class: "md-button tl-confirm-yes" }, "Yes, erase everything");
  const no = el("button", { type: "button", class: "md-button tl-confirm-no" }, "Cancel");
  confirmBox.append(el("p", {}, "This erases your saved code, answers, predictions and results in this browser. Export first if you may want them back."), yes, no);
  tools.append(exportB, importLabel, resetB);
  root.replaceChildren(tools, confirmBox, status, holder);

  let index = [];
  let unwatch = () => {};
  // The table is wider than a phone: like the theme's own tables, it scrolls inside a box of its own, which the
  // keyboard can reach once it overflows.
  const refresh = () => {
    const wrap = el("div", { class: "md-typeset__scrollwrap" });
    const inner = el("div", { class: "md-typeset__table" });
    inner.append(renderTable(index, store, base));
    wrap.append(inner);
    holder.replaceChildren(wrap);
    unwatch();
    unwatch = watchScroller(wrap, "Table");
  };
  loadIndex(base).then((found) => {
    index = found;
    refresh();
  }).catch((err) => {
    status.textContent = `The list of exercises could not be loaded (${err.message}).`;
  });

  exportB.addEventListener("click", () => {
    const dump = store.exportAll();
    const blob = new Blob([JSON.stringify(dump, null, 1)], { type: "application/json" });
    const a = el("a", { href: URL.createObjectURL(blob), download: `tinyllm-progress-${dump.saved.slice(0, 10)}.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
    status.textContent = `Exported ${Object.keys(dump.data).length} saved items.`;
  });
  importInput.addEventListener("change", async () => {
    const file = importInput.files && importInput.files[0];
    importInput.value = "";
    if (!file) return;
    try {
      const count = store.importAll(JSON.parse(await file.text()));
      status.textContent = `Imported ${count} saved items from ${file.name}.`;
      refresh();
    } catch (err) {
      status.textContent = `Nothing was imported: ${err instanceof SyntaxError ? "the file is not valid JSON" : err.message}`;
    }
  });
  resetB.addEventListener("click", () => {
    confirmBox.hidden = false;
    no.focus();
  });
  no.addEventListener("click", () => {
    confirmBox.hidden = true;
    resetB.focus();
  });
  yes.addEventListener("click", () => {
    store.clearAll();
    confirmBox.hidden = true;
    status.textContent = "All progress in this browser was erased.";
    refresh();
  });
}
