/**
 * The one DOM helper the widgets share. Text goes in as text (textContent), never as HTML.
 */

/**
 * Create an element with attributes and optional text.
 * @param {string} tag
 * @param {Record<string, string>} attrs
 * @param {string} text
 */
export function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}
