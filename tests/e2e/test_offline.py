"""Offline use and updates, through the service worker, against a private copy of the built fixture site."""
import json
import shutil

import pytest
import yaml

from conftest import FIXTURE_SITE, served
from e2e_helpers import (FIXTURE, LESSON, LESSON_EX, cell, failures, reference, set_code, wait_python, wait_result)
from tools import offline
from authoring.serve import Handler, start_in_thread

pytestmark = pytest.mark.scenario
SLUG = LESSON_EX.slug
FIXTURE_SITE_NAME = yaml.safe_load((FIXTURE.parent / "mkdocs.yml").read_text())["site_name"]


class LoggingHandler(Handler):
    """Keeps the requests for sw.js and every answer other than 200, to explain a failed update, and the path of
    every 200, to tell a file sent twice."""

    log: list[str]  # one list per server: private_site gives each its own subclass
    sent: list[str]

    def log_request(self, code="-", size="-"):
        if self.path.startswith("/sw.js") or str(code) != "200":
            self.log.append(f"{self.command} {self.path} {code}")
        if str(code) == "200":
            self.sent.append(self.path.split("?")[0])


@pytest.fixture()
def private_site(tmp_path, fixture_url):
    """A copy of the fixture site on its own server, which a test may stop or change (copied from the session's
    copy, which `fixture_url` makes)."""
    root = tmp_path / "site"
    shutil.copytree(served(FIXTURE_SITE), root)
    handler = type("Logging", (LoggingHandler,), {"log": [], "sent": []})
    server, url = start_in_thread(root, base=handler)
    server.log, server.sent = handler.log, handler.sent
    yield root, server, url
    server.shutdown()
    server.server_close()


def wait_precached(page) -> dict:
    """Wait until the service worker controls the page and holds every file of the site."""
    page.wait_for_function("() => navigator.serviceWorker && navigator.serviceWorker.controller", timeout=60_000)
    return page.evaluate("""() => new Promise((resolve) => {
        const ask = () => {
            navigator.serviceWorker.addEventListener('message', function once(e) {
                if (!e.data || e.data.type !== 'tl-sw-status') return;
                navigator.serviceWorker.removeEventListener('message', once);
                if (e.data.cached >= e.data.total) resolve(e.data); else setTimeout(ask, 250);
            });
            navigator.serviceWorker.controller.postMessage({type: 'tl-sw-status'});
        };
        ask();
    })""")


def test_the_site_works_offline_after_one_visit(page, private_site):
    root, server, url = private_site
    page.goto(url + LESSON)
    status = wait_precached(page)
    assert status["total"] > 50
    # The Python the site ships, as its lock file names it: numpy with start-up, matplotlib once imported (then kept).
    lock = json.loads((root / "assets" / "pyodide" / "pyodide-lock.json").read_text())
    python = ".".join(lock["info"]["python"].split(".")[:2])  # the lock says 3.14.0 for a 3.14.2: the minor release
    versions = [python, lock["packages"]["numpy"]["version"], lock["packages"]["matplotlib"]["version"]]
    said = "import sys, numpy, matplotlib; print(sys.version.split()[0], numpy.__version__, matplotlib.__version__)"
    wait_python(page, SLUG, "numpy")
    assert run_and_read(page, said) == versions
    page.wait_for_timeout(1000)  # matplotlib's files reach the offline copy as they pass the service worker
    server.shutdown()
    server.server_close()  # the host is gone: only the service worker's cache remains

    page.goto(url)  # another page than the one visited, also from the cache
    assert FIXTURE_SITE_NAME in page.title()
    page.goto(url + LESSON)
    assert page.evaluate("crossOriginIsolated") is True  # isolation comes from the service worker's headers
    wait_python(page, SLUG)
    set_code(page, SLUG, reference(FIXTURE, SLUG))
    cell(page, SLUG).locator("button.tl-check").click()
    assert wait_result(page, SLUG) == "passed", failures(page, SLUG)
    assert run_and_read(page, said) == versions, "offline too: Python 3.14, numpy and matplotlib"
    # What arrives after ready (the rest of the standard library and of numpy) is in the offline copy too.
    later = "import statistics, numpy.fft; print(statistics.mean([1, 2]), numpy.fft.fft([1, 0]).real.tolist())"
    assert run_and_read(page, later) == ["1.5", "[1.0,", "1.0]"]


def run_and_read(page, code: str) -> list[str]:
    """Run `code` in the lesson's cell; the words of the first line it printed (the first as major.minor)."""
    set_code(page, SLUG, code)
    cell(page, SLUG).locator("button.tl-run").click()
    assert wait_result(page, SLUG) == "ok", cell(page, SLUG).locator(".tl-output").inner_text()
    python, *rest = cell(page, SLUG).locator(".tl-output").inner_text().strip().splitlines()[0].split()
    return [".".join(python.split(".")[:2]), *rest]


def sw_status(page) -> dict:
    return page.evaluate("""() => new Promise((resolve) => {
        navigator.serviceWorker.addEventListener('message', function once(e) {
            if (!e.data || e.data.type !== 'tl-sw-status') return;
            navigator.serviceWorker.removeEventListener('message', once);
            resolve(e.data);
        });
        navigator.serviceWorker.controller.postMessage({type: 'tl-sw-status'});
    })""")


