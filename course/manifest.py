"""Load and validate exercise folders (`exercises/<slug>/exercise.toml` and `mutants/*.toml`).

Exercise folders are data. Everything downstream (the judge, the validator, the Markdown widgets, `ol`, the
browser bundle) reads them through this module, so a mistake in a manifest is reported once, here, naming the
file and the field: ``exercises/e7-3/exercise.toml: prompts[2].answer: expected a number or a list of numbers``.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import re
import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
EXERCISES = REPO / "exercises"

KINDS = ("lesson", "module")
TEST_KINDS = ("unit", "statistical", "boundary", "property")
CHOICE_KINDS = ("predict", "check")
SLUG_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
ID_RE = re.compile(r"^[A-Za-z][A-Za-z0-9.]*$")
NAME_RE = re.compile(r"^[a-z][a-z0-9-]*$")
MILESTONE_RE = re.compile(r"^MS-[A-Z0-9]+(-[A-Z0-9]+)*$")


class ManifestError(ValueError):
    """A manifest, mutant or referenced file is wrong: one or more lines `path:line: field: problem`.

    `lines` holds each problem on its own (load() reports every test missing from the catalogue at once);
    str() joins them with newlines.
    """

    def __init__(self, *lines: str):
        super().__init__("\n".join(lines))
        self.lines = list(lines)


@dataclass(frozen=True)
class CatalogueEntry:
    """One hidden test as the learner sees it in the catalogue (never its source)."""

    name: str
    kind: str
    checks: str
    why: str


@dataclass(frozen=True)
class Edit:
    """One textual edit of the reference: `find` must occur exactly once."""

    find: str
    replace: str


@dataclass(frozen=True)
class Mutant:
    """A deliberately wrong solution and the hidden test that must catch it."""

    name: str
    path: Path
    fails: str
    description: str
    pitfall: str
    edits: tuple[Edit, ...]
    # Mutants that fail every test exactly like this one though they stand for another pitfall, accepted by the
    # author: a learner making either mistake is shown both, and validation does not warn (checker/diagnosis.py).
    alike: tuple[str, ...] = ()


@dataclass(frozen=True)
class Feedback:
    """A known wrong answer of a numeric prompt and what to tell the learner about it."""

    answer: tuple[float, ...]
    message: str


@dataclass(frozen=True)
class NumericPrompt:
    """A numeric prompt; `expr` is evaluated against the reference to prove `answer` right."""

    id: str
    answer: tuple[float, ...]
    expr: str
    tolerance: float
    feedback: tuple[Feedback, ...]
    explain: str
    index: int


@dataclass(frozen=True)
class Option:
    """One option of a multiple-choice or predict question."""

    key: str
    text: str
    correct: bool
    feedback: str


@dataclass(frozen=True)
class Choice:
    """A multiple-choice check or a predict-first question."""

    id: str
    kind: str
    options: tuple[Option, ...]
    shows_prediction: str
    index: int


@dataclass(frozen=True)
class UsedBy:
    """A later exercise that builds on this one (the seed's "Used by"); it may not be written yet."""

    id: str
    how: str


@dataclass(frozen=True)
class Exercise:
    """A loaded `exercise.toml`; paths are absolute."""

    slug: str
    id: str
    title: str
    kind: str
    folder: Path
    manifest: Path
    page: str
    requires: tuple[str, ...]
    time_limit: float
    learner_path: str
    starter: Path
    reference: Path
    tests_file: Path
    catalogue: tuple[CatalogueEntry, ...]
    prompts: tuple[NumericPrompt, ...]
    choices: tuple[Choice, ...]
    prompt_setup: str
    mutants: tuple[Mutant, ...] = field(default=())
    # The course around the exercise: the milestone gate it counts towards, and what builds on it later.
    milestone: str = ""
    used_by: tuple[UsedBy, ...] = field(default=())
    # Help for a learner who is stuck: hints (Markdown, maths allowed) offered one at a time after a failed
    # check, and when the reference may be shown: after a pass (0), or after this many failed checks and every
    # hint (`reveal`; load_all fills in the course's default, exercises/course.toml, for an exercise without).
    hints: tuple[str, ...] = field(default=())
    reveal_after: int | None = None

    @property
    def reveal(self) -> str:
        """The reveal policy as written: `after-pass`, or `after-attempts = N`."""
        return f"after-attempts = {self.reveal_after}" if self.reveal_after else "after-pass"

    @property
    def module(self) -> str:
        """The import name of the learner's file: `python/tinyllm/prob/x.py` -> `tinyllm.prob.x`."""
        return module_of(self.learner_path)

    @property
    def import_path(self) -> str:
        """The learner's file relative to the import root (`tinyllm/prob/x.py`)."""
        return self.learner_path.split("/", 1)[1]

    def test_names(self) -> list[str]:
        """Catalogue test names, in catalogue order."""
        return [t.name for t in self.catalogue]


def module_of(learner_path: str) -> str:
    """Import name of a learner path rooted at `python/`."""
    return learner_path.split("/", 1)[1].removesuffix(".py").replace("/", ".")


class _Fields:
    """Typed access to a TOML table that reports `file:line: field: problem` on any mistake.

    `lines` maps field paths to lines of the file (see `field_lines`), so each message points at its field.
    """

    def __init__(self, path: Path, table: dict[str, Any], prefix: str = "", lines: dict[str, int] | None = None):
        self.path, self.table, self.prefix, self.lines = path, table, prefix, lines or {}

    def where(self, key: str) -> str:
        """`path:line` of field `key` of this table (its table's line, or 1, when the key is not written)."""
        return f"{rel(self.path)}:{locate(self.lines, self.prefix + key)}"

    def fail(self, key: str, problem: str) -> ManifestError:
        return ManifestError(f"{self.where(key)}: {self.prefix}{key}: {problem}")

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ..., what: str = "") -> Any:
        if key not in self.table:
            if default is ...:
                raise self.fail(key, "missing")
            return default
        value = self.table[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise self.fail(key, f"expected {what or getattr(kind, '__name__', kind)}, got {value!r}")
        return value

    def text(self, key: str, default: Any = ...) -> str:
        value = self.get(key, str, default, "a string")
        if default is ... and not value.strip():
            raise self.fail(key, "must not be empty")
        return value

    def sub(self, key: str, index: int | None = None) -> "_Fields":
        table = self.table[key] if index is None else self.table[key][index]
        label = f"{self.prefix}{key}" + (f"[{index}]" if index is not None else "")
        if not isinstance(table, dict):
            raise ManifestError(f"{rel(self.path)}:{locate(self.lines, label)}: {label}: expected a table")
        return _Fields(self.path, table, label + ".", self.lines)

    def tables(self, key: str) -> list["_Fields"]:
        items = self.table.get(key, [])
        if not isinstance(items, list):
            raise self.fail(key, "expected an array of tables ([[...]])")
        return [self.sub(key, i) for i in range(len(items))]

    def unknown(self, allowed: set[str]) -> None:
        for key in self.table:
            if key not in allowed:
                raise self.fail(key, f"unknown field (allowed: {', '.join(sorted(allowed))})")


# ---- where a field is written: TOML field paths -> lines ----------------------------------------------------------

_HEADER_RE = re.compile(r"^\s*(\[\[?)([^\[\]]+)\]\]?\s*(#.*)?$")
_KEY_RE = re.compile(r"""^\s*((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=""")
_LAST_PART_RE = re.compile(r"(\.[^.\[\]]+|\[\d+\])$")


def _key_parts(key: str) -> list[str]:
    return [part.strip().strip("\"'") for part in re.findall(r"""[A-Za-z0-9_-]+|"[^"]*"|'[^']*'""", key)]


def _scan_value(text: str, depth: int, quote: str | None) -> tuple[int, str | None]:
    """Carry (bracket depth, open multi-line string) across `text`: where a value that spans lines ends."""
    i = 0
    while i < len(text):
        if quote in ('"""', "'''"):
            if quote == '"""' and text[i] == "\\":
                i += 2
                continue
            if text.startswith(quote, i):
                i += 3
                while i < len(text) and text[i] == quote[0]:  # up to two quotes may end the content
                    i += 1
                quote = None
                continue
            i += 1
            continue
        if quote:  # a one-line string
            if quote == '"' and text[i] == "\\":
                i += 2
                continue
            quote = None if text[i] == quote else quote
            i += 1
            continue
        char = text[i]
        if char == "#":
            break
        if text.startswith('"""', i) or text.startswith("'''", i):
            quote = text[i:i + 3]
            i += 3
            continue
        if char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        i += 1
    return depth, quote if quote in ('"""', "'''") else None


def field_lines(text: str) -> dict[str, int]:
    """Map each field path of a TOML document to the 1-based line that writes it.

    Paths are spelt as messages spell them: `id`, `code.path`, `prompts[1].answer`, `prompts[1].feedback[0]`
    (a table's header line), `tests` (the first `[[tests]]`). Lines inside multi-line strings and arrays are
    not mistaken for keys. The key "" holds the line where a value left open at the end of the file began.
    """
    lines: dict[str, int] = {}
    counts: dict[str, int] = {}  # array of tables (with its parents' indices) -> entries seen so far
    table = ""
    depth, quote, opened = 0, None, 0
    for number, line in enumerate(text.splitlines(), 1):
        if depth > 0 or quote:
            depth, quote = _scan_value(line, depth, quote)
            continue
        header = _HEADER_RE.match(line)
        if header:
            is_array = header.group(1) == "[["
            parts = _key_parts(header.group(2))
            path = ""
            for i, part in enumerate(parts):
                path = f"{path}.{part}" if path else part
                if is_array and i == len(parts) - 1:
                    index = counts.get(path, 0)
                    counts[path] = index + 1
                    lines.setdefault(path, number)
                    path = f"{path}[{index}]"
                elif path in counts:
                    path = f"{path}[{counts[path] - 1}]"
            table = path
            lines.setdefault(table, number)
            continue
        key = _KEY_RE.match(line)
        if key:
            name = ".".join(_key_parts(key.group(1)))
            lines.setdefault(f"{table}.{name}" if table else name, number)
            depth, quote = _scan_value(line[key.end():], 0, None)
            opened = number
    if depth > 0 or quote:
        lines[""] = opened
    return lines


def locate(lines: dict[str, int], field: str) -> int:
    """Line of `field` in a `field_lines` map; else of the nearest enclosing table or key written; else 1."""
    while field:
        if field in lines:
            return lines[field]
        parent = _LAST_PART_RE.sub("", field)
        field = "" if parent == field else parent
    return 1


def line_of_field(path: Path, field: str) -> int:
    """Line of `field` (a path like `prompts[1].answer` or `edit[0].find`) in the TOML file at `path`."""
    try:
        return locate(field_lines(path.read_text(encoding="utf-8")), field)
    except (OSError, UnicodeDecodeError):
        return 1


def rel(path: Path) -> str:
    """Path relative to the repository, for messages."""
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def _numbers(f: _Fields, key: str) -> tuple[float, ...]:
    value = f.table.get(key)
    if value is None:
        raise f.fail(key, "missing")
    items = value if isinstance(value, list) else [value]
    if not items or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
        raise f.fail(key, f"expected a number or a list of numbers, got {value!r}")
    return tuple(float(v) for v in items)


def _file(f: _Fields, key: str, folder: Path, default: str) -> Path:
    name = f.text(key, default)
    path = (folder / name).resolve()
    if not path.is_file():
        raise f.fail(key, f"file not found: {rel(path)}")
    return path


def _read_toml(path: Path) -> _Fields:
    """The parsed file as a _Fields over its top-level table, with the line of every field."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ManifestError(f"{rel(path)}: file not found") from None
    lines = field_lines(text)
    try:
        return _Fields(path, tomllib.loads(text), "", lines)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"at line (\d+)", str(exc))
        # "at end of document": an unterminated string or array; point at where it began
        line = int(found.group(1)) if found else lines.get("", max(1, len(text.splitlines())))
        raise ManifestError(f"{rel(path)}:{line}: invalid TOML: {exc}") from None


def load_mutant(path: Path, catalogue: set[str]) -> Mutant:
    """Load `mutants/<name>.toml`: which test must fail, why, and the edits to the reference."""
    f = _read_toml(path)
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
_CODE = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()  # what loaded a stored exercise


def _signature(folder: Path) -> tuple:
    """What `load` read, as the file system describes it: every file's path, size and modification time."""
    out = []
    root = str(folder)
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        base = os.path.relpath(top, root).replace(os.sep, "/")
        for name in files:
            stat = os.stat(os.path.join(top, name))
            out.append((name if base == "." else f"{base}/{name}", stat.st_size, stat.st_mtime_ns))
    return tuple(sorted(out))


def load(folder: Path) -> Exercise:
    """Load and check one exercise folder. Raises ManifestError naming the file and field.

    A folder whose files have not changed since it last loaded (same paths, sizes and modification times) gives
    the same Exercise without being read again: a build loads every exercise several times (validation, the page
    checks, the widgets), which at a hundred exercises cost seconds each time. Across processes, the Exercise
    is kept on disk too (`_disk_cache`), with the signature and this file's code it was loaded with."""
    folder = folder.resolve()
    signature = _signature(folder)
    known = _LOADED.get(folder)
    if known and known[0] == signature:
        return known[1]
    stored = _disk_cache(folder)
    stamp = (signature, _CODE)
    exercise = _read_stored(stored, stamp)
    if exercise is None:
        exercise = _load(folder)
        _store(stored, stamp, exercise)
    _LOADED[folder] = (signature, exercise)
    return exercise


def cache_folder() -> Path:
    """The folder of what validation and the build remember between runs: TL_VALIDATE_CACHE, else
    .cache/validate in this checkout."""
    return Path(os.environ.get("TL_VALIDATE_CACHE") or REPO / ".cache" / "validate")


def _disk_cache(folder: Path) -> Path | None:
    """Where `folder`'s exercise is kept between processes, with what it was loaded from: in the validation
    cache when TL_VALIDATE_CACHE names one, or for the checkout's own exercises once it has a .cache; None
    elsewhere (an installed `ol`, a folder of a test)."""
    if not os.environ.get("TL_VALIDATE_CACHE") and not ((REPO / ".cache").is_dir() and folder.is_relative_to(REPO)):
        return None
    return cache_folder() / "manifests" / f"{hashlib.sha256(str(folder).encode()).hexdigest()[:32]}.pickle"


def _read_stored(path: Path | None, stamp: tuple) -> Exercise | None:
    """The stored exercise when it was loaded from the files as they are now, by this code; else None."""
    try:
        kept, exercise = pickle.loads(path.read_bytes()) if path else (None, None)
    except Exception:  # noqa: BLE001 - unreadable, cut short, from another version: load the folder instead
        return None
    return exercise if kept == stamp and isinstance(exercise, Exercise) else None


def _store(path: Path | None, stamp: tuple, exercise: Exercise) -> None:
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps((stamp, exercise)))
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache only costs the next process a load


