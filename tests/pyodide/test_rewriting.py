"""The assertion rewriting the build puts into each bundle (tools/rewriting.py) is exactly what pytest makes of
the same test files in the browser's runtime, the judge adopts it there, and the verdicts do not change."""
import json
from pathlib import Path

import pytest

from node_jobs import REPO, per_core

SITE = REPO / "site"


@pytest.fixture(scope="module")
def report():
    """Every bundle of the site, shared out over one Node.js process per core (two judged runs of its reference
    each: about 0.6 s per exercise of one core)."""
    bundles = SITE / "assets" / "tl" / "exercises"
    if not bundles.is_dir():
        pytest.fail("site/ is missing: build the site first (make build)")
    slugs = sorted(p.stem for p in bundles.glob("*.json") if p.name != "index.json")
    merged = {}
    for report in per_core(Path(__file__).with_name("rewriting_in_pyodide.mjs"), [str(SITE)], slugs,
                           300 + 5 * len(slugs)):
        merged.update(report)
    assert sorted(merged) == slugs
    return merged


def test_every_bundle_carries_the_rewriting_pytest_makes_in_pyodide(report):
    assert report, "no bundles"
    for slug, r in report.items():
        assert r["tag"] == r["runtime_tag"], f"{slug}: rewritten for {r['tag']}, the browser runs {r['runtime_tag']}"
        assert r["same"] and all(r["same"].values()), f"{slug}: the build's code objects differ: {r['same']}"


def test_the_judge_adopts_it_and_the_verdicts_stay_the_same(report):
    for slug, r in report.items():
        assert r["taken"] == r["files"], f"{slug}: the judge took {r['taken']} of {r['files']} rewritten files"
        assert r["adopted"] == r["own"], f"{slug}: verdicts differ with the build's rewriting"
        assert all(outcome == "passed" for _, outcome in r["own"]), f"{slug}: the reference should pass"


def test_the_build_rewrites_each_file_once_and_then_reads_its_cache(tmp_path):
    import shutil
    import sys

    sys.path.insert(0, str(REPO))
    from tools import rewriting

    bundles = tmp_path / "exercises"
    shutil.copytree(SITE / "assets" / "tl" / "exercises", bundles)
    for p in bundles.glob("*.json"):  # as tools/bundle.py writes them: no rewriting yet
        if p.name == "index.json":
            continue
        data = json.loads(p.read_text(encoding="utf-8"))
        data.pop("rewritten", None)
        p.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    assets, zip_ = SITE / "assets" / "pyodide", SITE / "assets" / "tl" / "checker.zip"
    files = sum(len(json.loads(p.read_text())["tests"]) for p in bundles.glob("*.json") if p.name != "index.json")
    assert rewriting.build(assets, bundles, zip_, cache=tmp_path / "cache") == files
    assert rewriting.build(assets, bundles, zip_, cache=tmp_path / "cache") == 0, "the second build reads the cache"
    for p in bundles.glob("*.json"):
        built = json.loads((SITE / "assets" / "tl" / "exercises" / p.name).read_text(encoding="utf-8"))
        assert json.loads(p.read_text(encoding="utf-8")) == built, f"{p.name}: not what the site's build wrote"
