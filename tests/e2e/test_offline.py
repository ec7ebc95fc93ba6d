"""Offline use and updates, through the service worker, against a private copy of the built fixture site."""
import json
import shutil

import pytest
import yaml

from conftest import FIXTURE_SITE, served
from e2e_helpers import (FIXTURE, LESSON, LESSON_EX, cell, failures, fixture_modules, reference, set_code, uri,
                         wait_python, wait_result)
from tools import offline
from authoring.serve import Handler, start_in_thread

# `alone`: the service worker's timing (a copy filled, an update activated) is checked with no other browser on
# the machine (Makefile, test-e2e).
pytestmark = [pytest.mark.scenario, pytest.mark.alone]
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


WAIT_STATUS = """(whole) => new Promise((resolve) => {
    const ask = () => {
        navigator.serviceWorker.addEventListener('message', function once(e) {
            if (!e.data || e.data.type !== 'tl-sw-status' || !('heldBytes' in e.data)) return;
            navigator.serviceWorker.removeEventListener('message', once);
            const done = whole ? e.data.cached >= e.data.total : e.data.pageSaved && !e.data.filling;
            if (done) resolve(e.data); else setTimeout(ask, 250);
        });
        navigator.serviceWorker.controller.postMessage({type: 'tl-sw-status', page: whole ? undefined : location.href});
    };
    ask();
})"""


def wait_precached(page) -> dict:
    """Wait until the service worker controls the page and holds every file of the site ("Save the whole course")."""
    page.wait_for_function("() => navigator.serviceWorker && navigator.serviceWorker.controller", timeout=60_000)
    return page.evaluate(WAIT_STATUS, True)


def wait_saved(page) -> dict:
    """Wait until the service worker controls the page and holds what a visit of it saves (the platform, the page
    and its unit: sw.js scopeOf), with no fill on its way."""
    page.wait_for_function("() => navigator.serviceWorker && navigator.serviceWorker.controller", timeout=60_000)
    return page.evaluate(WAIT_STATUS, False)


def held(page) -> set[str]:
    """The URLs (relative to the site) the offline copy holds."""
    return set(page.evaluate("""async () => {
        const scope = new URL('./', navigator.serviceWorker.controller.scriptURL).href;
        const name = (await caches.keys()).find((n) => n.startsWith('tinyllm-') && n !== 'tinyllm-handoff');
        return (await (await caches.open(name)).keys()).map((r) => r.url.slice(scope.length));
    }"""))


def groups(root) -> tuple[set[str], dict[str, set[str]], set[str], dict]:
    """(the platform, each unit's files by name, every file, PRECACHE) as the built sw.js lists them."""
    head = (root / "sw.js").read_text(encoding="utf-8").split("\n", 1)[0]
    data = json.loads(head.removeprefix("const PRECACHE = ").removesuffix(";"))
    urls = [entry[0] for entry in data["files"]]
    units = {u["name"]: {urls[i] for i in u["files"]} for u in data["units"]}
    return {urls[i] for i in data["platform"]}, units, set(urls), data


def test_a_lesson_works_offline_after_one_visit(page, private_site):
    root, server, url = private_site
    page.goto(url + LESSON)
    status = wait_saved(page)
    assert status["total"] > 50 and status["cached"] < status["total"], "the lesson's scope, not the whole course"
    # The Python the site ships, as its lock file names it: numpy with start-up, matplotlib once imported (then kept).
    lock = json.loads((root / "assets" / "pyodide" / "pyodide-lock.json").read_text())
    python = ".".join(lock["info"]["python"].split(".")[:2])  # the lock says 3.14.0 for a 3.14.2: the minor release
    versions = [python, lock["packages"]["numpy"]["version"], lock["packages"]["matplotlib"]["version"]]
    said = "import sys, numpy, matplotlib; print(sys.version.split()[0], numpy.__version__, matplotlib.__version__)"
    wait_python(page, SLUG, "numpy")
    assert run_and_read(page, said) == versions
    page.wait_for_timeout(1000)  # matplotlib's files reach the hand-off, which the service worker serves offline
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


