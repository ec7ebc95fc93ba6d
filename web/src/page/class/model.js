/**
 * The class view's rules (ol/classroom.py is the other side and says them in full; tests/fixtures/class/ holds
 * the two equal): files read and refused one by one, a row per learner (two files naming one learner are a
 * conflict: a row each, marked, never merged), claims turned into verdicts once a claimed pass has been checked
 * again, and the table's rows, the CSV (with a row per refused file) and the summary made from them. Pure functions over plain data: node tests drive them without a browser, the page (class-page.js)
 * and the checking (recheck.js) call them.
 */
import { COURSE, DEEP, FORMAT_VERSION, learnerOf, mergePitfalls, parseDump, pitfallLabels } from "../exchange.js";

export const FILE_CAP = 5_000_000;
export const ZIP_CAP = 100_000_000;
export const ZIP_ENTRIES = 1000;
export const ZIP_TOTAL = 100_000_000;
export const ZIP_RATIO = 100;
export const RATIO_FLOOR = 1_000_000;
export const VERDICTS = ["passed", "failed", "untried", "not-reproduced"];
const TOP = 3;
const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2})$/;
const MS_MAX = 253_402_300_800_000;
export const CSV_COLUMNS = ["learner", "exercises passed", "last activity (UTC)", "problem"];
export const CSV_PER_EXERCISE = ["verdict", "checks", "hints", "reference seen", "pitfalls", "prompts answered wrong",
  "last activity (UTC)"];
const FORMULA = ["=", "+", "-", "@", "\t", "\r"];

/** A file that cannot be used; the message says why in one sentence. */
export class ClassInputError extends Error {}

/**
 * @typedef {{slug: string, id: string, title: string, requires: string[], prompts: string[]}} Column
 * @typedef {{claim: string, code: string|null, at: number|null, hints: number, failed: number, revealed: number,
 *   pitfalls: string[], prompts: Record<string, number>, last: number|null}} Work
 * @typedef {{key: string, name: string, files: string[], work: Record<string, Work>, problem: string}} Learner
 */

// ---- times --------------------------------------------------------------------------------------------------------

/** A time in ms as the browser saves it, or null. */
export function ms(value) {
  if (typeof value !== "number" || !Number.isFinite(value)) return null;
  return value > 0 && value < MS_MAX ? Math.floor(value) : null;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (ol/classroom.py `_days`). */
function days(y, m, d) {
  const year = y - (m <= 2 ? 1 : 0);
  const era = Math.floor((year >= 0 ? year : year - 399) / 400);
  const yoe = year - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** An ISO 8601 time with its offset, in ms, or null (no offset, no guess). */
export function isoMs(value) {
  const found = typeof value === "string" ? ISO.exec(value) : null;
  if (!found) return null;
  const [y, mo, d, h, mi] = found.slice(1, 6).map(Number);
  const s = Number(found[6] || 0);
  const frac = Number((found[7] || "0").slice(0, 3).padEnd(3, "0"));
  if (!(mo >= 1 && mo <= 12 && d >= 1 && d <= 31 && h <= 23 && mi <= 59 && s <= 59)) return null;
  const zone = found[8];
  const offset = zone === "Z" ? 0 : (zone[0] === "+" ? 1 : -1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6)));
  return ms((((days(y, mo, d) * 24 + h) * 60 + mi - offset) * 60 + s) * 1000 + frac);
}

/** A time as the table and the CSV show it: `2026-12-01 10:00` (UTC), or "". */
export const when = (value) => (value === null ? "" : new Date(Math.floor(value / 1000) * 1000).toISOString().slice(0, 16).replace("T", " "));

/** Compare by code points, as ol sorts (not the locale's collation). */
export function byCodePoints(a, b) {
  const x = Array.from(a);
  const y = Array.from(b);
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    const diff = x[i].codePointAt(0) - y[i].codePointAt(0);
    if (diff) return diff;
  }
  return x.length - y.length;
}

const latest = (...values) => {
  const found = values.filter((v) => v !== null && v !== undefined);
  return found.length ? Math.max(...found) : null;
};
const count = (v) => (Number.isSafeInteger(v) && v > 0 ? v : 0);
const isRecord = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** How many checks a work counts: the failed ones (at least one for a failed claim), and one for a pass. */
export const checks = (work) => Math.max(work.failed, work.claim === "failed" ? 1 : 0) + (work.claim === "passed" ? 1 : 0);

// ---- one file -----------------------------------------------------------------------------------------------------

