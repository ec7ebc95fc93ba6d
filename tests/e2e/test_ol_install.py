"""`ol` on its own: installed from the built site's package index into a fresh virtual environment outside the
repository, then used in empty folders, and its progress carried to the browser and back.

The chain is one of the real course's: the module that builds on the most others, and what it builds on, started and
checked in dependency order with the reference as the learner's own code (the manifests say which modules and in
which order, nothing is named here), so each check uses the learner's own passed files for what it builds on,
exactly as a learner's repository would. One chain, not every module: that each module's reference passes under
the same judge is validation's (CPython) and the course check's (the browser); what is tested here is `ol` and its
round trip through the browser, at a cost that does not grow with the course (bench/README.md, "The cost of a
course": every module, at N = 100, was most of the end-to-end tier's growth).
"""
from __future__ import annotations

import json
import os
import subprocess
import venv
from pathlib import Path

import pytest

from conftest import SITE, served
from course import manifest
from e2e_helpers import uri

REPO = Path(__file__).resolve().parents[2]
INSTALL_S = 900  # numpy and pytest from the package index on a slow line


def chain() -> list[manifest.Exercise]:
    """The module that builds on the most others (the first by id among equals) after what it requires, each
    after its own requirements."""
    exercises = manifest.load_all()
    by_id = {e.id: e for e in exercises.values()}
    modules = sorted((e for e in exercises.values() if e.kind == "module"), key=lambda e: e.id)
    if not modules:
        return []
    deepest = max(modules, key=lambda e: len(manifest.dependency_order(e, by_id)))
    return [*manifest.dependency_order(deepest, by_id), deepest]


@pytest.fixture(scope="module")
def ol_env(site_url, tmp_path_factory):
    """A fresh virtual environment holding tinyllm-ol from the site's index; returns the path of its `ol`."""
    home = tmp_path_factory.mktemp("olvenv")
    venv.EnvBuilder(with_pip=True, clear=True).create(home / "venv")
    pip = home / "venv" / "bin" / "pip"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TL_EXERCISES", "VIRTUAL_ENV")}
    run = subprocess.run([str(pip), "install", "--disable-pip-version-check", "--quiet", "--extra-index-url",
                          f"{site_url}simple/", "tinyllm-ol"], capture_output=True, text=True, env=env,
                         timeout=INSTALL_S, cwd=home)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    return home / "venv" / "bin" / "ol", env


