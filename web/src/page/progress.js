/**
 * The progress page (`/// progress`): every exercise, prompt and prediction with its state and last result,
 * and export, import and reset of everything this browser has saved. No server involved: export is a file
 * download, import reads a file the learner picks.
 */
import { codeState, codeText, exerciseStatus, helpTaken, helpText, promptState, STATUS_TEXT } from "./progress-model.js";
import { learnerName, learnerOf, parseDump } from "./exchange.js";
import { keepingText } from "./keep.js";
import { keys } from "./store.js";
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
    const help = helpTaken(get, entry.slug);
    const codeCell = el("td", { "data-code": code.state }, codeText(code));
    if (helpText(help)) {
      codeCell.append(el("span", { class: "tl-help-taken", "data-help": help.revealed ? "revealed" : "hints" },
        ` (${helpText(help)})`));
    }
    row.append(name, el("td", { class: `tl-status-${status}` }, STATUS_TEXT[status]), codeCell, prompts);
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
  const name = learnerField(store);
  const importLabel = el("label", { class: "md-button tl-import" }, "Import progress from a file");
  const importInput = el("input", { type: "file", accept: "application/json,.json", class: "tl-sr" });
  importLabel.append(importInput);
  const resetB = el("button", { type: "button", class: "md-button tl-reset-all" }, "Reset all progress…");
  const confirmBox = el("div", { class: "tl-confirm", hidden: "" });
  const yes = el("button", { type: "button", class: "md-button tl-confirm-yes" }, "Yes, erase everything");
  const no = el("button", { type: "button", class: "md-button tl-confirm-no" }, "Cancel");
  confirmBox.append(el("p", {}, "This erases your saved code, answers, predictions and results in this browser. Export first if you may want them back."), yes, no);
  tools.append(exportB, importLabel, resetB);
  const keeping = el("p", { class: "tl-keeping" });
  const sayKeeping = () => {
    const { state, text } = keepingText(store);
    keeping.dataset.state = state;
    keeping.textContent = text;
  };
  sayKeeping();
  root.replaceChildren(keeping, name.dom, tools, confirmBox, status, holder);

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
    root.dataset.drawn = ""; // tl.css held the table's room until now
    unwatch();
    unwatch = watchScroller(wrap, "Table");
  };
  loadIndex(base).then((found) => {
    index = found;
    refresh();
  }).catch((err) => {
    status.textContent = `The list of exercises could not be loaded (${err.message}).`;
    root.dataset.drawn = "";
  });

  exportB.addEventListener("click", () => exportProgress(store, base, status, name.chosen()).then(sayKeeping));
  importInput.addEventListener("change", async () => {
    const file = importInput.files && importInput.files[0];
    importInput.value = "";
    if (!file) return;
    status.textContent = await importProgress(store, await file.text(), file.name, index);
    name.render();
    refresh();
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

/**
 * The name exports carry, for a teacher's class view: asked once, beside Export (an optional field), kept in this
 * browser (store.js keys.learner) once an export has used it, and shown afterwards with a Change button.
 * @returns {{dom: HTMLElement, chosen: () => string, render: () => void}}  chosen: the name for this export (and
 *   remembered)
 */
function learnerField(store) {
  const box = el("p", { class: "tl-learner" });
  const label = el("label", { for: "tl-learner-name" }, "Your name in exported files, for a teacher's class view (optional): ");
  const input = el("input", { id: "tl-learner-name", type: "text", autocomplete: "name", maxlength: "80",
    spellcheck: "false", "data-learner-name": "" });
  const said = el("span", { class: "tl-learner-said" });
  const change = el("button", { type: "button", class: "tl-link tl-learner-change" }, "Change");
  let editing = false;
  const saved = () => {
    const value = store.get(keys.learner(), null);
    return value && typeof value === "object" && typeof value.name === "string" ? learnerName(value.name) : null;
  };
  const render = () => {
    const name = saved();
    if (name === null || editing) {
      input.value = input.value || name || "";
      box.replaceChildren(label, input);
      return;
    }
    said.textContent = name ? `Your exported files carry the name ${name}. ` : "Your exported files carry no name. ";
    box.replaceChildren(said, change);
  };
  change.addEventListener("click", () => {
    editing = true;
    render();
    input.focus();
  });
  render();
  return {
    dom: box, render,
    chosen() {
      const name = saved() === null || editing ? learnerName(input.value) : saved();
      store.set(keys.learner(), { name });
      editing = false;
      render();
      return name;
    },
  };
}

/** The build's version (assets/tl/build.json), carried in exports so `ol` can tell which site wrote them. */
async function buildVersion(base) {
  try {
    const response = await fetch(new URL("tl/build.json", base));
    return response.ok ? String((await response.json()).version || "") : "";
  } catch {
    return "";
  }
}

/** Download everything saved here as a file that this page and `ol import` read, under the learner's name. */
async function exportProgress(store, base, status, learner) {
  const dump = store.exportAll({ build: await buildVersion(base), learner });
  const blob = new Blob([JSON.stringify(dump, null, 1)], { type: "application/json" });
  const a = el("a", { href: URL.createObjectURL(blob), download: `tinyllm-progress-${dump.saved.slice(0, 10)}.json` });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
  status.textContent = `Exported ${Object.keys(dump.data).length} saved items.`;
  store.set(keys.local("exported"), dump.saved);
}

/**
 * Import a file's text (this site's export or `ol export`'s); returns the sentence to show. A file that cannot
 * be used changes nothing; entries of exercises this site no longer has are left out and named.
 */
export async function importProgress(store, text, name, index) {
  let done;
  let dump;
  try {
    dump = parseDump(text);
    done = store.importAll(dump, { slugs: index.length ? new Set(index.map((e) => e.slug)) : undefined });
  } catch (err) {
    return `Nothing was imported: ${err.message}.`;
  }
  // The learner's own file: its name is theirs here too, unless this browser was told one already.
  if (learnerOf(dump) && store.get(keys.learner(), null) === null) store.set(keys.learner(), { name: learnerOf(dump) });
  const title = (slug) => (index.find((e) => e.slug === slug) || { id: slug }).id;
  const parts = [`Imported ${done.count} saved items from ${name}.`];
  if (done.elsewhere.length) {
    parts.push(`${done.elsewhere.map(title).join(", ")} passed with ol: each counts here once its page has checked `
      + "the code (automatically, once Python is ready).");
  }
  if (done.kept.length) parts.push(`Your own code of ${done.kept.map(title).join(", ")} is kept: its code cell offers it back.`);
  if (done.unknown.length) parts.push(`Left out: ${done.unknown.join(", ")}, which this site no longer has.`);
  return parts.join(" ");
}