/** The checks a file records for an exercise: [claim, the code that passed, when]. */
function candidates(data, slug, code) {
  const found = [];
  const result = data[`result:${slug}`];
  if (isRecord(result) && ["passed", "failed", "error", "timeout"].includes(result.status)) {
    if (result.status !== "passed") found.push(["failed", null, ms(result.at)]);
    else if (typeof result.code === "string") found.push(["passed", result.code, ms(result.at)]);
  }
  const other = data[`elsewhere:${slug}`];
  if (isRecord(other) && other.status === "passed") {
    const passed = typeof other.code === "string" ? other.code : code;
    if (passed !== null) found.push(["passed", passed, isoMs(other.when)]);
  }
  return found;
}

/**
 * What one file says of one exercise (ol/classroom.py `work_of`).
 * @param {Record<string, any>} data  a checked export's entries
 * @param {Column} column
 * @returns {Work}
 */
export function workOf(data, column) {
  const { slug } = column;
  const entry = data[`code:${slug}`];
  const code = isRecord(entry) && typeof entry.code === "string" ? entry.code : null;
  const found = candidates(data, slug, code);
  let best = null;
  for (const candidate of found) if (best === null || (candidate[2] ?? -1) > (best[2] ?? -1)) best = candidate;
  const help = isRecord(data[`help:${slug}`]) ? data[`help:${slug}`] : {};
  const result = data[`result:${slug}`];
  const work = {
    claim: "untried", code: null, at: null, hints: count(help.hints), failed: count(help.failed),
    revealed: ms(help.revealed) || 0,
    pitfalls: mergePitfalls(help.pitfalls, pitfallLabels(isRecord(result) ? result.diagnosis : null)),
    prompts: {}, last: null,
  };
  for (const prompt of column.prompts) {
    const saved = data[`prompt:${slug}/${prompt}`];
    if (isRecord(saved) && count(saved.tries)) work.prompts[prompt] = count(saved.tries);
  }
  if (best) [work.claim, work.code, work.at] = best;
  else if (work.failed) work.claim = "failed";
  work.last = latest(...found.map((c) => c[2]), isRecord(entry) ? ms(entry.at) : null, work.revealed || null);
  return work;
}

/** Why a file larger than FILE_CAP is refused (zip.js and the page say it too). */
export const TOO_LARGE = `it is larger than ${FILE_CAP / 1_000_000} MB, the limit for one progress file (an export is usually a few kB)`;
/** Why a zip larger than ZIP_CAP is refused. */
export const ZIP_TOO_LARGE = `it is larger than ${ZIP_CAP / 1_000_000} MB, the limit for one zip of progress files`;
/** Why the rest of a zip past ZIP_TOTAL is not read, an entry leading out of it, one past ZIP_RATIO. */
export const ZIP_TOO_MUCH = `its files come to more than ${ZIP_TOTAL / 1_000_000} MB; the rest were not read`;
export const ESCAPES = "its path leads out of the zip's folder (.. or an absolute path), so it was not read";
export const BOMB = `it inflates more than ${ZIP_RATIO} times over, as a zip bomb does, so it was not read`;
export const ZIP_UNREADABLE = "it is a zip that cannot be read (damaged, or a zip64 archive)";
export const ENTRY_UNREADABLE = "it cannot be read from the zip (it is damaged)";
const REFUSALS = { empty: "the file is empty", cut: "the file ends in the middle (it was cut short while saving or copying)",
  json: "the file is not valid JSON", deep: DEEP, data: 'it has no "data" table',
  format: 'it is not a tinyllm progress export (no "format": "tinyllm-progress")' };

/**
 * What the class view says of a file the progress format refuses, in the words both sides write alike (the CSV
 * holds them; ol/classroom.py `refusal`): each side's importer words it its own way.
 * @param {Error & {kind?: string, value?: unknown}} err  as exchange.js parseDump throws it
 */
export function refusal(err) {
  if (err.kind === "version") {
    if (typeof err.value !== "string") return `it has no progress format version (this reads "${FORMAT_VERSION}")`;
    return `its progress format version is "${err.value}", and this reads "${FORMAT_VERSION}"`;
  }
  if (err.kind === "course") return `it is from the course "${err.value}", not "${COURSE}"`;
  if (err.kind === "code") return `its entry "${err.value}" holds no code`;
  return REFUSALS[err.kind] ?? err.message;
}

/** A file's bytes as text, or ClassInputError when it is too large or not UTF-8 (a byte-order mark is dropped). */
export function textOf(bytes) {
  if (bytes.length > FILE_CAP) throw new ClassInputError(TOO_LARGE);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ClassInputError("it is not UTF-8 text, so not a progress export");
  }
}

