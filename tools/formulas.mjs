// Render formulas with the front end's KaTeX, for tools/formulas.py: node tools/formulas.mjs REQUEST ANSWER.
// REQUEST is a JSON list of {tex, display}; ANSWER gets, for each in order, {html} or {html, error} for a formula
// KaTeX cannot parse (its error rendering, as the browser would show it), or {html: null, error} when KaTeX
// fails otherwise. The options are the page's own (web/src/shared/katex-options.js).
import katex from "katex";
import { readFileSync, writeFileSync } from "node:fs";
import { katexOptions as options } from "../web/src/shared/katex-options.js";

const [request, answer] = process.argv.slice(2);

function renderOne({ tex, display }) {
  try {
    return { html: katex.renderToString(tex, options(display, true)) };
  } catch (err) {
    if (!(err instanceof katex.ParseError)) return { html: null, error: String(err && err.message || err) };
    try {
      return { html: katex.renderToString(tex, options(display, false)), error: err.message };
    } catch {
      return { html: null, error: err.message };
    }
  }
}

writeFileSync(answer, JSON.stringify(JSON.parse(readFileSync(request, "utf8")).map(renderOne)));
