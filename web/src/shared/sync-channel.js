/**
 * A synchronous, half-duplex channel between two workers over one SharedArrayBuffer: the tests' Python and the
 * learner's Python of a separated check (checker/separated.py), each blocked in Atomics.wait while the other
 * runs. Only one side speaks at a time, as on a call stack: the tests call, learner code calls back, the answer
 * returns. A message longer than the buffer goes in chunks, each taken before the next is written.
 *
 * Layout: four Int32 words, then the data. `turn` (0: free, 1: for the learner, 2: for the tests) is the word
 * both wait on; `size` the bytes of this chunk; `more` 1 while chunks follow; `closed` 1 once either end, or the
 * page, has closed it (a waiting side then gets null). Needs a cross-origin isolated page in a browser (a
 * SharedArrayBuffer can be posted only there); works as is in Node.js's worker threads (tests/pyodide).
 */
export const SIDES = { learner: 1, tests: 2 };
const TURN = 0, SIZE = 1, MORE = 2, CLOSED = 3, HEAD = 16;
export const CAPACITY = 1 << 20; // bytes of data per chunk
export const MESSAGE_CAP = 64 << 20; // bytes of one message, as checker/boundary_codec.py MESSAGE_CAP
export const WAITED = 0, CLOSED_NOW = -1; // what recv returns instead of a message (numbers: plain in Python too)

/** A new channel's buffer. */
export const channelBuffer = (capacity = CAPACITY) => new SharedArrayBuffer(HEAD + capacity);

/** Close the channel from outside (the page, when a check ends): both sides stop waiting. */
export function closeChannel(buffer) {
  const words = new Int32Array(buffer, 0, 4);
  Atomics.store(words, CLOSED, 1);
  Atomics.notify(words, TURN);
}

/**
 * One end of the channel, for `me` (SIDES.learner or SIDES.tests).
 * @param {SharedArrayBuffer} buffer
 * @param {number} me
 * @param {number} cap  bytes of one message at most: a longer one closes the channel (the other side is not
 *   trusted to stop)
 * @returns {{send: (bytes: Uint8Array) => boolean, recv: (ms: number) => Uint8Array|number, close: () => void}}
 *   send: false when the channel is closed; recv: the next whole message, WAITED when `ms` passed first (call
 *   again: the caller checks for an interrupt in between), CLOSED when the channel is closed
 */
export function channelEnd(buffer, me, cap = MESSAGE_CAP) {
  const words = new Int32Array(buffer, 0, 4);
  const data = new Uint8Array(buffer, HEAD);
  const other = me === SIDES.learner ? SIDES.tests : SIDES.learner;
  const closed = () => Atomics.load(words, CLOSED) === 1;
  // Wait until `turn` is `want`, up to `ms` (Infinity: no limit); false when it was not reached or closed.
  function until(want, ms) {
    const end = ms === Infinity ? Infinity : performance.now() + ms;
    for (;;) {
      const now = Atomics.load(words, TURN);
      if (closed()) return false;
      if (now === want) return true;
      const left = end - performance.now();
      if (left <= 0) return false;
      Atomics.wait(words, TURN, now, left === Infinity ? 1000 : Math.min(left, 1000));
    }
  }
  let partial = [];
  let received = 0;
  return {
    send(bytes) {
      let at = 0;
      do {
        if (!until(0, Infinity)) return false;
        const size = Math.min(bytes.length - at, data.length);
        data.set(bytes.subarray(at, at + size));
        at += size;
        Atomics.store(words, SIZE, size);
        Atomics.store(words, MORE, at < bytes.length ? 1 : 0);
        Atomics.store(words, TURN, other);
        Atomics.notify(words, TURN);
      } while (at < bytes.length);
      return true;
    },
    recv(ms) {
      for (;;) {
        if (!until(me, ms)) return closed() ? CLOSED_NOW : WAITED;
        const size = Atomics.load(words, SIZE);
        received += Math.max(0, Math.min(size, data.length));
        if (received > cap) {
          partial = [];
          received = 0;
          closeChannel(buffer);
          return CLOSED_NOW;
        }
        partial.push(data.slice(0, size));
        const more = Atomics.load(words, MORE) === 1;
        Atomics.store(words, TURN, 0);
        Atomics.notify(words, TURN);
        if (!more) {
          const parts = partial;
          partial = [];
          received = 0;
          if (parts.length === 1) return parts[0];
          const whole = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
          let at = 0;
          for (const p of parts) { whole.set(p, at); at += p.length; }
          return whole;
        }
      }
    },
    close() {
      closeChannel(buffer);
    },
  };
}
