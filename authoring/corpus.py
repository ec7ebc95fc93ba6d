"""The diagnosis corpus: correct solutions written apart from the reference, and known mistakes injected into them.

A failed check is diagnosed by comparing how it fails with how the mutants fail (checker/diagnosis.py). Mutants
are edits of the reference, so they say nothing of a learner whose code is shaped differently. The corpus is
code that is not: per exercise, a few alternative correct solutions, structured unlike the reference and unlike
each other, and in each of them the mutants' mistakes written again in that code's own terms. It measures how a
diagnosis fares on mistakes it was not built from.

Beside an exercise's `mutants/`:

    alternatives/<alt>.py            a correct solution: it must pass every hidden test
    alternatives/<alt>/<name>.toml   a mistake injected into <alt>.py, in the mutant format: `description`,
                                     `mirrors` (the mutant whose mistake it makes again: that mutant's pitfall is
                                     the diagnosis expected) and `[[edit]]` find/replace against <alt>.py (each
                                     `find` exactly once); named after the mutant it mirrors (s01.toml)
    alternatives/<alt>/SKIPPED.md    the mutants whose mistake cannot exist in <alt>, one line each:
                                     `- <mutant>: why`

Every mutant of the exercise is injected into every alternative or skipped there with a reason, and every
numbered pitfall of the page (a mutant pitfall "N. ...") is injected into every alternative.

`run` checks the corpus as validation checks mutants: in a child process, with CPython, the hidden suite run
whole by `validate.run_solution` with the reference files of the exercise's dependencies in place. Every
alternative must pass, every injected mistake must fail. Each injected mistake's check result (the judge's
dict, with every test's outcome and `case`) comes back with the pitfall expected of it, for the diagnosis to be
measured against: `python -m authoring.corpus --diagnose` prints what today's diagnosis says of each, against
the mutants' fingerprints validation recorded (its cache stamp, when it matches the files), else against the
mutants judged here with the corpus. Neither validation's cache key nor the `ol` wheel includes alternatives/.

    python -m authoring.corpus [EX ...] [--diagnose [-v]] [--json FILE] [--jobs N] [--root DIR] [--cache DIR]

From Python: `run(exercises chosen, all exercises)` gives an `Outcome` per exercise, whose `records` hold each
injected mistake's judge result with its expected pitfall; `known_mistakes` and `diagnose` are what --diagnose
prints.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from checker import diagnosis
from course import known, manifest
from course.manifest import NAME_RE, Edit, Exercise, ManifestError, Mutant, rel

from . import validate

FOLDER = "alternatives"
SKIPPED = "SKIPPED.md"
SKIP_LINE = re.compile(r"^\s*[-*]\s+`?([a-z][a-z0-9-]*)`?\s*:\s*(\S.*)$")


# ---- the corpus as written ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Alternative:
    """A correct solution of the exercise, written apart from its reference."""

    name: str
    path: Path
    source: str


@dataclass(frozen=True)
class Injected:
    """A mutant's mistake made again in an alternative: `mirrors` is that mutant."""

    alternative: str
    name: str
    path: Path
    description: str
    mirrors: Mutant
    edits: tuple[Edit, ...]

    @property
    def label(self) -> str:
        return f"{self.alternative}/{self.name}"

    @property
    def expected(self) -> tuple[int | None, str]:
        """The diagnosis expected: the mirrored mutant's numbered page pitfall (number, text), else (None, its
        pitfall text)."""
        return diagnosis.split_pitfall(self.mirrors.pitfall)


@dataclass
class Corpus:
    """An exercise's corpus as loaded; `errors` are one `path:line: message` each (what did not load is left out)."""

    exercise: Exercise
    alternatives: list[Alternative] = field(default_factory=list)
    injected: list[Injected] = field(default_factory=list)
    skipped: dict[str, dict[str, str]] = field(default_factory=dict)  # alternative -> mutant -> why
    errors: list[str] = field(default_factory=list)

    @property
    def folder(self) -> Path:
        return self.exercise.folder / FOLDER


