"""A teacher's class view: many learners' progress files read, each learner a row, and turned into a table, a CSV
for a gradebook and a short summary per exercise (`ol class`; the site's class page is web/src/page/class/).

The rules live here and in web/src/page/class/model.js, held equal by the golden cases of tests/fixtures/class/
(input files, then the rows, CSV and summary both sides must produce):

- **Reading.** Every file is one line of its own when it cannot be used: larger than FILE_CAP, not UTF-8 text,
  the same text as a file whose name comes first (skipped as a duplicate), or refused by the progress format
  (ol/exchange.py: not JSON, cut short, nested too deep, another course, another format version). Files may be
  read in any order; what is decided is decided in the order of their names (code points).
- **Zips.** A zip's entries are files named `<zip>/<path inside>`, read one at a time: folders and a Mac's
  resource forks left out; a line for an entry whose path leads out of the zip, for a name the zip holds twice
  (none of them read), for one encrypted, compressed another way, larger than FILE_CAP, or inflating more than
  ZIP_RATIO times over (past RATIO_FLOOR); one line for the zip past ZIP_ENTRIES files or past ZIP_TOTAL bytes
  inflated, after which the rest is not read.
- **Names.** A file's learner is its top-level `learner`, else the file's name. Two files naming one learner
  (equal ignoring case) are a conflict: each is a row of its own, its `problem` naming the other files; nothing
  of one is merged into the other or replaces it.
- **Claims.** An exercise is claimed passed when the file's newest check of it passed (the browser's last result,
  or a pass recorded by `ol`), with the code that passed; failed when that check failed, or when failed checks
  were counted without one; untried otherwise. Checks: the failed checks counted (at least one for a failed
  claim), plus one for a pass.
- **Verdicts.** A claimed pass counts only once the judge has run the learner's own passed code through the hidden
  tests again: `passed` when it holds, `not-reproduced` when it does not (with the tests that failed). `failed`
  and `untried` are the claims as they are. An exercise that builds on others is checked with the learner's own
  code of each dependency whose pass held, and the reference of any other (`dependency_sources`), so each pass is
  judged on its own merits.
- **Out.** The CSV (`csv_text`, CSV_COLUMNS): one row per learner, sorted by name, then one per refused file, UTF-8
  with a byte-order mark and CRLF line ends, cells a spreadsheet would read as a formula quoted with a leading
  apostrophe; `problem` is a row's conflict or a file's refusal. The summary (`summary_text`): per exercise, the
  pass rate and the pitfalls and prompts the class hit most.

Times are UTC; nothing here reads the clock, so the same files give the same bytes on both sides.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import math
import re
from dataclasses import dataclass, field
from typing import BinaryIO, Callable, Iterable, Iterator, Mapping

from . import exchange

FILE_CAP = 5_000_000  # bytes of one progress file (an export is a few kB; the largest course's, well under 1 MB)
ZIP_CAP = 100_000_000  # bytes of one zip of progress files
ZIP_ENTRIES = 1000  # files read from one zip; the rest get one line
ZIP_TOTAL = 100_000_000  # bytes the files of one zip come to, inflated; the rest get one line
ZIP_RATIO = 100  # times an entry may inflate over its bytes in the zip (exports deflate about 5 to 10 times)...
RATIO_FLOOR = 1_000_000  # ...once it inflates past this many bytes
TOO_LARGE = (f"it is larger than {FILE_CAP // 1_000_000} MB, the limit for one progress file (an export is usually "
             f"a few kB)")
ZIP_TOO_LARGE = f"it is larger than {ZIP_CAP // 1_000_000} MB, the limit for one zip of progress files"
ZIP_TOO_MUCH = f"its files come to more than {ZIP_TOTAL // 1_000_000} MB; the rest were not read"
ESCAPES = "its path leads out of the zip's folder (.. or an absolute path), so it was not read"
ZIP_UNREADABLE = "it is a zip that cannot be read (damaged, or a zip64 archive)"
ENTRY_UNREADABLE = "it cannot be read from the zip (it is damaged)"
REFUSALS = {"empty": "the file is empty", "cut": "the file ends in the middle (it was cut short while saving or copying)",
            "json": "the file is not valid JSON", "deep": exchange.DEEP, "data": 'it has no "data" table',
            "format": 'it is not a tinyllm progress export (no "format": "tinyllm-progress")'}
BOMB = f"it inflates more than {ZIP_RATIO} times over, as a zip bomb does, so it was not read"
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")  # a zip starts with a file's local header, or is an empty one
VERDICTS = ("passed", "failed", "untried", "not-reproduced")
TOP = 3  # pitfalls and prompts named per exercise in the summary
ISO = re.compile(r"^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2})$")
MS_MAX = 253_402_300_800_000  # 10000-01-01: later times are nonsense
CSV_COLUMNS = ("learner", "exercises passed", "last activity (UTC)", "problem")
CSV_PER_EXERCISE = ("verdict", "checks", "hints", "reference seen", "pitfalls", "prompts answered wrong",
                    "last activity (UTC)")
FORMULA = ("=", "+", "-", "@", "\t", "\r")  # a spreadsheet reads a cell starting so as a formula


class ClassInputError(ValueError):
    """One file that cannot be used; the message says why in one sentence."""


@dataclass(frozen=True)
class Column:
    """An exercise as the class table needs it: `requires` are slugs, deepest first; `prompts` the ids of its
    numeric prompts (choice questions have no wrong tries)."""

    slug: str
    id: str
    title: str
    requires: tuple[str, ...] = ()
    prompts: tuple[str, ...] = ()


@dataclass
class Work:
    """One learner's work on one exercise, as their files tell it."""

    claim: str = "untried"  # passed | failed | untried
    code: str | None = None  # the code that passed, for a claimed pass
    at: int | None = None  # when the claim's check was made (ms), if known
    hints: int = 0
    failed: int = 0
    revealed: int = 0  # when the reference was shown (ms), 0 for never
    pitfalls: list[str] = field(default_factory=list)
    prompts: dict[str, int] = field(default_factory=dict)  # numeric prompt id -> wrong tries
    last: int | None = None  # the latest time any of it carries (ms)

    @property
    def checks(self) -> int:
        return max(self.failed, 1 if self.claim == "failed" else 0) + (1 if self.claim == "passed" else 0)


