/**
 * No function in web/src is longer than LIMIT lines (issue 14: a unit a newcomer can read whole).
 *
 * The length of a function is measured by a scanner, without a parser dependency: it skips strings, template
 * literals, comments and regular expressions, and pairs braces; a `{` opens a function body when it follows
 * `=>`, or a `)` whose `(` is not a keyword's (`if`, `for`, `while`, `switch`, `catch`, `with`). Good enough
 * for this code base's style, and tested below on the shapes it must recognise.
 *
 * For the figures (longest function and lines per file): `node web/test/function-length.test.mjs --report`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";

const LIMIT = 150;
const SRC = new URL("../src/", import.meta.url);

const KEYWORDS = new Set(["if", "for", "while", "switch", "catch", "with"]);
// After these, a `/` starts a regular expression rather than dividing.
const BEFORE_REGEX = new Set([..."(,=:[!&|?{};+-*%<>~^", "", "return", "typeof", "case", "do", "else", "in", "of",
  "new", "delete", "void", "throw", "yield", "await", "=>"]);

/**
 * @param {string} source
 * @returns {{name: string, line: number, lines: number}[]} every function body, in source order
 */
export function functionLengths(source) {
  const found = [];
  const braces = []; // {line, fn, name} per open brace
  const parens = []; // index in `tokens` of each open paren
  const tokens = []; // significant tokens so far: {text, line}
  const templates = []; // brace depth at which each open `${` returns to its template literal
  let line = 1;
  let i = 0;
  const last = () => (tokens.length ? tokens[tokens.length - 1].text : "");
  const push = (text) => tokens.push({ text, line });
  const skipTemplate = () => { // from inside a template literal to its end or to a `${`
    while (i < source.length) {
      const c = source[i];
      if (c === "\\") { i += 2; continue; }
      if (c === "\n") line += 1;
      if (c === "`") { i += 1; push("`tpl`"); return; }
      if (c === "$" && source[i + 1] === "{") { i += 2; templates.push(braces.length); braces.push({ line, fn: false }); return; }
      i += 1;
    }
  };
  while (i < source.length) {
    const c = source[i];
    if (c === "\n") { line += 1; i += 1; continue; }
    if (/\s/.test(c)) { i += 1; continue; }
    if (c === "/" && source[i + 1] === "/") { while (i < source.length && source[i] !== "\n") i += 1; continue; }
    if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end < 0 ? source.length : end + 2;
      for (let k = i; k < stop; k += 1) if (source[k] === "\n") line += 1;
      i = stop;
      continue;
    }
    if (c === "'" || c === '"') {
      i += 1;
      while (i < source.length && source[i] !== c) i += source[i] === "\\" ? 2 : 1;
      i += 1;
      push("str");
      continue;
    }
    if (c === "`") { i += 1; skipTemplate(); continue; }
    if (c === "/" && BEFORE_REGEX.has(last())) {
      i += 1;
      let inClass = false;
      while (i < source.length && (inClass || source[i] !== "/")) {
        if (source[i] === "\\") i += 1;
        else if (source[i] === "[") inClass = true;
        else if (source[i] === "]") inClass = false;
        i += 1;
      }
      i += 1;
      while (/[a-z]/.test(source[i] || "")) i += 1;
      push("re");
      continue;
    }
    const word = /^[A-Za-z_$#][\w$]*/.exec(source.slice(i, i + 80));
    if (word) { push(word[0]); i += word[0].length; continue; }
    if (c === "=" && source[i + 1] === ">") { push("=>"); i += 2; continue; }
    if (c === "(") { parens.push(tokens.length); push("("); i += 1; continue; }
    if (c === ")") {
      const open = parens.pop();
      push(")");
      tokens[tokens.length - 1].before = open === undefined ? "" : (tokens[open - 1] || { text: "" }).text;
      tokens[tokens.length - 1].name = open === undefined ? "" : nameBefore(tokens, open);
      i += 1;
      continue;
    }
    if (c === "{") {
      const prev = tokens[tokens.length - 1];
      let fn = false;
      let name = "";
      if (prev && prev.text === "=>") {
        fn = true;
        name = arrowName(tokens);
      } else if (prev && prev.text === ")" && !KEYWORDS.has(prev.before)) {
        fn = true;
        name = prev.name;
      }
      braces.push({ line, fn, name });
      push("{");
      i += 1;
      continue;
    }
    if (c === "}") {
      if (templates.length && templates[templates.length - 1] === braces.length - 1) {
        templates.pop();
        braces.pop();
        i += 1;
        skipTemplate();
        continue;
      }
      const open = braces.pop();
      if (open && open.fn) found.push({ name: open.name || "(anonymous)", line: open.line, lines: line - open.line + 1 });
      push("}");
      i += 1;
      continue;
    }
    push(c);
    i += 1;
  }
  return found.sort((a, b) => a.line - b.line);
}

