"""Known mistakes: how each mutant of an exercise fails the hidden suite, for the diagnosis of a learner's failing
check (checker/diagnosis.py), built here and nowhere else.

Validation runs every mutant through the whole suite and writes the fingerprints into its cache stamp, a file
named by the content hash of everything the result depends on (`stamp_path`): so a stamp is never read for files
that changed since. The build ships the known mistakes in each exercise's bundle and, as `MISTAKES_FILE`, beside
each exercise of the `ol` wheel. `of` is the one lookup: the wheel's file, else, in a checkout, the stamp of the
exercise's files as they are now, else none.
"""
from __future__ import annotations

import ast
import functools
import hashlib
import json
import re
import sys
from pathlib import Path

import checker
from checker import diagnosis
from course.exercises import Course
from course.model import Exercise, Mutant
from course.store import REPO, cache_folder

IN_PYODIDE = sys.platform == "emscripten"
DEFAULT_RUNS = 1 if IN_PYODIDE else 5  # validation's reference runs per exercise, each in a fresh process
MISTAKES_FILE = "mistakes.json"  # beside an exercise's manifest in the ol wheel (tools/ol_wheel.py writes it)
VALIDATION = [REPO / "authoring" / n for n in ("validate.py", "corpus.py", "careful.py")]  # the validation's code


def content_hash(ex: Exercise, course: Course, runs: int = DEFAULT_RUNS) -> str:
    """Hash of everything a validation result depends on: the folders, their dependencies, the judge (checker/)
    and the validation (authoring/validate.py, corpus.py, careful.py), the Python, numpy and pytest that run them,
    the number of runs (five clean runs prove more than one)."""
    h = hashlib.sha256(f"runs={runs}\0{sys.version}\0{_versions()}\0".encode())
    folders = [ex.folder] + [d.folder for d in course.dependencies(ex)]
    # The diagnosis corpus (alternatives/) and the careful learners (careful/) are inputs: validation proves them
    # too (authoring/corpus.py, careful.py).
    sources = [(f"{f.name}/{p.relative_to(f)}", p) for f in folders for p in sorted(f.rglob("*"))
               if p.is_file() and "__pycache__" not in p.parts]
    sources += [(f"checker/{p.name}", p) for p in sorted(Path(checker.__file__).parent.glob("*.py"))]
    sources += [(f"authoring/{path.name}", path) for path in VALIDATION]
    for name, path in sources:
        h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _versions() -> str:
    """The releases of numpy and pytest installed here (without importing numpy in this process)."""
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "none"

    return " ".join(f"{name}=={version(name)}" for name in ("numpy", "pytest"))


def stamp_path(cache: Path, ex: Exercise, course: Course, runs: int = DEFAULT_RUNS) -> Path:
    """The cache stamp of a clean validation of `ex` as its files are now."""
    return cache / f"{ex.slug}-{content_hash(ex, course, runs)}.ok"


def from_prints(ex: Exercise, prints: dict[str, list[str] | None]) -> list[dict]:
    """Every mutant of `ex` that has a fingerprint, as checker/diagnosis.py's known mistake, in mutant order: with
    the test it must fail, its core tests (`core_tests`), and the pitfalls of the mutants that fail every test
    exactly alike."""
    found = [m for m in ex.mutants if prints.get(m.name)]
    same = diagnosis.same_evidence([(m.name, m.pitfall, prints[m.name]) for m in found])
    core = core_tests(ex, found, prints)
    return [diagnosis.known(m.name, m.pitfall, prints[m.name], m.fails, core[m.name], same[m.name])
            for m in found]


def core_tests(ex: Exercise, mutants: list[Mutant], prints: dict[str, list[str] | None]) -> dict[str, list[str]]:
    """For each mutant, the tests that examine the code its mistake is in, whatever the learner's code looks like:
    its own test; every test that calls nothing of the learner's but what the line it fails on in its own test
    calls (`test_calls`; `sol.rejection_accept(...)` at line 197 makes `rejection_accept` its home); and the tests
    of the other mutants whose edits change the same function of the reference."""
    reference = ex.reference.read_text(encoding="utf-8")
    source = ex.tests_file.read_text(encoding="utf-8")
    try:
        spans = function_spans(reference)
        calls = test_calls(source, reference)
    except SyntaxError:  # validation says where; without the code's shape, each mutant's own test alone
        return {m.name: [m.fails] for m in mutants}
    where = {m.name: set(edited_functions(reference, m, spans)) for m in mutants}
    found = {}
    for m in mutants:
        line = failing_line(prints.get(m.name) or (), m.fails)
        home = line_calls(source, reference, line) if line else set()
        home = home or calls.get(m.fails, set())
        tests = {m.fails} | {t for t, called in calls.items() if home and called and called <= home}
        tests |= {o.fails for o in mutants if where[o.name] & where[m.name]}
        found[m.name] = sorted(tests)
    return found


CASE_LINE = re.compile(r"^(?:\[[^\]]*\])?(?:setup )?(\d+)")


