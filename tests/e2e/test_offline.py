"""Offline use and updates, through the service worker, against a private copy of the built site."""
import shutil

import pytest

from conftest import SITE
from e2e_helpers import LESSON, cell, reference, set_code, wait_python, wait_result
from tools import offline
from tools.serve import start_in_thread

pytestmark = pytest.mark.scenario
SLUG = "e7-3"


@pytest.fixture()
def private_site(tmp_path):
    """A copy of the site on its own server, which a test may stop or change."""
    root = tmp_path / "site"
    shutil.copytree(SITE, root)
    server, url = start_in_thread(root)
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
    server.shutdown()
    server.server_close()  # the host is gone: only the service worker's cache remains

    page.goto(url)  # another page than the one visited, also from the cache
    assert "tinyllm" in page.title()
    page.goto(url + LESSON)
    assert page.evaluate("crossOriginIsolated") is True  # isolation comes from the service worker's headers
    wait_python(page, SLUG)
    set_code(page, SLUG, reference(SLUG))
    cell(page, SLUG).locator("button.tl-check").click()
    assert wait_result(page, SLUG) == "passed"


def test_an_updated_site_reaches_the_learner(page, private_site):
    root, server, url = private_site
    page.goto(url + LESSON)
    old = wait_precached(page)["version"]

    lesson = root / "e7" / "rejection-correction" / "index.html"
    lesson.write_text(lesson.read_text().replace("<h1", '<p id="tl-new-version">new</p><h1', 1))
    new = offline.write(root)
    assert new != old

    page.reload()  # served from the old cache, but the browser fetches sw.js and finds the new version
    page.wait_for_selector(".tl-notices:has-text('new version')", timeout=60_000)
    assert wait_precached(page)["version"] == new
    page.reload()
    assert page.locator("#tl-new-version").count() == 1
