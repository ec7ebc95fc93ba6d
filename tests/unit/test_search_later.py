"""tools/search_later.py: the theme's search worker moved aside, a shim in its place that waits for the page."""
import json
import shutil
import subprocess

import pytest

from tools import search_later


def test_the_theme_worker_is_kept_and_the_shim_names_it(tmp_path):
    workers = tmp_path / search_later.WORKERS
    workers.mkdir(parents=True)
    real = '"use strict";addEventListener("message",e=>postMessage(e.data));\n'
    (workers / "search.ab12.min.js").write_text(real)
    (workers / "search.ab12.min.js.map").write_text("{}")
    assert search_later.write(tmp_path) == ["assets/javascripts/workers/search.ab12.min.js"]
    assert (workers / "search.ab12.later.js").read_text() == real
    shim = (workers / "search.ab12.min.js").read_text()
    assert shim.startswith(search_later.MARK)
    assert f"importScripts({json.dumps('search.ab12.later.js')})" in shim
    assert f"new BroadcastChannel({json.dumps(search_later.CHANNEL)})" in shim
    assert f"setTimeout(start, {search_later.START_AFTER_MS})" in shim
    # A second pass (a rebuild into the same folder) leaves both as they are.
    assert search_later.write(tmp_path) == []
    assert (workers / "search.ab12.later.js").read_text() == real
    assert (workers / "search.ab12.min.js").read_text() == shim


def test_a_theme_without_a_search_worker_is_left_alone(tmp_path):
    assert search_later.write(tmp_path) == []
    assert list(tmp_path.iterdir()) == []


def test_the_page_uses_the_same_channel():
    main = (search_later.Path(__file__).resolve().parents[2] / "web" / "src" / "page" / "main.js").read_text()
    assert f"const SEARCH_CHANNEL = {json.dumps(search_later.CHANNEL)};" in main


def test_the_pages_hold_on_the_index_request_ends_with_the_shims():
    """overrides/main.html holds the theme's request for the search index back until the same "start" (its inline
    script, before any of the site's scripts): on the same channel, and after the same fallback, or the index would
    be fetched while the worker still waits, or the other way round."""
    html = (search_later.Path(__file__).resolve().parents[2] / "overrides" / "main.html").read_text()
    script = html[html.index('<script data-tl="search-later">'):]
    script = script[:script.index("</script>")]
    assert f"new BroadcastChannel({json.dumps(search_later.CHANNEL)})" in script
    assert f"setTimeout(start, {search_later.START_AFTER_MS})" in script


HARNESS = r"""
import { readFileSync } from "node:fs";
import vm from "node:vm";
const [dir, style] = process.argv.slice(2);
// A worker's global scope, enough for the shim and a theme worker: events, postMessage, importScripts, timers.
const scope = new EventTarget();
for (const name of ["addEventListener", "removeEventListener", "dispatchEvent"]) {
  scope[name] = EventTarget.prototype[name].bind(scope);  // callable bare, as in a worker
}
const replies = [];
Object.assign(scope, {
  self: scope, postMessage: (data) => replies.push(data), setTimeout, BroadcastChannel, MessageEvent,
  importScripts: (name) => vm.runInContext(readFileSync(`${dir}/${name}`, "utf8"), context),
});
let handler = null;  // the `onmessage` event handler attribute, as a worker global scope has it
Object.defineProperty(scope, "onmessage", { get: () => handler, set: (fn) => { handler = fn; } });
scope.addEventListener("message", (event) => handler?.(event));
const context = vm.createContext(scope);
const page = new BroadcastChannel("CHANNEL");
const asked = new Promise((resolve) => { page.onmessage = (e) => resolve(e.data); });
vm.runInContext(readFileSync(`${dir}/search.ab12.min.js`, "utf8"), context);
// The theme sends before the page allows it: nothing may answer yet.
scope.dispatchEvent(new MessageEvent("message", { data: "setup" }));
scope.dispatchEvent(new MessageEvent("message", { data: "query" }));
const first = await asked;
await new Promise((r) => setTimeout(r, 50));
const before = replies.length;
page.postMessage("start");
await new Promise((r) => setTimeout(r, 50));
scope.dispatchEvent(new MessageEvent("message", { data: "later" }));
console.log(JSON.stringify({ first, before, replies }));
page.close();
process.exit(0);
"""


@pytest.mark.skipif(not shutil.which("node"), reason="node runs the shim")
@pytest.mark.parametrize("style", ["addEventListener", "onmessage"])
def test_the_shim_holds_the_theme_s_messages_until_the_page_says_start(tmp_path, style):
    workers = tmp_path / search_later.WORKERS
    workers.mkdir(parents=True)
    listen = ('addEventListener("message", (e) => postMessage("got " + e.data));' if style == "addEventListener"
              else 'self.onmessage = (e) => postMessage("got " + e.data);')
    (workers / "search.ab12.min.js").write_text(listen + "\n")
    search_later.write(tmp_path)
    harness = tmp_path / "harness.mjs"
    harness.write_text(HARNESS.replace("CHANNEL", search_later.CHANNEL))
    out = subprocess.run(["node", str(harness), str(workers), style], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    said = json.loads(out.stdout)
    assert said["first"] == "asking"  # the shim asks, for a page that said "start" before it listened
    assert said["before"] == 0  # nothing reached the theme's worker before "start"
    assert said["replies"] == ["got setup", "got query", "got later"]  # then all of it, in order, and what follows
