"""Exercise validation: prove every exercise folder consistent before anything ships.

For each exercise: the reference passes every hidden test, the starter does not, every mutant fails the test it
names, and every numeric prompt's answer equals what the reference code computes. Problems are reported as
`path:line: message` so an editor can jump to them. The same module runs inside Pyodide (see
`web/test/pyodide-parity.test.mjs`), which proves the suite behaves the same in both runtimes.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import judge, manifest
from .manifest import Exercise, ManifestError, Mutant, rel


@dataclass
class Report:
    """What validation found for one exercise; `outcomes` records every verdict for parity checks."""

    slug: str
    errors: list[str] = field(default_factory=list)
    outcomes: dict[str, dict[str, str]] = field(default_factory=dict)
    durations: dict[str, float] = field(default_factory=dict)  # ms per test of the reference's run, this Python

    def timing(self) -> str:
        """What the reference's hidden suite costs here: learners wait for it on every Check (several times
        longer in the browser's WebAssembly than on CPython)."""
        if not self.durations:
            return ""
        slowest = max(self.durations, key=self.durations.get)
        return (f"; reference suite {sum(self.durations.values()):.0f} ms, slowest {slowest} "
                f"{self.durations[slowest]:.0f} ms")


def line_of(path: Path, needle: str, occurrence: int = 0, key: bool = False) -> int:
    """1-based line of the `occurrence`-th line containing `needle` (1 when absent).

    With key=True, only lines that assign the TOML key `needle` count (`find = ...`, not prose mentioning it).
    """
    seen = 0
    pattern = re.compile(rf"^\s*{re.escape(needle)}\s*=")
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if (pattern.match(line) if key else needle in line):
            if seen == occurrence:
                return number
            seen += 1
    return 1


def apply_mutant(reference: str, mutant: Mutant) -> str:
    """The reference with the mutant's edits applied; each `find` must occur exactly once."""
    text = reference
    for i, edit in enumerate(mutant.edits):
        count = text.count(edit.find)
        if count != 1:
            where = f"{rel(mutant.path)}:{line_of(mutant.path, 'find', i, key=True)}"
            raise ManifestError(f"{where}: edit[{i}].find occurs {count} times in the reference (needs exactly 1)")
        text = text.replace(edit.find, edit.replace)
    return text


def dependency_files(ex: Exercise, exercises: dict[str, Exercise]) -> dict[str, str]:
    """Reference code of every exercise `ex` requires, transitively, keyed by import path."""
    by_id = {e.id: e for e in exercises.values()}
    return {dep.import_path: dep.reference.read_text(encoding="utf-8")
            for dep in manifest.dependency_order(ex, by_id)}


def run_solution(ex: Exercise, source: str, deps: dict[str, str], workdir: str, only=()) -> dict:
    """Judge `source` as the learner's file of `ex`, with `deps` as the other files."""
    return judge.check(
        tests={ex.tests_file.name: ex.tests_file.read_text(encoding="utf-8")},
        files={**deps, ex.import_path: source}, learner=ex.import_path, workdir=workdir,
        names=ex.test_names(), time_limit=ex.time_limit, only=only)


def _where(ex: Exercise, test: dict, fallback: Path) -> str:
    loc = test.get("where", "")
    if loc.startswith(ex.import_path + ":"):
        return f"{rel(ex.reference)}:{loc.rsplit(':', 1)[1]}"
    if loc and ":" in loc:
        name, line = loc.rsplit(":", 1)
        return f"{rel(ex.tests_file.parent / name)}:{line}"
    return f"{rel(fallback)}:1"


def _numbers(value) -> list[float] | None:
    """A scalar, list or array as a list of floats; None when it is not numeric."""
    items = value.tolist() if hasattr(value, "tolist") else value
    items = items if isinstance(items, (list, tuple)) else [items]
    try:
        return [float(v) for v in items]
    except (TypeError, ValueError):
        return None


def _close(got, want: tuple[float, ...], tol: float) -> bool:
    values = _numbers(got)
    return values is not None and len(values) == len(want) and all(
        math.isclose(g, w, rel_tol=tol, abs_tol=tol) for g, w in zip(values, want))


def check_prompts(ex: Exercise, deps: dict[str, str], report: Report) -> None:
    """Evaluate each numeric prompt's `expr` against the reference and compare with its `answer`."""
    if not ex.prompts:
        return
    namespace: dict = {"__name__": "prompt_check"}
    with tempfile.TemporaryDirectory() as tmp:
        judge._write_tree(Path(tmp), deps)
        sys.path.insert(0, tmp)
        try:
            exec(compile(ex.reference.read_text(encoding="utf-8"), str(ex.reference), "exec"), namespace)
            exec(compile(ex.prompt_setup, f"{rel(ex.manifest)}:prompt_setup", "exec"), namespace)
            for prompt in ex.prompts:
                needle = 'id = "%s"' % prompt.id
                where = f"{rel(ex.manifest)}:{line_of(ex.manifest, needle)}"
                try:
                    got = eval(prompt.expr, namespace)  # noqa: S307 - author-written expressions
                except Exception as exc:  # noqa: BLE001
                    report.errors.append(f"{where}: prompts[{prompt.index}].expr: {prompt.expr!r} raised {exc!r}")
                    continue
                if not _close(got, prompt.answer, prompt.tolerance):
                    report.errors.append(
                        f"{where}: prompts[{prompt.index}].answer: the page says {list(prompt.answer)} but the "
                        f"reference computes {prompt.expr} = {got!r}")
                report.outcomes[f"prompt:{prompt.id}"] = {"value": repr(got)}
        finally:
            sys.path.remove(tmp)
            judge._purge({p.split("/", 1)[0].removesuffix(".py") for p in deps})


