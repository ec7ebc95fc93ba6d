"""Load and check exercise folders (`exercises/<slug>/exercise.toml` and `mutants/*.toml`).

Exercise folders are data. Everything downstream (the judge, the validator, the Markdown widgets, `ol`, the
browser bundle) reads them through this module, so a mistake in a manifest is reported once, here, naming the
file and the field: ``exercises/e7-3/exercise.toml: prompts[2].answer: expected a number or a list of numbers``.
The loaded values are course/model.py's; the whole course as one value is course/exercises.py's `Course`.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from pathlib import Path
from typing import Any, Mapping

from course import store
from course.fields import REPO, Fields, field_lines, line_of_field, locate, read_toml, rel  # noqa: F401 - re-exported
from course.exercises import Course, check_order, dependency_order  # noqa: F401 - re-exported
from course.model import (  # noqa: F401 - re-exported: the model's names are the manifest's
    CatalogueEntry, Choice, Edit, Exercise, Feedback, ManifestError, Mutant, NumericPrompt, Option, UsedBy, module_of,
    slug_of)
from course.store import cache_folder  # noqa: F401 - re-exported

EXERCISES = REPO / "exercises"

KINDS = ("lesson", "module")
TEST_KINDS = ("unit", "statistical", "boundary", "property")
CHOICE_KINDS = ("predict", "check")
SLUG_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
ID_RE = re.compile(r"^[A-Za-z][A-Za-z0-9.]*$")
NAME_RE = re.compile(r"^[a-z][a-z0-9-]*$")
MILESTONE_RE = re.compile(r"^MS-[A-Z0-9]+(-[A-Z0-9]+)*$")


def _numbers(f: Fields, key: str) -> tuple[float, ...]:
    value = f.table.get(key)
    if value is None:
        raise f.fail(key, "missing")
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
        raise f.fail(key, f"expected a number or a list of numbers, got {value!r}")
    return tuple(float(v) for v in items)


def _file(f: Fields, key: str, folder: Path, default: str) -> Path:
    name = f.text(key, default)
    path = (folder / name).resolve()
    if not path.is_file():
        raise f.fail(key, f"file not found: {rel(path)}")
    return path



def load_mutant(path: Path, catalogue: set[str]) -> Mutant:
    """Load `mutants/<name>.toml`: which test must fail, why, and the edits to the reference."""
    f = read_toml(path)
    f.unknown({"fails", "description", "pitfall", "edit", "alike"})
    fails = f.text("fails")
    alike = f.get("alike", list, [], "a list of mutant names")
    if not all(isinstance(a, str) and NAME_RE.match(a) for a in alike):
        raise f.fail("alike", f"expected a list of mutant names (their file names without .toml), got {alike!r}")
    if fails not in catalogue:
        raise f.fail("fails", f"{fails!r} is not a test of this exercise's catalogue")
    edits = []
    for e in f.tables("edit"):
        e.unknown({"find", "replace"})
        edits.append(Edit(find=e.text("find"), replace=e.get("replace", str, what="a string")))
    if not edits:
        raise f.fail("edit", "a mutant needs at least one [[edit]]")
    # The pitfall is what a learner reads when their failing check looks like this mutant (checker/diagnosis.py).
    return Mutant(name=path.stem, path=path, fails=fails, description=f.text("description"),
                  pitfall=f.text("pitfall"), edits=tuple(edits), alike=tuple(alike))



_LOADED: dict[Path, tuple[tuple, Exercise]] = {}
_CODE = hashlib.sha256(b"".join(Path(__file__).with_name(n).read_bytes()
                                for n in ("manifest.py", "model.py", "fields.py"))).hexdigest()  # what loaded it


def load(folder: Path) -> Exercise:
    """Load and check one exercise folder. Raises ManifestError naming the file and field.

    A folder whose files have not changed since it last loaded gives the same Exercise without being read again,
    in this process and, where there is a cache, across processes (course/store.py)."""
    folder = folder.resolve()
    signature = store.signature(folder)
    known = _LOADED.get(folder)
    if known and known[0] == signature:
        return known[1]
    stored = store.disk_path(folder)
    stamp = (signature, _CODE)
    exercise = store.read_stored(stored, stamp)
    if exercise is None:
        exercise = _load(folder)
        store.store(stored, stamp, exercise)
    _LOADED[folder] = (signature, exercise)
    return exercise


def _load(folder: Path) -> Exercise:
    path = folder / "exercise.toml"
    f = read_toml(path)
    f.unknown({"id", "title", "kind", "page", "requires", "time_limit", "code", "tests", "prompts",
               "choices", "prompt_setup", "milestone", "used_by", "hints", "reveal"})
    slug = folder.name
    if not SLUG_RE.match(slug):
        raise ManifestError(f"{f.where('id')}: folder {rel(folder)}: name must be kebab-case, like e7-3")
    ident = f.text("id")
    if not ID_RE.match(ident) or slug_of(ident) != slug:
        raise f.fail("id", f"{ident!r} does not match the folder name {slug!r} (E7.3 lives in e7-3)")
    kind = f.text("kind")
    if kind not in KINDS:
        raise f.fail("kind", f"expected one of {KINDS}, got {kind!r}")
    requires = f.get("requires", list, [], "a list of exercise ids")
    if not all(isinstance(r, str) for r in requires):
        raise f.fail("requires", "expected a list of exercise ids")
    milestone = f.get("milestone", str, "", "a milestone id like \"MS-P6\"")
    if milestone and not MILESTONE_RE.match(milestone):
        raise f.fail("milestone", f"expected a milestone id like 'MS-P6', got {milestone!r}")
    time_limit = f.get("time_limit", float, 10.0, "a number of seconds")
    if not 0 < time_limit <= 300:
        raise f.fail("time_limit", "must be between 0 and 300 seconds")
    if "code" not in f.table:
        raise f.fail("code", "missing")
    code = f.sub("code")
    code.unknown({"path", "starter", "reference", "tests"})
    learner_path = code.text("path")
    if not re.match(r"^python/([A-Za-z_][A-Za-z0-9_]*/)*[A-Za-z_][A-Za-z0-9_]*\.py$", learner_path):
        raise code.fail("path", "expected python/<package>/.../<module>.py")
    catalogue = _catalogue(f)
    prompts, choices = _prompts(f), _choices(f)
    _unique_prompt_ids(f, prompts, choices)
    tests_file = _tests_file(f, code, folder, path, [t.name for t in catalogue])
    return Exercise(
        slug=slug, id=ident, title=f.text("title"), kind=kind, folder=folder, manifest=path,
        page=f.text("page"), requires=tuple(requires), time_limit=time_limit, learner_path=learner_path,
        starter=_file(code, "starter", folder, "starter.py"),
        reference=_file(code, "reference", folder, "reference.py"),
        tests_file=tests_file, catalogue=catalogue, prompts=prompts, choices=choices,
        prompt_setup=f.get("prompt_setup", str, "", "a string of Python"),
        mutants=_mutants(folder, {t.name for t in catalogue}), milestone=milestone, used_by=_used_by(f, ident),
        hints=_hints(f), reveal_after=_reveal(f),
    )


def _used_by(f: Fields, ident: str) -> tuple[UsedBy, ...]:
    """`[[used_by]]`: the later exercises that build on this one (they may not be written yet)."""
    used_by = []
    for u in f.tables("used_by"):
        u.unknown({"id", "how"})
        uid = u.text("id")
        if not ID_RE.match(uid):
            raise u.fail("id", f"expected an exercise id like 'L8.6', got {uid!r}")
        if uid == ident:
            raise u.fail("id", f"{ident} cannot be used by itself")
        used_by.append(UsedBy(uid, u.text("how")))
    dupes = sorted({u.id for u in used_by if [v.id for v in used_by].count(u.id) > 1})
    if dupes:
        raise f.fail("used_by", f"listed twice: {', '.join(dupes)}")
    return tuple(used_by)


def _catalogue(f: Fields) -> tuple[CatalogueEntry, ...]:
    """`[[tests]]`: the catalogue of hidden tests, non-empty, each name once."""
    catalogue = []
    for t in f.tables("tests"):
        t.unknown({"name", "kind", "checks", "why"})
        name = t.text("name")
        if not name.startswith("test_"):
            raise t.fail("name", f"{name!r} must start with test_")
        tk = t.text("kind")
        if tk not in TEST_KINDS:
            raise t.fail("kind", f"expected one of {TEST_KINDS}, got {tk!r}")
        catalogue.append(CatalogueEntry(name, tk, t.text("checks"), t.text("why")))
    names = [t.name for t in catalogue]
    if not names:
        raise f.fail("tests", "the catalogue is empty")
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        second = [i for i, n in enumerate(names) if n == dupes[0]][1]
        raise ManifestError(f"{f.where(f'tests[{second}].name')}: tests: duplicate test names: {', '.join(dupes)}")
    return tuple(catalogue)


def _prompts(f: Fields) -> tuple[NumericPrompt, ...]:
    """`[[prompts]]`: the numeric prompts, with their known wrong answers."""
    prompts = []
    for i, p in enumerate(f.tables("prompts")):
        p.unknown({"id", "answer", "expr", "tolerance", "feedback", "explain"})
        pid = p.text("id")
        if not NAME_RE.match(pid):
            raise p.fail("id", "expected kebab-case")
        feedback = []
        for fb in p.tables("feedback"):
            fb.unknown({"answer", "message"})
            feedback.append(Feedback(_numbers(fb, "answer"), fb.text("message")))
        tol = p.get("tolerance", float, 1e-6, "a number")
        if not 0 <= tol < 1:
            raise p.fail("tolerance", "must be in [0, 1)")
        prompts.append(NumericPrompt(pid, _numbers(p, "answer"), p.text("expr"), tol, tuple(feedback),
                                     p.text("explain"), i))
    return tuple(prompts)


def _choices(f: Fields) -> tuple[Choice, ...]:
    """`[[choices]]`: multiple-choice checks and predict-first questions, each with exactly one right option."""
    choices = []
    for i, c in enumerate(f.tables("choices")):
        c.unknown({"id", "kind", "options", "shows_prediction"})
        cid = c.text("id")
        if not NAME_RE.match(cid):
            raise c.fail("id", "expected kebab-case")
        ck = c.text("kind")
        if ck not in CHOICE_KINDS:
            raise c.fail("kind", f"expected one of {CHOICE_KINDS}, got {ck!r}")
        options = []
        for o in c.tables("options"):
            o.unknown({"key", "text", "correct", "feedback"})
            options.append(Option(o.text("key"), o.text("text"), o.get("correct", bool, False, "true or false"),
                                  o.text("feedback")))
        if len(options) < 2:
            raise c.fail("options", "needs at least two options")
        if sum(o.correct for o in options) != 1:
            raise c.fail("options", "exactly one option must have correct = true")
        choices.append(Choice(cid, ck, tuple(options), c.text("shows_prediction", ""), i))
    return tuple(choices)


def _unique_prompt_ids(f: Fields, prompts: tuple[NumericPrompt, ...], choices: tuple[Choice, ...]) -> None:
    """Prompt and choice ids share one namespace (a learner's answers are saved under them); a predict question
    a choice shows must exist."""
    ids = [f"prompts[{x.index}]" for x in prompts] + [f"choices[{x.index}]" for x in choices]
    values = [x.id for x in prompts] + [x.id for x in choices]
    dupes = sorted({n for n in values if values.count(n) > 1})
    if dupes:
        second = ids[[i for i, n in enumerate(values) if n == dupes[0]][1]]
        raise ManifestError(f"{f.where(second + '.id')}: prompts: duplicate prompt ids: {', '.join(dupes)}")
    for c in choices:
        if c.shows_prediction and c.shows_prediction not in {x.id for x in choices if x.kind == "predict"}:
            raise f.fail(f"choices[{c.index}].shows_prediction",
                         f"no predict question with id {c.shows_prediction!r}")


def _tests_file(f: Fields, code: Fields, folder: Path, path: Path, names: list[str]) -> Path:
    """The hidden test file, whose test functions are exactly the catalogue (every mismatch at its own line)."""
    slug = folder.name
    tests_file = _file(code, "tests", folder, "tests/test_" + slug.replace("-", "_") + ".py")
    if not tests_file.name.startswith("test_"):
        raise code.fail("tests", "the hidden test file's name must start with test_")
    defined = test_definitions(tests_file)
    problems = [f"{f.where(f'tests[{i}].name')}: tests[{i}].name: in the catalogue but not defined in "
                f"{rel(tests_file)}: {n}" for i, n in enumerate(names) if n not in defined]
    problems += [f"{rel(tests_file)}:{line}: {n} is defined here but missing from the catalogue ([[tests]] in "
                 f"{rel(path)})" for n, line in defined.items() if n not in names]
    if problems:
        raise ManifestError(*problems)
    return tests_file


def _mutants(folder: Path, names: set[str]) -> tuple[Mutant, ...]:
    """`mutants/*.toml`, each naming a test of the catalogue; `alike` names other mutants of the exercise."""
    mutants = tuple(load_mutant(m, names) for m in sorted((folder / "mutants").glob("*.toml")))
    for m in mutants:
        strangers = [a for a in m.alike if a not in {n.name for n in mutants} or a == m.name]
        if strangers:
            raise ManifestError(f"{rel(m.path)}:{line_of_field(m.path, 'alike')}: alike: {strangers[0]!r} is not "
                                f"another mutant of this exercise")
    return mutants


MAX_HINTS = 6


def _hints(f: Fields) -> tuple[str, ...]:
    """`[[hints]]`: each a `text` in Markdown, from a nudge to the decisive idea, offered in this order."""
    hints = []
    for h in f.tables("hints"):
        h.unknown({"text"})
        hints.append(h.text("text").strip())
    if len(hints) > MAX_HINTS:
        raise f.fail("hints", f"{len(hints)} hints; at most {MAX_HINTS}: a learner should reach the decisive one")
    return tuple(hints)


def _reveal(f: Fields) -> int | None:
    """`reveal`: "after-pass", or a table `after-attempts = N` (N failed checks and every hint, then the
    reference can be shown). None when the exercise does not say (the course's default applies)."""
    value = f.table.get("reveal")
    if value is None:
        return None
    if value == "after-pass":
        return 0
    if isinstance(value, dict) and set(value) == {"after-attempts"}:
        n = value["after-attempts"]
        if isinstance(n, int) and not isinstance(n, bool) and 1 <= n <= 100:
            return n
        raise f.fail("reveal", f"after-attempts must be a whole number of failed checks from 1 to 100, got {n!r}")
    raise f.fail("reveal", f"expected \"after-pass\" or {{ after-attempts = N }}, got {value!r}")


COURSE_FILE = "course.toml"  # in the exercises folder: what every exercise inherits unless it says otherwise


def course_defaults(root: Path) -> dict[str, Any]:
    """The course's defaults from `<root>/course.toml`: `reveal`, as in an exercise.toml, and `decimals`, the
    precision every numeric prompt accepts unless its question asks for another (authoring/pages.py holds the
    prompts to it); {} without the file."""
    path = root / COURSE_FILE
    if not path.is_file():
        return {}
    f = read_toml(path)
    f.unknown({"reveal", "decimals"})
    found: dict[str, Any] = {"reveal_after": _reveal(f) or 0}
    if "decimals" in f.table:
        decimals = f.get("decimals", int, what="a whole number of decimals")
        if not 0 <= decimals <= 12:
            raise f.fail("decimals", f"must be a whole number from 0 to 12, got {decimals}")
        found["decimals"] = decimals
    return found


def test_definitions(tests_file: Path) -> dict[str, int]:
    """Test functions defined at the top level of a hidden test file -> the line of their `def`."""
    text = tests_file.read_text(encoding="utf-8")
    return {m.group(1): text.count("\n", 0, m.start()) + 1
            for m in re.finditer(r"^def (test_\w+)\(", text, re.M)}


def load_all(root: Path = EXERCISES, errors: list[str] | None = None) -> Course:
    """Every exercise under `root` as a Course (keyed by slug), with `requires` checked to name real exercises.

    Raises the first ManifestError; with an `errors` list, appends every problem's lines to it instead and
    returns the exercises that loaded cleanly (the validator reports all broken exercises in one go, and still
    validates the others).
    """
    found: dict[str, Exercise] = {}
    broken: set[str] = set()  # slugs of folders that did not load
    problems: list[str] = []

    def report(exc: ManifestError) -> None:
        if errors is None:
            raise exc
        problems.extend(exc.lines)

    for manifest in sorted(root.glob("*/exercise.toml")):
        try:
            ex = load(manifest.parent)
        except ManifestError as exc:
            broken.add(manifest.parent.name)
            report(exc)
            continue
        found[ex.slug] = ex
    changed = True
    while changed:  # until no exercise is left requiring one that is missing (dropping one can orphan another)
        changed = False
        by_id = {ex.id: ex for ex in found.values()}
        for ex in list(found.values()):
            for i, req in enumerate(ex.requires):
                if req in by_id:
                    continue
                slug = slug_of(req)
                if slug in broken:  # its own error says why; this one only says what it stops
                    problem = f"{req} did not load, so {ex.id} is not validated either"
                else:
                    problem = f"no exercise with id {req!r}"
                report(ManifestError(f"{rel(ex.manifest)}:{line_of_field(ex.manifest, f'requires[{i}]')}: "
                                     f"requires[{i}]: {problem}"))
                broken.add(ex.slug)
                found.pop(ex.slug)
                changed = True
                break
    by_id = {ex.id: ex for ex in found.values()}
    for ex in found.values():  # "used by" a written exercise: that exercise must really build on this one
        for i, user in enumerate(ex.used_by):
            if user.id in by_id and ex.id not in by_id[user.id].requires:
                report(ManifestError(f"{rel(ex.manifest)}:{line_of_field(ex.manifest, f'used_by[{i}].id')}: "
                                     f"used_by[{i}].id: {user.id} exists but does not list {ex.id} in its requires"))
    for ex in list(found.values()):  # a cycle would make dependency resolution loop forever
        try:
            dependency_order(ex, by_id)
        except ManifestError as exc:
            report(exc)
            found.pop(ex.slug, None)
    try:
        defaults = course_defaults(root)
    except ManifestError as exc:
        report(exc)
        defaults = {}
    for slug, ex in found.items():
        if ex.reveal_after is None:
            found[slug] = replace(ex, reveal_after=defaults.get("reveal_after", 0))
    if errors is not None:
        errors.extend(dict.fromkeys(problems))  # a cycle is found from each of its members; say it once
    return Course(found, root)


def find(key: str, exercises: Mapping[str, Exercise]) -> Exercise:
    """Look an exercise up by id or slug, in any case (`M07.6`, `m07.6`, `m07-6`): Course.find."""
    return Course.of(exercises).find(key)
