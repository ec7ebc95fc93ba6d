/**
 * Math rendering with KaTeX, bundled (no CDN). pymdownx.arithmatex (generic mode) leaves `\( … \)` and
 * `\[ … \]` inside `.arithmatex` elements. The build renders them in place (tools/formulas.py, with these same
 * options); what is still source here (a page built without that step, a formula the build could not render) is
 * rendered in the browser. KaTeX is loaded only then: it is a chunk of its own, not part of tl.js. A formula
 * KaTeX cannot parse is left as its source text rather than breaking the page.
 */

import { katexOptions } from "../shared/katex-options.js";

/** The `.arithmatex` elements under `root` that are still source: the build rendered the others, or wrote
 * KaTeX's error rendering of them. */
export function unrendered(root = document) {
  return [...root.querySelectorAll(".arithmatex")].filter((node) => !node.querySelector(".katex, .katex-error"));
}

/** Render every formula under `root` that is still source; resolves to how many it rendered. */
export async function renderMath(root = document) {
  const nodes = unrendered(root);
  if (nodes.length === 0) return 0;
  const { default: katex } = await import("katex");
  for (const node of nodes) {
    const source = node.textContent.trim();
    const display = source.startsWith("\\[") || node.tagName === "DIV";
    const tex = source.replace(/^\\[([]/, "").replace(/\\[)\]]$/, "");
    try {
      katex.render(tex, node, katexOptions(display));
    } catch {
      node.textContent = source;
    }
  }
  return nodes.length;
}