/** The name of a function whose parameter list opens at tokens[open]: `function f(`, `f(` (a method), `f = (`. */
function nameBefore(tokens, open) {
  const before = tokens[open - 1];
  if (!before) return "";
  if (before.text === "function") return "(anonymous)";
  if (/^[A-Za-z_$#]/.test(before.text)) return before.text;
  if (before.text === "=" && tokens[open - 2]) return tokens[open - 2].text;
  return "";
}

/** The name an arrow function is bound to (`const f = (...) => {`), or "". */
function arrowName(tokens) {
  let k = tokens.length - 2; // before =>
  if (tokens[k] && tokens[k].text === ")") {
    let depth = 0;
    for (; k >= 0; k -= 1) {
      if (tokens[k].text === ")") depth += 1;
      if (tokens[k].text === "(") depth -= 1;
      if (depth === 0) break;
    }
  }
  k -= 1;
  if (tokens[k] && tokens[k].text === "async") k -= 1;
  if (tokens[k] && (tokens[k].text === "=" || tokens[k].text === ":")) return tokens[k - 1] ? tokens[k - 1].text : "";
  return "";
}

/** Every .js file under web/src, as paths relative to it. */
function sources(dir = SRC, prefix = "") {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory()
    ? sources(new URL(`${entry.name}/`, dir), `${prefix}${entry.name}/`)
    : entry.name.endsWith(".js") ? [`${prefix}${entry.name}`] : []));
}

test("the scanner finds functions, methods and arrow bodies, and skips strings, templates and regexes", () => {
  const source = [
    "function outer(a) {", //        1
    "  const s = \"} {\"; // }", //  2
    "  const t = `${a ? `{${a}}` : \"}\"}`;", // 3
    "  const r = /[}{]\\//g;", //      4
    "  if (a) { return 1; }", //       5
    "  const f = (x) => {", //         6
    "    return x / 2;", //            7
    "  };", //                         8
    "  return { get v() { return 1; } };", // 9
    "}", //                            10
    "class K {", //                    11
    "  #m() {", //                     12
    "  }", //                          13
    "}", //                            14
  ].join("\n");
  assert.deepEqual(functionLengths(source).map(({ name, line, lines }) => [name, line, lines]),
    [["outer", 1, 10], ["f", 6, 3], ["v", 9, 1], ["#m", 12, 2]]);
});

test(`no function in web/src is longer than ${LIMIT} lines`, () => {
  const files = sources();
  assert.ok(["page/cell/code-cell.js", "worker/worker.js", "sw/sw.js", "shared/protocol.js"].every((f) => files.includes(f)),
    "the sources were found, in every folder");
  const long = files.flatMap((file) => functionLengths(readFileSync(new URL(file, SRC), "utf8"))
    .filter((f) => f.lines > LIMIT).map((f) => `${file}:${f.line} ${f.name}: ${f.lines} lines`));
  assert.deepEqual(long, []);
});

if (process.argv.includes("--report")) {
  let total = 0;
  for (const file of sources()) {
    const source = readFileSync(new URL(file, SRC), "utf8");
    const lines = source.split("\n").length - (source.endsWith("\n") ? 1 : 0);
    total += lines;
    const longest = functionLengths(source).reduce((a, b) => (b.lines > a.lines ? b : a), { name: "-", lines: 0, line: 0 });
    console.log(`${file}\t${lines} lines\tlongest ${longest.lines} (${longest.name}, line ${longest.line})`);
  }
  console.log(`total\t${total} lines`);
}