def test_the_copy_takes_no_file_while_the_learners_code_runs(page, private_site):
    root, server, url = private_site
    page.goto(url + LESSON)
    wait_saved(page)
    wait_python(page, SLUG)
    assert sw_status(page)["holds"] == 0
    set_code(page, SLUG, "while True:\n    pass\n")
    cell(page, SLUG).locator("button.tl-run").click()
    page.wait_for_selector(f'.tl-cell[data-exercise="{SLUG}"][data-state="running"]')
    assert sw_status(page)["holds"] == 1, "the page said its Python is busy with the learner's work"
    cell(page, SLUG).locator("button.tl-stop").click()
    assert wait_result(page, SLUG, 30_000) == "stopped"
    # The page's word that the work is over was sent before the cell showed it (and a page's messages keep their order).
    assert sw_status(page)["holds"] == 0


@pytest.mark.parametrize("start", ["snapshot", "cold"])
def test_a_first_visit_sends_no_file_twice(page, private_site, start):
    """The offline copy takes what the page and its worker fetched (the HTTP cache, the worker's hand-off) and
    downloads the rest once, whichever way Python started (cold: the snapshot comes with the rest)."""
    root, server, url = private_site
    page.context.add_init_script(f"localStorage.setItem('tl-start', '{start}')")
    page.goto(url + LESSON)
    wait_python(page, SLUG)
    wait_saved(page)
    page.goto(url)  # the home page's button: the whole course, every file still once
    page.locator(".tl-offline button.tl-offline-save").click()
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
    page.goto(url)  # the home page says how, and offers the button with the size it would download
    box = page.locator(".tl-offline")
    page.wait_for_function("() => document.querySelector('.tl-offline-state').textContent.includes('save data')",
                           timeout=10_000)
    now = sw_status(page)
    assert int(box.locator("button.tl-offline-save").get_attribute("data-bytes")) == now["bytes"] - now["heldBytes"]
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
    return offline.write(root, FIXTURE)


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
        try:  # what the worker still in control is busy with (a fill, a download): a new one waits for it to end
            state["controller's status"] = sw_status(page)
        except Exception as exc:  # noqa: BLE001 - the message above matters more
            state["controller's status"] = f"not answered: {exc}"
        raise AssertionError(f"no update notice; service worker state: {state}; server: {server.log}") from None


def test_an_updated_site_reaches_the_learner(page, private_site):
    # The home page: it starts no Python worker. On a lesson page, Chromium also looks for a new sw.js whenever the
    # page starts a worker (the spare one starts a few seconds in), which could find the update before the reload
    # below and show the notice on the page about to be reloaded; the next test covers that open-page path.
    root, server, url = private_site
    page.goto(url)
    old = wait_saved(page)["version"]
    new = publish_new_version(root)
    assert new != old
    sent = len(server.sent)

    page.reload()  # served from the old cache, but the browser fetches sw.js and finds the new version
    wait_update_notice(page, server)
    assert wait_saved(page)["version"] == new
    assert f"/{LESSON}" not in server.sent[sent:], "the changed lesson was not in the copy: not downloaded"
    page.goto(url + LESSON)
    assert page.locator("#tl-new-version").count() == 1


def test_an_open_lesson_is_told_of_an_update(page, private_site):
    root, server, url = private_site
    page.goto(url + LESSON)
    old = wait_saved(page)["version"]
    wait_python(page, SLUG)
    new = publish_new_version(root)
    assert new != old

    # The browser's own check (on a navigation, a worker start, or a day later); asked for here so it is now.
    page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
    wait_update_notice(page, server)
    assert wait_saved(page)["version"] == new  # the changed lesson, which the copy held, downloaded again
    assert page.locator("#tl-new-version").count() == 0  # the open page is the old one until it is reloaded
    page.reload()
    assert page.locator("#tl-new-version").count() == 1


