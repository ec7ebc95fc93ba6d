"""The hidden tests behave the same in Pyodide (the browser's runtime) as on CPython, and how much slower.

What runs in Pyodide for each exercise of the course is validation's gate (authoring/validate.py `gate`): the
reference's verdict on every test, the starter's, each mutant's on the test it must fail, the first mutant's whole
suite (its fingerprint, which the browser's diagnosis compares with CPython's), and the prompts, in Pyodide under
Node.js with the wheels the site ships, one interpreter per core, every verdict compared with CPython's. The other
mutants' whole-suite fingerprints and the corpus run on CPython only: bench/README.md, "What runs in Pyodide",
gives the cost of each and why. The platform's fixture course is validated in full in Pyodide and compared
fingerprint by fingerprint, at a fixed cost.

It also measures the factor validation multiplies CPython suite times by to estimate the browser's
(authoring/validate.py's time budgets): each exercise's reference suite time in both runtimes, written to the
validation cache's pyodide-factor.json.
"""
import json
import subprocess
from pathlib import Path

import pytest

from authoring import validate
from course import manifest
from node_jobs import REPO, per_core

ASSETS = REPO / "site" / "assets" / "pyodide"
VALIDATE = Path(__file__).with_name("validate_in_pyodide.mjs")


def in_pyodide(ids: list[str], env: dict[str, str], timeout: float) -> dict:
    """Validation of `ids` (all when empty) in Pyodide, shared out over one Node.js process per core, as one report."""
    out: dict = {"errors": [], "outcomes": {}, "suite_ms": {}, "suite_runs": {}, "prints": {}, "timing": []}
    for report in per_core(VALIDATE, [str(REPO), str(ASSETS)], ids, timeout, env):
        out["errors"] += report["errors"]
        for key in ("outcomes", "suite_ms", "suite_runs", "prints"):
            out[key].update(report[key])
        out["timing"].append(report["timing"])
        out["platform"] = report["platform"]
    return out


@pytest.fixture(scope="module")
def pyodide_report():
    """Validation's gate in Pyodide, the course's exercises shared out over one Node.js process per core."""
    if not (ASSETS / "wheels.json").is_file():
        pytest.fail("site/assets/pyodide is missing: build the site first (make build)")
    slugs = sorted(manifest.load_all())
    return in_pyodide(slugs, {"TL_PARITY": "gate"}, 300 + 60 * len(slugs))


def test_runs_in_pyodide(pyodide_report):
    """In the Python of the Pyodide the site ships (its lock file's `info.python`), not this CPython."""
    python = json.loads((ASSETS / "pyodide-lock.json").read_text())["info"]["python"]
    major_minor = ".".join(python.split(".")[:2])
    assert pyodide_report["platform"].startswith(f"emscripten {major_minor}"), pyodide_report["platform"]
    print(f"\npyodide: {pyodide_report['platform']}, timing {pyodide_report['timing']}")


def test_validation_is_clean_in_pyodide(pyodide_report):
    assert pyodide_report["errors"] == []


@pytest.fixture(scope="module")
def cpython_reports():
    # The build's cache (this run's validation, when `make test` ran it; else validated now): its reports keep
    # the outcomes, the mutants' fingerprints and the reference suite's times of five fresh runs on this machine.
    reports, errors = validate.validate_all(cache=manifest.cache_folder())
    assert errors == []
    return reports


def test_every_verdict_matches_cpython(pyodide_report, cpython_reports):
    """The reference's and the starter's verdict on every test, and each mutant's on the test it must fail."""
    cpython = {r.slug: r.outcomes for r in cpython_reports}
    assert set(pyodide_report["outcomes"]) == set(cpython)
    for slug, outcomes in cpython.items():
        theirs = pyodide_report["outcomes"][slug]
        gated = [k for k in outcomes if k in ("reference", "starter") or k.startswith("mutant:")]
        assert "reference" in gated
        for key in gated:
            assert theirs.get(key) == outcomes[key], f"{slug} {key}: pyodide {theirs.get(key)} != cpython {outcomes[key]}"


