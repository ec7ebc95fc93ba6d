/**
 * `/// ol-install` (mdwidgets): the pip command that installs `ol` from this very site. The site can be hosted
 * anywhere, so its address is only known here: the root is two folders above this script (assets/tl/tl.js).
 */

/**
 * Fill in the site's address.
 * @param {HTMLElement} root  the .tl-ol-install placeholder
 * @param {URL|string} siteRoot  the site's root URL
 */
export function mountOlInstall(root, siteRoot) {
  const url = new URL(siteRoot);
  if (!/^https?:$/.test(url.protocol)) return; // a file:// copy has no index pip can read: keep the placeholder
  for (const span of root.querySelectorAll(".tl-site-root")) span.textContent = url.href;
}