def load(ex: Exercise) -> Corpus:
    """The corpus of `ex` (empty when it has no alternatives/ folder); never raises for what is written wrong."""
    corpus = Corpus(ex)
    folder = corpus.folder
    if not folder.is_dir():
        return corpus
    mutants = {m.name: m for m in ex.mutants}
    for path in sorted(folder.iterdir()):
        if path.name == "__pycache__":
            continue
        if path.is_dir():
            if not (folder / f"{path.name}.py").is_file():
                corpus.errors.append(f"{rel(path)}: a folder of injected mistakes without its alternative "
                                     f"{rel(folder / (path.name + '.py'))}")
        elif path.suffix != ".py":
            corpus.errors.append(f"{rel(path)}: not part of a corpus (alternatives/<alt>.py, and <alt>/*.toml and "
                                 f"<alt>/{SKIPPED} beside it)")
        elif not NAME_RE.match(path.stem):
            corpus.errors.append(f"{rel(path)}: an alternative's name must be kebab-case, like plain-loops")
        else:
            _load_alternative(corpus, path, mutants)
    corpus.errors += coverage(corpus)
    return corpus


def _load_alternative(corpus: Corpus, path: Path, mutants: dict[str, Mutant]) -> None:
    source = path.read_text(encoding="utf-8")
    try:
        compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as exc:
        corpus.errors.append(f"{rel(path)}:{exc.lineno or 1}: the alternative does not compile: {exc.msg}")
        return
    alt = Alternative(path.stem, path, source)
    corpus.alternatives.append(alt)
    mistakes = path.with_suffix("")
    if not mistakes.is_dir():
        return
    for item in sorted(mistakes.iterdir()):
        if item.name == SKIPPED:
            corpus.skipped[alt.name] = _skipped(item, mutants, corpus.errors)
        elif item.suffix == ".toml":
            try:
                injected = load_injected(item, alt, mutants)
                apply_edits(alt, injected)
            except ManifestError as exc:
                corpus.errors += exc.lines
                continue
            problem = _syntax_error(alt, injected)
            if problem:
                corpus.errors.append(problem)
                continue
            corpus.injected.append(injected)
        elif item.name != "__pycache__":
            corpus.errors.append(f"{rel(item)}: not an injected mistake (<name>.toml) nor {SKIPPED}")


def load_injected(path: Path, alt: Alternative, mutants: dict[str, Mutant]) -> Injected:
    """Load `alternatives/<alt>/<name>.toml`; ManifestError `path:line: field: problem` when it is wrong."""
    if not NAME_RE.match(path.stem):
        raise ManifestError(f"{rel(path)}:1: an injected mistake's name must be kebab-case, like its mutant's")
    f = manifest.read_toml(path)
    f.unknown({"description", "mirrors", "edit"})
    mirrors = f.text("mirrors")
    if mirrors not in mutants:
        known = ", ".join(sorted(mutants)) or "none"
        raise f.fail("mirrors", f"{mirrors!r} is not a mutant of {alt.path.parent.parent.name} (mutants: {known})")
    edits = []
    for e in f.tables("edit"):
        e.unknown({"find", "replace"})
        edits.append(Edit(find=e.text("find"), replace=e.get("replace", str, what="a string")))
    if not edits:
        raise f.fail("edit", "an injected mistake needs at least one [[edit]]")
    return Injected(alt.name, path.stem, path, f.text("description"), mutants[mirrors], tuple(edits))


def apply_edits(alt: Alternative, injected: Injected) -> str:
    """The alternative with the mistake's edits applied in order; each `find` must occur exactly once."""
    text = alt.source
    for i, edit in enumerate(injected.edits):
        count = text.count(edit.find)
        if count != 1:
            where = f"{rel(injected.path)}:{manifest.line_of_field(injected.path, f'edit[{i}].find')}"
            raise ManifestError(f"{where}: edit[{i}].find occurs {count} times in {rel(alt.path)}"
                                f"{' after the edits before it' if i else ''} (needs exactly 1)")
        text = text.replace(edit.find, edit.replace)
    return text


