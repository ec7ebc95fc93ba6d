/**
 * Reading and judging numeric answers. Pure functions (no DOM), tested with `node --test`.
 *
 * Learners type numbers the way people do: 0.5, .5, 1/2, 50%, 1e-3, −0.2, "1, 0, 0", "[1 0 0]", "(1; 0; 0)",
 * and a decimal comma ("0,5"). The expected length disambiguates "0,5": one number or two.
 */

export const MAX_INPUT = 400;

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Read one number token. Returns {value} or {error}.
 * @param {string} token
 */
export function parseNumber(token) {
  let text = token.trim().replace(/\u2212/g, "-").replace(/\s+/g, "");
  if (!text) return { error: "an empty entry" };
  let scale = 1;
  if (text.endsWith("%")) {
    scale = 0.01;
    text = text.slice(0, -1);
  }
  let value;
  const slash = text.split("/");
  if (slash.length === 2 && NUMBER.test(slash[0]) && NUMBER.test(slash[1])) {
    const den = Number(slash[1]);
    if (den === 0) return { error: `"${token.trim()}" divides by zero` };
    value = Number(slash[0]) / den;
  } else if (NUMBER.test(text)) {
    value = Number(text);
  } else if (/^[+-]?(nan|inf(inity)?)$/i.test(text)) {
    return { error: `"${token.trim()}" is not a finite number` };
  } else {
    return { error: `"${shorten(token.trim())}" is not a number` };
  }
  value *= scale;
  if (!Number.isFinite(value)) return { error: `"${shorten(token.trim())}" is too large to be a probability` };
  return { value };
}

function shorten(text) {
  return text.length > 24 ? `${text.slice(0, 23)}…` : text;
}

function splitTokens(body, separator) {
  return body.split(separator).map((t) => t.trim()).filter((t) => t.length > 0);
}

/**
 * Read an answer of `expected` numbers. Returns {values} or {error}.
 * @param {string} input what the learner typed
 * @param {number} expected how many numbers the prompt wants
 */
export function parseAnswer(input, expected = 1) {
  if (typeof input !== "string" || !input.trim()) return { error: "Type an answer first." };
  if (input.length > MAX_INPUT) return { error: `That is ${input.length} characters; an answer fits in ${MAX_INPUT}.` };
  // "1 / 2" and "50 %" are one number each: join what surrounds "/" and "%" before splitting on spaces.
  const body = input.trim().replace(/^[[(]\s*/, "").replace(/\s*[\])]$/, "")
    .replace(/\s*\/\s*/g, "/").replace(/\s+%/g, "%");
  const candidates = [];
  if (body.includes(";")) {
    // Semicolons separate; commas are then decimal commas (European style "0,5; 0,3; 0,2").
    candidates.push(splitTokens(body, ";").map((t) => t.replace(",", ".")));
  } else {
    candidates.push(splitTokens(body, /[\s,]+/));
    if (/^\s*[+\-\u2212]?\d+,\d+\s*%?\s*$/.test(body)) candidates.push([body.replace(",", ".")]);
    if (/,/.test(body) && !/,\s/.test(body) && /\s/.test(body)) {
      candidates.push(splitTokens(body, /\s+/).map((t) => t.replace(",", ".")));
    }
  }
  let firstError = null;
  let wrongLength = null;
  for (const tokens of candidates) {
    const values = [];
    let error = null;
    for (const token of tokens) {
      const parsed = parseNumber(token);
      if (parsed.error) {
        error = parsed.error;
        break;
      }
      values.push(parsed.value);
    }
    if (error) {
      firstError = firstError || error;
      continue;
    }
    if (values.length === expected) return { values };
    wrongLength = wrongLength || values;
  }
  if (firstError && !wrongLength) return { error: `Could not read that: ${firstError}.` };
  const got = wrongLength ? wrongLength.length : 0;
  return { error: `Expected ${expected} number${expected === 1 ? "" : "s"}, read ${got}.` };
}

/** The floor of every tolerance: a tolerance of 0 still forgives the last bits of a float sum. */
export const FLOOR = 1e-12;

/**
 * True when `value` counts as `target`: within `tolerance`, relative for targets larger than 1; a target that is
 * not finite only by itself. The one rule, written in Python as course/numeric.py `close` (validation proves the
 * author's answers by it); both are held to tests/fixtures/numeric/cases.json.
 */
export function close(value, target, tolerance) {
  if (!Number.isFinite(target)) return value === target;
  return Math.abs(value - target) <= Math.max(tolerance, FLOOR) * Math.max(1, Math.abs(target));
}

/**
 * Judge parsed values against the answer and known wrong answers.
 * @returns {{verdict: "correct"|"incorrect", wrong: number[], message: string}}
 */
export function judgeAnswer(values, prompt) {
  const { answer, tolerance, feedback = [] } = prompt;
  const wrong = answer.map((a, i) => (close(values[i], a, tolerance) ? -1 : i)).filter((i) => i >= 0);
  if (wrong.length === 0) return { verdict: "correct", wrong, message: "Correct." };
  const known = feedback.find((f) => f.answer.length === values.length
    && f.answer.every((a, i) => close(values[i], a, tolerance)));
  if (known) return { verdict: "incorrect", wrong, message: known.message };
  if (answer.length === 1) return { verdict: "incorrect", wrong, message: "Not quite. Check your arithmetic and try again." };
  const which = wrong.map((i) => `#${i + 1}`).join(", ");
  const plural = wrong.length === 1 ? "Entry" : "Entries";
  return { verdict: "incorrect", wrong, message: `${plural} ${which} ${wrong.length === 1 ? "is" : "are"} off; the others are right.` };
}

/** Number of wrong tries after which the worked answer is offered without asking. */
export const REVEAL_AFTER = 3;