def test_a_page_not_saved_yet_says_so_offline_and_links_to_the_saved_ones(page, private_site):
    """A first visit of the lesson saves its chapter, not a module of another unit: opened offline, that module's
    page says it is not saved and links to the saved pages, which still work."""
    root, server, url = private_site
    _base, other = fixture_modules()
    page.goto(url + LESSON)
    wait_saved(page)
    assert uri(other.page) not in held(page)
    page.context.new_cdp_session(page).send("Network.clearBrowserCache")  # nor in the HTTP cache
    server.shutdown()
    server.server_close()
    page.goto(url + uri(other.page))
    assert page.locator("h1").inner_text() == "This page is not saved for offline use yet"
    assert page.evaluate("document.documentElement.lang") == "en"
    saved = page.locator("main li a")
    links = [saved.nth(i).get_attribute("href") for i in range(saved.count())]
    assert url in links and url + LESSON in links and url + uri(other.page) not in links
    page.locator(f'main li a[href="{url + LESSON}"]').click()  # a saved page still opens, and grades
    wait_python(page, SLUG)
    assert page.locator(f'.tl-cell[data-exercise="{SLUG}"]').count() == 1


def test_a_first_visit_saves_the_platform_its_unit_and_what_it_builds_on_and_no_other_unit(page, private_site):
    root, server, url = private_site
    base, after = fixture_modules()
    page.goto(url + uri(after.page))
    wait_python(page, after.slug)
    wait_saved(page)
    platform, units, every, _data = groups(root)
    unit = units[f"module {after.id}"]
    assert {uri(after.page), f"assets/tl/exercises/{after.slug}.json", uri(base.page),
            f"assets/tl/exercises/{base.slug}.json"} <= unit, "the module and what it builds on"
    copy = held(page)
    assert platform | unit <= copy
    others = set().union(*(files for name, files in units.items() if name != f"module {after.id}")) - unit
    assert uri(LESSON_EX.page) in others
    assert not copy & others, f"other units' files in the copy: {sorted(copy & others)}"
    sent = {p.lstrip("/") for p in server.sent}
    assert not sent & others, f"other units' files downloaded: {sorted(sent & others)}"


def test_saving_the_whole_course_shows_its_size_then_another_unit_works_offline(page, private_site):
    root, server, url = private_site
    base, after = fixture_modules()
    page.goto(url + uri(base.page))
    wait_python(page, base.slug)
    before = wait_saved(page)
    page.goto(url)
    button = page.locator(".tl-offline button.tl-offline-save")
    button.wait_for(state="visible", timeout=30_000)
    _platform, _units, _every, data = groups(root)
    now = sw_status(page)  # the box hears the reply too, and redraws from it
    missing = int(button.get_attribute("data-bytes"))
    assert missing == data["bytes"] - now["heldBytes"] and missing > 0
    assert before["bytes"] == data["bytes"]
    assert f"({size_text(missing)} more)" in button.inner_text(), "its size, before the press"
    button.click()
    status = wait_precached(page)
    assert status["heldBytes"] == status["bytes"]
    page.wait_for_function("() => document.querySelector('.tl-offline-state').textContent.includes('works offline')",
                           timeout=30_000)
    server.shutdown()
    server.server_close()  # offline: a lesson of another unit, never opened, works
    page.goto(url + LESSON)
    wait_python(page, SLUG)
    set_code(page, SLUG, reference(FIXTURE, SLUG))
    cell(page, SLUG).locator("button.tl-check").click()
    assert wait_result(page, SLUG) == "passed", failures(page, SLUG)


def size_text(n: int) -> str:
    """web/src/page/offline.js size()."""
    return f"{n / 1e6:.{0 if n >= 1e8 else 1}f} MB" if n >= 1e6 else f"{max(1, round(n / 1e3))} kB"