def _load(folder: Path) -> Exercise:
    path = folder / "exercise.toml"
    f = _read_toml(path)
    f.unknown({"id", "title", "kind", "page", "requires", "time_limit", "code", "tests", "prompts",
               "choices", "prompt_setup", "milestone", "used_by", "hints", "reveal"})
    slug = folder.name
    if not SLUG_RE.match(slug):
        raise ManifestError(f"{f.where('id')}: folder {rel(folder)}: name must be kebab-case, like e7-3")
    ident = f.text("id")
    if not ID_RE.match(ident) or ident.lower().replace(".", "-") != slug:
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


def _used_by(f: _Fields, ident: str) -> tuple[UsedBy, ...]:
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


def _catalogue(f: _Fields) -> tuple[CatalogueEntry, ...]:
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


def _prompts(f: _Fields) -> tuple[NumericPrompt, ...]:
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


def _choices(f: _Fields) -> tuple[Choice, ...]:
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


def _unique_prompt_ids(f: _Fields, prompts: tuple[NumericPrompt, ...], choices: tuple[Choice, ...]) -> None:
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


def _tests_file(f: _Fields, code: _Fields, folder: Path, path: Path, names: list[str]) -> Path:
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


def _hints(f: _Fields) -> tuple[str, ...]:
    """`[[hints]]`: each a `text` in Markdown, from a nudge to the decisive idea, offered in this order."""
    hints = []
    for h in f.tables("hints"):
        h.unknown({"text"})
        hints.append(h.text("text").strip())
    if len(hints) > MAX_HINTS:
        raise f.fail("hints", f"{len(hints)} hints; at most {MAX_HINTS}: a learner should reach the decisive one")
    return tuple(hints)


