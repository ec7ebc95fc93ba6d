"""End-to-end fixtures: the built sites served on 127.0.0.1, Debian's Chromium driven by Playwright.

Two sites: the fixture course (build/fixture-site, `make fixture-site`), which the tests of the machinery run on,
and the real course (site/, `make build`), which test_content.py and the audits of test_a11y.py check from its
manifests and nav. Each is served from a copy taken when the session first needs it, so a rebuild during the run
(`make build`, `make fixture-site`, a preview, another terminal's tests) cannot pull files from under open pages.
Every page records its requests; a test fails if any request leaves localhost or the page throws.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from authoring.serve import start_in_thread

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / (os.environ.get("TL_SITE") or "site")  # TL_SITE: another build (test-e2e-zensical)
SITE_NAME = os.path.relpath(SITE, REPO) + "/"
FIXTURE_SITE = REPO / (os.environ.get("TL_FIXTURE_SITE") or "build/fixture-site")  # TL_FIXTURE_SITE: another build
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic", "--disable-gpu"]


def chromium_path() -> str:
    path = os.environ.get("TL_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.fail("Debian's chromium is not installed (make setup-browser)")
    return path


_snapshots: dict[Path, Path] = {}


def snapshot(root: Path, name: str, make: str, tmp_path_factory) -> Path:
    """A private copy of a built site for this session (38 MB, a fraction of a second); a site that is not built
    fails with the command that builds it."""
    if root not in _snapshots:
        if not (root / "index.html").is_file():
            pytest.fail(f"{name} is not built (make {make})")
        copy = tmp_path_factory.mktemp("served") / root.name
        shutil.copytree(root, copy)
        _snapshots[root] = copy
    return _snapshots[root]


def served(root: Path) -> Path:
    """Where the session serves `root` from (its copy once served), for tests that read the built files."""
    return _snapshots.get(root, root)


def serve(root: Path, isolate: bool, name: str, make: str, tmp_path_factory):
    """Serve (a session copy of) a built site on 127.0.0.1 for the session."""
    server, url = start_in_thread(snapshot(root, name, make, tmp_path_factory), isolate=isolate)
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def site_url(tmp_path_factory):
    """The real course, as `make build` left it."""
    yield from serve(SITE, False, SITE_NAME, "build", tmp_path_factory)


@pytest.fixture(scope="session")
def isolated_url(tmp_path_factory):
    yield from serve(SITE, True, SITE_NAME, "build", tmp_path_factory)


@pytest.fixture(scope="session")
def fixture_url(tmp_path_factory):
    """The fixture course (tests/fixtures/course), which every test of the machinery runs on."""
    yield from serve(FIXTURE_SITE, False, "build/fixture-site", "fixture-site", tmp_path_factory)


@pytest.fixture(scope="session")
def fixture_isolated_url(tmp_path_factory):
    """The fixture course with cross-origin isolation headers (Stop interrupts Python in place)."""
    yield from serve(FIXTURE_SITE, True, "build/fixture-site", "fixture-site", tmp_path_factory)


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        yield b
        b.close()


class Recorder:
    """Every request and page error of a browser context."""

    def __init__(self):
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.expected_errors: list[str] = []  # page errors a test provokes on purpose (exact messages)

    def foreign(self) -> list[str]:
        return [u for u in self.requests
                if not (u.startswith("http://127.0.0.1:") or u.startswith("data:") or u.startswith("blob:"))]


@pytest.fixture()
def recorder():
    return Recorder()


@pytest.fixture()
def context(browser, recorder):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    ctx.on("request", lambda r: recorder.requests.append(r.url))
    ctx.on("page", lambda p: p.on("pageerror", lambda e: recorder.errors.append(str(e))))
    yield ctx
    ctx.close()
    assert recorder.requests, "no request was recorded: the recorder is not wired"
    assert recorder.foreign() == [], f"requests left localhost: {recorder.foreign()}"
    unexpected = [e for e in recorder.errors if e not in recorder.expected_errors]
    assert unexpected == [], f"the page threw: {unexpected}"


@pytest.fixture()
def page(context):
    return context.new_page()


def pytest_terminal_summary(terminalreporter):
    """Report the robustness scenarios (tests marked `scenario`) as a count with their outcomes."""
    counts: dict[str, int] = {}
    for outcome in ("passed", "failed", "error", "skipped"):
        for report in terminalreporter.stats.get(outcome, []):
            if getattr(report, "when", "call") in ("call", "setup") and "scenario" in getattr(report, "keywords", {}):
                if outcome == "passed" and report.when != "call":
                    continue
                counts[outcome] = counts.get(outcome, 0) + 1
    if counts:
        total = sum(counts.values())
        detail = ", ".join(f"{n} {k}" for k, n in counts.items())
        terminalreporter.write_line(f"robustness scenarios: {total} run: {detail}")
