"""Start the theme's search worker once the page says so, not while Python starts.

mkdocs-material builds its search index in a worker as every page opens (~0.45 s of CPU here, with this
course's index). On a lesson page that is the same moment Python starts, and on two cores the two compete
(bench/network.py: ready to grade ~0.17 s later with it). This step moves the theme's worker script aside
(`search.<hash>.min.js` becomes `search.<hash>.later.js`) and writes in its place a small classic worker that
keeps every message the theme sends it, then loads the real script and hands them over, in order, when
web/src/page/main.js says "start" on the `tl-search` BroadcastChannel: at once on a page without code cells, once Python
is ready and idle on a page with them. It also starts by itself after START_AFTER_MS, and asks when it begins, so a
page that said "start" before it was listening is heard. A theme without such a worker is left as it is.
"""
from __future__ import annotations

import json
from pathlib import Path

WORKERS = Path("assets") / "javascripts" / "workers"
CHANNEL = "tl-search"  # web/src/page/main.js SEARCH_CHANNEL
START_AFTER_MS = 20_000
MARK = "// tinyllm: tools/search_later.py"

SHIM = MARK + """ (the theme's search worker, started when the page says so)
(function () {
  var held = [];
  var started = false;
  function keep(event) {
    if (!started) held.push(event.data);
  }
  self.addEventListener("message", keep);
  function start() {
    if (started) return;
    started = true;
    self.removeEventListener("message", keep);
    importScripts(REAL);
    held.splice(0).forEach(function (data) {
      self.dispatchEvent(new MessageEvent("message", { data: data }));
    });
  }
  if (typeof BroadcastChannel === "function") {
    var channel = new BroadcastChannel(CHANNEL);
    channel.onmessage = function (event) {
      if (event.data === "start") start();
    };
    channel.postMessage("asking");
  }
  setTimeout(start, START_AFTER_MS);
})();
"""


def write(site: Path) -> list[str]:
    """Put the shim in front of each of the theme's search workers under `site`; returns their paths."""
    done = []
    for script in sorted((site / WORKERS).glob("search.*.min.js")):
        text = script.read_text(encoding="utf-8")
        if text.startswith(MARK):
            continue  # already in front (a rebuild into the same folder)
        real = script.with_name(script.name[: -len(".min.js")] + ".later.js")
        real.write_text(text, encoding="utf-8")
        script.write_text(SHIM.replace("REAL", json.dumps(real.name)).replace("CHANNEL", json.dumps(CHANNEL))
                          .replace("START_AFTER_MS", str(START_AFTER_MS)), encoding="utf-8")
        done.append(script.relative_to(site).as_posix())
    return done
