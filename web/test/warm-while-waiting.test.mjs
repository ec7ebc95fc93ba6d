// The wait for numpy's pack used (web/src/worker/boot/boot.js warmWhileWaiting): a Python restored from the
// snapshot runs one throwaway check (checker/bridge.py warm) when the pack is not in yet, and none when it is in
// already, on a cold start (pytest would first have to come from its pack), or when the build made no pack. A
// warm-up that fails is only a warm-up: start-up goes on.
import { test } from "node:test";
import assert from "node:assert/strict";

import { warmWhileWaiting } from "../src/worker/boot/boot.js";

function setUp({ restored = true, fails = false } = {}) {
  const marks = [];
  const runs = [];
  const session = {
    restored,
    bridge: { warm: () => { runs.push("warm"); if (fails) throw new Error("PythonError"); return "passed"; } },
  };
  return { ctx: { mark: (name) => marks.push(name) }, session, marks, runs };
}

const never = () => new Promise(() => {});

test("restored, and numpy's pack still on its way: one warm-up check, marked", async () => {
  const { ctx, session, marks, runs } = setUp();
  await warmWhileWaiting(ctx, session, never());
  assert.deepEqual(runs, ["warm"]);
  assert.deepEqual(marks, ["warmed"]);
});

test("the pack in already: no warm-up, numpy's import is not kept waiting", async () => {
  const { ctx, session, runs } = setUp();
  await warmWhileWaiting(ctx, session, Promise.resolve(new Uint8Array(1)));
  assert.deepEqual(runs, []);
  const failed = Promise.reject(new Error("HTTP 404"));
  await warmWhileWaiting(ctx, session, failed);
  assert.deepEqual(runs, [], "a pack that failed has arrived too: numpy's loading reports it");
});

test("a cold start, or no pack: no warm-up", async () => {
  const cold = setUp({ restored: false });
  await warmWhileWaiting(cold.ctx, cold.session, never());
  const none = setUp();
  await warmWhileWaiting(none.ctx, none.session, null);
  assert.deepEqual([...cold.runs, ...none.runs], []);
});

test("a warm-up that throws is not a start-up failure, and is not marked", async () => {
  const { ctx, session, marks, runs } = setUp({ fails: true });
  await warmWhileWaiting(ctx, session, never());
  assert.deepEqual([runs, marks], [["warm"], []]);
});