def ol(ol_env, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    exe, env = ol_env
    return subprocess.run([str(exe), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_ol_is_installed_from_the_site_and_knows_every_exercise(ol_env, tmp_path):
    exe, _env = ol_env
    assert REPO not in exe.resolve().parents
    version = ol(ol_env, tmp_path, "--version")
    assert version.returncode == 0 and "from the tinyllm-ol wheel" in version.stdout, version.stdout
    listed = ol(ol_env, tmp_path, "list")
    assert all(e.id in listed.stdout for e in manifest.load_all().values())


@pytest.fixture(scope="module")
def exported(ol_env, tmp_path_factory):
    """The module chain done with ol in an empty folder; returns (folder, the chain, the `ol export` file)."""
    work = tmp_path_factory.mktemp("my-repo")
    modules = chain()
    assert modules, "the course has no module to chain"
    for ex in modules:
        started = ol(ol_env, work, "start", ex.id)
        assert started.returncode == 0, started.stderr
        (work / ex.learner_path).write_text(ex.reference.read_text(encoding="utf-8"), encoding="utf-8")
        checked = ol(ol_env, work, "check", ex.id)
        assert checked.returncode == 0, f"{ex.id}:\n{checked.stdout}\n{checked.stderr}"
        assert f"all {len(ex.catalogue)} tests passed" in checked.stdout
    exported = ol(ol_env, work, "export", "progress.json")
    assert exported.returncode == 0, exported.stderr
    return work, modules, work / "progress.json"


def test_the_chain_with_the_learners_own_code_then_tests_diff_and_export(ol_env, exported):
    work, modules, path = exported
    last = modules[-1]
    tests = ol(ol_env, work, "tests", last.id)
    assert tests.returncode == 0 and all(t.name in tests.stdout for t in last.catalogue)
    diff = ol(ol_env, work, "diff", last.id)
    assert diff.returncode == 0 and "identical to the reference" in diff.stdout
    dump = json.loads(path.read_text())
    assert {f"elsewhere:{e.slug}" for e in modules} <= set(dump["data"])
    assert all(dump["data"][f"code:{e.slug}"]["code"] == e.reference.read_text() for e in modules)


def test_a_dependent_module_is_gated_until_its_requirement_passed(ol_env, tmp_path):
    dependent = next((e for e in chain() if e.requires), None)
    if dependent is None:
        pytest.skip("the course has no module that requires another")
    work = tmp_path / "w"
    work.mkdir()
    assert ol(ol_env, work, "start", dependent.id).returncode == 0
    (work / dependent.learner_path).write_text(dependent.reference.read_text())
    gated = ol(ol_env, work, "check", dependent.id)
    assert gated.returncode == 1 and f"{dependent.id} needs " in " ".join(gated.stderr.split())
    assert ol(ol_env, work, "check", dependent.id, "--ref-deps").returncode == 0



def page_url(site_url: str, ex: manifest.Exercise) -> str:
    return site_url + uri(ex.page)


def test_ols_progress_reaches_the_browser_and_comes_back(ol_env, exported, site_url, page, tmp_path):
    """ol export → the progress page's Import: the code is in each editor and passes there once the page checked
    it; the page's Export → ol import into an empty folder, where the chain passes again."""
    from e2e_helpers import get_code, wait_python

    _work, modules, path = exported
    page.goto(site_url + "progress/")
    page.locator(".tl-import input[type=file]").set_input_files(str(path))
    status = page.locator(".tl-progress-status")
    status.filter(has_text="Imported").wait_for(timeout=30_000)
    assert "passed with ol" in status.inner_text()
    row = page.locator(f'tr[data-exercise="{modules[0].slug}"] td[data-code]')
    assert row.get_attribute("data-code") == "elsewhere"
    for ex in modules:
        page.goto(page_url(site_url, ex))
        wait_python(page, ex.slug)
        assert get_code(page, ex.slug) == ex.reference.read_text()
        cell = page.locator(f'.tl-cell[data-exercise="{ex.slug}"]')
        page.wait_for_function("(slug) => document.querySelector(`.tl-cell[data-exercise='${slug}']`)"
                               ".dataset.status === 'passed'", arg=ex.slug, timeout=120_000)
        assert cell.locator(".tl-elsewhere").count() == 0
    page.goto(site_url + "progress/")
    for ex in modules:
        assert page.locator(f'tr[data-exercise="{ex.slug}"]').get_attribute("data-status") == "done"
    with page.expect_download() as download:
        page.locator(".tl-export").click()
    browser_file = tmp_path / "from-the-browser.json"
    download.value.save_as(browser_file)
    dump = json.loads(browser_file.read_text())
    assert dump["origin"] == "browser" and dump["build"], dump.get("build")

    fresh = tmp_path / "another-repo"
    fresh.mkdir()
    imported = ol(ol_env, fresh, "import", str(browser_file))
    assert imported.returncode == 0, imported.stdout + imported.stderr
    assert not (fresh / ".ol" / "progress.json").exists(), "nothing counts as passed before ol check"
    for ex in modules:
        checked = ol(ol_env, fresh, "check", ex.id)
        assert checked.returncode == 0, f"{ex.id}:\n{checked.stdout}\n{checked.stderr}"


def test_the_home_page_and_every_module_page_show_the_command_with_this_sites_address(page, site_url):
    """Every module page's built HTML holds the command (read from the files: a cost that does not grow with the
    course as a browser's does); the page's script fills in this site's address, seen on the home page and on
    the first module page of the chain."""
    want = f"pip install --extra-index-url {site_url}simple/ tinyllm-ol"
    modules = [e for e in manifest.load_all().values() if e.kind == "module"]
    site = served(SITE)
    for ex in modules:
        html = site / uri(ex.page) / "index.html"
        assert 'class="tl-ol-command"' in html.read_text(encoding="utf-8"), f"{ex.page}: no ol command"
    for url in [site_url, *[page_url(site_url, e) for e in chain()[:1]]]:
        page.goto(url)
        command = page.locator(".tl-ol-command")
        assert command.count() >= 1, url
        page.wait_for_function("(want) => document.querySelector('.tl-ol-command').textContent === want", arg=want,
                               timeout=30_000)