@pytest.mark.parametrize("start", ["snapshot", "cold"])
def test_a_first_visit_sends_no_file_twice(page, private_site, start):
    """The offline copy takes what the page and its worker fetched (the HTTP cache, the worker's hand-off) and
    downloads the rest once, whichever way Python started (cold: the snapshot comes with the rest)."""
    root, server, url = private_site
    page.context.add_init_script(f"localStorage.setItem('tl-start', '{start}')")
    page.goto(url + LESSON)
    wait_python(page, SLUG)
    wait_precached(page)
    twice = sorted({p for p in server.sent if server.sent.count(p) > 1})
    assert not twice, f"sent more than once: {twice}"
    assert "/assets/pyodide/pyodide.asm.wasm" not in server.sent, "the worker fetches the core gzipped"


SAVE_DATA = "Object.defineProperty(Navigator.prototype, 'connection', {get: () => ({saveData: true})});"


def test_on_a_save_data_connection_the_rest_of_the_copy_waits_for_the_learner(page, private_site):
    root, server, url = private_site
    page.context.add_init_script(SAVE_DATA)
    page.goto(url + LESSON)
    wait_python(page, SLUG)
    page.wait_for_function("() => navigator.serviceWorker && navigator.serviceWorker.controller", timeout=60_000)
    page.wait_for_timeout(3000)  # past the idle moment the page would ask at
    first = sw_status(page)
    assert 0 < first["cached"] < first["total"] and not first["filling"], first
    fetched = len(server.sent)
    page.goto(url)  # the home page says how, and offers the button
    box = page.locator(".tl-offline")
    expect_text = f"{sw_status(page)['cached']} of {first['total']} files"
    page.wait_for_function("(t) => document.querySelector('.tl-offline-state').textContent.includes(t)",
                           arg=expect_text, timeout=10_000)
    assert "save data" in box.inner_text()
    assert len(server.sent) - fetched < 10, "nothing but the home page itself was downloaded"
    box.locator("button.tl-offline-save").click()
    status = wait_precached(page)
    assert status["cached"] == status["total"]
    page.wait_for_function("() => document.querySelector('.tl-offline-state').textContent.includes('works offline')",
                           timeout=30_000)
    assert box.locator("button.tl-offline-save").is_hidden()


def publish_new_version(root) -> str:
    """Change the lesson page and rebuild sw.js, as a redeploy of the site would; returns the new version."""
    lesson = root / LESSON / "index.html"
    lesson.write_text(lesson.read_text().replace("<h1", '<p id="tl-new-version">new</p><h1', 1))
    return offline.write(root)


def wait_update_notice(page, server) -> None:
    try:
        page.wait_for_selector(".tl-notices:has-text('new version')", timeout=60_000)
    except Exception:
        state = page.evaluate("""async () => {
            const r = await navigator.serviceWorker.getRegistration();
            const w = (x) => x && {state: x.state, url: x.scriptURL};
            return {installing: w(r.installing), waiting: w(r.waiting), active: w(r.active),
                    controller: w(navigator.serviceWorker.controller), caches: await caches.keys(),
                    notices: [...document.querySelectorAll('.tl-notices p')].map((p) => p.textContent)};
        }""")
        raise AssertionError(f"no update notice; service worker state: {state}; server: {server.log}") from None


def test_an_updated_site_reaches_the_learner(page, private_site):
    # The home page: it starts no Python worker. On a lesson page, Chromium also looks for a new sw.js whenever the
    # page starts a worker (the spare one starts a few seconds in), which could find the update before the reload
    # below and show the notice on the page about to be reloaded; the next test covers that open-page path.
    root, server, url = private_site
    page.goto(url)
    old = wait_precached(page)["version"]
    new = publish_new_version(root)
    assert new != old

    page.reload()  # served from the old cache, but the browser fetches sw.js and finds the new version
    wait_update_notice(page, server)
    assert wait_precached(page)["version"] == new
    page.goto(url + LESSON)
    assert page.locator("#tl-new-version").count() == 1


def test_an_open_lesson_is_told_of_an_update(page, private_site):
    root, server, url = private_site
    page.goto(url + LESSON)
    old = wait_precached(page)["version"]
    wait_python(page, SLUG)
    new = publish_new_version(root)
    assert new != old

    # The browser's own check (on a navigation, a worker start, or a day later); asked for here so it is now.
    page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
    wait_update_notice(page, server)
    assert wait_precached(page)["version"] == new
    assert page.locator("#tl-new-version").count() == 0  # the open page is the old one until it is reloaded
    page.reload()
    assert page.locator("#tl-new-version").count() == 1


def test_a_page_not_saved_yet_says_so_offline_and_links_to_the_saved_ones(page, private_site):
    root, server, url = private_site
    page.goto(url + LESSON)
    wait_precached(page)
    # As if the copy had not reached the home page yet: take it out of the copy, then lose the host.
    removed = page.evaluate("""async (home) => {
        for (const name of await caches.keys()) {
            if (name.startsWith('tinyllm-') && name !== 'tinyllm-handoff') await (await caches.open(name)).delete(home);
        }
        return home;
    }""", url)
    assert removed == url
    page.context.new_cdp_session(page).send("Network.clearBrowserCache")  # nor in the HTTP cache
    server.shutdown()
    server.server_close()
    page.goto(url)
    assert page.locator("h1").inner_text() == "This page is not saved for offline use yet"
    assert page.evaluate("document.documentElement.lang") == "en"
    saved = page.locator("main li a")
    assert saved.count() >= 1 and url not in [saved.nth(i).get_attribute("href") for i in range(saved.count())]
    page.locator(f'main a[href="{url + LESSON}"]').click()  # a saved page still opens, and grades
    wait_python(page, SLUG)
    assert page.locator(f'.tl-cell[data-exercise="{SLUG}"]').count() == 1
