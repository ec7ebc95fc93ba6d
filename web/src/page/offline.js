/**
 * The offline copy (sw.js): asking for it to be filled, and showing how far it is on the pages that carry a
 * `.tl-offline` box (the home page and the progress page).
 *
 * A first visit keeps what the page itself fetched; once Python is ready and the page idle, main.js asks for the
 * rest of what the page needs offline: the platform and the page's chapter or module with what it builds on, never
 * the whole course (issue 34). Saving the whole course is the learner's choice, made here with its size on the
 * button. On a connection that asks to save data nothing is downloaded in the background at all.
 */

/** True when the page's scope may be downloaded without asking (not on a save-data connection). */
export function fillsByItself(nav) {
  return !(nav && nav.connection && nav.connection.saveData);
}

/**
 * Ask the active service worker to download what the copy still lacks: what a visit of `page` saves, or, without
 * a page, the whole course.
 * @param {ServiceWorkerContainer} container
 * @param {{page?: string}} what
 */
export async function requestFill(container, { page } = {}) {
  const registration = await container.ready;
  if (registration.active) registration.active.postMessage(page ? { type: "tl-sw-fill", page } : { type: "tl-sw-fill" });
}

/** `bytes` for a reader: "840 kB", "12.4 MB". */
export function size(bytes) {
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(bytes >= 1e8 ? 0 : 1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1e3))} kB`;
}

/**
 * What the box says for a status reply of sw.js (null: no service worker controls the page yet): `text`, whether
 * to offer the button, its `label` (the size of what it would download) and that size in bytes (`missing`).
 */
export function describe(status, saveData) {
  if (!status) {
    return { text: "This site keeps a copy of the pages you open in your browser for offline use once a page has "
      + "finished loading over the network.", button: false };
  }
  const { cached, total, filling, whole } = status;
  const sized = typeof status.bytes === "number" && typeof status.heldBytes === "number";
  const missing = sized ? Math.max(0, status.bytes - status.heldBytes) : 0;
  if (cached >= total) {
    const all = sized ? `${total} files, ${size(status.bytes)}` : `${total} files`;
    return { text: `The whole course (${all}) is saved in this browser: it works offline.`, button: false };
  }
  if (filling && whole) {
    const sofar = sized ? `${size(status.heldBytes)} of ${size(status.bytes)}` : `${cached} of ${total} files`;
    return { text: `Saving the whole course for offline use: ${sofar} so far…`, button: false };
  }
  const held = sized ? `${size(status.heldBytes)} of the course's ${size(status.bytes)}` : `${cached} of ${total} files`;
  const why = saveData ? " Your connection asks to save data, so nothing more is downloaded until you ask." : "";
  return {
    text: `The pages you have opened, with their chapter or module and what they build on, are saved in this `
      + `browser for offline use (${held}).${why}`,
    button: true, missing,
    label: `Save the whole course for offline use${sized ? ` (${size(missing)} more)` : ""}`,
  };
}

/**
 * Show the offline copy's state in `root` and offer to save the whole course.
 * @param {HTMLElement} root  the .tl-offline box
 * @param {{container?: ServiceWorkerContainer, saveData?: boolean, every?: number}} options
 */
export function mountOffline(root, { container, saveData = false, every = 2000 } = {}) {
  const text = root.ownerDocument.createElement("p");
  text.className = "tl-offline-state";
  text.setAttribute("role", "status");
  const button = root.ownerDocument.createElement("button");
  button.type = "button";
  button.className = "md-button tl-offline-save";
  button.textContent = "Save the whole course for offline use";
  button.hidden = true;
  root.append(text, button);
  let status = null;
  const draw = () => {
    const view = describe(status, saveData);
    text.textContent = view.text;
    button.hidden = !view.button;
    if (view.label) button.textContent = view.label;
    if (view.button) button.dataset.bytes = String(view.missing);
    else delete button.dataset.bytes;
  };
  draw();
  if (!container) return;
  const ask = () => container.controller && container.controller.postMessage({ type: "tl-sw-status" });
  container.addEventListener("message", (event) => {
    if (!event.data || event.data.type !== "tl-sw-status") return;
    status = event.data;
    draw();
    if (status.filling) setTimeout(ask, every);
  });
  container.addEventListener("controllerchange", ask);
  button.addEventListener("click", () => {
    status = status && { ...status, filling: true, whole: true };
    draw();
    requestFill(container).then(() => setTimeout(ask, 200)).catch(() => {});
  });
  ask();
}
