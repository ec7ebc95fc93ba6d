"""The tinyllm-ol wheel (tools/ol_wheel.py): what it holds, its index, and `ol` run from it with no checkout.

The wheel is built from the fixture course and unpacked with pip into a temporary folder (no network: its
dependencies, numpy and pytest, are the test's own), then `ol` runs from there in an empty folder outside the
repository, so nothing of the checkout can stand in for the wheel. Installing from the served site into a fresh
virtual environment, with numpy and pytest from the package index, is tested end to end in tests/e2e.
"""
from __future__ import annotations

import base64
import csv
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from course import manifest  # noqa: E402
from tools import ol_wheel  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "course" / "exercises"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("site")
    ol_wheel.write_index(site, FIXTURE)
    return site


@pytest.fixture(scope="module")
def wheel(site) -> Path:
    [path] = (site / "simple" / "tinyllm-ol").glob("*.whl")
    return path


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("installed")
    run = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index",
                          "--target", str(target), str(wheel)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return target


def test_the_wheel_holds_the_judge_and_every_exercise_but_no_mutants(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for module in ("checker/judge.py", "checker/stats.py", "ol/cli.py", "ol/checkrun.py", "ol/progress.py",
                   "ol/exchange.py", "course/manifest.py"):
        assert module in names
    # exactly what a learner runs: the whole judge and command line, of the course's data what ol imports,
    # nothing of the author's toolchain or the build
    code = sorted(n for n in names if n.endswith(".py") and not n.startswith("ol/course/"))
    assert code == sorted(ol_wheel.learner_modules())
    assert {p.name for p in (REPO / "checker").glob("*.py")} == {n.split("/")[1] for n in code if n.startswith("checker/")}
    assert not [n for n in code if n.startswith(("authoring/", "tools/", "mdwidgets/"))]
    assert "course/records.py" not in code and "course/chapters.py" not in code
    exercises = manifest.load_all(FIXTURE)
    for ex in exercises.values():
        prefix = f"ol/course/exercises/{ex.slug}/"
        for path in (ex.manifest, ex.starter, ex.reference, ex.tests_file):
            assert prefix + path.relative_to(ex.folder).as_posix() in names
    assert not [n for n in names if "/mutants/" in n or "/alternatives/" in n or n.endswith(".pyc")]
    info = json.loads(zipfile.ZipFile(wheel).read("ol/course/build.json"))
    assert info["course"] == "tinyllm" and info["version"] == ol_wheel.wheel_version(wheel.name)


def test_metadata_pins_the_dependencies_and_declares_ol(wheel):
    zf = zipfile.ZipFile(wheel)
    info = next(n.split("/")[0] for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
    meta = zf.read(f"{info}/METADATA").decode()
    assert "Name: tinyllm-ol" in meta and "Requires-Python: >=3.11" in meta
    assert re.search(r"^Requires-Dist: numpy==\d", meta, re.M) and re.search(r"^Requires-Dist: pytest==\d", meta, re.M)
    assert "ol = ol.cli:main" in zf.read(f"{info}/entry_points.txt").decode()


def test_record_hashes_every_member(wheel):
    zf = zipfile.ZipFile(wheel)
    record_name = next(n for n in zf.namelist() if n.endswith("/RECORD"))
    rows = list(csv.reader(io.StringIO(zf.read(record_name).decode())))
    listed = {row[0]: row for row in rows}
    assert set(listed) == set(zf.namelist())
    for name, digest, size in rows:
        if name == record_name:
            continue
        data = zf.read(name)
        want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert (digest, int(size)) == (f"sha256={want}", len(data)), name


def test_the_build_is_reproducible(tmp_path, wheel):
    again = ol_wheel.build(tmp_path, FIXTURE)
    assert again.name == wheel.name and again.read_bytes() == wheel.read_bytes()


def test_the_index_is_pep_503(site, wheel):
    root = (site / "simple" / "index.html").read_text()
    assert '<a href="tinyllm-ol/">tinyllm-ol</a>' in root
    page = (site / "simple" / "tinyllm-ol" / "index.html").read_text()
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    assert f'href="{wheel.name}#sha256={digest}"' in page and 'data-requires-python="&gt;=3.11"' in page


def ol(installed: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("TL_EXERCISES", "OL_DEBUG")}
    env["PYTHONPATH"] = str(installed)
    return subprocess.run([sys.executable, "-m", "ol", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def test_ol_from_the_wheel_works_in_an_empty_folder(installed, wheel, tmp_path):
    work = tmp_path / "my-repo"
    work.mkdir()
    version = ol(installed, work, "--version")
    assert version.returncode == 0 and ol_wheel.wheel_version(wheel.name) in version.stdout
    assert "from the tinyllm-ol wheel" in version.stdout
    listed = ol(installed, work, "list")
    assert all(e.id in listed.stdout for e in manifest.load_all(FIXTURE).values())
    assert ol(installed, work, "start", "T01.1").returncode == 0
    ex = manifest.load(FIXTURE / "t01-1")
    (work / ex.learner_path).write_text(ex.reference.read_text())
    checked = ol(installed, work, "check", "T01.1")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    record = json.loads((work / ".ol" / "progress.json").read_text())
    assert record["passed"]["T01.1"]["build"] == ol_wheel.wheel_version(wheel.name)
    gated = ol(installed, work, "check", "T01.2")
    assert gated.returncode == 2  # no file yet


def test_an_older_ol_says_so(installed, tmp_path):
    work = tmp_path / "w"
    (work / ".ol").mkdir(parents=True)
    (work / ".ol" / "progress.json").write_text(json.dumps({"version": 1, "passed": {
        "T01.1": {"sha256": "0" * 64, "when": "", "ref_deps": False, "build": "0.2.99999999999"}}}))
    run = ol(installed, work, "list")
    assert run.returncode == 0
    assert "older than the one that recorded the pass of T01.1" in " ".join(run.stderr.split())


def test_a_changed_file_of_the_installed_package_stops_the_check_and_is_named(installed, tmp_path):
    """ol/installed.py: the wheel's RECORD is compared with the files before and after every check."""
    import shutil

    copy = tmp_path / "installed"
    shutil.copytree(installed, copy)
    work = tmp_path / "w"
    work.mkdir()
    assert ol(copy, work, "start", "T01.1").returncode == 0
    ex = manifest.load(FIXTURE / "t01-1")
    (work / ex.learner_path).write_text(ex.reference.read_text())
    assert ol(copy, work, "check", "T01.1").returncode == 0
    hidden = copy / "ol" / "course" / "exercises" / "t01-1" / "tests" / "test_base.py"
    hidden.write_text(hidden.read_text() + "\n# emptied by a submission\n")
    run = ol(copy, work, "check", "T01.1")
    said = " ".join(run.stderr.split())
    assert run.returncode == 1 and "test_base.py was changed since tinyllm-ol was installed" in said, said
