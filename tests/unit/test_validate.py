"""Unit tests of authoring/validate.py: the problems validation finds, each as one line at the right place.

Every exercise here is a copy of the fixture course (tests/fixtures/course/exercises) in tmp_path with a planted
mistake, so each test shows which mistake gives which line; expected line numbers are found in the edited files
by their text. Tests that go through `validate_all` run the reference in fresh processes, as `make validate`
does; those that call `validate()` run one pass in this process.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from authoring import validate
from course import known  # noqa: E402
from course import manifest  # noqa: E402
from course.manifest import ManifestError, rel  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "course" / "exercises"
LESSON = FIXTURES / "t1-2"
TESTS_FILE = "tests/test_stats.py"
REFERENCE = (LESSON / "reference.py").read_text(encoding="utf-8")


def copy_fixture(root: Path, source: str = "t1-2", slug: str | None = None, ident: str | None = None) -> Path:
    """A copy of a fixture exercise under `root` (renamed to `slug`/`ident` when given)."""
    folder = root / (slug or source)
    shutil.copytree(FIXTURES / source, folder, ignore=shutil.ignore_patterns("__pycache__"))
    if ident:
        edit(folder / "exercise.toml", f'id = "{manifest.load(FIXTURES / source).id}"', f'id = "{ident}"')
    return folder


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"fixture edit: {old!r} occurs {text.count(old)} times in {path.name}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def line_of(path: Path, needle: str) -> int:
    """The one line of `path` that contains `needle`."""
    found = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line]
    assert len(found) == 1, f"{needle!r} is on lines {found} of {path.name}"
    return found[0]


def at(path: Path, needle: str) -> str:
    return f"{rel(path)}:{line_of(path, needle)}"


def validate_one(folder: Path) -> validate.Report:
    """One in-process validation pass of the exercise in `folder` (and the others beside it)."""
    exercises = manifest.load_all(folder.parent)
    return validate.validate(exercises[folder.name], exercises)


def write_mutant(path: Path, *finds: str, description: str = "a deliberate mistake") -> manifest.Mutant:
    edits = "".join(f'\n[[edit]]\nfind = {json.dumps(find)}\nreplace = "    pass"\n' for find in finds)
    path.write_text(f'fails = "test_mean_of_example"\ndescription = "{description}"\npitfall = "the mean divides by n"\n'
                    f'{edits}', encoding="utf-8")
    return manifest.load_mutant(path, {"test_mean_of_example"})


def find_lines(path: Path) -> list[int]:
    return [n for n, line in enumerate(path.read_text().splitlines(), 1) if line.startswith("find = ")]


# --- the fixture course itself ---------------------------------------------------------------------------------------

def test_the_fixture_course_validates_cleanly_and_quickly():
    """The fixtures every other test edits: clean as they stand, and each suite well under 0.3 s on CPython."""
    reports, errors = validate.validate_all(root=FIXTURES, runs=2)
    assert errors == []
    assert [r.slug for r in reports] == ["t01-1", "t01-2", "t1-2"], "sorted by slug"
    for r in reports:
        assert set(r.outcomes["reference"].values()) == {"passed"}
        assert set(r.outcomes["starter"].values()) != {"passed"}
        assert len([k for k in r.outcomes if k.startswith("mutant:")]) >= 2
        assert len(r.suite_runs) == 2 and r.suite_ms < 300, (r.slug, r.suite_runs)


def test_the_cache_key_follows_the_judge_and_the_runtimes_releases(tmp_path, monkeypatch):
    """A cached validation is stale once the judge (checker/), numpy, pytest or Python changes: its key hashes
    them all, so a new judge or a new numpy revalidates every exercise."""
    exercises = manifest.load_all(FIXTURES)
    ex = exercises["t01-1"]
    before = known.content_hash(ex, exercises)
    assert known.content_hash(ex, exercises) == before, "the same inputs, the same key"
    monkeypatch.setattr(known, "_versions", lambda: "numpy==0.0 pytest==0.0")
    assert known.content_hash(ex, exercises) != before
    monkeypatch.undo()
    judge_copy = tmp_path / "checker"
    shutil.copytree(Path(known.checker.__file__).parent, judge_copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(known.checker, "__file__", str(judge_copy / "__init__.py"))
    assert known.content_hash(ex, exercises) == before, "a copy of the judge, byte for byte"
    (judge_copy / "judge.py").write_text((judge_copy / "judge.py").read_text() + "\n# changed\n")
    assert known.content_hash(ex, exercises) != before


# --- mutants ---------------------------------------------------------------------------------------------------------

def test_apply_mutant_when_find_does_not_occur(tmp_path):
    path = tmp_path / "absent.toml"
    mutant = write_mutant(path, "    return p / p.sum()", "    return nothing_like_this")
    with pytest.raises(ManifestError) as info:
        validate.apply_mutant(REFERENCE, mutant)
    assert str(info.value) == (f"{rel(path)}:{find_lines(path)[1]}: edit[1].find occurs 0 times in the "
                               "reference (needs exactly 1)")


def test_apply_mutant_when_find_occurs_twice(tmp_path):
    twice = ", dtype=float)\n"
    assert REFERENCE.count(twice) == 2
    path = tmp_path / "twice.toml"
    mutant = write_mutant(path, twice)
    with pytest.raises(ManifestError) as info:
        validate.apply_mutant(REFERENCE, mutant)
    assert str(info.value) == (f"{rel(path)}:{find_lines(path)[0]}: edit[0].find occurs 2 times in the "
                               "reference (needs exactly 1)")


def test_apply_mutant_applies_every_edit():
    mutant = manifest.load_mutant(LESSON / "mutants" / "normalise-by-max.toml", {"test_normalise_of_example"})
    edited = validate.apply_mutant(REFERENCE, mutant)
    assert edited != REFERENCE
    assert edited == REFERENCE.replace(mutant.edits[0].find, mutant.edits[0].replace)


def test_apply_mutant_line_is_the_find_key_even_when_the_description_says_find(tmp_path):
    path = tmp_path / "wordy.toml"
    path.write_text('description = "does not find = the mean"\nfails = "test_mean_of_example"\npitfall = "p"\n'
                    '[[edit]]\nfind = "    return nothing_like_this"\nreplace = ""\n', encoding="utf-8")
    mutant = manifest.load_mutant(path, {"test_mean_of_example"})
    with pytest.raises(ManifestError) as info:
        validate.apply_mutant(REFERENCE, mutant)
    assert str(info.value).startswith(f"{rel(path)}:5: edit[0]")


@pytest.fixture(scope="module")
def weak_copy(tmp_path_factory):
    """T1.2 with a mutant that changes only a docstring, one whose find is stale, one that does not compile,
    and a wrong prompt answer: four planted problems."""
    folder = copy_fixture(tmp_path_factory.mktemp("weak"))
    for old in (folder / "mutants").glob("*.toml"):
        old.unlink()
    (folder / "mutants" / "docstring-only.toml").write_text(textwrap.dedent('''\
        fails = "test_mean_of_example"
        description = "changes nothing but a docstring"
        pitfall = "a known mistake"

        [[edit]]
        find = """    \\"\\"\\"The arithmetic mean of xs.\\"\\"\\""""
        replace = """    \\"\\"\\"Rewritten docstring, same behaviour.\\"\\"\\""""
    '''), encoding="utf-8")
    (folder / "mutants" / "stale-find.toml").write_text(textwrap.dedent('''\
        fails = "test_mean_of_example"
        description = "written against an older reference"
        pitfall = "a known mistake"

        [[edit]]
        find = "    return float(np.mean(xs))"
        replace = "    return 0.0"
    '''), encoding="utf-8")
    (folder / "mutants" / "broken-syntax.toml").write_text(textwrap.dedent('''\
        fails = "test_normalise_of_example"
        description = "a typo in the edit"
        pitfall = "a known mistake"

        [[edit]]
        find = "    return float(xs.sum() / len(xs))"
        replace = "    return float(xs.sum() / len(xs))"

        [[edit]]
        find = "    return p / p.sum()"
        replace = "    return p / (p.sum()"
    '''), encoding="utf-8")
    edit(folder / "exercise.toml", "answer = 5\n", "answer = 0.6\n")
    return folder, validate_one(folder)


def test_validate_reports_a_surviving_mutant(weak_copy):
    folder, report = weak_copy
    path = folder / "mutants" / "docstring-only.toml"
    survives = [e for e in report.errors if "survives" in e]
    assert survives == [f"{at(path, 'fails = ')}: mutant docstring-only survives: test_mean_of_example "
                        "passes on it (changes nothing but a docstring)"]
    assert report.outcomes["mutant:docstring-only"] == {"test_mean_of_example": "passed"}


def test_validate_reports_a_mutant_that_does_not_apply(weak_copy):
    folder, report = weak_copy
    path = folder / "mutants" / "stale-find.toml"
    assert f"{at(path, 'find = ')}: edit[0].find occurs 0 times in the reference (needs exactly 1)" in report.errors


def test_validate_reports_a_mutant_that_does_not_compile_at_its_replace(weak_copy):
    """The second edit broke it, so the line is the second `replace`; the message quotes the broken line."""
    folder, report = weak_copy
    path = folder / "mutants" / "broken-syntax.toml"
    line = line_of(path, 'replace = "    return p / (p.sum()"')
    broken = REFERENCE.replace("    return p / p.sum()", "    return p / (p.sum()")
    number = broken.splitlines().index("    return p / (p.sum()") + 1
    [error] = [e for e in report.errors if "broken-syntax" in e]
    assert error.startswith(f"{rel(path)}:{line}: mutant broken-syntax does not compile: ")
    assert f" at line {number} of the reference after edit[1]: 'return p / (p.sum()'" in error


def test_validate_reports_a_wrong_prompt_answer_at_its_answer_line(weak_copy):
    folder, report = weak_copy
    toml = folder / "exercise.toml"
    [wrong] = [e for e in report.errors if "prompts[" in e]
    assert wrong == (f"{at(toml, 'answer = 0.6')}: prompts[1].answer: exercise.toml says [0.6] but the reference "
                     "computes mean(XS) = 5.0")


def test_validate_passes_the_reference_and_fails_the_starter(weak_copy):
    _, report = weak_copy
    assert set(report.outcomes["reference"].values()) == {"passed"}
    assert set(report.outcomes["starter"].values()) != {"passed"}
    assert len(report.errors) == 4, report.errors  # the four planted problems, nothing else


# --- the reference failing ---------------------------------------------------------------------------------------------

def test_validate_reports_a_reference_that_fails(tmp_path):
    folder = copy_fixture(tmp_path)
    for old in (folder / "mutants").glob("*.toml"):
        old.unlink()
    reference = folder / "reference.py"
    edit(reference, "    return p / p.sum()\n", "    return p\n")  # an assertion in a test fails
    edit(reference, "    return float(xs.sum() / len(xs))", "    return float(xs.summ() / len(xs))")  # it raises
    report = validate_one(folder)
    assert report.outcomes["reference"]["test_normalise_of_example"] == "failed"
    assert report.outcomes["reference"]["test_mean_of_example"] == "error"

    tests_file = folder / TESTS_FILE
    [failed] = [e for e in report.errors if "fails test_normalise_of_example:" in e]
    assert failed.startswith(f"{at(tests_file, 'assert np.allclose(got, [0.25')}: the reference fails "
                             "test_normalise_of_example: normalise([1, 1, 2]) gave [1.0, 1.0, 2.0]")
    [raised] = [e for e in report.errors if "fails test_mean_of_example:" in e]
    assert raised.startswith(f"{at(reference, '.summ()')}: the reference fails test_mean_of_example: "
                             "AttributeError: ")
    assert all("\n" not in e for e in report.errors)


def test_a_reference_that_raises_at_import_is_one_line_at_its_line(tmp_path):
    folder = copy_fixture(tmp_path)
    reference = folder / "reference.py"
    append(reference, "\nLIMIT = 1 / 0\n")
    report = validate_one(folder)
    assert report.errors == [f"{at(reference, 'LIMIT = 1 / 0')}: the reference does not run: "
                             "ZeroDivisionError: division by zero"]


def test_a_dependency_that_raises_at_import_points_at_the_dependency(tmp_path):
    base = copy_fixture(tmp_path, "t01-1")
    nxt = copy_fixture(tmp_path, "t01-2")
    append(base / "reference.py", "\nraise RuntimeError('half written')\n")
    report = validate_one(nxt)
    assert report.errors == [f"{at(base / 'reference.py', 'half written')}: the reference does not run: "
                             "RuntimeError: half written"]


def test_hidden_tests_that_do_not_start_point_at_the_import(tmp_path):
    folder = copy_fixture(tmp_path)
    tests_file = folder / TESTS_FILE
    edit(tests_file, "from fixture.lessons import stats\n", "from fixture.lessons import stats\n"
         "from fixture.lessons.stats import variance  # noqa: F401\n")
    report = validate_one(folder)
    assert report.errors == [f"{at(tests_file, 'import variance')}: the hidden tests do not start against the "
                             "reference: ImportError: cannot import name 'variance' from 'fixture.lessons.stats' "
                             "(fixture/lessons/stats.py)"]


@pytest.mark.parametrize("file, old, new, role", [
    ("reference.py", "def mean(xs):", "def mean(xs)", "the reference does"),
    ("starter.py", "def mean(xs):", "def mean(xs)", "the starter does"),
    (TESTS_FILE, "def test_mean_of_example():", "def test_mean_of_example()", "the hidden tests do"),
])
def test_a_syntax_error_is_one_line_at_its_line(tmp_path, file, old, new, role):
    folder = copy_fixture(tmp_path)
    edit(folder / file, old, new)
    report = validate_one(folder)
    assert report.errors == [f"{at(folder / file, new)}: {role} not compile: SyntaxError: expected ':'"]


def test_a_syntax_error_in_prompt_setup_is_at_its_manifest_line(tmp_path):
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    edit(toml, "XS = [2, 4, 9]\n", "XS = [2, 4, 9\n")
    report = validate_one(folder)
    assert report.errors == [f"{at(toml, 'XS = [2, 4, 9')}: prompt_setup does not compile: SyntaxError: "
                             "'[' was never closed"]


def test_a_prompt_expr_that_raises_points_at_expr(tmp_path):
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    edit(toml, 'expr = "mean(XS)"', 'expr = "mean(YS)"')
    report = validate_one(folder)
    assert report.errors == [f"{at(toml, 'mean(YS)')}: prompts[1].expr: 'mean(YS)' raised "
                             "NameError(\"name 'YS' is not defined\")"]


# --- every exercise at once: load errors, unknown ids, order --------------------------------------------------------------

def test_validate_all_reports_broken_manifests_and_validates_the_rest(tmp_path):
    base = copy_fixture(tmp_path, "t01-1")
    copy_fixture(tmp_path, "t01-2")
    copy_fixture(tmp_path)
    edit(base / "exercise.toml", "time_limit = 10", "time_limit = 0")
    reports, errors = validate.validate_all(root=tmp_path, runs=1)
    assert [r.slug for r in reports] == ["t1-2"]
    assert errors == [f"{at(base / 'exercise.toml', 'time_limit = 0')}: time_limit: must be between 0 and 300 "
                      "seconds",
                      f"{at(tmp_path / 't01-2' / 'exercise.toml', 'requires = ')}: requires[0]: T01.1 did not "
                      "load, so T01.2 is not validated either"]


def test_validate_all_with_an_unknown_id():
    reports, errors = validate.validate_all(["Z9.9"], root=FIXTURES)
    assert (reports, errors) == ([], ["unknown exercise 'Z9.9' (known: T01.1, T01.2, T1.2)"])


def test_a_child_that_dies_is_one_line(tmp_path):
    folder = copy_fixture(tmp_path, "t01-1")
    append(folder / "reference.py", "\nimport os\nos._exit(3)\n")
    reports, errors = validate.validate_all(root=tmp_path, runs=2)
    assert errors == [f"{rel(folder)}: validation ended with exit code 3"]


@pytest.mark.skipif(not validate.forkserver.AVAILABLE, reason="needs os.fork")
def test_several_exercises_run_in_children_of_fork_servers(tmp_path, monkeypatch):
    """From two exercises on, every run is a child forked by a fork server, with the same one-line results."""
    folder = copy_fixture(tmp_path, "t01-1")
    copy_fixture(tmp_path)
    append(folder / "reference.py", "\nimport os\nos._exit(3)\n")

    def no_subprocess(*args, **kwargs):
        raise AssertionError("a process was started without a fork server")

    monkeypatch.setattr(validate.subprocess, "run", no_subprocess)
    reports, errors = validate.validate_all(root=tmp_path, runs=2)
    assert errors == [f"{rel(folder)}: validation ended with exit code 3"]
    assert [r.slug for r in reports if not r.errors] == ["t1-2"]


def test_in_pyodide_everything_runs_in_this_process(tmp_path, monkeypatch):
    """Pyodide has no subprocesses: there validate_all must run every job here, one after another."""
    copy_fixture(tmp_path, "t01-1")
    copy_fixture(tmp_path, "t01-2")
    monkeypatch.setattr(validate, "IN_PYODIDE", True)

    def no_subprocess(*args, **kwargs):
        raise AssertionError("a subprocess was started")

    monkeypatch.setattr(validate.subprocess, "run", no_subprocess)
    reports, errors = validate.validate_all(root=tmp_path, runs=2, jobs=2)
    assert errors == []
    assert [(r.slug, len(r.suite_runs)) for r in reports] == [("t01-1", 2), ("t01-2", 2)]


# --- flakiness -------------------------------------------------------------------------------------------------------

FLAKY_RUNS = 21  # a coin-flip test gives the same outcome in all 21 runs with probability 2 * 2**-21 < 1e-6


def test_a_flaky_test_is_found_and_never_cached(tmp_path):
    """An unseeded coin flip among the hidden tests: validation names it at its def, and caches nothing.

    (The cache does work for a clean exercise: test_the_cache_key_covers_the_files_and_the_number_of_runs.)"""
    folder = copy_fixture(tmp_path / "course", "t01-1")  # pure Python: each fresh process starts quickly
    tests_file = folder / "tests" / "test_base.py"
    append(tests_file, "\n\ndef test_unseeded_draw():\n    import random\n"
                       "    assert random.random() < 0.5, 'an unlucky draw'\n")
    append(folder / "exercise.toml", '\n[[tests]]\nname = "test_unseeded_draw"\nkind = "statistical"\n'
                                     'checks = "one draw of the global generator"\nwhy = "a planted mistake"\n')
    cache = tmp_path / "cache"
    reports, errors = validate.validate_all(root=tmp_path / "course", cache=cache, runs=FLAKY_RUNS)
    [flaky] = errors
    found = re.fullmatch(rf"{re.escape(at(tests_file, 'def test_unseeded_draw('))}: test_unseeded_draw is flaky: "
                         rf"it passed (\d+) of {FLAKY_RUNS} runs against the reference; seed every random "
                         r"generator \(np.random.default_rng\(SEED\)\)", flaky)
    assert found, flaky
    assert 0 < int(found.group(1)) < FLAKY_RUNS
    assert len(reports[0].suite_runs) == FLAKY_RUNS
    assert not any("the reference fails" in e for e in errors), "a flaky failure is reported as flaky only"
    assert list(cache.glob("*.ok")) == []


def test_flaky_tests_compares_outcomes_per_test(tmp_path):
    ex = manifest.load(LESSON)
    names = ex.test_names()
    steady = {n: "passed" for n in names}
    runs = [steady, {**steady, names[1]: "failed"}, steady]
    found = validate.flaky_tests(ex, runs)
    assert list(found) == [names[1]]
    assert found[names[1]].startswith(f"{at(LESSON / TESTS_FILE, 'def ' + names[1] + '(')}: {names[1]} is flaky: "
                                      "it passed 2 of 3 runs against the reference")
    assert validate.flaky_tests(ex, [steady, steady]) == {}


# --- the cache -----------------------------------------------------------------------------------------------------

def test_the_cache_key_covers_the_files_and_the_number_of_runs(tmp_path):
    folder = copy_fixture(tmp_path / "course", "t01-1")
    cache = tmp_path / "cache"
    first, _ = validate.validate_all(root=tmp_path / "course", cache=cache, runs=2)
    again, _ = validate.validate_all(root=tmp_path / "course", cache=cache, runs=2)
    more, _ = validate.validate_all(root=tmp_path / "course", cache=cache, runs=3)
    assert [r.cached for r in first + again + more] == [False, True, False]
    assert again[0].outcomes == first[0].outcomes and again[0].suite_runs == first[0].suite_runs
    append(folder / "reference.py", "\n# a comment changes the content\n")
    edited, _ = validate.validate_all(root=tmp_path / "course", cache=cache, runs=2)
    assert edited[0].cached is False


def test_a_failing_result_is_not_cached(tmp_path):
    folder = copy_fixture(tmp_path / "course", "t01-1")
    edit(folder / "reference.py", "    return min(max(x, lo), hi)", "    return x")
    cache = tmp_path / "cache"
    _, errors = validate.validate_all(root=tmp_path / "course", cache=cache, runs=1)
    assert errors and not list(cache.glob("*.ok"))


# --- time budgets --------------------------------------------------------------------------------------------------

def test_budget_arithmetic_and_messages():
    ex = manifest.load(LESSON)  # time_limit = 10
    where = at(LESSON / "exercise.toml", "time_limit = ")
    factor = validate.Factor(2.5, "test")
    assert validate.budget(ex, 1000, factor) == (2.5, "", "")
    estimate, error, warning = validate.budget(ex, 2400, factor)
    assert (estimate, error) == (6.0, "")
    assert warning == (f"warning: {where}: T1.2's suite takes ~6.0 s in the browser, over half its time_limit of "
                       "10 s (2.40 s on CPython × 2.5)")
    estimate, error, warning = validate.budget(ex, 4100, factor)
    assert (estimate, warning) == (pytest.approx(10.25), "")
    assert error == (f"{where}: T1.2's suite takes ~10.2 s in the browser, over its time_limit of 10 s "
                     "(4.10 s on CPython × 2.5)")


def test_the_factor_is_read_from_the_pyodide_tier_or_defaults(tmp_path):
    path = tmp_path / "pyodide-factor.json"
    default = validate.browser_factor(path)
    assert default == validate.Factor(2.5, "default 2.5×: run `make test-pyodide` to measure")
    data = validate.write_factor({"a": 100.0, "b": 200.0, "c": 50.0}, {"a": 210.0, "b": 460.0}, path)
    assert data["factor"] == 2.3 and data["worst"] == "b"
    assert data["exercises"]["a"] == {"cpython_ms": 100.0, "pyodide_ms": 210.0, "ratio": 2.1}
    assert set(data["exercises"]) == {"a", "b"}, "only exercises timed in both runtimes"
    assert validate.browser_factor(path) == validate.Factor(2.3, "measured 2.30× by `make test-pyodide` "
                                                                 "(largest: b)")
    path.write_text("{not json")
    assert validate.browser_factor(path).value == 2.5
    assert "is unreadable" in validate.browser_factor(path).source
    # A suite of a few ms cannot set the factor while a longer one can; alone, it does.
    data = validate.write_factor({"tiny": 6.0, "a": 100.0}, {"tiny": 26.0, "a": 210.0}, path)
    assert (data["factor"], data["worst"]) == (2.1, "a") and data["exercises"]["tiny"]["ratio"] == 4.333
    assert validate.write_factor({"tiny": 6.0}, {"tiny": 26.0}, path)["worst"] == "tiny"


def test_a_slow_suite_warns_over_half_its_limit_and_fails_over_it(tmp_path):
    """A test sleeping 0.3 s, times a measured factor of 10: ~3 s in the browser, against limits of 5 and 2.5 s."""
    course = tmp_path / "course"
    warned = copy_fixture(course, "t01-1", "t01-3", "T01.3")
    failed = copy_fixture(course, "t01-1", "t01-4", "T01.4")
    for folder, limit in ((warned, "5"), (failed, "2.5")):
        edit(folder / "exercise.toml", "time_limit = 10", f"time_limit = {limit}")
        edit(folder / "tests" / "test_base.py", "def test_clamp():\n",
             "def test_clamp():\n    import time\n    time.sleep(0.3)\n")
    factor = tmp_path / "pyodide-factor.json"
    factor.write_text(json.dumps({"factor": 10, "worst": "t01-1", "exercises": {}}))
    cache = tmp_path / "cache"
    reports, errors = validate.validate_all(root=course, runs=2, cache=cache, factor_file=factor)
    first, second = reports
    assert 3.0 <= first.estimate < 5 and 3.0 <= second.estimate < 5, (first.suite_runs, second.suite_runs)
    seconds = f"{second.estimate:.1f}"
    assert errors == [f"{at(failed / 'exercise.toml', 'time_limit = ')}: T01.4's suite takes ~{seconds} s in the "
                      f"browser, over its time_limit of 2.5 s ({second.suite_ms / 1000:.2f} s on CPython × 10)"]
    assert second.warnings == []
    assert first.warnings == [f"warning: {at(warned / 'exercise.toml', 'time_limit = ')}: T01.3's suite takes "
                              f"~{first.estimate:.1f} s in the browser, over half its time_limit of 5 s "
                              f"({first.suite_ms / 1000:.2f} s on CPython × 10)"]
    assert [p.name.rsplit("-", 1)[0] for p in cache.glob("*.ok")] == ["t01-3"], \
        "a warning is cached (and re-checked from the cache), an over-budget result is not"
    again, errors_again = validate.validate_all(root=course, runs=2, cache=cache, factor_file=factor)
    assert again[0].cached and again[0].warnings == first.warnings
    assert not again[1].cached and len(errors_again) == 1


# --- the command line ------------------------------------------------------------------------------------------------

def checker(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "authoring", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, env={**__import__("os").environ, "PYTHONPATH": str(REPO)})


@pytest.mark.parametrize("args", [["--help"], ["validate", "--help"], ["validate", "-h", "E7.3"]])
def test_help_prints_help_and_validates_nothing(args):
    proc = checker(*args, timeout=20)
    assert proc.returncode == 0 and proc.stdout.startswith("usage: python -m authoring")
    assert ": ok" not in proc.stdout and proc.stderr == ""


def test_an_unknown_id_is_one_line_and_exit_2():
    proc = checker("validate", "--root", str(FIXTURES), "T1.2", "Z9.9")
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == "unknown exercise 'Z9.9' (known: T01.1, T01.2, T1.2)\n"


def test_the_command_validates_the_ids_it_is_given():
    proc = checker("validate", "--root", str(FIXTURES), "--runs", "2", "t01-2", "T01.1")
    assert (proc.returncode, proc.stderr) == (0, "")
    lines = proc.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == ["t01-1", "t01-2"]
    assert all(re.search(r": ok \(3 tests, 2 mutants, 2 told apart; reference suite \d+ ms \(median of 2 runs\), .*; ~\d+ ms "
                         r"in the browser\)$", line) for line in lines[:2]), lines
    assert lines[2].startswith("browser time = CPython suite time × ")


def test_one_exercise_shares_its_mutants_over_the_cores_with_the_same_verdicts(weak_copy, monkeypatch, tmp_path):
    """Alone on two cores, an exercise's mutants run in two jobs; the report is the one a single job gives."""
    folder = tmp_path / weak_copy[0].name
    shutil.copytree(weak_copy[0], folder)
    kinds = []

    def here(tasks, jobs, servers=0):  # the jobs in this process, so that the split can be seen
        return [kinds.append((spec["kind"], spec.get("mutants"))) or validate._job(spec) for spec, _, _ in tasks]

    monkeypatch.setattr(validate, "_execute", here)
    monkeypatch.setattr(validate, "SHARE_FROM", 10**6)
    (whole,), whole_errors = validate.validate_all(root=tmp_path, jobs=2, runs=1)
    assert kinds == [("full", None)]
    kinds.clear()
    monkeypatch.setattr(validate, "SHARE_FROM", 2)
    (shared,), shared_errors = validate.validate_all(root=tmp_path, jobs=2, runs=1)
    assert [k for k, _ in kinds] == ["full", "mutants"]
    assert sorted(kinds[0][1] + kinds[1][1]) == sorted(m.stem for m in (folder / "mutants").glob("*.toml"))
    assert shared.outcomes == whole.outcomes
    assert sorted(shared_errors) == sorted(whole_errors) and any("survives" in e for e in shared_errors)