def _syntax_error(alt: Alternative, injected: Injected) -> str:
    """'' when the edited alternative compiles, else one line at the `replace` of the first edit that broke it."""
    text = alt.source
    for i, edit in enumerate(injected.edits):
        text = text.replace(edit.find, edit.replace)
        try:
            compile(text, str(alt.path), "exec", dont_inherit=True)
        except SyntaxError as exc:
            if i < len(injected.edits) - 1:
                continue  # a later edit may complete this one
            where = f"{rel(injected.path)}:{manifest.line_of_field(injected.path, f'edit[{i}].replace')}"
            return f"{where}: the edited {alt.path.name} does not compile: {exc.msg} at its line {exc.lineno}"
    return ""


def _skipped(path: Path, mutants: dict[str, Mutant], errors: list[str]) -> dict[str, str]:
    """`SKIPPED.md`: mutant -> why its mistake cannot exist in the alternative, from lines `- name: why`."""
    found = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        match = SKIP_LINE.match(line)
        if not match:
            errors.append(f"{rel(path)}:{number}: expected `- <mutant>: why it cannot exist here`")
        elif match.group(1) not in mutants:
            errors.append(f"{rel(path)}:{number}: {match.group(1)!r} is not a mutant of this exercise")
        else:
            found[match.group(1)] = match.group(2).strip()
    return found


def coverage(corpus: Corpus) -> list[str]:
    """Problems of coverage, per alternative: a mutant neither injected nor skipped, a numbered page pitfall not
    injected, a mutant both injected and skipped."""
    problems = []
    numbered = {}
    for m in corpus.exercise.mutants:
        number, _ = diagnosis.split_pitfall(m.pitfall)
        if number is not None:
            numbered.setdefault(number, m.name)
    for alt in corpus.alternatives:
        folder = alt.path.with_suffix("")
        mirrored = {i.mirrors.name for i in corpus.injected if i.alternative == alt.name}
        numbers = {i.expected[0] for i in corpus.injected if i.alternative == alt.name}
        skipped = corpus.skipped.get(alt.name, {})
        missing = [m.name for m in corpus.exercise.mutants if m.name not in mirrored and m.name not in skipped]
        if missing:
            problems.append(f"{rel(folder)}: mutants neither injected nor listed in {SKIPPED}: {', '.join(missing)}")
        for number, example in sorted(numbered.items()):
            if number not in numbers:
                problems.append(f"{rel(folder)}: page pitfall {number} is not injected (mirror a mutant of it, like "
                                f"{example})")
        for name in sorted(mirrored & set(skipped)):
            problems.append(f"{rel(folder / SKIPPED)}:1: {name} is injected, so it cannot be skipped too")
    return problems


# ---- running it ---------------------------------------------------------------------------------------------------

@dataclass
class Record:
    """One injected mistake as the judge saw it: its check result and the pitfall expected of its diagnosis."""

    exercise: str
    alternative: str
    name: str
    mirrors: str
    number: int | None
    pitfall: str
    result: dict

    def as_json(self) -> dict:
        return {"exercise": self.exercise, "alternative": self.alternative, "name": self.name,
                "mirrors": self.mirrors, "expected": {"number": self.number, "pitfall": self.pitfall},
                "result": self.result}


@dataclass
class Outcome:
    """What running an exercise's corpus found."""

    exercise: Exercise
    corpus: Corpus
    records: list[Record] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    mutants: dict[str, dict] = field(default_factory=dict)  # mutant name -> check result, when asked for
    seconds: float = 0.0  # wall time of loading and judging the exercise's corpus


