/**
 * Every byte once, where the HTTP cache would not keep a file (a private window keeps none over a few MB, and some
 * hosts forbid storing): what this worker downloads under assets/ is also put in a hand-off cache, which the
 * service worker's offline copy takes files from (checked against their hashes) before downloading any, and
 * deletes once complete (sw/sw.js). A response from the offline copy itself (it carries the service worker's hash
 * header, RUNTIME.hashHeader) is not handed off. The one Cache Storage this worker writes.
 */
import { RUNTIME } from "../../shared/build-outputs.js";

/** `fetchFn`, handing off what it downloads under the site's assets/ (in `ctx.handoffs`). */
export function handingOff(ctx, fetchFn) {
  if (!self.caches) return fetchFn;
  return async (input, init) => {
    const response = await fetchFn(input, init);
    if (response.ok && response.type === "basic" && response.url.startsWith(ctx.assets.href)
        && !response.headers.has(RUNTIME.hashHeader)) {
      const copy = response.clone();
      ctx.handoffs.push(caches.open(RUNTIME.handoffCache).then((cache) => cache.put(response.url, copy)).catch(() => {}));
    }
    return response;
  };
}

/** Settles once every copy handed off so far is written (or has failed). */
export const handedOff = (ctx) => Promise.allSettled(ctx.handoffs);
