/**
 * The offline copy (sw.js): asking for it to be completed, and showing how far it is on the pages that carry a
 * `.tl-offline` box (the home page and the progress page).
 *
 * A first visit keeps what the page itself fetched; the rest of the site is downloaded once Python is ready and
 * the page idle (main.js), except on a connection that asks to save data, where it waits for the learner to
 * press the button here.
 */

/** True when the rest of the offline copy may be downloaded without asking (not on a save-data connection). */
export function fillsByItself(nav) {
  return !(nav && nav.connection && nav.connection.saveData);
}

/** Ask the active service worker to download what the offline copy still lacks. */
export async function requestFill(container) {
  const registration = await container.ready;
  if (registration.active) registration.active.postMessage({ type: "tl-sw-fill" });
}

/** What the box says for a status reply of sw.js (null: no service worker controls the page yet). */
export function describe(status, saveData) {
  if (!status) {
    return { text: "This site keeps a copy of itself in your browser for offline use once a page has finished "
      + "loading over the network.", button: false };
  }
  const { cached, total, filling } = status;
  if (cached >= total) return { text: `The whole site (${total} files) is saved in this browser: it works offline.`, button: false };
  if (filling) return { text: `Saving the site for offline use: ${cached} of ${total} files so far…`, button: false };
  const why = saveData ? " Your connection asks to save data, so the rest waits until you ask for it." : "";
  return { text: `${cached} of ${total} files of this site are saved in this browser for offline use.${why}`, button: true };
}

/**
 * Show the offline copy's state in `root` and offer to complete it.
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
  button.textContent = "Save the whole site for offline use";
  button.hidden = true;
  root.append(text, button);
  let status = null;
  const draw = () => {
    const view = describe(status, saveData);
    text.textContent = view.text;
    button.hidden = !view.button;
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
    status = status && { ...status, filling: true };
    draw();
    requestFill(container).then(() => setTimeout(ask, 200)).catch(() => {});
  });
  ask();
}