def validate(ex: Exercise, exercises: dict[str, Exercise]) -> Report:
    """Validate one exercise; never raises for problems in the exercise, it reports them."""
    report = Report(ex.slug)
    deps = dependency_files(ex, exercises)
    reference = ex.reference.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as workdir:
        ref = run_solution(ex, reference, deps, workdir)
        report.outcomes["reference"] = {t["name"]: t["outcome"] for t in ref["tests"]}
        report.durations = ref.get("durations", {})
        if ref["status"] != "passed":
            if ref["traceback"]:
                report.errors.append(f"{rel(ex.reference)}:1: the reference does not run:\n{ref['traceback']}")
            for t in ref["tests"]:
                if t["outcome"] != "passed":
                    report.errors.append(f"{_where(ex, t, ex.reference)}: the reference fails {t['name']}: "
                                         f"{t['message']}")
        start = run_solution(ex, ex.starter.read_text(encoding="utf-8"), deps, workdir)
        report.outcomes["starter"] = {t["name"]: t["outcome"] for t in start["tests"]}
        if start["status"] == "passed":
            report.errors.append(f"{rel(ex.starter)}:1: the starter passes every hidden test; it should not")
        for mutant in ex.mutants:
            try:
                source = apply_mutant(reference, mutant)
            except ManifestError as exc:
                report.errors.append(str(exc))
                continue
            got = run_solution(ex, source, deps, workdir, only=[mutant.fails])
            outcome = next((t["outcome"] for t in got["tests"] if t["name"] == mutant.fails), "missing")
            report.outcomes[f"mutant:{mutant.name}"] = {mutant.fails: outcome}
            if outcome == "passed":
                report.errors.append(f"{rel(mutant.path)}:{line_of(mutant.path, 'fails', key=True)}: mutant {mutant.name} "
                                     f"survives: {mutant.fails} passes on it ({mutant.description})")
    check_prompts(ex, deps, report)
    return report


def fingerprint(ex: Exercise, exercises: dict[str, Exercise]) -> str:
    """Hash of everything a validation result depends on: the folders, their dependencies, the checker."""
    h = hashlib.sha256()
    by_id = {e.id: e for e in exercises.values()}
    folders = [ex.folder] + [d.folder for d in manifest.dependency_order(ex, by_id)]
    sources = [p for f in folders for p in sorted(f.rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
    sources += sorted(Path(__file__).parent.glob("*.py"))
    for path in sources:
        h.update(str(path.relative_to(manifest.REPO)).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def validate_all(keys: list[str] | None = None, cache: Path | None = None) -> tuple[list[Report], list[str]]:
    """Validate the chosen exercises (all by default). Returns the reports and the errors of all of them.

    With `cache`, an exercise whose fingerprint validated cleanly before is not run again.
    """
    try:
        exercises = manifest.load_all()
        chosen = [manifest.find(k, exercises) for k in keys] if keys else list(exercises.values())
    except (ManifestError, KeyError) as exc:
        return [], [str(exc).strip("'\"")]
    reports, errors = [], []
    for ex in chosen:
        stamp = cache / f"{ex.slug}-{fingerprint(ex, exercises)}.ok" if cache else None
        if stamp and stamp.exists():
            reports.append(Report(ex.slug, outcomes=json.loads(stamp.read_text())))
            continue
        report = validate(ex, exercises)
        reports.append(report)
        errors += report.errors
        if stamp and not report.errors:
            stamp.parent.mkdir(parents=True, exist_ok=True)
            stamp.write_text(json.dumps(report.outcomes))
    return reports, errors


def main(argv: list[str]) -> int:
    """`python -m checker validate [ID ...] [--json] [--cache DIR]`."""
    as_json = "--json" in argv
    cache = None
    if "--cache" in argv:
        cache = Path(argv[argv.index("--cache") + 1])
    keys = [a for i, a in enumerate(argv) if not a.startswith("--") and (i == 0 or argv[i - 1] != "--cache")]
    reports, errors = validate_all(keys or None, cache)
    if as_json:
        print(json.dumps({"errors": errors, "outcomes": {r.slug: r.outcomes for r in reports}}, indent=1,
                         sort_keys=True))
    else:
        for r in reports:
            mutants = sum(1 for k in r.outcomes if k.startswith("mutant:"))
            status = "FAILED" if r.errors else "ok"
            print(f"{r.slug}: {status} ({len(r.outcomes.get('reference', {}))} tests, {mutants} mutants{r.timing()})")
        for e in errors:
            print(e, file=sys.stderr)
    return 1 if errors else 0