/** One file's text, read whole and checked: {file, learner, saved, work}; ClassInputError says why not. */
export function sheetOf(file, text, columns) {
  let dump;
  try {
    dump = parseDump(text);
  } catch (err) {
    throw new ClassInputError(refusal(err));
  }
  return { file, learner: learnerOf(dump), saved: isoMs(dump.saved),
    work: Object.fromEntries(columns.map((c) => [c.slug, workOf(dump.data, c)])) };
}

// ---- the class ----------------------------------------------------------------------------------------------------

/** The problem of a row whose learner other files name too: each such file is a row of its own. */
export const conflict = (files, file) => `conflict: ${files.length} files name this learner (${files.join(", ")}); this row is ${file} alone`;

/**
 * The class's rows, in name order (ol/classroom.py `learners_of`): a learner named by one file is that file's row;
 * a learner named by several (names equal ignoring case) is a conflict, each file a row of its own, marked.
 * @param {{file: string, learner: string, work: Record<string, Work>}[]} sheets  in the order of their files' names
 * @returns {Learner[]}
 */
export function learnersOf(sheets) {
  const groups = new Map();
  for (const sheet of sheets) {
    const name = sheet.learner || sheet.file;
    const key = name.toLowerCase();
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push([name, sheet]);
  }
  const learners = [];
  for (const [key, group] of groups) {
    const files = group.map(([, sheet]) => sheet.file);
    for (const [name, sheet] of group) {
      const alone = group.length === 1;
      learners.push({ key: alone ? key : `${key}\u0000${sheet.file}`, name, files: [sheet.file], work: sheet.work,
        problem: alone ? "" : conflict(files, sheet.file) });
    }
  }
  return learners.sort((a, b) => byCodePoints(a.key, b.key) || byCodePoints(a.name, b.name));
}

/**
 * Every file of a class: the learners, in name order, and one line per file that was refused.
 * @param {{name: string, bytes: Uint8Array}[]} files  as read (zips already expanded: zip.js)
 * @param {Column[]} columns
 * @returns {{learners: Learner[], rejected: [string, string][]}}
 */
export function gather(files, columns) {
  const rejected = [];
  const seen = new Map();
  const sheets = [];
  for (const { name, bytes } of [...files].sort((a, b) => byCodePoints(a.name, b.name))) {
    try {
      const text = textOf(bytes);
      if (seen.has(text)) throw new ClassInputError(`it is the same file as ${seen.get(text)}, so it was skipped as a duplicate`);
      seen.set(text, name);
      sheets.push(sheetOf(name, text, columns));
    } catch (err) {
      if (!(err instanceof ClassInputError)) throw err;
      rejected.push([name, err.message]);
    }
  }
  return { learners: learnersOf(sheets), rejected };
}

// ---- checking the passes again ------------------------------------------------------------------------------------

/** The exercises in an order where each comes after everything it builds on. */
export const checkOrder = (columns) => columns.map((c, i) => [c, i])
  .sort(([a, i], [b, j]) => a.requires.length - b.requires.length || i - j).map(([c]) => c);

/** Every claimed pass to check again: [learner, column], learner by learner, dependencies first. */
export const plan = (learners, columns) => learners.flatMap((l) => checkOrder(columns)
  .filter((c) => l.work[c.slug].claim === "passed").map((c) => [l, c]));

/** The dependencies whose verdict a check of `column` needs first: those the learner claims to have passed. */
export const waitsFor = (learner, column) => column.requires.filter((dep) => learner.work[dep].claim === "passed");

/** Which code each dependency is checked with: "own" when the learner's pass of it held, else "reference". */
export const dependencySources = (column, verdicts) => Object.fromEntries(column.requires
  .map((dep) => [dep, verdicts[dep] === "passed" ? "own" : "reference"]));

/** The cell's verdict: the claim, but a claimed pass only once checked again; null until then. */
export function verdict(work, recheck) {
  if (work.claim !== "passed") return work.claim;
  if (!recheck) return null;
  return recheck.status === "passed" ? "passed" : "not-reproduced";
}

/** Why a claimed pass did not hold: the time limit, else the tests that did not pass, else where it ended. */
export function notHeld(recheck) {
  if (recheck.status === "timeout") return ["(stopped by the time limit)"];
  const tests = (recheck.tests || []).filter((t) => isRecord(t) && t.outcome !== "passed").map((t) => String(t.name ?? ""));
  return tests.length ? tests : [`(${recheck.phase || recheck.status || "error"})`];
}

// ---- out: rows, the CSV, the summary ------------------------------------------------------------------------------

