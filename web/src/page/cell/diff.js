/**
 * A line diff for "your code against the reference" after a pass (the site's `ol diff`). Pure, no DOM.
 *
 * Longest-common-subsequence over lines, O(n·m) memory, which is fine for exercise-sized files (a few hundred
 * lines); inputs beyond MAX_LINES fall back to showing both sides whole rather than freezing the page.
 */
export const MAX_LINES = 2000;

/**
 * @param {string} a learner code
 * @param {string} b reference code
 * @returns {{op: " "|"-"|"+", text: string}[]} every line, marked kept, removed (only in a) or added (only in b)
 */
export function diffLines(a, b) {
  const x = a.replace(/\n$/, "").split("\n");
  const y = b.replace(/\n$/, "").split("\n");
  if (x.length > MAX_LINES || y.length > MAX_LINES) {
    return [...x.map((text) => ({ op: "-", text })), ...y.map((text) => ({ op: "+", text }))];
  }
  const n = x.length;
  const m = y.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i -= 1) {
    for (let j = m - 1; j >= 0; j -= 1) {
      lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      out.push({ op: " ", text: x[i] });
      i += 1;
      j += 1;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) {
      out.push({ op: "-", text: x[i] });
      i += 1;
    } else {
      out.push({ op: "+", text: y[j] });
      j += 1;
    }
  }
  while (i < n) out.push({ op: "-", text: x[i++] });
  while (j < m) out.push({ op: "+", text: y[j++] });
  return out;
}

/**
 * Unified-diff text with `context` lines around each change, headed like `diff -u`.
 * Returns "" when the two are identical.
 */
export function unifiedDiff(a, b, { from = "yours", to = "reference", context = 3 } = {}) {
  const lines = diffLines(a, b);
  if (lines.every((l) => l.op === " ")) return "";
  const keep = lines.map(() => false);
  lines.forEach((l, k) => {
    if (l.op !== " ") for (let d = -context; d <= context; d += 1) if (lines[k + d]) keep[k + d] = true;
  });
  const out = [`--- ${from}`, `+++ ${to}`];
  let aLine = 1;
  let bLine = 1;
  let k = 0;
  while (k < lines.length) {
    if (!keep[k]) {
      if (lines[k].op !== "+") aLine += 1;
      if (lines[k].op !== "-") bLine += 1;
      k += 1;
      continue;
    }
    const start = k;
    const [a0, b0] = [aLine, bLine];
    let aCount = 0;
    let bCount = 0;
    const body = [];
    while (k < lines.length && keep[k]) {
      const l = lines[k];
      body.push(`${l.op}${l.text}`);
      if (l.op !== "+") { aCount += 1; aLine += 1; }
      if (l.op !== "-") { bCount += 1; bLine += 1; }
      k += 1;
    }
    out.push(`@@ -${a0},${aCount} +${b0},${bCount} @@`, ...body);
    if (start === k) k += 1;
  }
  return `${out.join("\n")}\n`;
}
