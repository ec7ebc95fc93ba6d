// web/src/page/math.js: the build renders the maths (tools/formulas.py); the browser renders only what is still
// source, with the same options, and a formula KaTeX rejects stays readable.
import { test } from "node:test";
import assert from "node:assert/strict";

import { renderMath, unrendered } from "../src/page/math.js";
import { katexOptions } from "../src/shared/katex-options.js";
import { page } from "./fakes.mjs";

const BUILT = '<span class="arithmatex" id="built"><span class="katex">rendered by the build</span></span>';
const ERROR = '<span class="arithmatex" id="error"><span class="katex-error">\\frac{</span></span>';

test("what the build rendered, or could not, is left alone, and nothing is loaded for it", async () => {
  const { document } = page(`<p>${BUILT} ${ERROR}</p>`);
  assert.deepEqual(unrendered(document), []);
  assert.equal(await renderMath(document), 0);
  assert.equal(document.querySelector("#built").innerHTML, '<span class="katex">rendered by the build</span>');
});

test("a formula still in source is rendered in place, inline or displayed", async () => {
  const { document } = page(`<p>${BUILT}<span class="arithmatex" id="inline">\\(a &lt; b\\)</span></p>
    <div class="arithmatex" id="display">\\[ x^2 \\]</div>`);
  // KaTeX refuses quirks mode when it loads; a page with a doctype is in standards mode, linkedom does not say so.
  Object.defineProperty(document, "compatMode", { value: "CSS1Compat" });
  assert.deepEqual(unrendered(document).map((n) => n.id), ["inline", "display"]);
  assert.equal(await renderMath(document), 2);
  assert.match(document.querySelector("#inline").innerHTML, /^<span class="katex">/);
  assert.match(document.querySelector("#inline").innerHTML, /<annotation encoding="application\/x-tex">a &lt; b</);
  assert.match(document.querySelector("#display").innerHTML, /^<span class="katex"><math [^>]*display="block"/);
  assert.doesNotMatch(document.body.innerHTML, /katex-html/, "MathML alone, as the build writes it");
  assert.deepEqual(unrendered(document), [], "rendered once, not again");
});

test("the build and the browser ask KaTeX for the same thing", () => {
  assert.deepEqual(katexOptions(true), { displayMode: true, throwOnError: false, output: "mathml" });
  assert.equal(katexOptions(false, true).throwOnError, true);
});
