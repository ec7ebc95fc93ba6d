"""End-to-end fixtures: the built site served on 127.0.0.1, Debian's Chromium driven by Playwright.

Every page records its requests; a test fails if any request leaves localhost or the page throws.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from tools.serve import start_in_thread

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / (os.environ.get("TL_SITE") or "site")  # TL_SITE: another build (test-e2e-zensical)
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic", "--disable-gpu"]


def chromium_path() -> str:
    path = os.environ.get("TL_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.fail("Debian's chromium is not installed (make setup-browser)")
    return path


@pytest.fixture(scope="session")
def site_url():
    if not (SITE / "index.html").is_file():
        pytest.fail("site/ is not built (make build)")
    server, url = start_in_thread(SITE)
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def isolated_url():
    server, url = start_in_thread(SITE, isolate=True)
    yield url
    server.shutdown()


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