def _sources(ex: Exercise, corpus: Corpus, with_mutants: bool) -> list[tuple[str, str]]:
    """(label, code) of everything to judge: alternatives, injected mistakes, and the mutants when asked for."""
    out = [(f"alternative:{a.name}", a.source) for a in corpus.alternatives]
    by_name = {a.name: a for a in corpus.alternatives}
    out += [(f"injected:{i.label}", apply_edits(by_name[i.alternative], i)) for i in corpus.injected]
    if with_mutants:
        reference = ex.reference.read_text(encoding="utf-8")
        out += [(f"mutant:{m.name}", validate.apply_mutant(reference, m)) for m in ex.mutants]
    return out


def _job(spec: dict) -> dict:
    """In the child: judge every (label, code) of the job as the learner's file, one after another, as
    validation's full job judges the mutants (validate._run_mutants)."""
    validate.armed_like_the_browser()
    ex = manifest.load(Path(spec["folder"]))
    deps = {path: Path(file).read_text(encoding="utf-8") for path, file in spec["deps"].items()}
    results = {}
    with tempfile.TemporaryDirectory() as workdir:
        for label, source in spec["sources"]:
            results[label] = validate.run_solution(ex, source, deps, workdir)
    return {"results": results}


def _child(folder: str) -> int:
    """Child entry point: run FOLDER/job.json's job and write FOLDER/result.json (see validate._child)."""
    spec = json.loads(Path(folder, "job.json").read_text(encoding="utf-8"))
    result = _job(spec)
    tmp = Path(folder, "result.tmp")
    tmp.write_text(json.dumps(result), encoding="utf-8")
    os.replace(tmp, Path(folder, "result.json"))
    return 0


_CHILD = ("import os, sys; from authoring.corpus import _child; code = _child(sys.argv[1]); "
          "sys.stdout.flush(); os._exit(code)")


def run(chosen: list[Exercise], exercises: dict[str, Exercise], jobs: int | None = None,
        with_mutants: bool = False) -> dict[str, Outcome]:
    """Load and judge the corpus of every chosen exercise: slug -> Outcome. One exercise after another, its code
    shared out over `jobs` child processes (default: one per core); `with_mutants` judges the mutants too (their
    results are what the diagnosis compares with when no validation recorded them)."""
    jobs = max(1, jobs or os.cpu_count() or 1)
    outcomes = {}
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for ex in chosen:
            start = time.perf_counter()
            corpus = load(ex)
            outcome = outcomes[ex.slug] = Outcome(ex, corpus, problems=list(corpus.errors))
            sources = _sources(ex, corpus, with_mutants)
            deps = {path: str(file) for path, file in validate.dependency_paths(ex, exercises).items()}
            shares = [sources[k::jobs] for k in range(min(jobs, len(sources)))]
            specs = [({"folder": str(ex.folder), "deps": deps, "sources": share},
                      validate.BOOT_LIMIT + ex.time_limit * (len(ex.catalogue) + 1) * len(share)) for share in shares]
            results: dict[str, dict] = {}
            for share, got in zip(shares, pool.map(lambda job: validate._spawn(*job, child=_CHILD), specs)):
                if "crash" in got:
                    outcome.problems.append(f"{rel(ex.folder / FOLDER)}: a child judging "
                                            f"{', '.join(label for label, _ in share)} {got['crash']}")
                else:
                    results.update(got["results"])
            _conclude(outcome, results)
            outcome.seconds = time.perf_counter() - start
    return outcomes


def _conclude(outcome: Outcome, results: dict[str, dict]) -> None:
    """The problems of the results (an alternative that fails, a mistake that passes) and the records."""
    ex, corpus = outcome.exercise, outcome.corpus
    for alt in corpus.alternatives:
        got = results.get(f"alternative:{alt.name}")
        if got is not None:
            outcome.problems += _failures(ex, alt, got)
    for injected in corpus.injected:
        got = results.get(f"injected:{injected.label}")
        if got is None:
            continue
        number, text = injected.expected
        outcome.records.append(Record(ex.slug, injected.alternative, injected.name, injected.mirrors.name, number,
                                      text, got))
        if got.get("status") == "passed":
            where = f"{rel(injected.path)}:{manifest.line_of_field(injected.path, 'edit')}"
            outcome.problems.append(f"{where}: injected mistake {injected.label} survives: every hidden test passes "
                                    f"on it ({injected.description})")
    outcome.mutants = {label.split(":", 1)[1]: got for label, got in results.items() if label.startswith("mutant:")}