@dataclass
class Sheet:
    """One usable file: whose it is (the name it carries, "" for none) and what it holds."""

    file: str
    learner: str
    saved: int | None
    work: dict[str, Work]


@dataclass
class Learner:
    """One row of the class: one file's learner; `problem` says when other files name that learner too."""

    key: str
    name: str
    files: list[str]
    work: dict[str, Work]
    problem: str = ""


@dataclass
class Gathered:
    learners: list[Learner]
    rejected: list[tuple[str, str]]  # (file, why)


# ---- times ------------------------------------------------------------------------------------------------------

def ms(value: object) -> int | None:
    """A time in ms as the browser saves it, or None for anything else."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        return None
    return int(value // 1) if 0 < value < MS_MAX else None


def _days(y: int, m: int, d: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (web/src/page/class/model.js `days`, alike)."""
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def iso_ms(value: object) -> int | None:
    """An ISO 8601 time with its offset (`2026-12-01T10:00:00Z`, `…+01:00`, as `ol` records passes) in ms, or None
    (a time without an offset is not read: the two sides would guess its zone differently)."""
    found = ISO.match(value) if isinstance(value, str) else None
    if not found:
        return None
    y, mo, d, h, mi = (int(found.group(i)) for i in range(1, 6))
    s = int(found.group(6) or 0)
    frac = int((found.group(7) or "0")[:3].ljust(3, "0"))
    if not (1 <= mo <= 12 and 1 <= d <= 31 and h <= 23 and mi <= 59 and s <= 59):
        return None
    zone = found.group(8)
    offset = 0 if zone == "Z" else (1 if zone[0] == "+" else -1) * (int(zone[1:3]) * 60 + int(zone[4:6]))
    return ms((((_days(y, mo, d) * 24 + h) * 60 + mi - offset) * 60 + s) * 1000 + frac)


