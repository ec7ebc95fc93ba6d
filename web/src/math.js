/**
 * Math rendering with KaTeX, bundled (no CDN). pymdownx.arithmatex (generic mode) leaves `\( … \)` and
 * `\[ … \]` inside `.arithmatex` elements; each is rendered in place, and a formula KaTeX cannot parse is left
 * as its source text rather than breaking the page.
 */
import katex from "katex";

/** Render every formula under `root`. */
export function renderMath(root = document) {
  for (const node of root.querySelectorAll(".arithmatex")) {
    const source = node.textContent.trim();
    const display = source.startsWith("\\[") || node.tagName === "DIV";
    const tex = source.replace(/^\\[([]/, "").replace(/\\[)\]]$/, "");
    try {
      katex.render(tex, node, { displayMode: display, throwOnError: false, output: "htmlAndMathml" });
    } catch {
      node.textContent = source;
    }
  }
}
