/**
 * Work that lasts. A learner's code and progress live in this site's storage, which a browser may clear: Safari
 * (every browser on an iPhone) erases a site's script-writable storage after seven days of use without a visit to
 * it, unless the site is on the Home Screen; others clear it under storage pressure. So once the learner has saved
 * work, the page asks the browser to keep it (`navigator.storage.persist()`). Where the browser refuses or cannot
 * promise, the learner is told once, plainly, and pointed at Export on the progress page, which shows the date of
 * the last export. Nothing is lost silently.
 *
 * What was decided is kept in `local:storage` ({state: "kept" | "not-promised", at}); the date of the last export
 * in `local:exported` (progress.js writes it): facts about this browser, which an export leaves out.
 */
import { keys } from "./store.js";

/** The words the learner reads, once, when the browser does not promise to keep their work. */
export const NOT_PROMISED = "This browser has not promised to keep your saved work: it may clear it (Safari does "
  + "after seven days without a visit, unless this site is on your Home Screen). Export your progress now and then "
  + "to keep a copy.";

/** Whether any work of the learner's is saved (code, a result, an answer, help taken). */
export function hasWork(store) {
  return store.keys().some((k) => /^(code|result|prompt|help|elsewhere):/.test(k));
}

/**
 * Ask once to keep the learner's storage; tell them once if the browser does not promise it.
 * @param {{store: object, storage?: StorageManager|null, tell: (text: string) => void, now?: () => number}} options
 *   storage: navigator.storage (absent in some browsers and in insecure contexts); tell: shows a notice with a
 *   link to Export
 * @returns {Promise<"kept"|"not-promised"|"asked-before"|"no-storage">}
 */
export async function keepWork({ store, storage, tell, now = Date.now }) {
  if (!store.persistent) return "no-storage"; // store.js already said work will not survive a reload
  const decided = store.get(keys.local("storage"), null);
  if (decided && typeof decided === "object" && decided.state === "not-promised") return "asked-before";
  let kept = false;
  try {
    kept = Boolean(storage && typeof storage.persisted === "function" && await storage.persisted());
    // Some browsers ask the learner (Firefox shows a prompt); others decide themselves (Chromium, Safari).
    if (!kept && storage && typeof storage.persist === "function") kept = Boolean(await storage.persist());
  } catch {
    kept = false;
  }
  if (kept) {
    if (!decided || decided.state !== "kept") store.set(keys.local("storage"), { state: "kept", at: now() });
    return "kept";
  }
  store.set(keys.local("storage"), { state: "not-promised", at: now() });
  tell(NOT_PROMISED);
  return "not-promised";
}

/**
 * Ask as soon as there is work to keep: now, if some is saved already, else after the first save.
 * @returns {() => void} stops waiting
 */
export function keepWhenSaved({ store, storage, tell }) {
  if (hasWork(store)) {
    keepWork({ store, storage, tell }).catch(() => {});
    return () => {};
  }
  const stop = store.onSaved((key) => {
    if (!/^(code|result|prompt|help):/.test(key)) return;
    stop();
    keepWork({ store, storage, tell }).catch(() => {});
  });
  return stop;
}

/**
 * The progress page's words on keeping work: whether the browser promised, and when the learner last exported.
 * @returns {{state: string, text: string}}
 */
export function keepingText(store) {
  const decided = store.get(keys.local("storage"), null);
  const exported = store.get(keys.local("exported"), null);
  const when = typeof exported === "string" && exported ? `Last exported: ${exported.slice(0, 10)}.` : "Not exported yet.";
  if (!store.persistent) {
    return { state: "memory", text: `This browser is not letting the page save: export before you leave. ${when}` };
  }
  if (decided && decided.state === "kept") {
    return { state: "kept", text: `This browser has promised to keep your work. ${when}` };
  }
  if (decided && decided.state === "not-promised") {
    return { state: "not-promised", text: `This browser may clear your saved work; Export keeps a copy. ${when}` };
  }
  return { state: "unknown", text: when };
}
