"""tools/search_later.py: the theme's search worker moved aside, a shim in its place that waits for the page."""
import json

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
    main = (search_later.Path(__file__).resolve().parents[2] / "web" / "src" / "main.js").read_text()
    assert f"const SEARCH_CHANNEL = {json.dumps(search_later.CHANNEL)};" in main