def test_the_first_mutant_fails_alike_in_both(pyodide_report, cpython_reports):
    """How the first mutant fails the whole suite (its fingerprint, checker/diagnosis.py) is the same in the
    browser: a learner's failing check there is compared with fingerprints recorded on CPython at build time."""
    for report in cpython_reports:
        theirs = pyodide_report["prints"][report.slug]
        if not report.prints:
            continue  # an exercise without mutants
        first = min(report.prints)
        assert theirs.get(first) == report.prints[first], f"{report.slug} {first}: pyodide {theirs.get(first)}"


def test_the_browser_factor_is_measured(pyodide_report, cpython_reports, capsys):
    """Pyodide's suite time over CPython's, per exercise; validation uses the largest among the suites of 50 ms or
    more (validate.FACTOR_MIN_MS). The bounds only catch a
    timing that is wrong (a zero, a unit mix-up): suites that are mostly numpy calls run at nearly the same speed
    in both, pure-Python loops 2-3x slower in WebAssembly."""
    data = validate.write_factor({r.slug: r.suite_ms for r in cpython_reports}, pyodide_report["suite_ms"])
    with capsys.disabled():  # shown even under -q: authors want to see what their time budgets now assume
        print(f"\nbrowser factor {data['factor']:.2f}x (largest: {data['worst']}), written to "
              f"{validate.FACTOR_FILE.relative_to(REPO)}")
        for slug, row in data["exercises"].items():
            print(f"  {slug}: CPython {row['cpython_ms']:.0f} ms, Pyodide {row['pyodide_ms']:.0f} ms, "
                  f"x{row['ratio']:.2f}")
    assert set(data["exercises"]) == {r.slug for r in cpython_reports}
    assert all(0.5 < row["ratio"] < 10 for row in data["exercises"].values()), data["exercises"]
    assert validate.browser_factor().value == data["factor"]


def test_suite_times_reports_each_exercise():
    """`make suite-times`: the authors' view of how long learners wait for a suite in Pyodide (on two exercises
    taken from the manifests, in an order of our choosing, so nothing here names the course's content)."""
    exercises = sorted(manifest.load_all().values(), key=lambda e: e.slug, reverse=True)[:2]
    proc = subprocess.run(["node", str(REPO / "tools" / "suite_times.mjs"), *[e.slug for e in exercises]],
                          capture_output=True, text=True, timeout=600, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    assert [line.split(":", 1)[0] for line in lines] == [e.slug for e in exercises]
    for line, ex in zip(lines, exercises):
        assert " warm suite " in line, line
        slowest = line.split("slowest: ", 1)[1].split()[0].rstrip(",")
        assert slowest in ex.test_names(), line


def test_the_fixture_course_validates_alike_in_pyodide():
    """The platform's fixture course, validated in full in the browser's runtime (every mutant's whole suite),
    gives CPython's verdicts and fingerprints: the machinery's parity, at a cost that does not grow with the
    course. A wasm32 difference such as numpy's 32-bit intp shows here first."""
    root = REPO / "tests" / "fixtures" / "course" / "exercises"
    report = in_pyodide([], {"TL_ROOT": "tests/fixtures/course/exercises"}, 600)
    assert report["errors"] == []
    cpython, errors = validate.validate_all(root=root, runs=1)
    assert errors == []
    assert set(report["outcomes"]) == {r.slug for r in cpython}
    for r in cpython:
        corpus = ("prompt:", "alternative:", "injected:", "careful:")
        outcomes = {k: v for k, v in r.outcomes.items() if not k.startswith(corpus)}
        theirs = {k: v for k, v in report["outcomes"][r.slug].items() if k in outcomes}
        assert theirs == outcomes, r.slug
        assert report["prints"][r.slug] == r.prints, r.slug
