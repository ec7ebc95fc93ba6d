/**
 * The one module of the page that touches browser storage (web/test/storage.test.mjs). Everything a learner does
 * is saved under versioned keys
 * (`tinyllm:v1:<kind>:<name>`) so a later format can migrate or ignore old data instead of misreading it.
 *
 * Failures never break the page: unreadable entries are reset with a notice, and when storage is unavailable
 * (private windows, quota full) the store keeps working in memory and says that work will not survive a reload.
 */

import { checkDump, header, planImport, slugOf } from "./exchange.js";

export const PREFIX = "tinyllm:";
export const KEYS_VERSION = "v1";
const KEY_PREFIX = `${PREFIX}${KEYS_VERSION}:`;

/** Whether `backend` accepts a write (private windows and disabled storage throw). */
function writable(backend) {
  try {
    const probe = `${KEY_PREFIX}probe`;
    backend.setItem(probe, "1");
    backend.removeItem(probe);
    return true;
  } catch {
    return false;
  }
}

/** Every key of `backend` for which `keep(key)` holds (none when storage cannot be listed). */
function listKeys(backend, keep) {
  const found = [];
  try {
    for (let i = 0; i < backend.length; i += 1) {
      const k = backend.key(i);
      if (k && keep(k)) found.push(k);
    }
  } catch { /* ignore */ }
  return found;
}

/** The notice for entries of another version of the site, or "" when there are none. */
function olderNotice(backend) {
  const older = listKeys(backend, (k) => k.startsWith(PREFIX) && !k.startsWith(KEY_PREFIX)).length;
  return older ? `Found ${older} saved item${older === 1 ? "" : "s"} from another version of this site. `
    + "This version cannot read them, so they were left untouched." : "";
}

/** Check an export before loading it; throws Error with a readable message. */
/**
 * @param {Storage|null} backend usually window.localStorage; null or a throwing object is tolerated
 * @param {{events?: EventTarget|null}} options  events: where the browser announces other tabs' writes
 *   ("storage" events: the page's window); without it, onExternalChange never calls back
 */
export function createStore(backend, { events = null } = {}) {
  const memory = new Map();
  const listeners = new Set();
  const writers = new Set();
  const notices = [];
  const persistent = writable(backend);

  function notice(text) {
    notices.push(text);
    for (const fn of listeners) fn(text);
  }

  const older = persistent ? olderNotice(backend) : "";
  if (!persistent) {
    notices.push("This browser is not letting the page save. Your work stays while the page is open, but not after a reload.");
  } else if (older) {
    notices.push(older);
  }

  const fullKey = (key) => `${KEY_PREFIX}${key}`;

  /** Read a value; returns `fallback` when absent, and resets an unreadable entry with a notice. */
  function get(key, fallback = null) {
    if (memory.has(key)) return structuredClone(memory.get(key));
    if (!persistent) return fallback;
    let raw;
    try {
      raw = backend.getItem(fullKey(key));
    } catch {
      return fallback;
    }
    if (raw === null) return fallback;
    try {
      const value = JSON.parse(raw);
      memory.set(key, value);
      return structuredClone(value);
    } catch {
      try {
        backend.setItem(fullKey(`corrupt:${key}`), raw);
        backend.removeItem(fullKey(key));
      } catch { /* nothing more we can do */ }
      notice(`Saved data for "${key}" was unreadable and has been reset (a copy was kept).`);
      return fallback;
    }
  }

  /** Save a value. Returns true when it reached persistent storage. */
  function set(key, value) {
    if (value === undefined) {
      remove(key); // JSON has no undefined: storing it would read back as corrupt data
      return persistent;
    }
    memory.set(key, structuredClone(value));
    if (!persistent) return false;
    try {
      backend.setItem(fullKey(key), JSON.stringify(value));
      for (const fn of [...writers]) fn(key);
      return true;
    } catch (err) {
      notice(`Could not save "${key}" (${err && err.name === "QuotaExceededError" ? "storage is full" : "storage refused"}). It is kept while this page is open.`);
      return false;
    }
  }

  function remove(key) {
    memory.delete(key);
    if (!persistent) return;
    try {
      backend.removeItem(fullKey(key));
    } catch { /* ignore */ }
  }

  /** Every key of this version (without the prefix), for export and the progress page. */
  function keys() {
    const found = new Set(memory.keys());
    if (persistent) {
      const own = listKeys(backend, (k) => k.startsWith(KEY_PREFIX) && !k.startsWith(`${KEY_PREFIX}corrupt:`));
      for (const k of own) found.add(k.slice(KEY_PREFIX.length));
    }
    return [...found].sort();
  }

  /** Forget the in-memory copy of `key` so the next get() rereads storage (another tab may have written). */
  function refresh(key) {
    memory.delete(key);
  }

  /**
   * Everything, as one JSON-ready object in the format `ol import` reads too (web/src/page/exchange.js):
   * {format, version, course, build, origin, learner?, saved, data}. Drafts and `local:` facts stay here: they
   * are this browser's own. `learner`: the name the learner chose to appear under (progress.js asks it once).
   */
  function exportAll({ build = "", learner = "" } = {}) {
    const data = {};
    for (const k of keys()) if (!k.startsWith("draft:") && !k.startsWith("local:")) data[k] = get(k);
    return { ...header({ build, learner }), saved: new Date().toISOString(), data };
  }

  /**
   * Load an export (this site's or `ol export`'s), after checking all of it: a file that cannot be used changes
   * nothing. Code that replaces different code here is kept as that exercise's draft, which its cell offers
   * back. Returns what happened (exchange.js planImport); throws Error with a readable message.
   * @param {object} dump  the parsed file
   * @param {{slugs?: Set<string>}} site  the site's exercises (entries of others are left out); default: any
   */
  function importAll(dump, { slugs } = {}) {
    checkDump(dump);
    const known = slugs || new Set(Object.keys(dump.data).map(slugOf).filter(Boolean));
    const plan = planImport(dump, { get, slugs: known });
    for (const [k, v] of plan.writes) set(k, v);
    return { ...plan, count: plan.writes.length };
  }

  /** Remove every entry of this version. */
  const clearAll = () => keys().forEach(remove);

  /**
   * Call `fn(key, how)` when another tab changed an entry of this version: `key` without the prefix, `how`
   * "changed" or "removed"; `fn(null, "cleared")` when the whole storage was cleared. The in-memory copy is
   * forgotten first, so get() inside `fn` reads what the other tab wrote. Returns an unsubscribe function.
   */
  function onExternalChange(fn) {
    if (!events || !persistent) return () => {};
    const listener = (event) => {
      if (event.storageArea && event.storageArea !== backend) return; // sessionStorage, or another store
      if (event.key === null) {
        memory.clear();
        fn(null, "cleared");
        return;
      }
      if (!event.key.startsWith(KEY_PREFIX) || event.key.startsWith(`${KEY_PREFIX}corrupt:`)) return;
      const key = event.key.slice(KEY_PREFIX.length);
      memory.delete(key);
      fn(key, event.newValue === null ? "removed" : "changed");
    };
    events.addEventListener("storage", listener);
    return () => events.removeEventListener("storage", listener);
  }

  return {
    get, set, remove, keys, refresh, exportAll, importAll, clearAll, onExternalChange,
    get persistent() { return persistent; },
    /** Notices so far, and a subscription for later ones. */
    notices: () => [...notices],
    onNotice(fn) { listeners.add(fn); return () => listeners.delete(fn); },
    /** Call `fn(key)` after each write that reached storage; returns an unsubscribe function. */
    onSaved(fn) { writers.add(fn); return () => writers.delete(fn); },
  };
}