def _failures(ex: Exercise, alt: Alternative, result: dict) -> list[str]:
    """One line per hidden test the alternative does not pass (or one for code that does not run at all)."""
    if result.get("status") == "passed":
        return []
    if result.get("phase") != "tests":
        last = ([ln.strip() for ln in result.get("traceback", "").splitlines() if ln.strip()] or
                [result.get("status", "")])[-1]
        return [f"{rel(alt.path)}:1: alternative {alt.name} is not judged ({result.get('phase')}): {last}"]
    files = {ex.import_path: alt.path}
    return [f"{validate._test_location(ex, t, files)}: alternative {alt.name} fails {t['name']}: {t['message']}"
            for t in result["tests"] if t["outcome"] != "passed"]


# ---- what today's diagnosis says of it ----------------------------------------------------------------------------

def known_mistakes(ex: Exercise, exercises: dict[str, Exercise], outcome: Outcome,
                   cache: Path | None) -> tuple[list[dict], str]:
    """The exercise's known mistakes (checker/diagnosis.py) and where they come from: validation's record of its
    files as they are now (its cache stamp), else the mutants judged with the corpus (`run(with_mutants=True)`)."""
    recorded = known.recorded(ex, exercises, cache) if cache else None
    if recorded is not None:
        return recorded, "validation's cache"
    if ex.mutants and not outcome.mutants:
        raise ValueError(f"{ex.id}: no validation in {cache} matches its files, and its mutants were not judged "
                         f"with the corpus (run(..., with_mutants=True))")
    prints = {name: diagnosis.fingerprint(result) for name, result in outcome.mutants.items()}
    return known.from_prints(ex, prints), "mutants judged here"


def verdict(record: Record, found: list[dict]) -> str:
    """`right` when the expected pitfall is among those named, `wrong` when only others are, `silent` when none
    is named."""
    if not found:
        return "silent"
    for entry in found:
        if record.number is not None:
            if entry.get("number") == record.number:
                return "right"
        elif entry.get("number") is None and (entry.get("pitfall") == record.pitfall
                                              or record.pitfall in entry.get("also", ())):
            return "right"
    return "wrong"


def diagnose(outcome: Outcome, mistakes: list[dict]) -> list[tuple[Record, list[dict], str]]:
    """Today's diagnosis of every injected mistake: (record, what diagnose names, verdict)."""
    out = []
    for record in outcome.records:
        found = diagnosis.diagnose(record.result, mistakes)
        out.append((record, found, verdict(record, found)))
    return out


def leave_one_out(mistakes: list[dict]) -> dict[str, int]:
    """Each known mistake left out in turn, its fingerprint diagnosed against the others, as a learner's mistake
    that no mutant encodes would be: {"none", "right" (its pitfall among those named: another mutant stands for
    it, or fails every test alike and is named with it), "wrong" (only other pitfalls named)}. Raises
    AssertionError if a mutant, with every mutant known, is not named itself."""
    tally = {"none": 0, "right": 0, "wrong": 0}
    for m in mistakes:
        result = {"status": "failed", "phase": "tests", "tests": [
            {"name": row.split(" ")[0], "outcome": row.split(" ")[1], "case": row.split(" ", 2)[2]}
            for row in m["fingerprint"]]}
        own = diagnosis.diagnose(result, mistakes, limit=len(mistakes))
        assert any(m["mutant"] in found["mutants"] for found in own), f"{m['mutant']} is not named itself"
        others = diagnosis.diagnose(result, [o for o in mistakes if o is not m])
        same = [f for f in others if (m["number"] is not None and f["number"] == m["number"])
                or f["pitfall"] == m["pitfall"] or m["pitfall"] in f.get("also", ())]
        tally["none" if not others else "right" if same else "wrong"] += 1
    return tally


