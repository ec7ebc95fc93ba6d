"""`ol` end to end: every command runs as a subprocess in a temporary folder, as a learner would run it.

Two exercise roots (through TL_EXERCISES): a copy of the fixture course's lesson T1.2
(tests/fixtures/course), so starter, reference and mutants are an exercise's own; and two tiny exercises
T1.1 <- T1.2 with a one-second time limit, for dependency gating and for code that never ends, so those tests take
seconds rather than a real time limit per test.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from course import known, manifest  # noqa: E402
from authoring.validate import apply_mutant  # noqa: E402

LESSON_FILE = "python/fixture/lessons/stats.py"
FIXTURE = REPO / "tests" / "fixtures" / "course" / "exercises"
BASE_FILE = "python/toy/base.py"
QUAD_FILE = "python/toy/quad.py"

TOY = {
    "t1-1/exercise.toml": """
        id = "T1.1"
        title = "Doubling"
        kind = "lesson"
        page = "toy/doubling.md"
        time_limit = 1

        [code]
        path = "python/toy/base.py"

        [[tests]]
        name = "test_double"
        kind = "unit"
        checks = "double(3) is 6"
        why = "the basics"

        [[tests]]
        name = "test_double_negative"
        kind = "unit"
        checks = "double(-2) is -4"
        why = "signs matter"
        """,
    "t1-1/starter.py": "def double(x):\n    pass\n",
    "t1-1/reference.py": "def double(x):\n    return 2 * x\n",
    "t1-1/tests/test_t1_1.py": """
        from toy.base import double


        def test_double():
            assert double(3) == 6, f"double(3) should be 6, got {double(3)}"


        def test_double_negative():
            assert double(-2) == -4, f"double(-2) should be -4, got {double(-2)}"
        """,
    "t1-1/mutants/positive-only.toml": """
        fails = "test_double_negative"
        description = "only doubles positive numbers"
        pitfall = "a negative number is doubled too"

        [[edit]]
        find = "return 2 * x"
        replace = "return 2 * x if x > 0 else x"
        """,
    "t1-2/exercise.toml": """
        id = "T1.2"
        title = "Quadrupling"
        kind = "module"
        page = "toy/quadrupling.md"
        requires = ["T1.1"]
        time_limit = 1

        [code]
        path = "python/toy/quad.py"

        [[tests]]
        name = "test_quadruple"
        kind = "unit"
        checks = "quadruple(5) is 20"
        why = "built on double"
        """,
    "t1-2/starter.py": "from toy.base import double\n\n\ndef quadruple(x):\n    pass\n",
    "t1-2/reference.py": "from toy.base import double\n\n\ndef quadruple(x):\n    return double(double(x))\n",
    "t1-2/tests/test_t1_2.py": """
        from toy.quad import quadruple


        def test_quadruple():
            assert quadruple(5) == 20, f"quadruple(5) should be 20, got {quadruple(5)}"
        """,
}


@pytest.fixture(scope="session")
def lesson_root(tmp_path_factory) -> Path:
    """A copy of the fixture lesson T1.2 alone."""
    root = tmp_path_factory.mktemp("lesson-exercises")
    shutil.copytree(FIXTURE / "t1-2", root / "t1-2", ignore=shutil.ignore_patterns("__pycache__"))
    return root


@pytest.fixture(scope="session")
def toy_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("toy-exercises")
    for rel, text in TOY.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return root


def ol(root: Path, cwd: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run `python -m ol ARGS` in `cwd` against the exercises in `root`."""
    env = {**os.environ, "TL_EXERCISES": str(root), "PYTHONPATH": str(REPO), "COLUMNS": "100"}
    env.pop("OL_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "ol", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def no_traceback_from_ol(run: subprocess.CompletedProcess) -> None:
    both = run.stdout + run.stderr
    assert "checker/" not in both and "site-packages" not in both, both


def flat(text: str) -> str:
    """`text` with every run of whitespace as one space: messages are wrapped to the terminal's width."""
    return " ".join(text.split())


def write(folder: Path, rel: str, text: str) -> None:
    path = folder / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")


# ---- start, tests, help -------------------------------------------------------------------------------------------

def test_start_writes_the_starter_and_never_overwrites_without_force(lesson_root, tmp_path):
    run = ol(lesson_root, tmp_path, "start", "t1.2")
    assert run.returncode == 0, run.stderr
    target = tmp_path / LESSON_FILE
    assert target.read_bytes() == (lesson_root / "t1-2" / "starter.py").read_bytes()
    assert LESSON_FILE in run.stdout

    target.write_text("# my work\n", encoding="utf-8")
    refused = ol(lesson_root, tmp_path, "start", "T1-2")
    assert refused.returncode != 0
    assert "--force" in refused.stderr and "never overwrites" in flat(refused.stderr)
    assert target.read_text(encoding="utf-8") == "# my work\n"

    forced = ol(lesson_root, tmp_path, "start", "T1.2", "--force")
    assert forced.returncode == 0, forced.stderr
    backups = list((tmp_path / ".ol" / "backups").rglob("stats.py"))
    assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == "# my work\n"
    assert str(backups[0].relative_to(tmp_path)) in forced.stdout.replace("\n", "")
    assert target.read_bytes() == (lesson_root / "t1-2" / "starter.py").read_bytes()


def test_start_into_dir_and_from_a_subfolder(toy_root, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    assert ol(toy_root, tmp_path, "start", "t1.1", "--dir", str(work)).returncode == 0
    assert (work / BASE_FILE).exists()
    # from deep inside the working folder, ol finds it through .ol/ like git finds .git/
    listed = ol(toy_root, work / "python" / "toy", "list")
    assert "T1.1" in listed.stdout and "started" in listed.stdout


def test_tests_prints_the_catalogue(lesson_root, tmp_path):
    run = ol(lesson_root, tmp_path, "tests", "T1.2")
    assert run.returncode == 0, run.stderr
    ex = manifest.load(lesson_root / "t1-2")
    for entry in ex.catalogue:
        assert entry.name in run.stdout and f"[{entry.kind}]" in run.stdout
    assert "why:" in run.stdout and "checks:" in run.stdout
    assert max(len(line) for line in run.stdout.splitlines()) <= 100


def test_help_everywhere_and_unknown_id(toy_root, tmp_path):
    for args in ([], ["start"], ["tests"], ["check"], ["diff"], ["list"]):
        run = ol(toy_root, tmp_path, *args, "--help")
        assert run.returncode == 0 and "usage: ol" in run.stdout, args
    unknown = ol(toy_root, tmp_path, "check", "Z9.9")
    assert unknown.returncode == 2
    assert "no exercise 'Z9.9'" in unknown.stderr and "T1.1" in unknown.stderr
    no_traceback_from_ol(unknown)
    missing = ol(toy_root, tmp_path, "check", "T1.1")
    assert missing.returncode == 2 and "ol start T1.1" in missing.stderr
    no_traceback_from_ol(missing)


# ---- check on the fixture lesson T1.2 -------------------------------------------------------------------------------------

def test_check_starter_fails_then_reference_passes_then_diff(lesson_root, tmp_path):
    assert ol(lesson_root, tmp_path, "start", "T1.2").returncode == 0
    before = ol(lesson_root, tmp_path, "diff", "T1.2")
    assert before.returncode == 1 and "only after" in flat(before.stderr) and before.stdout == ""

    starter = ol(lesson_root, tmp_path, "check", "T1.2")
    assert starter.returncode == 1
    assert "FAILED  test_normalise_of_example" in starter.stdout
    assert "not passed yet" in flat(starter.stdout)
    recorded = json.loads((tmp_path / ".ol" / "progress.json").read_text(encoding="utf-8"))
    assert recorded["passed"] == {} and recorded["help"] == {"T1.2": {"hints": 0, "failed": 1}}

    reference = (lesson_root / "t1-2" / "reference.py").read_text(encoding="utf-8")
    (tmp_path / LESSON_FILE).write_text(reference.replace('"""Fixture', '"""Mine. Fixture', 1), encoding="utf-8")
    passed = ol(lesson_root, tmp_path, "check", "t1-2")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    total = len(manifest.load(lesson_root / "t1-2").catalogue)
    assert passed.stdout.count("passed  test_") == total and f"all {total} tests passed" in passed.stdout
    assert '"T1.2"' in (tmp_path / ".ol" / "progress.json").read_text(encoding="utf-8")

    diff = ol(lesson_root, tmp_path, "diff", "T1.2")
    assert diff.returncode == 0
    assert f"--- yours/{LESSON_FILE}" in diff.stdout and '+"""Fixture' in diff.stdout and '-"""Mine.' in diff.stdout

    with open(tmp_path / LESSON_FILE, "a", encoding="utf-8") as f:
        f.write("# later edit\n")
    changed = ol(lesson_root, tmp_path, "diff", "T1.2")
    assert changed.returncode == 0 and "changed since it passed" in flat(changed.stderr)
    assert "changed since pass" in ol(lesson_root, tmp_path, "list").stdout


def test_check_mutant_fails_its_named_test(lesson_root, tmp_path):
    ex = manifest.load(lesson_root / "t1-2")
    mutant = next(m for m in ex.mutants if m.name == "normalise-by-max")
    write(tmp_path, LESSON_FILE, apply_mutant(ex.reference.read_text(encoding="utf-8"), mutant))
    run = ol(lesson_root, tmp_path, "check", "T1.2")
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    assert f"  FAILED  {mutant.fails}" in lines
    assert "  passed  test_mean_of_example" in lines


def test_check_syntax_error_shows_only_the_learners_lines(toy_root, tmp_path):
    write(tmp_path, BASE_FILE, "def double(x):\n    return [2 * x\n")
    run = ol(toy_root, tmp_path, "check", "T1.1")
    assert run.returncode == 1
    assert f'File "{BASE_FILE}", line 2' in run.stdout and "SyntaxError" in run.stdout
    assert "did not run" in run.stdout
    no_traceback_from_ol(run)


def test_check_exception_at_import(toy_root, tmp_path):
    write(tmp_path, BASE_FILE, """\
        def helper():
            return {}["missing"]

        print("hello from import")
        VALUE = helper()
        """)
    run = ol(toy_root, tmp_path, "check", "T1.1")
    assert run.returncode == 1
    assert f'File "{BASE_FILE}", line 2, in helper' in run.stdout and "KeyError: 'missing'" in run.stdout
    assert "hello from import" in run.stdout
    no_traceback_from_ol(run)


# ---- code that never ends ---------------------------------------------------------------------------------------

LOOP_IN_FUNCTION = """\
    def double(x):
        while True:
            pass
    """
LOOP_AT_IMPORT = """\
    while True:
        pass
    """
# Catches the judge's own stop signal and keeps going: only killing the process ends it. (`while True: pass`
# inside the try would not do: CPython 3.11 lets the signal's exception escape that one-instruction loop.)
STUBBORN_IN_FUNCTION = """\
    def double(x):
        n = 0
        while True:
            try:
                while True:
                    n += 1
            except BaseException:
                pass
    """
STUBBORN_AT_IMPORT = STUBBORN_IN_FUNCTION + "double(1)\n"  # after the closing quotes' indent


@pytest.mark.parametrize("source, expect", [
    (LOOP_IN_FUNCTION, ["ERROR test_double stopped after 1 s", "stopped after 1 s: an infinite loop"]),
    (LOOP_AT_IMPORT, ["stopped after 1 s while importing", f'File "{BASE_FILE}", line 1, in <module>']),
    (STUBBORN_IN_FUNCTION, ["in test_double: it ran past the 1 s limit", "could not be interrupted"]),
    (STUBBORN_AT_IMPORT, ["while importing", "could not be interrupted"]),
], ids=["loop-in-function", "loop-at-import", "stubborn-in-function", "stubborn-at-import"])
def test_check_stops_code_that_never_ends(toy_root, tmp_path, source, expect):
    write(tmp_path, BASE_FILE, source)
    start = time.monotonic()
    run = ol(toy_root, tmp_path, "check", "T1.1", timeout=30)
    elapsed = time.monotonic() - start
    assert run.returncode == 1, run.stdout + run.stderr
    for text in expect:
        assert text in flat(run.stdout), run.stdout
    assert elapsed < 15, f"took {elapsed:.1f} s"
    no_traceback_from_ol(run)


# ---- dependencies -----------------------------------------------------------------------------------------------

def test_dependency_gating_and_ref_deps(toy_root, tmp_path):
    reference_quad = (toy_root / "t1-2" / "reference.py").read_text(encoding="utf-8")
    write(tmp_path, QUAD_FILE, reference_quad)
    gated = ol(toy_root, tmp_path, "check", "T1.2")
    assert gated.returncode == 1
    assert "T1.2 needs T1.1" in gated.stderr and "--ref-deps" in gated.stderr and gated.stdout == ""

    with_refs = ol(toy_root, tmp_path, "check", "T1.2", "--ref-deps")
    assert with_refs.returncode == 0, with_refs.stdout + with_refs.stderr

    # once the learner's own T1.1 has passed, T1.2 is checked with it
    write(tmp_path, BASE_FILE, "def double(x):\n    return x + x\n")
    assert ol(toy_root, tmp_path, "check", "T1.1").returncode == 0
    assert ol(toy_root, tmp_path, "check", "T1.2").returncode == 0

    # edited after its pass: T1.1 no longer counts until it is checked again
    write(tmp_path, BASE_FILE, "def double(x):\n    return x + x + 0\n")
    regated = ol(toy_root, tmp_path, "check", "T1.2")
    assert regated.returncode == 1 and "T1.2 needs T1.1" in regated.stderr and "changed" in flat(regated.stderr)


def test_ref_deps_substitutes_the_reference_not_the_learners_file(toy_root, tmp_path):
    # The learner's T1.1 carries a marker the reference lacks; this quadruple reads it, so the verdict tells
    # which T1.1 the check imported.
    write(tmp_path, BASE_FILE, "def double(x):\n    return 2 * x\nMINE = True\n")
    assert ol(toy_root, tmp_path, "check", "T1.1").returncode == 0
    write(tmp_path, QUAD_FILE, """\
        import toy.base

        def quadruple(x):
            return 20 if getattr(toy.base, "MINE", False) else -1
        """)
    assert ol(toy_root, tmp_path, "check", "T1.2").returncode == 0
    assert ol(toy_root, tmp_path, "check", "T1.2", "--ref-deps").returncode == 1


def test_list_shows_every_status(toy_root, tmp_path):
    fresh = ol(toy_root, tmp_path, "list")
    assert fresh.returncode == 0
    rows = {line.split()[0]: line for line in fresh.stdout.splitlines() if line.startswith("T1.")}
    assert "not started" in rows["T1.1"] and "lesson" in rows["T1.1"]
    assert "not started" in rows["T1.2"] and "module" in rows["T1.2"] and "T1.1" in rows["T1.2"].split("module")[1]

    write(tmp_path, BASE_FILE, "def double(x):\n    return 2 * x\n")
    assert ol(toy_root, tmp_path, "check", "T1.1").returncode == 0
    ol(toy_root, tmp_path, "start", "T1.2")
    rows = {line.split()[0]: line for line in ol(toy_root, tmp_path, "list").stdout.splitlines()
            if line.startswith("T1.")}
    assert "passed" in rows["T1.1"] and "started" in rows["T1.2"]


def test_check_error_inside_a_test_names_the_learners_line(toy_root, tmp_path):
    write(tmp_path, BASE_FILE, "def double(x):\n    return {}[x]\n")
    run = ol(toy_root, tmp_path, "check", "T1.1")
    assert run.returncode == 1
    assert f"ERROR test_double KeyError: 3 (line 2 of {BASE_FILE}, in double)" in flat(run.stdout), run.stdout
    no_traceback_from_ol(run)


def test_broken_progress_file_is_named_not_a_traceback(toy_root, tmp_path):
    write(tmp_path, ".ol/progress.json", "{not json")
    run = ol(toy_root, tmp_path, "list")
    assert run.returncode == 2
    assert ".ol/progress.json" in run.stderr and "delete" in run.stderr
    no_traceback_from_ol(run)


# ---- export and import: one progress between the terminal and the browser ------------------------------------------

def test_start_creates_the_package_files_without_touching_existing_ones(lesson_root, tmp_path):
    (tmp_path / "python" / "fixture").mkdir(parents=True)
    (tmp_path / "python" / "fixture" / "__init__.py").write_text("# mine\n", encoding="utf-8")
    assert ol(lesson_root, tmp_path, "start", "T1.2").returncode == 0
    assert (tmp_path / "python" / "fixture" / "__init__.py").read_text(encoding="utf-8") == "# mine\n"
    assert (tmp_path / "python" / "fixture" / "lessons" / "__init__.py").read_text(encoding="utf-8") == ""


def export_of(root: Path, folder: Path, name: str = "progress.json") -> dict:
    run = ol(root, folder, "export", name)
    assert run.returncode == 0, run.stdout + run.stderr
    return json.loads((folder / name).read_text(encoding="utf-8"))


def test_export_holds_code_and_passes_in_the_sites_format(toy_root, tmp_path):
    write(tmp_path, BASE_FILE, "def double(x):\n    return 2 * x\n")
    assert ol(toy_root, tmp_path, "check", "T1.1").returncode == 0
    write(tmp_path, QUAD_FILE, "from toy.base import double\n\ndef quadruple(x):\n    return x\n")
    dump = export_of(toy_root, tmp_path)
    assert (dump["format"], dump["version"], dump["origin"], dump["course"]) == (
        "tinyllm-progress", "v1", "ol", "tinyllm")
    assert dump["data"]["code:t1-1"]["code"] == "def double(x):\n    return 2 * x\n"
    assert dump["data"]["elsewhere:t1-1"]["status"] == "passed" and dump["data"]["elsewhere:t1-1"]["by"] == "ol"
    assert "code:t1-2" in dump["data"] and "elsewhere:t1-2" not in dump["data"]  # written, never passed
    refused = ol(toy_root, tmp_path, "export", "progress.json")
    assert refused.returncode == 1 and "--force" in refused.stderr
    assert ol(toy_root, tmp_path, "export", "progress.json", "--force").returncode == 0


def test_import_writes_the_code_and_counts_nothing_as_passed(toy_root, tmp_path):
    source, target = tmp_path / "a", tmp_path / "b"
    write(source, BASE_FILE, "def double(x):\n    return 2 * x\n")
    assert ol(toy_root, source, "check", "T1.1").returncode == 0
    dump = export_of(toy_root, source)
    dump["data"]["prompt:t1-1/guess"] = {"verdict": "correct", "value": "6"}
    (tmp_path / "browser.json").write_text(json.dumps(dump), encoding="utf-8")
    target.mkdir()
    run = ol(toy_root, target, "import", str(tmp_path / "browser.json"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert (target / BASE_FILE).read_text(encoding="utf-8") == "def double(x):\n    return 2 * x\n"
    assert "`ol check T1.1`" in run.stdout.replace("\n", " ")
    assert "T1.1" in ol(toy_root, target, "list").stdout and not (target / ".ol" / "progress.json").exists()
    assert "started" in [line.split()[2] for line in ol(toy_root, target, "list").stdout.splitlines()
                         if line.startswith("T1.1")]
    assert ol(toy_root, target, "check", "T1.1").returncode == 0
    # what ol does not use itself (an answer) comes back out in the next export
    assert export_of(toy_root, target)["data"]["prompt:t1-1/guess"] == {"verdict": "correct", "value": "6"}


def test_import_never_overwrites_different_work_without_force(toy_root, tmp_path):
    write(tmp_path, BASE_FILE, "def double(x):\n    return x + x  # mine\n")
    theirs = {"format": "tinyllm-progress", "version": "v1", "data": {
        "code:t1-1": {"code": "def double(x):\n    return 2 * x\n", "at": 1}}}
    (tmp_path / "in.json").write_text(json.dumps(theirs), encoding="utf-8")
    refused = ol(toy_root, tmp_path, "import", "in.json")
    assert refused.returncode == 1 and "--force" in refused.stderr and "nothing was imported" in flat(refused.stderr)
    assert "# mine" in (tmp_path / BASE_FILE).read_text(encoding="utf-8")
    forced = ol(toy_root, tmp_path, "import", "in.json", "--force")
    assert forced.returncode == 0, forced.stderr
    assert (tmp_path / BASE_FILE).read_text(encoding="utf-8") == "def double(x):\n    return 2 * x\n"
    kept = list((tmp_path / ".ol" / "backups").rglob("base.py"))
    assert len(kept) == 1 and "# mine" in kept[0].read_text(encoding="utf-8")


@pytest.mark.parametrize("content, words", [
    ("", "the file is empty"),
    ('{"format": "tinyllm-progress", "version": "v1", "data": {"code:t1-1": {"code": "x"', "ends in the middle"),
    ("not json at all", "not valid JSON"),
    ('{"format": "something-else", "data": {}}', "not a tinyllm progress file"),
    ('{"format": "tinyllm-progress", "version": "v9", "data": {}}', "format 'v9', and this reads 'v1'; update"),
    ('{"format": "tinyllm-progress", "version": "v1", "course": "othercourse", "data": {}}',
     "from the course 'othercourse'"),
    ('{"format": "tinyllm-progress", "version": "v1", "data": {"code:t1-1": 42}}', "holds no code"),
])
def test_a_bad_progress_file_is_one_message_and_changes_nothing(toy_root, tmp_path, content, words):
    write(tmp_path, BASE_FILE, "# mine\n")
    (tmp_path / "in.json").write_text(content, encoding="utf-8")
    run = ol(toy_root, tmp_path, "import", "in.json", "--force")
    assert run.returncode == 2 and words in flat(run.stderr), run.stderr
    assert "nothing was imported" in flat(run.stderr)
    no_traceback_from_ol(run)
    assert (tmp_path / BASE_FILE).read_text(encoding="utf-8") == "# mine\n"


def test_code_for_an_exercise_that_no_longer_exists_is_skipped_with_a_note(toy_root, tmp_path):
    dump = {"format": "tinyllm-progress", "version": "v1", "data": {
        "code:t9-9": {"code": "x = 1\n"}, "code:t1-1": {"code": "def double(x):\n    return 2 * x\n"}}}
    (tmp_path / "in.json").write_text(json.dumps(dump), encoding="utf-8")
    run = ol(toy_root, tmp_path, "import", "in.json")
    assert run.returncode == 0
    assert "skipped the code of t9-9" in flat(run.stderr) and (tmp_path / BASE_FILE).is_file()


def test_a_check_never_draws_whatever_backend_the_shell_names(monkeypatch, tmp_path):
    from ol import checkrun
    monkeypatch.setenv("MPLBACKEND", "TkAgg")
    assert checkrun._child_env(tmp_path / "phase")["MPLBACKEND"] == "Agg"


# ---- help when stuck: the known mistake, hints, the reference on the author's terms --------------------------------

@pytest.fixture(scope="session")
def help_root(tmp_path_factory) -> Path:
    """The toy T1.1 with two hints, the reference allowed after 2 failed checks, and its known mistakes as the
    wheel carries them (mistakes.json, from a validation of the mutant)."""
    from authoring import validate

    root = tmp_path_factory.mktemp("help-exercises")
    for rel, text in TOY.items():
        if rel.startswith("t1-1/"):
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    manifest_file = root / "t1-1" / "exercise.toml"
    text = manifest_file.read_text(encoding="utf-8").replace("time_limit = 1\n", "time_limit = 1\n"
                                                             "reveal = { after-attempts = 2 }\n")
    manifest_file.write_text(text + '\n[[hints]]\ntext = "Try a negative number, say $x \\\\le 0$."\n'
                             '\n[[hints]]\ntext = "Doubling is\\n`2 * x` for every x."\n', encoding="utf-8")
    (report,), errors = validate.validate_all(root=root, runs=1, jobs=1)
    assert errors == []
    ex = manifest.load(root / "t1-1")
    (root / "t1-1" / "mistakes.json").write_text(json.dumps(known.from_prints(ex, report.prints)))
    return root


def test_check_names_the_known_mistake_its_failure_looks_like(help_root, tmp_path):
    assert ol(help_root, tmp_path, "start", "T1.1").returncode == 0
    # The mutant's mistake, written another way: the messages quote other values, the failure is the same.
    (tmp_path / BASE_FILE).write_text("def double(x):\n    if x <= 0:\n        return x\n    return x + x\n")
    run = ol(help_root, tmp_path, "check", "T1.1")
    assert run.returncode == 1
    said = flat(run.stdout)
    assert "This looks like a known mistake: - a negative number is doubled too" in said
    assert said.index("test_double_negative") < said.index("known mistake") < said.index("not passed yet")
    assert ol(help_root, tmp_path, "diagnoses", "off").returncode == 0
    assert "known mistake" not in ol(help_root, tmp_path, "check", "T1.1").stdout
    assert ol(help_root, tmp_path, "diagnoses", "on").returncode == 0
    assert "known mistake" in ol(help_root, tmp_path, "check", "T1.1").stdout
    (tmp_path / BASE_FILE).write_text("def double(x):\n    return 3 * x\n")  # a bug no mutant encodes
    assert "known mistake" not in ol(help_root, tmp_path, "check", "T1.1").stdout
    (tmp_path / BASE_FILE).write_text("def double(x):\n    return x / 0\n")  # every test errors alike
    assert "known mistake" not in ol(help_root, tmp_path, "check", "T1.1").stdout


def test_hints_then_the_reference_after_attempts_recorded_and_carried_by_export(help_root, tmp_path):
    assert ol(help_root, tmp_path, "start", "T1.1").returncode == 0
    early = ol(help_root, tmp_path, "hint", "T1.1")
    assert early.returncode == 1 and "once a check has failed" in flat(early.stderr)
    assert ol(help_root, tmp_path, "check", "T1.1").returncode == 1  # the starter
    first = ol(help_root, tmp_path, "hint", "T1.1")
    assert first.returncode == 0 and "hint 1 of 2: Try a negative number, say x ≤ 0." in flat(first.stdout)
    refused = ol(help_root, tmp_path, "diff", "T1.1", "--yes")
    assert refused.returncode == 1
    assert "after 2 failed checks (1 so far) and every hint (1 of 2 so far" in flat(refused.stderr)
    assert "Doubling is `2 * x` for every x." in flat(ol(help_root, tmp_path, "hint", "T1.1").stdout)
    assert ol(help_root, tmp_path, "check", "T1.1").returncode == 1
    asked = ol(help_root, tmp_path, "diff", "T1.1")  # not a terminal: no question, and nothing shown
    assert asked.returncode == 1 and "--yes" in flat(asked.stderr)
    shown = ol(help_root, tmp_path, "diff", "T1.1", "--yes")
    assert shown.returncode == 0 and "+    return 2 * x" in shown.stdout and "has not passed" in flat(shown.stderr)
    record = json.loads((tmp_path / ".ol" / "progress.json").read_text(encoding="utf-8"))
    assert record["passed"] == {} and record["help"]["T1.1"]["hints"] == 2 and record["help"]["T1.1"]["revealed"] > 0
    again = ol(help_root, tmp_path, "hint", "T1.1")
    assert "seen all 2 hints" in flat(again.stdout)
    assert ol(help_root, tmp_path, "export", "out.json").returncode == 0
    dump = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert dump["data"]["help:t1-1"] == record["help"]["T1.1"]
    other = tmp_path.parent / f"{tmp_path.name}-elsewhere"  # not below tmp_path, whose .ol/ ol would find
    other.mkdir()
    assert ol(help_root, other, "import", str(tmp_path / "out.json")).returncode == 0
    assert json.loads((other / ".ol" / "progress.json").read_text(encoding="utf-8"))["help"]["T1.1"] == \
        record["help"]["T1.1"], "an import merges the help taken"


# ---- trace ---------------------------------------------------------------------------------------------------------

def test_trace_prints_each_line_with_its_variables_and_stops_an_endless_call(lesson_root, tmp_path):
    assert ol(lesson_root, tmp_path, "start", "T1.2").returncode == 0
    starter = ol(lesson_root, tmp_path, "trace", "T1.2", "normalise([1, 3])")
    assert starter.returncode == 0 and "array([1., 3.])" in starter.stdout, "the starter's (wrong) result"
    (tmp_path / LESSON_FILE).write_text("def normalise(p):\n    raise NotImplementedError\n", encoding="utf-8")
    raised = ol(lesson_root, tmp_path, "trace", "T1.2", "normalise([1, 3])")
    assert raised.returncode == 1 and "raised here: NotImplementedError" in raised.stdout
    assert 'File "fixture/lessons/stats.py", line 2, in normalise' in raised.stdout, "the learner's line"
    reference = (lesson_root / "t1-2" / "reference.py").read_text(encoding="utf-8")
    (tmp_path / LESSON_FILE).write_text(reference, encoding="utf-8")
    traced = ol(lesson_root, tmp_path, "trace", "T1.2", "normalise([1, 3])")
    assert traced.returncode == 0, traced.stdout + traced.stderr
    lines = traced.stdout.splitlines()
    assert lines[0] == "step 1  line 7  (normalise)  p = np.asarray(p, dtype=float)"
    assert "   * p = [1, 3]" in lines
    assert "   * p = [1. 3.]  shape (2,) float64" in lines, "the array, and that it changed"
    assert "array([0.25, 0.75])" in traced.stdout
    (tmp_path / LESSON_FILE).write_text(reference + "\n\ndef spin():\n    i = 0\n    while True:\n        i += 1\n",
                                        encoding="utf-8")
    spun = ol(lesson_root, tmp_path, "trace", "T1.2", "spin()")
    assert spun.returncode == 1 and "cut at 1000 steps" in flat(spun.stderr + spun.stdout)
    assert spun.stdout.count("step ") >= 1000, "the steps before the cap are printed"
    no_traceback_from_ol(spun)
