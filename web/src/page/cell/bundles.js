/**
 * Exercise bundles (tools/bundle.py writes assets/tl/exercises/<slug>.json): the hidden tests, their names, the
 * reference and the direct requirements. Fetched once per page; a failed fetch is forgotten, so a retry can work.
 */
import { rewrittenFits } from "../../shared/protocol.js";

const cache = new Map();

/**
 * @param {URL|string} base  the site's assets/ folder
 * @param {string} slug
 * @returns {Promise<object>}
 */
export function loadBundle(base, slug) {
  const key = `${base}|${slug}`;
  if (!cache.has(key)) {
    cache.set(key, fetch(new URL(`tl/exercises/${slug}.json`, base)).then((r) => {
      if (!r.ok) throw new Error(`exercise ${slug}: HTTP ${r.status}`);
      return r.json();
    }).catch((err) => {
      cache.delete(key);
      throw err;
    }));
  }
  return cache.get(key);
}

/**
 * The check request's `rewritten` field for `bundle` (protocol.js CheckRequest), when the build rewrote its
 * tests ahead (tools/rewriting.py): spread into the request, so a bundle without it, or with one of the wrong
 * shape, sends nothing (the worker would refuse the whole request; without it, pytest rewrites as before).
 * @param {object} bundle
 * @returns {{rewritten?: {tag: string, tests: Record<string, string>}}}
 */
export const rewriting = (bundle) => (rewrittenFits(bundle?.rewritten) ? { rewritten: bundle.rewritten } : {});
