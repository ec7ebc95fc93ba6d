/**
 * Page wiring: one store, one Python worker started as the page opens, and every widget on the page mounted.
 */
import { createStore } from "./store.js";
import { PythonWorker } from "./worker-client.js";
import { mountNumeric, mountChoice, mountReveal } from "./prompts.js";
import { mountCell } from "./code-cell.js";
import { renderMath } from "./math.js";
import { mountCatalogues } from "./catalogue.js";

// tl.js lives at <site>/assets/tl/tl.js: everything else is found relative to it, so the site works under any
// path on any static host.
const base = new URL("../", import.meta.url);

function safeLocalStorage() {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function showNotice(text) {
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
  box.append(p);
}

function start() {
  document.documentElement.classList.add("tl-js");
  const store = createStore(safeLocalStorage());
  store.notices().forEach(showNotice);
  store.onNotice(showNotice);
  renderMath();
  for (const root of document.querySelectorAll(".tl-numeric")) mountNumeric(root, store);
  for (const root of document.querySelectorAll(".tl-choice")) mountChoice(root, store);
  for (const root of document.querySelectorAll(".tl-reveal")) mountReveal(root, store);
  mountCatalogues(document, store);
  const cells = document.querySelectorAll(".tl-cell");
  if (cells.length) {
    const python = new PythonWorker({ base }).start();
    window.tinyllm = { python, store };
    for (const root of cells) mountCell(root, { store, python, base });
  } else {
    window.tinyllm = { store };
  }
}

start();
