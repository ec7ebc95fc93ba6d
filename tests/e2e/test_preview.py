"""`make preview` (authoring/preview.py) in Chromium: edits show without a manual reload, a broken build shows its
errors in the page within seconds, and fixing it brings the page back.

Runs on a copy of the fixture course in a temporary folder, so the edits touch nothing of the repository.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "course"
BUILD_S = 240  # a first build on a loaded two-core machine; later ones reuse the validation and snapshot caches


@pytest.fixture(scope="module")
def preview(tmp_path_factory):
    root = tmp_path_factory.mktemp("course")
    for name in ("docs", "exercises"):
        shutil.copytree(FIXTURE / name, root / name)
    config = (FIXTURE / "mkdocs.yml").read_text()
    config = config.replace("../../../", f"{REPO}/").replace(f"site_dir: {REPO}/build/fixture-site", "site_dir: site")
    (root / "mkdocs.yml").write_text(config)
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "authoring.preview", "--config", str(root / "mkdocs.yml"),
                             "--port", "0", "--out", str(root / "preview")], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = proc.stdout.readline()
    match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    assert match, f"preview did not say where it serves: {line!r}"
    url = match.group(0)
    wait_state(url, lambda s: s["version"] >= 1, BUILD_S)
    yield root, url
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture()
def page(page):
    """The conftest's page, left on about:blank before its context closes. A preview page reloads itself after
    every build, and closing a page while a reload commits can hang Chromium's close for good (an upstream bug,
    microsoft/playwright#42068 and #42366): an e2e run once waited on it with no end."""
    yield page
    try:
        page.goto("about:blank", timeout=10_000)
    except Exception:  # noqa: BLE001 - a page already gone or navigating away is what closing wants anyway
        pass


def state(url: str) -> dict:
    with urllib.request.urlopen(url + "__preview/state", timeout=5) as response:
        return json.load(response)


def wait_state(url: str, ok, timeout: float) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            current = state(url)
            if ok(current):
                return current
        except OSError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"the preview did not reach the expected state in {timeout} s: {state(url)}")


def lesson_page(root: Path) -> tuple[Path, str]:
    """The fixture lesson's page and its uri (read from its manifest, not assumed)."""
    sys.path.insert(0, str(REPO))
    from course import manifest

    lessons = [e for e in manifest.load_all(root / "exercises").values() if e.kind == "lesson"]
    ex = lessons[0]
    return root / "docs" / ex.page, ex.page.removesuffix(".md") + "/"


def test_the_preview_serves_the_site_without_an_offline_cache(preview, page):
    root, url = preview
    assert state(url)["errors"] == []
    _, uri = lesson_page(root)
    page.goto(url + uri)
    page.wait_for_selector(".tl-cell")
    sw = page.evaluate("fetch('/sw.js').then(r => r.text())")
    assert "unregister" in sw and "PRECACHE" not in sw


def test_a_broken_widget_shows_its_error_in_the_open_page_and_a_fix_brings_it_back(preview, page):
    root, url = preview
    path, uri = lesson_page(root)
    page.goto(url + uri)
    page.wait_for_selector(".tl-cell")
    good = path.read_text()
    version = state(url)["version"]
    broken = good + "\n/// numeric | T1.2 no-such-prompt\nQ\n///\n"
    path.write_text(broken)
    line = broken.splitlines().index("/// numeric | T1.2 no-such-prompt") + 1
    started = time.monotonic()
    errors = page.locator(".tl-preview-errors li")
    errors.first.wait_for(timeout=BUILD_S * 1000)  # the open page reloaded by itself
    seconds = time.monotonic() - started
    texts = errors.all_inner_texts()
    rel = path.relative_to(root).as_posix()
    assert any(f"{rel}:{line}: `/// numeric | T1.2 no-such-prompt`" in t for t in texts), texts
    assert state(url)["version"] > version
    print(f"\npreview: error shown {seconds:.1f} s after the save")

    path.write_text(good)
    page.wait_for_selector(".tl-cell", timeout=BUILD_S * 1000)
    assert state(url)["errors"] == []


def test_a_page_edit_takes_the_page_path(preview, page):
    """An edit of a page alone is a dirty build of that page into the site being served (the page path), shown
    by the open page without a reload by hand."""
    root, url = preview
    wait_state(url, lambda s: not s["building"] and s["errors"] == [], BUILD_S)
    path, uri = lesson_page(root)
    page.goto(url + uri)
    page.wait_for_selector(".tl-cell")
    good = path.read_text()
    version = state(url)["version"]
    path.write_text(good + "\nA paragraph added by the preview's test.\n")
    started = time.monotonic()
    try:
        page.get_by_text("A paragraph added by the preview's test.").wait_for(timeout=BUILD_S * 1000)
        seconds = time.monotonic() - started
        current = state(url)
        assert current["path"] == "pages" and current["version"] > version, current
        print(f"\npreview: a page edit shown {seconds:.1f} s after the save (page path, {current['ms']} ms build)")
    finally:
        path.write_text(good)
    wait_state(url, lambda s: not s["building"] and s["version"] > version + 1, BUILD_S)


def test_a_broken_exercise_is_told_by_the_gate_first(preview):
    """An exercise edit that breaks it (here: a mutant the hidden tests no longer catch) fails validation's gate,
    whose error shows before any full build is made; fixing it rebuilds."""
    root, url = preview
    wait_state(url, lambda s: not s["building"] and s["errors"] == [], BUILD_S)
    sys.path.insert(0, str(REPO))
    from course import manifest

    ex = next(e for e in manifest.load_all(root / "exercises").values() if e.mutants)
    mutant = ex.mutants[0]
    good = mutant.path.read_text()
    version = state(url)["version"]
    try:  # the mutant made harmless: each of its edits replaces the code by itself
        broken = good.split("[[edit]]")[0] + "".join(
            f"[[edit]]\nfind = {json.dumps(e.find)}\nreplace = {json.dumps(e.find)}\n\n" for e in mutant.edits)
        mutant.path.write_text(broken)
        current = wait_state(url, lambda s: s["version"] > version and not s["building"], BUILD_S)
        assert current["gate"]["ok"] is False and current["gate"]["exercises"] == [ex.slug], current
        assert any("survives" in e for e in current["errors"]), current["errors"]
        print(f"\npreview: the gate told a broken exercise in {current['gate']['ms']} ms")
    finally:
        mutant.path.write_text(good)
    wait_state(url, lambda s: not s["building"] and s["errors"] == [], BUILD_S)


def test_a_syntax_error_in_a_reference_is_one_line_with_its_line(preview, page):
    root, url = preview
    sys.path.insert(0, str(REPO))
    from course import manifest

    ex = next(iter(manifest.load_all(root / "exercises").values()))
    good = ex.reference.read_text()
    version = state(url)["version"]
    ex.reference.write_text(good + "\ndef broken(:\n")
    try:
        current = wait_state(url, lambda s: s["version"] > version and not s["building"], BUILD_S)
        rel = ex.reference.relative_to(root).as_posix()
        bad_line = len((good + "\ndef broken(:\n").splitlines())
        assert any(f"{rel}:{bad_line}:" in e for e in current["errors"]), current["errors"]
        page.goto(url)
        assert rel in page.locator(".tl-preview-errors").inner_text()
    finally:
        ex.reference.write_text(good)
    wait_state(url, lambda s: not s["building"] and s["errors"] == [], BUILD_S)
