/**
 * The progress file shared by this site and `ol` (ol/exchange.py is the other side; the format is written
 * down there): what Export writes and Import reads. Pure functions over a store-like `get`, so node tests drive
 * them without a browser.
 *
 * Neither side trusts the other's verdicts. `ol`'s passes arrive as `elsewhere:<slug>` entries ("checked
 * elsewhere"): they carry the code that passed there, and count here only once this page's own judge has checked
 * that code (cell/verify.js). Code that replaces different code saved here is kept as that exercise's draft, which
 * its code cell offers back, so an import never loses work.
 */
export const FORMAT = "tinyllm-progress";
export const FORMAT_VERSION = "v1";
export const COURSE = "tinyllm";
const KEY = /^(code|result|elsewhere|prefs|draft|help):([a-z0-9]+(?:-[a-z0-9]+)*)$|^prompt:([a-z0-9-]+)\/([a-z0-9-]+)$/;
/** A course-wide setting of the learner's (`settings:diagnoses`): it belongs to no exercise. */
const SETTING = /^settings:[a-z0-9-]+$/;
export const LEARNER_MAX = 80;
/** Levels of nesting a progress file may have (ol/exchange.py DEPTH_MAX; an export has six). */
export const DEPTH_MAX = 100;
export const DEEP = `the file nests deeper than ${DEPTH_MAX} levels, which no progress export does`;
/** Runs of white space and control characters, as one space (ol/exchange.py SPACES is the same class). */
const SPACES = /[\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]+/gu;
export const PITFALLS_MAX = 20;

/**
 * A learner's name as both sides keep it (ol/exchange.py `learner_name`): NFC, white space and control characters
 * as single spaces, trimmed, at most LEARNER_MAX characters; "" for anything that is not a string.
 * @param {unknown} value
 */
export function learnerName(value) {
  if (typeof value !== "string") return "";
  const text = wellFormed(value).normalize("NFC").replace(SPACES, " ").replace(/^ +| +$/g, "");
  return Array.from(text).slice(0, LEARNER_MAX).join("").replace(/ +$/, "");
}

/** `text` with each lone surrogate as U+FFFD, as TextEncoder writes it (ol/exchange.py `well_formed`). */
export const wellFormed = (text) => text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd");

/** How deep `text`'s arrays and objects nest, strings skipped (ol/exchange.py `nesting`). */
export function nesting(text) {
  let depth = 0;
  let most = 0;
  for (const [mark] of text.matchAll(/"(?:[^"\\]|\\.)*"?|[[\]{}]/g)) {
    if (mark === "[" || mark === "{") most = Math.max(most, (depth += 1));
    else if (mark === "]" || mark === "}") depth -= 1;
  }
  return most;
}

/** How deep a parsed value nests (a number is 0, [] is 1), walked without recursion, holding only the path down
 * to where it is (ol/exchange.py `depth_of`). */
export function depthOf(value) {
  const isNode = (v) => v !== null && typeof v === "object";
  const inside = (item) => (Array.isArray(item) ? item : Object.values(item))[Symbol.iterator]();
  if (!isNode(value)) return 0;
  let most = 1;
  const path = [inside(value)];
  while (path.length) {
    let next = path.at(-1).next();
    while (!next.done && !isNode(next.value)) next = path.at(-1).next();
    if (next.done) path.pop();
    else most = Math.max(most, path.push(inside(next.value)));
  }
  return most;
}

/** The name a parsed export carries (its top-level `learner`), or "". */
export const learnerOf = (dump) => learnerName(dump && dump.learner);

/** The slug an entry belongs to (`code:m07-6` → "m07-6", `prompt:e7-3/residual` → "e7-3"), or "". */
export function slugOf(key) {
  const m = KEY.exec(key);
  return m ? m[2] || m[3] : "";
}

/**
 * An Error saying why a file cannot be used, with `kind`, the rule that refused it, and `value`, what the file held
 * there (ol/exchange.py ExchangeError): the class view words each kind alike on both sides (class/model.js `refusal`).
 */
const refused = (message, kind, value = null) => Object.assign(new Error(message), { kind, value });

/**
 * Check a parsed file's header; throws an Error whose message says, in one sentence, why it cannot be used.
 * @param {unknown} dump
 */
