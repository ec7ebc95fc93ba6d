/**
 * KaTeX's options, written once for the two places that render formulas: the page (page/math.js, what the build
 * left as source) and the build (tools/formulas.mjs, under Node.js, every formula it can).
 */

/** KaTeX's options for a formula shown as a block (`displayMode`) or inline. */
export const katexOptions = (displayMode, throwOnError = false) => ({ displayMode, throwOnError, output: "mathml" });
