/**
 * A learner's worker of a separated check (the class page) cuts itself off before any learner code runs: learner
 * code reaches this worker's global scope through Python's `js` module, and the worker is of the site's origin,
 * so without this it could read or delete the origin's saved data (IndexedDB: the learners' progress and a kept
 * class) and its offline copy (Cache Storage), message other tabs, start a worker of its own, or use the network.
 *
 * Each of those is an attribute of the global scope or of `navigator`, defined on a prototype of it; each is
 * redefined here, on the object and every prototype up the chain, as a getter that throws, and made
 * unconfigurable, so that no later code can put the original back (the original getters are not kept anywhere).
 * What the worker itself still needs (its MessagePort to the page, the channel's SharedArrayBuffer, Atomics) was
 * taken before, in module scope. tests/e2e/test_class.py asks learner code to reach each one.
 */
export const CUT = Object.freeze(["caches", "indexedDB", "fetch", "XMLHttpRequest", "importScripts", "WebSocket",
  "WebTransport", "EventSource", "BroadcastChannel", "Worker", "SharedWorker", "Request", "FileReaderSync",
  "FileSystemHandle", "FileSystemDirectoryHandle", "FileSystemFileHandle", "FileSystemSyncAccessHandle", "open",
  "postMessage", "close", "cookieStore", "localStorage", "sessionStorage", "RTCPeerConnection", "WebGPU",
  "CacheStorage", "IDBFactory", "StorageManager", "LockManager", "ServiceWorkerContainer"]);
export const CUT_NAVIGATOR = Object.freeze(["storage", "storageBuckets", "serviceWorker", "locks", "sendBeacon",
  "permissions", "gpu", "usb", "serial", "hid", "bluetooth"]);

function cutOff(object, name) {
  const refuse = () => { throw new Error(`${name} is not available to learner code in a class check`); };
  for (let o = object; o; o = Object.getPrototypeOf(o)) {
    const found = Object.getOwnPropertyDescriptor(o, name);
    if (found && found.configurable) {
      Object.defineProperty(o, name, { get: refuse, set: refuse, configurable: false, enumerable: false });
    } else if (found && found.writable) {
      o[name] = refuse;
    }
  }
}

/** Cut `scope` (a worker's global scope) off from storage, the network and other contexts. */
export function confine(scope = self) {
  for (const name of CUT) cutOff(scope, name);
  if (scope.navigator) for (const name of CUT_NAVIGATOR) cutOff(scope.navigator, name);
}