def when(value: int | None) -> str:
    """A time as the table and the CSV show it: `2026-12-01 10:00` (UTC), or ""."""
    if value is None:
        return ""
    return dt.datetime.fromtimestamp(value // 1000, dt.timezone.utc).strftime("%Y-%m-%d %H:%M")


def codepoints(text: str) -> list[int]:
    """The order names are sorted in on both sides (code points, not the locale's collation)."""
    return [ord(c) for c in text]


def _latest(*values: int | None) -> int | None:
    found = [v for v in values if v is not None]
    return max(found) if found else None


# ---- one file ---------------------------------------------------------------------------------------------------

def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _candidates(data: Mapping, slug: str, code: str | None) -> list[tuple[str, str | None, int | None]]:
    """The checks a file records for an exercise: (claim, the code that passed, when)."""
    found = []
    result = data.get(f"result:{slug}")
    if isinstance(result, dict) and result.get("status") in ("passed", "failed", "error", "timeout"):
        if result["status"] != "passed":
            found.append(("failed", None, ms(result.get("at"))))
        elif isinstance(result.get("code"), str):
            found.append(("passed", result["code"], ms(result.get("at"))))
    other = data.get(f"elsewhere:{slug}")
    if isinstance(other, dict) and other.get("status") == "passed":
        passed = other["code"] if isinstance(other.get("code"), str) else code
        if passed is not None:
            found.append(("passed", passed, iso_ms(other.get("when"))))
    return found


def work_of(data: Mapping, column: Column) -> Work:
    """What one file says of one exercise (the module's docstring: Claims)."""
    slug = column.slug
    entry = data.get(f"code:{slug}")
    code = entry["code"] if isinstance(entry, dict) and isinstance(entry.get("code"), str) else None
    found = _candidates(data, slug, code)
    best = None
    for candidate in found:  # the newest check; on a tie, the first found
        if best is None or (candidate[2] or -1) > (best[2] or -1):
            best = candidate
    help_ = data.get(f"help:{slug}") if isinstance(data.get(f"help:{slug}"), dict) else {}
    work = Work(hints=_count(help_.get("hints")), failed=_count(help_.get("failed")),
                revealed=ms(help_.get("revealed")) or 0)
    result = data.get(f"result:{slug}")
    diagnosis = result.get("diagnosis") if isinstance(result, dict) else None
    work.pitfalls = exchange.merge_pitfalls(help_.get("pitfalls"), exchange.pitfall_labels(diagnosis))
    for prompt in column.prompts:
        saved = data.get(f"prompt:{slug}/{prompt}")
        if isinstance(saved, dict) and _count(saved.get("tries")):
            work.prompts[prompt] = _count(saved.get("tries"))
    if best is not None:
        work.claim, work.code, work.at = best
    elif work.failed:
        work.claim = "failed"
    times = [c[2] for c in found] + [ms(entry.get("at")) if isinstance(entry, dict) else None, work.revealed or None]
    work.last = _latest(*times)
    return work


def text_of(data: bytes) -> str:
    """A file's text, or ClassInputError when it is too large or not UTF-8 (a byte-order mark is dropped)."""
    if len(data) > FILE_CAP:
        raise ClassInputError(TOO_LARGE)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ClassInputError("it is not UTF-8 text, so not a progress export") from None


def refusal(exc: exchange.ExchangeError) -> str:
    """What the class view says of a file the progress format refuses, in the words both sides write alike (the
    CSV holds them; each side's importer words it its own way: ol/exchange.py, web/src/page/exchange.js)."""
    if exc.kind == "version":
        if not isinstance(exc.value, str):
            return f'it has no progress format version (this reads "{exchange.FORMAT_VERSION}")'
        return f'its progress format version is "{exc.value}", and this reads "{exchange.FORMAT_VERSION}"'
    if exc.kind == "course":
        return f'it is from the course "{exc.value}", not "{exchange.COURSE}"'
    if exc.kind == "code":
        return f'its entry "{exc.value}" holds no code'
    return REFUSALS.get(exc.kind, str(exc))


def sheet_of(file: str, text: str, columns: Iterable[Column], course: str = exchange.COURSE) -> Sheet:
    """One file's text, read whole and checked; ClassInputError says why it cannot be used."""
    try:
        dump = exchange.parse(text, course)
    except exchange.ExchangeError as exc:
        raise ClassInputError(refusal(exc)) from None
    return Sheet(file, dump.learner, iso_ms(dump.saved), {c.slug: work_of(dump.data, c) for c in columns})


# ---- zips ---------------------------------------------------------------------------------------------------------

def is_zip(data: bytes) -> bool:
    return data[:4] in ZIP_MAGIC


def skipped_entry(name: str) -> bool:
    """Entries of a zip that are nobody's work: folders, and the resource forks a Mac adds (`__MACOSX/`, `._x`)."""
    return name.endswith("/") or name.startswith("__MACOSX/") or name.rsplit("/", 1)[-1].startswith("._")


def escapes(name: str) -> bool:
    """Whether a zip entry's path leads out of where it would be unpacked: absolute, a drive, or through `..`."""
    return name.startswith(("/", "\\")) or bool(re.match(r"[A-Za-z]:", name)) or ".." in re.split(r"[/\\]", name)


def zip64(end: bytes) -> str:
    """Why a zip's central directory cannot be read as the page reads it (its last bytes, `end`), or "": none
    found, or a zip64 archive (web/src/page/class/zip.js `directory`)."""
    at = end.rfind(b"PK\x05\x06", 0, max(0, len(end) - 18))
    if at < 0:
        return "it has no central directory"
    count, offset = int.from_bytes(end[at + 10:at + 12], "little"), int.from_bytes(end[at + 16:at + 20], "little")
    return "it is a zip64 archive" if count == 0xFFFF or offset == 0xFFFFFFFF else ""


def _entry_problem(info, names: dict[str, int]) -> str:
    """Why one entry of a zip is not read, or "" (the module's docstring: Zips)."""
    import zipfile

    if escapes(info.filename):
        return ESCAPES
    if names[info.filename] > 1:
        return f"the zip holds {names[info.filename]} entries of this name, so none of them was read"
    if info.flag_bits & 1:
        return "it is encrypted in the zip"
    if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        return "it is compressed with a method this cannot read (zip it with the usual \"deflate\")"
    if info.file_size > FILE_CAP:
        return TOO_LARGE
    if info.file_size > RATIO_FLOOR and info.file_size > ZIP_RATIO * info.compress_size:
        return BOMB
    return ""


def entries(file: str, source: BinaryIO) -> Iterator[tuple[str, bytes | None, str]]:
    """The files of a zip one at a time, as (`<zip>/<path inside>`, bytes, "") or (name, None, why it was not
    read); the zip's own name with None when the whole zip, or the rest of it, is refused. Each entry is read
    with a cap, never whole, and never two at once. web/src/page/class/zip.js reads zips by the same rules."""
    import zipfile

    end = source.seek(0, 2)
    source.seek(max(0, end - 22 - 0xFFFF))
    why = zip64(source.read())
    try:
        if why:
            raise zipfile.BadZipFile(why)
        archive = zipfile.ZipFile(source)
        infos = [info for info in archive.infolist() if not skipped_entry(info.filename)]
    except (zipfile.BadZipFile, ValueError, EOFError, OSError):
        yield file, None, ZIP_UNREADABLE
        return
    names: dict[str, int] = {}
    for info in infos:
        names[info.filename] = names.get(info.filename, 0) + 1
    said, total = set(), 0
    for n, info in enumerate(infos):
        name = f"{file}/{info.filename}"
        if n >= ZIP_ENTRIES:
            yield file, None, f"it holds more than {ZIP_ENTRIES} files; the rest were not read"
            return
        why = _entry_problem(info, names)
        if why:
            if info.filename not in said:
                yield name, None, why
            said.add(info.filename)
            continue
        total += info.file_size
        if total > ZIP_TOTAL:
            yield file, None, ZIP_TOO_MUCH
            return
        try:
            with archive.open(info) as f:
                data = f.read(FILE_CAP + 1)
        except (zipfile.BadZipFile, ValueError, EOFError, OSError):
            yield name, None, ENTRY_UNREADABLE
            continue
        yield name, data, ""
        del data  # not held while the next entry is read


def unzip(file: str, data: bytes) -> tuple[list[tuple[str, bytes]], list[tuple[str, str]]]:
    """The files of a zip held in memory, and a line for each that cannot be read (or for the whole zip)."""
    from io import BytesIO

    if len(data) > ZIP_CAP:
        return [], [(file, ZIP_TOO_LARGE)]
    files, rejected = [], []
    for name, inner, why in entries(file, BytesIO(data)):
        if inner is None:
            rejected.append((name, why))
        else:
            files.append((name, inner))
    return files, rejected


def expand(files: Iterable[tuple[str, bytes]]) -> tuple[list[tuple[str, bytes]], list[tuple[str, str]]]:
    """Files as given, every zip among them replaced by the files it holds; the lines of what could not be read."""
    out, rejected = [], []
    for file, data in files:
        if is_zip(data):
            inner, bad = unzip(file, data)
            out += inner
            rejected += bad
        else:
            out.append((file, data))
    return out, rejected


# ---- the class --------------------------------------------------------------------------------------------------

def conflict(files: list[str], file: str) -> str:
    """The problem of a row whose learner other files name too: each such file is a row of its own."""
    return f"conflict: {len(files)} files name this learner ({', '.join(files)}); this row is {file} alone"


def learners_of(sheets: list[Sheet]) -> list[Learner]:
    """The class's rows, in name order: a learner named by one file is that file's row; a learner named by
    several (names equal ignoring case) is a conflict, each file a row of its own, marked, neither merged into
    the other nor replacing it (the module's docstring: Names)."""
    groups: dict[str, list[tuple[str, Sheet]]] = {}
    for sheet in sorted(sheets, key=lambda s: codepoints(s.file)):
        name = sheet.learner or sheet.file
        groups.setdefault(name.lower(), []).append((name, sheet))
    learners = []
    for key, group in groups.items():
        files = [sheet.file for _, sheet in group]
        for name, sheet in group:
            alone = len(group) == 1
            learners.append(Learner(key if alone else f"{key}\0{sheet.file}", name, [sheet.file], sheet.work,
                                    "" if alone else conflict(files, sheet.file)))
    learners.sort(key=lambda l: (codepoints(l.key), codepoints(l.name)))
    return learners


class Gatherer:
    """A class read one file at a time: `add` each file's bytes as it is read (ol class never holds two), `refuse`
    a file that could not be read at all, then `result`. Files may come in any order: duplicates and conflicts
    are decided at the end, in the order of the files' names. `keep` turns the code of each claimed pass into
    what a learner's Work holds of it (ol class keeps the code on disk, ol/classrun.py `Spool`)."""

    def __init__(self, columns: list[Column], course: str = exchange.COURSE, keep: Callable[[str], object] = str):
        self.columns, self.course, self.keep = columns, course, keep
        self.read: list[tuple[str, str, Sheet | str]] = []  # (file, its text's digest, its sheet or why not)
        self.rejected: list[tuple[str, str]] = []

    def add(self, file: str, data: bytes) -> None:
        try:
            text = text_of(data)
        except ClassInputError as exc:
            self.rejected.append((file, str(exc)))
            return
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        try:
            sheet: Sheet | str = sheet_of(file, text, self.columns, self.course)
        except ClassInputError as exc:
            sheet = str(exc)
        del text
        if isinstance(sheet, Sheet):
            for work in sheet.work.values():
                work.code = self.keep(work.code) if work.code is not None else None
        self.read.append((file, digest, sheet))

    def refuse(self, file: str, why: str) -> None:
        self.rejected.append((file, why))

    def result(self) -> Gathered:
        """The learners, in name order, and one line per file that was refused (a file whose text another file
        named earlier has too is a duplicate, skipped)."""
        first: dict[str, str] = {}
        sheets, rejected = [], list(self.rejected)
        for file, digest, sheet in sorted(self.read, key=lambda r: codepoints(r[0])):
            if digest in first:
                rejected.append((file, f"it is the same file as {first[digest]}, so it was skipped as a duplicate"))
                continue
            first[digest] = file
            if isinstance(sheet, Sheet):
                sheets.append(sheet)
            else:
                rejected.append((file, sheet))
        return Gathered(learners_of(sheets), rejected)


def gather(files: Iterable[tuple[str, bytes]], columns: list[Column],
           course: str = exchange.COURSE) -> Gathered:
    """Every file of a class: the learners in name order, and one line per file that was refused."""
    gatherer = Gatherer(columns, course)
    for file, data in files:
        gatherer.add(file, data)
    return gatherer.result()


# ---- checking the passes again ----------------------------------------------------------------------------------

def check_order(columns: list[Column]) -> list[Column]:
    """The exercises in an order where each comes after everything it builds on (fewer dependencies first)."""
    return sorted(columns, key=lambda c: len(c.requires))


def plan(learners: list[Learner], columns: list[Column]) -> list[tuple[Learner, Column]]:
    """Every claimed pass to check again, learner by learner, each exercise after those it builds on."""
    return [(l, c) for l in learners for c in check_order(columns) if l.work[c.slug].claim == "passed"]


def waits_for(learner: Learner, column: Column) -> list[str]:
    """The dependencies whose verdict a check of `column` needs first: those the learner claims to have passed."""
    return [dep for dep in column.requires if learner.work[dep].claim == "passed"]


def dependency_sources(column: Column, verdicts: Mapping[str, str | None]) -> dict[str, str]:
    """Which code each dependency is checked with: the learner's own ("own") when its pass held, else the
    reference ("reference")."""
    return {dep: "own" if verdicts.get(dep) == "passed" else "reference" for dep in column.requires}


def verdict(work: Work, recheck: Mapping | None) -> str | None:
    """The cell's verdict: the claim, except that a claimed pass is `passed` only when the check again passed
    (`not-reproduced` otherwise), and None while it has not been checked."""
    if work.claim != "passed":
        return work.claim
    if recheck is None:
        return None
    return "passed" if recheck.get("status") == "passed" else "not-reproduced"


def not_held(recheck: Mapping) -> list[str]:
    """Why a claimed pass did not hold: the time limit, else the hidden tests that did not pass, else where the
    check ended (the judge's phase)."""
    if recheck.get("status") == "timeout":
        return ["(stopped by the time limit)"]
    tests = [str(t.get("name", "")) for t in recheck.get("tests") or [] if isinstance(t, Mapping)
             and t.get("outcome") != "passed"]
    return tests or [f"({recheck.get('phase') or recheck.get('status') or 'error'})"]


# ---- out: rows, the CSV, the summary ----------------------------------------------------------------------------

def cell(work: Work, verdict_: str | None, recheck: Mapping | None = None) -> dict:
    """One cell of the table as data (the page renders it, the golden cases compare it)."""
    out = {"verdict": verdict_, "checks": work.checks, "hints": work.hints, "revealed": bool(work.revealed),
           "pitfalls": list(work.pitfalls), "prompts": list(work.prompts), "last": when(work.last)}
    if verdict_ == "not-reproduced" and recheck is not None:
        out["failing"] = not_held(recheck)
    return out


def row(learner: Learner, columns: list[Column], verdicts: Mapping[str, str | None],
        rechecks: Mapping[str, Mapping] | None = None) -> dict:
    """One learner's row: their name, how many exercises passed (checked again), the last activity, the cells."""
    rechecks = rechecks or {}
    return {"learner": learner.name, "files": list(learner.files), "problem": learner.problem,
            "passed": sum(verdicts.get(c.slug) == "passed" for c in columns),
            "last": when(_latest(*(learner.work[c.slug].last for c in columns))),
            "cells": {c.id: cell(learner.work[c.slug], verdicts.get(c.slug), rechecks.get(c.slug)) for c in columns}}


def csv_header(columns: list[Column]) -> list[str]:
    """The CSV's column names, in order: CSV_COLUMNS, then CSV_PER_EXERCISE for each exercise, named by its id."""
    return [*CSV_COLUMNS, *(f"{c.id} {name}" for c in columns for name in CSV_PER_EXERCISE)]


def _csv_field(value: object) -> str:
    text = str(value)
    if text.startswith(FORMULA):
        text = "'" + text
    if any(ch in text for ch in ',"\r\n') or text != text.strip(" "):
        text = '"' + text.replace('"', '""') + '"'
    return text


def csv_text(rows: list[dict], columns: list[Column], refused: Iterable[tuple[str, str]] = ()) -> str:
    """The class as CSV for a gradebook (the module's docstring: Out); every verdict must be known. Each refused
    file is a row too, after the learners, in the order of the files' names: its name and why."""
    lines = [csv_header(columns)]
    for r in rows:
        line = [r["learner"], r["passed"], r["last"], r["problem"]]
        for c in columns:
            x = r["cells"][c.id]
            line += [x["verdict"], x["checks"], x["hints"], "yes" if x["revealed"] else "no", "; ".join(x["pitfalls"]),
                     "; ".join(x["prompts"]), x["last"]]
        lines.append(line)
    for file, why in sorted(refused, key=lambda r: (codepoints(r[0]), codepoints(r[1]))):
        lines.append([file, "", "", f"refused: {why}", *[""] * (len(CSV_PER_EXERCISE) * len(columns))])
    return "\ufeff" + "".join(",".join(_csv_field(v) for v in line) + "\r\n" for line in lines)


def utf8(text: str) -> bytes:
    """`text` as UTF-8 the way the page's TextEncoder writes it (a lone surrogate as U+FFFD), for the files
    ol class writes: the same bytes for the same class."""
    return exchange.well_formed(text).encode("utf-8")


def _top(counts: dict[str, int]) -> list[list]:
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], codepoints(kv[0])))
    return [[name, n] for name, n in ranked[:TOP]]