LEAVE_ONE_OUT = ["exercise", "mutants", "distinct fingerprints", "told apart", "left out: no diagnosis",
                 "left out: right pitfall named", "left out: only wrong pitfalls"]


def leave_one_out_row(ex: Exercise, prints: dict[str, list[str] | None]) -> list[object]:
    """The leave-one-out table's row of one exercise (columns LEAVE_ONE_OUT), from its mutants' fingerprints."""
    mistakes = known.from_prints(ex, prints)
    tally = leave_one_out(mistakes)
    seen = [tuple(p) for p in prints.values() if p]
    apart = sum(1 for p in seen if seen.count(p) == 1)
    return [ex.id, len(mistakes), len(set(seen)), apart, tally["none"], tally["right"], tally["wrong"]]


# ---- the command line -------------------------------------------------------------------------------------------

def _table(header: list[str], rows: list[list[object]]) -> str:
    """A Markdown table, the first column left-aligned and the others right-aligned."""
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _named(entry: dict) -> str:
    """A diagnosis entry in a line: its page pitfall's number, or its mutants."""
    mutants = ", ".join(entry.get("mutants", ()))
    return f"pitfall {entry['number']} ({mutants})" if entry.get("number") else f"({mutants})"


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m authoring.corpus", description=(
        "Judge the diagnosis corpus: every alternative solution must pass the hidden tests and every mistake "
        "injected into one must fail them. Problems are printed as path:line: message."))
    top.add_argument("ids", nargs="*", metavar="EX", help="exercises, by id or folder name (M07.6, m07-6); "
                     "default: every exercise with a corpus")
    top.add_argument("--diagnose", action="store_true", help="also print what today's diagnosis "
                     "(checker/diagnosis.py) says of each injected mistake: the expected pitfall, another, or none")
    top.add_argument("--json", type=Path, metavar="FILE", help="write every injected mistake's check result and "
                     "expected pitfall (and, with --diagnose, today's diagnosis) to FILE")
    top.add_argument("--jobs", type=int, metavar="N", help="child processes per exercise (default: one per core)")
    top.add_argument("--root", type=Path, metavar="DIR", help="the folder holding one folder per exercise "
                     f"(default: {rel(manifest.EXERCISES)})")
    top.add_argument("--cache", type=Path, metavar="DIR", help="validation's cache, whose record of the mutants' "
                     "fingerprints --diagnose uses when it matches the files (default: "
                     f"{rel(manifest.cache_folder())}); else the mutants are judged here too")
    top.add_argument("--verbose", "-v", action="store_true", help="with --diagnose, one line per injected mistake")
    return top


def main(argv: list[str] | None = None) -> int:
    """0 when every corpus is green, 1 on problems, 2 for an unknown exercise."""
    args = parser().parse_args(argv)
    root = args.root or manifest.EXERCISES
    load_errors: list[str] = []
    exercises = manifest.load_all(root, load_errors)
    for key in args.ids:
        problem = validate.unknown(key, exercises)
        if problem:
            print(str(problem).strip("'\""), file=sys.stderr)
            return 2
    if args.ids:
        chosen, problems = [manifest.find(key, exercises) for key in args.ids], []
    else:  # every exercise with a corpus; one that does not load is a problem too
        chosen = [ex for ex in sorted(exercises.values(), key=lambda e: e.slug) if (ex.folder / FOLDER).is_dir()]
        problems = load_errors
    cache = args.cache or manifest.cache_folder()
    need_mutants = args.diagnose and any(known.recorded(ex, exercises, cache) is None for ex in chosen)
    ran = run(chosen, exercises, args.jobs, with_mutants=need_mutants)
    outcomes = [ran[ex.slug] for ex in chosen]
    rows = []
    for o in outcomes:
        failed = sum(1 for r in o.records if r.result.get("status") != "passed")
        rows.append([o.exercise.id, ", ".join(a.name for a in o.corpus.alternatives) or "-", len(o.corpus.injected),
                     f"{failed}/{len(o.records)}", sum(len(s) for s in o.corpus.skipped.values()), len(o.problems),
                     f"{o.seconds:.1f} s"])
    print(_table(["exercise", "alternatives", "injected", "failing (must be all)", "skipped", "problems",
                  "wall time"], rows))
    judged = _print_diagnosis(outcomes, exercises, cache, args.verbose) if args.diagnose else []
    if args.json:
        _write_json(args.json, outcomes, judged)
    problems += [line for o in outcomes for line in o.problems]
    for line in problems:
        print(line, file=sys.stderr)
    return 1 if problems else 0