/** One cell of the table as data. */
export function cell(work, cellVerdict, recheck = null) {
  const out = { verdict: cellVerdict, checks: checks(work), hints: work.hints, revealed: Boolean(work.revealed),
    pitfalls: [...work.pitfalls], prompts: Object.keys(work.prompts), last: when(work.last) };
  if (cellVerdict === "not-reproduced" && recheck) out.failing = notHeld(recheck);
  return out;
}

/** One learner's row: name, files, exercises passed (checked again), last activity, cells by exercise id. */
export function row(learner, columns, verdicts, rechecks = {}) {
  return {
    learner: learner.name, files: [...learner.files], problem: learner.problem || "",
    passed: columns.filter((c) => verdicts[c.slug] === "passed").length,
    last: when(latest(...columns.map((c) => learner.work[c.slug].last))),
    cells: Object.fromEntries(columns.map((c) => [c.id, cell(learner.work[c.slug], verdicts[c.slug] ?? null, rechecks[c.slug] || null)])),
  };
}

/** The CSV's column names, in order. */
export const csvHeader = (columns) => [...CSV_COLUMNS, ...columns.flatMap((c) => CSV_PER_EXERCISE.map((n) => `${c.id} ${n}`))];

function csvField(value) {
  let text = String(value);
  if (FORMULA.some((f) => text.startsWith(f))) text = `'${text}`;
  if (/[,"\r\n]/.test(text) || text !== text.replace(/^ +| +$/g, "")) text = `"${text.replace(/"/g, '""')}"`;
  return text;
}

/**
 * The class as CSV for a gradebook: UTF-8 with a byte-order mark, CRLF, one row per learner, then one per refused
 * file in the order of the files' names (ol/classroom.py `csv_text`).
 * @param {[string, string][]} refused  [file, why]
 */
export function csvText(rows, columns, refused = []) {
  const lines = [csvHeader(columns)];
  for (const r of rows) {
    const line = [r.learner, r.passed, r.last, r.problem];
    for (const c of columns) {
      const x = r.cells[c.id];
      line.push(x.verdict, x.checks, x.hints, x.revealed ? "yes" : "no", x.pitfalls.join("; "), x.prompts.join("; "), x.last);
    }
    lines.push(line);
  }
  const blank = Array(CSV_PER_EXERCISE.length * columns.length).fill("");
  for (const [file, why] of [...refused].sort(([a, x], [b, y]) => byCodePoints(a, b) || byCodePoints(x, y))) {
    lines.push([file, "", "", `refused: ${why}`, ...blank]);
  }
  return `\ufeff${lines.map((line) => `${line.map(csvField).join(",")}\r\n`).join("")}`;
}

const top = (counts) => [...counts].sort(([a, m], [b, n]) => n - m || byCodePoints(a, b)).slice(0, TOP);

/** Per exercise: how many learners have each verdict, and the pitfalls and prompts hit by most learners. */
export function summary(rows, columns) {
  return columns.map((c) => {
    const cells = rows.map((r) => r.cells[c.id]);
    const counts = Object.fromEntries(VERDICTS.map((v) => [v, cells.filter((x) => x.verdict === v).length]));
    const pitfalls = new Map();
    const prompts = new Map();
    for (const x of cells) {
      for (const name of x.pitfalls) pitfalls.set(name, (pitfalls.get(name) || 0) + 1);
      for (const name of x.prompts) prompts.set(name, (prompts.get(name) || 0) + 1);
    }
    const n = cells.length;
    return { id: c.id, title: c.title, learners: n, counts,
      rate: n ? Math.floor((200 * counts.passed + n) / (2 * n)) : 0, pitfalls: top(pitfalls), prompts: top(prompts) };
  });
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
export const many = (items) => items.map(([name, n]) => `${name} (${plural(n, "learner")})`).join("; ") || "none";

/** The printable summary: a heading line, then a paragraph per exercise (ol/classroom.py `summary_text`). */
export function summaryText(rows, columns) {
  const lines = [`Class summary: ${plural(rows.length, "learner")}, ${plural(columns.length, "exercise")}. `
    + "Every pass was checked again by the course's judge."];
  for (const s of summary(rows, columns)) {
    const n = s.counts;
    lines.push("", `${s.id} ${s.title}`,
      `  passed ${n.passed} of ${s.learners} (${s.rate}%); not reproduced ${n["not-reproduced"]}; failed ${n.failed}; not tried ${n.untried}`,
      `  pitfalls hit most: ${many(s.pitfalls)}`, `  prompts answered wrong most: ${many(s.prompts)}`);
  }
  return `${lines.join("\n")}\n`;
}