export function checkDump(dump) {
  if (!dump || typeof dump !== "object" || dump.format !== FORMAT) {
    throw refused("this file is not a tinyllm progress export", "format");
  }
  if (dump.version !== FORMAT_VERSION) {
    const newer = /^v\d+$/.test(String(dump.version)) && Number(String(dump.version).slice(1)) > Number(FORMAT_VERSION.slice(1));
    throw refused(`this export is format ${dump.version}, and this site reads ${FORMAT_VERSION}`
      + (newer ? " (it comes from a newer version: reload to update this site)" : ""), "version", dump.version);
  }
  if (typeof dump.course === "string" && dump.course && dump.course !== COURSE) {
    throw refused(`this export is from the course "${dump.course}", not "${COURSE}"`, "course", dump.course);
  }
  if (!dump.data || typeof dump.data !== "object" || Array.isArray(dump.data)) {
    throw refused("this export has no data table", "data");
  }
  for (const [key, value] of Object.entries(dump.data)) {
    // Only the keys this reader knows (an unknown one is left out, as ol leaves it out)
    if (key.startsWith("code:") && slugOf(key) && !(value && typeof value === "object" && typeof value.code === "string")) {
      throw refused(`its entry "${key}" holds no code`, "code", key);
    }
  }
}

/**
 * Parse an export's text (a file's contents); throws an Error with a readable message.
 * @param {string} text
 */
export function parseDump(text) {
  if (!String(text).trim()) throw refused("the file is empty", "empty");
  let dump;
  try {
    dump = JSON.parse(text);
  } catch {
    // Cut short: the text stops where JSON could still go on, as ol/exchange.py decides. Where it stops is measured
    // here: each engine words (and places) JSON.parse's complaint differently, and WebKit's gives no position.
    // Nested too deep up to there (or past this stack): refused as too deep, as ol refuses it.
    let at;
    try {
      at = jsonErrorAt(String(text));
    } catch {
      throw refused(DEEP, "deep");
    }
    if (nesting(String(text).slice(0, at)) > DEPTH_MAX) throw refused(DEEP, "deep");
    if (at >= String(text).trimEnd().length - 1) {
      throw refused("the file ends in the middle (it was cut short while saving or copying)", "cut");
    }
    throw refused("the file is not valid JSON", "json");
  }
  if (depthOf(dump) > DEPTH_MAX) throw refused(DEEP, "deep");
  checkDump(dump);
  return dump;
}

/**
 * Where `text` stops being JSON, as Python's json module places it: the index of the first character no JSON
 * value can continue with, text.length when the text ends too soon (inside a string, an object or an array), -1
 * when it is JSON.
 * @param {string} text
 */
export function jsonErrorAt(text) {
  let i = 0;
  const fail = () => { throw Math.min(i, text.length); };
  const ws = () => { while (i < text.length && " \t\n\r".includes(text[i])) i += 1; };
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  function string() {
    for (i += 1; i < text.length; i += 1) {
      if (text[i] === '"') return void (i += 1);
      if (text[i] === "\\") i += 1;
      else if (text[i] < " ") fail();
    }
    fail();
  }
  function items(close, item) {
    i += 1;
    ws();
    if (text[i] === close) return void (i += 1);
    for (;;) {
      item();
      ws();
      if (text[i] === close) return void (i += 1);
      if (text[i] !== ",") fail();
      i += 1;
    }
  }
  function member() {
    ws();
    if (text[i] !== '"') fail();
    string();
    ws();
    if (text[i] !== ":") fail();
    i += 1;
    value();
  }
  function value() {
    ws();
    const c = text[i];
    if (c === "{") return items("}", member);
    if (c === "[") return items("]", value);
    if (c === '"') return string();
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) return void (i = NUMBER.lastIndex);
    const word = ["true", "false", "null"].find((w) => text.startsWith(w, i));
    if (!word) fail();
    i += word.length;
  }
  try {
    value();
    ws();
    return i < text.length ? i : -1;
  } catch (at) {
    if (typeof at === "number") return at;
    throw at; // a RangeError: nested past the stack (parseDump: too deep)
  }
}

/**
 * What importing `dump` does: the entries to write, in order, and what to tell the learner.
 * @param {object} dump       a checked export (checkDump)
 * @param {{get: (key: string) => any, slugs: Set<string>}} here  this browser's storage and the site's exercises
 * @returns {{writes: [string, any][], unknown: string[], kept: string[], elsewhere: string[], skipped: string[]}}
 *   unknown: slugs of exercises this site no longer has (their entries are left out); kept: slugs whose code
 *   here differed and is kept as the draft; elsewhere: slugs that passed where the file was made (ol);
 *   skipped: keys this reader does not know
 */