def _print_diagnosis(outcomes: list[Outcome], exercises: dict[str, Exercise], cache: Path,
                     verbose: bool) -> list[tuple[Record, list[dict], str]]:
    """Print what today's diagnosis says of every injected mistake, per alternative, exercise and overall (and,
    `verbose`, of each); return it."""
    table, everything = [], []

    def row(label: str, judged: list[tuple[Record, list[dict], str]]) -> list[object]:
        said = [v for _, _, v in judged]
        alone = sum(1 for _, found, v in judged if v == "right" and len(found) == 1)
        pct = (lambda k: f"{k} ({100 * k / len(said):.0f}%)") if said else str
        return [label, len(said), pct(said.count("right")), alone, pct(said.count("wrong")), pct(said.count("silent"))]

    for o in outcomes:
        mistakes, source = known_mistakes(o.exercise, exercises, o, cache)
        judged = diagnose(o, mistakes)
        for alt in o.corpus.alternatives:
            table.append(row(f"{o.exercise.id} {alt.name}", [j for j in judged if j[0].alternative == alt.name]))
        table.append(row(f"**{o.exercise.id}** ({len(mistakes)} mutants, {source})", judged))
        everything += judged
    table.append(row("**all**", everything))
    table.append(row("**all, the pages' numbered pitfalls**", [j for j in everything if j[0].number is not None]))
    loo = []
    for o in outcomes:
        mistakes, _ = known_mistakes(o.exercise, exercises, o, cache)
        prints = {m["mutant"]: m["fingerprint"] for m in mistakes}
        loo.append(leave_one_out_row(o.exercise, prints))
    print("\nLeave-one-out: each mutant left out, its failure diagnosed against the others' known mistakes")
    print(_table(LEAVE_ONE_OUT, loo))
    print("\nToday's diagnosis of the injected mistakes (right: the mirrored mutant's pitfall is among those named; "
          "alone: the only one named; wrong: only other pitfalls named; silent: none named)")
    print(_table(["exercise / alternative", "injected", "right", "right, alone", "wrong", "silent"], table))
    if verbose:
        print()
        for record, found, said in everything:
            named = "; ".join(_named(e) for e in found) or "nothing"
            expected = f"pitfall {record.number}" if record.number else "its pitfall"
            print(f"{said:6}  {record.exercise} {record.alternative}/{record.name}: expects {expected} "
                  f"({record.mirrors}), named {named}")
    return everything


def _write_json(path: Path, outcomes: list[Outcome], judged: list[tuple[Record, list[dict], str]]) -> None:
    """Every injected mistake's record (and today's diagnosis of it, when it was made) as a JSON list."""
    said = {id(r): (found, verdict) for r, found, verdict in judged}
    data = []
    for record in (r for o in outcomes for r in o.records):
        item = record.as_json()
        if id(record) in said:
            item["diagnosis"], item["verdict"] = said[id(record)]
        data.append(item)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(data)} injected mistakes to {path}")


if __name__ == "__main__":
    sys.exit(main())