def _reveal(f: _Fields) -> int | None:
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
    """The course's defaults from `<root>/course.toml` (`reveal`, as in an exercise.toml); {} without the file."""
    path = root / COURSE_FILE
    if not path.is_file():
        return {}
    f = _read_toml(path)
    f.unknown({"reveal"})
    return {"reveal_after": _reveal(f) or 0}


def test_definitions(tests_file: Path) -> dict[str, int]:
    """Test functions defined at the top level of a hidden test file -> the line of their `def`."""
    text = tests_file.read_text(encoding="utf-8")
    return {m.group(1): text.count("\n", 0, m.start()) + 1
            for m in re.finditer(r"^def (test_\w+)\(", text, re.M)}


def load_all(root: Path = EXERCISES, errors: list[str] | None = None) -> dict[str, Exercise]:
    """Every exercise under `root`, keyed by slug, with `requires` checked to name real exercises.

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
                slug = req.lower().replace(".", "-")
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
    return found


def dependency_order(ex: Exercise, by_id: dict[str, Exercise]) -> list[Exercise]:
    """Transitive dependencies of `ex`, deepest first (M07.6 -> [M06.3, M07.1])."""
    order: list[Exercise] = []
    stack: list[str] = []

    def visit(e: Exercise) -> None:
        if e.id in stack:
            raise ManifestError(f"{rel(e.manifest)}:{line_of_field(e.manifest, 'requires')}: requires: "
                                f"dependency cycle {' -> '.join(stack + [e.id])}")
        stack.append(e.id)
        for r in e.requires:
            dep = by_id[r]
            if dep not in order:
                visit(dep)
                order.append(dep)
        stack.pop()

    visit(ex)
    return order


def check_order(ex: Exercise, by_id: dict[str, Exercise]) -> list[Exercise]:
    """The order in which the dependency rule looks at what `ex` builds on, the one order of `ol check` and the
    page (course/records.py ships it as `checkOrder`): its own `requires` first, in dependency order, then the
    transitive ones nearest first. M07.6 asks for M07.1, and M07.1's own check will then ask for M06.3."""
    deps = dependency_order(ex, by_id)
    return [d for d in deps if d.id in ex.requires] + [d for d in reversed(deps) if d.id not in ex.requires]


def find(key: str, exercises: dict[str, Exercise]) -> Exercise:
    """Look an exercise up by id or slug, in any case (`M07.6`, `m07.6`, `m07-6`)."""
    slug = key.strip().lower().replace(".", "-")
    if slug in exercises:
        return exercises[slug]
    known = ", ".join(sorted(e.id for e in exercises.values()))
    raise KeyError(f"unknown exercise {key!r} (known: {known})")