export function planImport(dump, { get, slugs }) {
  const writes = [];
  const unknown = new Set();
  const kept = [];
  const elsewhere = [];
  const skipped = [];
  const code = (slug) => {
    const entry = dump.data[`code:${slug}`];
    return entry && typeof entry.code === "string" ? entry.code : null;
  };
  for (const [key, value] of Object.entries(dump.data)) {
    const slug = slugOf(key);
    if (SETTING.test(key)) {
      writes.push([key, value]);
      continue;
    }
    if (!slug || key.startsWith("draft:")) {
      skipped.push(key);
      continue;
    }
    if (!slugs.has(slug)) {
      unknown.add(slug);
      continue;
    }
    if (key.startsWith("code:")) {
      const mine = get(key);
      if (mine && typeof mine.code === "string" && mine.code !== value.code) {
        writes.push([`draft:${slug}`, { code: mine.code, at: Date.now() }]);
        kept.push(slug);
      }
    }
    if (key.startsWith("elsewhere:")) {
      if (!(value && value.status === "passed" && typeof code(slug) === "string")) {
        skipped.push(key); // a pass without the code that passed proves nothing here
        continue;
      }
      writes.push([key, { ...value, code: code(slug) }]);
      elsewhere.push(slug);
      continue;
    }
    writes.push([key, key.startsWith("help:") ? mergeHelp(get(key), value) : value]);
  }
  return { writes, unknown: [...unknown].sort(), kept, elsewhere, skipped };
}

/**
 * Help taken on an exercise, from two records (this browser's and a file's): an import never hides a hint or
 * forgets a revealed reference, so the larger counts and the earlier reveal win, and every pitfall named in
 * either is kept (`pitfalls`: the known mistakes a diagnosis named, cell/help.js).
 * @param {any} mine  this browser's `help:` entry, or null
 * @param {any} theirs  the file's
 */
export function mergeHelp(mine, theirs) {
  const a = mine && typeof mine === "object" ? mine : {};
  const b = theirs && typeof theirs === "object" ? theirs : {};
  const count = (v) => (Number.isSafeInteger(v) && v > 0 ? v : 0);
  const merged = { hints: Math.max(count(a.hints), count(b.hints)), failed: Math.max(count(a.failed), count(b.failed)) };
  const reveals = [a.revealed, b.revealed].filter((v) => typeof v === "number" && v > 0);
  if (reveals.length) merged.revealed = Math.min(...reveals);
  const pitfalls = mergePitfalls(a.pitfalls, b.pitfalls);
  if (pitfalls.length) merged.pitfalls = pitfalls;
  return merged;
}

/** The pitfalls of several help records, each once, in the order first named, at most PITFALLS_MAX. */
export function mergePitfalls(...lists) {
  const found = [];
  for (const items of lists) {
    for (const item of Array.isArray(items) ? items : []) {
      if (typeof item === "string" && item && !found.includes(wellFormed(item)) && found.length < PITFALLS_MAX) {
        found.push(wellFormed(item));
      }
    }
  }
  return found;
}

/**
 * The pitfalls a check's diagnosis names (checker/diagnosis.py `diagnose`), as a help record keeps them:
 * "3. the residual ..." for a numbered pitfall of the page, else its text (ol/exchange.py `pitfall_labels`).
 */
export function pitfallLabels(diagnosis) {
  return (Array.isArray(diagnosis) ? diagnosis : [])
    .filter((item) => item && typeof item === "object" && typeof item.pitfall === "string" && item.pitfall)
    .map((item) => (Number.isSafeInteger(item.number) ? `${item.number}. ${item.pitfall}` : item.pitfall));
}

/**
 * The imported pass of an exercise that this page has not checked yet: its `elsewhere:` entry when the code it
 * passed with has no result here, else null.
 */
export function unverified(get, slug) {
  const entry = get(`elsewhere:${slug}`);
  if (!entry || typeof entry.code !== "string") return null;
  const result = get(`result:${slug}`);
  return result && result.code === entry.code ? null : entry;
}

/** The header of an export this site writes; `learner`, the name the learner chose, only when there is one. */
export function header({ build = "", learner = "" } = {}) {
  const name = learnerName(learner);
  return { format: FORMAT, version: FORMAT_VERSION, course: COURSE, build, origin: "browser", ...(name ? { learner: name } : {}) };
}