def summary(rows: list[dict], columns: list[Column]) -> list[dict]:
    """Per exercise: how many learners have each verdict, and the pitfalls and prompts hit by most learners."""
    found = []
    for c in columns:
        cells = [r["cells"][c.id] for r in rows]
        counts = {v: sum(x["verdict"] == v for x in cells) for v in VERDICTS}
        pitfalls: dict[str, int] = {}
        prompts: dict[str, int] = {}
        for x in cells:
            for name in x["pitfalls"]:
                pitfalls[name] = pitfalls.get(name, 0) + 1
            for name in x["prompts"]:
                prompts[name] = prompts.get(name, 0) + 1
        found.append({"id": c.id, "title": c.title, "learners": len(cells), "counts": counts,
                      "rate": (200 * counts["passed"] + len(cells)) // (2 * len(cells)) if cells else 0,
                      "pitfalls": _top(pitfalls), "prompts": _top(prompts)})
    return found


def _many(items: list[list]) -> str:
    return "; ".join(f"{name} ({n} learner{'s' * (n != 1)})" for name, n in items) or "none"


def summary_text(rows: list[dict], columns: list[Column]) -> str:
    """The printable summary: a heading line, then a paragraph per exercise."""
    lines = [f"Class summary: {len(rows)} learner{'s' * (len(rows) != 1)}, {len(columns)} "
             f"exercise{'s' * (len(columns) != 1)}. Every pass was checked again by the course's judge."]
    for s in summary(rows, columns):
        n = s["counts"]
        lines += ["", f"{s['id']} {s['title']}",
                  f"  passed {n['passed']} of {s['learners']} ({s['rate']}%); not reproduced {n['not-reproduced']}; "
                  f"failed {n['failed']}; not tried {n['untried']}",
                  f"  pitfalls hit most: {_many(s['pitfalls'])}",
                  f"  prompts answered wrong most: {_many(s['prompts'])}"]
    return "\n".join(lines) + "\n"