def failing_line(prints: list[str], test: str) -> int:
    """The line of the hidden test file where `test` failed in a fingerprint (the first of its case), or 0."""
    for row in prints:
        name, _, rest = row.partition(" ")
        if name == test:
            found = CASE_LINE.match(rest.partition(" ")[2])
            return int(found.group(1)) if found else 0
    return 0


def test_calls(tests_source: str, reference: str) -> dict[str, set[str]]:
    """Each test function of a hidden test file -> the names of the learner's module it uses, directly or through
    the test file's own helpers: a function or class by name (`sample_categorical(...)`, `PCG32(...)`), or a
    method or module attribute whose name the reference defines (`gen.uniform()`, `sol.residual`)."""
    calls = _calls(tests_source, reference)
    return {name: calls.of(node) for name, node in calls.helpers.items() if name.startswith("test_")}


def line_calls(tests_source: str, reference: str, line: int) -> set[str]:
    """What the statement at `line` of a hidden test file calls of the learner's module (as `test_calls`)."""
    calls = _calls(tests_source, reference)
    found: set[str] = set()
    for statement in calls.statements:
        if statement.lineno <= line <= (statement.end_lineno or statement.lineno):
            found |= calls.of(statement)
    return found


@functools.lru_cache(maxsize=8)
def _calls(tests_source: str, reference: str) -> "_Calls":
    """One `_Calls` per test file and reference: an exercise's mutants all ask the same pair (parsing it again for
    each cost about 0.3 s of CPU per exercise, at every validation, build and corpus run)."""
    return _Calls(tests_source, reference)


# Statements whose lines hold other statements: a failing line is in one of those, not in them.
_BLOCKS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.While, ast.With, ast.If, ast.Try)


class _Calls:
    """Calls of the learner's module in a hidden test file, helpers followed. Read only once built (`of` memoises
    helpers, which are the same whatever asks), so one instance serves every question about the pair."""

    def __init__(self, tests_source: str, reference: str):
        self.tree = ast.parse(tests_source)
        self.defined = {name.rpartition(".")[2] for _, _, name in function_spans(reference)}
        self.defined |= {n.name for n in ast.walk(ast.parse(reference)) if isinstance(n, ast.ClassDef)}
        self.helpers = {n.name: n for n in self.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.statements = [n for n in ast.walk(self.tree) if isinstance(n, ast.stmt) and not isinstance(n, _BLOCKS)]
        self.reached: dict[str, set[str]] = {}

    def of(self, node: ast.AST, seen: frozenset = frozenset()) -> set[str]:
        """The learner's names `node` uses (called, or handed on: `counts_of(sol.speculative_step, ...)`)."""
        names = set()
        for ref in ast.walk(node):
            name = ref.id if isinstance(ref, ast.Name) else ref.attr if isinstance(ref, ast.Attribute) else ""
            if not name or not isinstance(getattr(ref, "ctx", None), ast.Load):
                continue
            if name in self.helpers and not name.startswith("test_"):
                if name not in seen:
                    names |= self.helper(name, seen)
            elif name in self.defined:
                names.add(name)
        return names

    def helper(self, name: str, seen: frozenset) -> set[str]:
        if name not in self.reached:
            self.reached[name] = self.of(self.helpers[name], seen | {name})
        return self.reached[name]


def function_spans(source: str) -> list[tuple[int, int, str]]:
    """(first line, last line, qualified name) of every function and method of a module (`Class.method`), the
    innermost last."""
    spans: list[tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    spans.append((child.lineno, child.end_lineno or child.lineno, name))
                visit(child, name + ".")

    visit(ast.parse(source), "")
    return spans


def edited_functions(source: str, mutant: Mutant, spans: list[tuple[int, int, str]]) -> list[str]:
    """The innermost function (qualified) around each edit of `mutant` in the reference `source`; "<module>" for an
    edit outside every function (a constant)."""
    found = []
    for edit in mutant.edits:
        at = source.find(edit.find)
        if at < 0:
            continue
        first = source.count("\n", 0, at) + 1
        last = first + edit.find.count("\n")
        inside = [name for lo, hi, name in spans if lo <= first and last <= hi]
        name = inside[-1] if inside else "<module>"
        if name not in found:
            found.append(name)
    return found


def recorded(ex: Exercise, course: Course, cache: Path | None = None) -> list[dict] | None:
    """The known mistakes of `ex` from the clean validation of its files as they are now, or None when `cache`
    (default: the checkout's, course/store.py cache_folder) holds none."""
    try:
        data = json.loads(stamp_path(cache or cache_folder(), ex, course).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    prints = data.get("prints") if isinstance(data, dict) else None
    return from_prints(ex, prints) if isinstance(prints, dict) else None


def packaged(ex: Exercise) -> list[dict] | None:
    """The known mistakes shipped beside the exercise's manifest (the ol wheel), or None without the file."""
    try:
        data = json.loads((ex.folder / MISTAKES_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return []
    return [m for m in data if isinstance(m, dict)] if isinstance(data, list) else []


def of(ex: Exercise, course: Course) -> list[dict]:
    """The exercise's known mistakes: the wheel's file, else the checkout's validation of its files as they are
    now; [] when neither has them (then no diagnosis is offered, rather than a stale one)."""
    found = packaged(ex)
    if found is None:
        found = recorded(ex, course)
    return found or []