def test_a_test_that_holds_only_in_one_interpreter_is_named(tmp_path):
    """One reference run of every validation is on the separated path (the class view's): a hidden test whose
    meaning does not survive the boundary (here, it asks for the learner's function object itself) is an error at
    its def, not a flaky test."""
    folder = copy_fixture(tmp_path / "course", "t01-1")
    tests_file = folder / "tests" / "test_base.py"
    append(tests_file, "\n\ndef test_total_is_a_function():\n    import types\n"
                       "    assert isinstance(base.total, types.FunctionType), 'total should be a function'\n")
    append(folder / "exercise.toml", '\n[[tests]]\nname = "test_total_is_a_function"\nkind = "unit"\n'
                                     'checks = "the object itself"\nwhy = "a planted mistake"\n')
    _reports, errors = validate.validate_all(root=tmp_path / "course", runs=2)
    [error] = errors
    assert error.startswith(f"{at(tests_file, 'def test_total_is_a_function(')}: test_total_is_a_function failed "
                            "against the reference with its code in an interpreter of its own"), error
    assert "total should be a function" in error and "flaky" not in error


def test_a_mutant_a_time_limit_ends_is_run_twice_named_and_validated_again(tmp_path):
    """A mutant whose test never returns has no fingerprint (checker/diagnosis.py): validation runs it twice (the
    first time limit may be the machine's load), then warns at the mutant, naming the test the limit ended; the
    cache keeps the others' fingerprints for the build, and the next validation runs the exercise again."""
    folder = copy_fixture(tmp_path / "course", "t01-1")
    edit(folder / "exercise.toml", "time_limit = 10", "time_limit = 1")
    path = folder / "mutants" / "clamp-swapped.toml"
    edit(path, 'replace = "    return max(min(x, lo), hi)"', 'replace = "    while True:\\n        pass"')
    cache = tmp_path / "cache"
    start = time.monotonic()
    [report], errors = validate.validate_all(root=tmp_path / "course", cache=cache, runs=1, jobs=1)
    assert time.monotonic() - start >= 2, "the time limit of 1 s ended the mutant's test twice"
    assert errors == []
    assert report.prints["clamp-swapped"] is None and report.prints["total-by-fsum"]
    assert [w for w in report.warnings if "cannot be diagnosed" in w] == [
        f"warning: {rel(path)}:1: mutant clamp-swapped cannot be diagnosed (a time limit ended test_clamp, run "
        f"twice); learners making this mistake are not told"]
    [stamp] = cache.glob("*.ok")
    assert json.loads(stamp.read_text(encoding="utf-8"))["prints"]["clamp-swapped"] is None
    [again], _ = validate.validate_all(root=tmp_path / "course", cache=cache, runs=1, jobs=1)
    assert again.cached is False and again.prints["clamp-swapped"] is None