/** The page's localStorage, or null where even reading it throws (a sandboxed frame, storage disabled). */
export function browserStorage() {
  try {
    return globalThis.localStorage;
  } catch {
    return null;
  }
}

/**
 * The localStorage key that forces how the Python worker starts (a value of shared/build-outputs.js STARTS), for
 * tests and the benchmark: not the learner's data, so neither versioned nor exported. overrides/main.html reads
 * it too, for the worker it starts early.
 */
export const START_KEY = "tl-start";

/** What `backend` holds under START_KEY (unchecked), or null when nothing or when it cannot be read. */
export function forcedStart(backend) {
  try {
    return backend ? backend.getItem(START_KEY) : null;
  } catch {
    return null;
  }
}

/** Storage keys, named in one place. */
export const keys = {
  code: (slug) => `code:${slug}`,
  result: (slug) => `result:${slug}`,
  prompt: (slug, id) => `prompt:${slug}/${id}`,
  prefs: (slug) => `prefs:${slug}`,
  /** Edits made while another tab's version of the code is unresolved (the code cell's conflict bar). */
  draft: (slug) => `draft:${slug}`,
  /** A pass imported from `ol`, with the code that passed there; it counts once this page checked that code. */
  elsewhere: (slug) => `elsewhere:${slug}`,
  /** Help taken on an exercise (cell/help.js): hints revealed, failed checks, when the reference was shown. */
  help: (slug) => `help:${slug}`,
  /** A course-wide preference of the learner's (`settings:diagnoses`: name the known mistake a failure looks like). */
  setting: (name) => `settings:${name}`,
  /** A fact about this browser (`local:storage`: did it promise to keep the work; `local:exported`: when the
   * learner last exported), which exports leave out: it says nothing of another browser. */
  local: (name) => `local:${name}`,
  /** The name this browser's exports carry ({name}: "" for none), asked once on the progress page: exports carry
   * it as their top-level `learner`, not among their entries. */
  learner: () => "local:learner",
  /** A class a teacher asked this browser to keep for next time (page/class/): {files: [{name, text}], at}. */
  keptClass: () => "local:class",
};
