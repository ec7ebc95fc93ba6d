"""The progress file shared by the browser and `ol`: what one side exports, the other imports.

The format is the progress page's Export (web/src/page/store.js `exportAll`), extended, never changed in meaning:

    {"format": "tinyllm-progress", "version": "v1", "saved": "<ISO time>",
     "course": "tinyllm", "build": "<build version>", "origin": "browser" | "ol",
     "learner": "<the name the learner chose to appear under in a teacher's class view>" (optional),
     "data": {"code:<slug>":           {"code": "<source>", "at": <ms>},
              "result:<slug>":         the browser's last check (only the browser writes these),
              "elsewhere:<slug>":      {"status": "passed", "by": "ol", "sha256": ..., "when": ..., "build": ...},
              "prompt:<slug>/<id>":    an answer or prediction (browser only; ol keeps them to pass them on),
              "prefs:<slug>":          the browser's per-exercise preferences,
              "draft:<slug>":          never written (a browser's own unsaved edits); both readers leave it out,
              "help:<slug>":           {"hints": revealed, "failed": failed checks, "revealed"?: <ms>,
                                       "pitfalls"?: [the known mistakes a diagnosis named, "1. text"]}: the help
                                       taken (both sides merge it: larger counts, earlier reveal, every pitfall),
              "settings:<name>":       a course-wide preference ("settings:diagnoses": true | false)}}

Neither side trusts the other's verdicts: a pass from `ol` arrives in the browser as `elsewhere:` ("checked
elsewhere") and counts once the page has checked the code itself; code from the browser arrives in `ol` as files
and counts once `ol check` has judged them. Every problem with a file is a `ExchangeError` with one readable
sentence; nothing is written before a file has been read whole and checked.

`learner` is free text the learner typed: `learner_name` tidies it the same way on both sides (spaces and control
characters collapsed, a lone surrogate as U+FFFD, at most LEARNER_MAX characters); anything but a string is no
name. A teacher's class view (ol/classroom.py, web/src/page/class/) shows a file without a name under its file name.

The JSON is read as a browser reads it, whatever the file holds (`loads`): a number is a double when it is past
2**53 (so ten thousand digits are one large float, not an int Python refuses to make), NaN and Infinity are not
JSON, and a file that nests deeper than DEPTH_MAX levels (counted up to where the text stops being JSON) is
refused, before Python's own parser would run out of stack.
"""
from __future__ import annotations

import datetime as dt
import json
import re
import unicodedata
from dataclasses import dataclass, field

FORMAT = "tinyllm-progress"
COURSE = "tinyllm"  # the course a file belongs to; another course's file is refused
FORMAT_VERSION = "v1"
KEY_RE = re.compile(r"^(code|result|elsewhere|prefs|draft|help):([a-z0-9]+(?:-[a-z0-9]+)*)$"
                    r"|^prompt:([a-z0-9-]+)/([a-z0-9-]+)$|^settings:[a-z0-9-]+$")


LEARNER_MAX = 80  # characters of a learner's name kept
DEPTH_MAX = 100  # levels of nesting a progress file may have (one has six)
SAFE_MAX = 2 ** 53 - 1  # the largest integer a browser's number holds exactly (Number.MAX_SAFE_INTEGER)
DEEP = f"the file nests deeper than {DEPTH_MAX} levels, which no progress export does"
# Runs of white space and control characters, as one space (web/src/page/exchange.js SPACES is the same class).
SPACES = re.compile(r"[\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]+")
PITFALLS_MAX = 20  # pitfalls a help record keeps per exercise


def learner_name(value: object) -> str:
    """A learner's name as both sides keep it: NFC, white space and control characters as single spaces, trimmed,
    at most LEARNER_MAX characters; "" for anything that is not a string."""
    if not isinstance(value, str):
        return ""
    text = SPACES.sub(" ", unicodedata.normalize("NFC", well_formed(value))).strip(" ")
    return text[:LEARNER_MAX].rstrip(" ")


class ExchangeError(ValueError):
    """A progress file that cannot be used; the message says why in one sentence. `kind` says which rule refused
    it ("empty", "json", "cut", "deep", "format", "version", "course", "data", "code") and `value` what the file
    held there (its version, course, or entry), for a reader with words of its own (ol/classroom.py `refusal`)."""

    def __init__(self, message: str, kind: str = "other", value: object = None):
        super().__init__(message)
        self.kind, self.value = kind, value


def well_formed(text: str) -> str:
    """`text` with each lone surrogate (JSON's "\\ud800", a file name's undecodable byte) as U+FFFD, as a
    browser's String.prototype.toWellFormed and TextEncoder make it: text that can be printed and written."""
    return SURROGATE.sub("\ufffd", text)


SURROGATE = re.compile("[\ud800-\udfff]")
TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]')


def _number(text: str) -> int | float:
    """A JSON integer as a browser reads it: exact up to SAFE_MAX, else the nearest double (int() of ten thousand
    digits would raise)."""
    value = float(text)
    return int(text) if abs(value) <= SAFE_MAX else value


def _not_json(name: str):
    raise ValueError(f"{name} is not JSON")


def nesting(text: str) -> int:
    """How deep `text`'s arrays and objects nest, strings skipped (web/src/page/exchange.js `nesting`)."""
    depth = most = 0
    for token in TOKENS.finditer(text):
        mark = token.group()
        if mark in "[{":
            depth += 1
            most = max(most, depth)
        elif mark in "]}":
            depth -= 1
    return most


def depth_of(value: object) -> int:
    """How deep a parsed value nests (a number is 0, [] is 1), walked without recursion and holding only the path
    down to where it is (a million small objects cost no second million)."""
    def inside(item):
        return iter(item.values() if isinstance(item, dict) else item)

    if not isinstance(value, (dict, list)):
        return 0
    most, path = 1, [inside(value)]
    while path:
        for child in path[-1]:
            if isinstance(child, (dict, list)):
                path.append(inside(child))
                most = max(most, len(path))
                break
        else:
            path.pop()
    return most


def loads(text: str) -> object:
    """`text` as JSON, read as a browser reads it (the module's docstring); ExchangeError says why not."""
    try:
        raw = json.loads(text, parse_int=_number, parse_constant=_not_json)
    except RecursionError:
        raise ExchangeError(DEEP, "deep") from None
    except json.JSONDecodeError as exc:
        if nesting(text[:exc.pos]) > DEPTH_MAX:
            raise ExchangeError(DEEP, "deep") from None
        # Cut short: the parser ran out of text, or a string runs to the end (it reports where the string began)
        if exc.pos >= len(text.rstrip()) - 1 or exc.msg.startswith("Unterminated string"):
            raise ExchangeError("the file ends in the middle (it was cut short while saving or copying)", "cut") from None
        raise ExchangeError(f"the file is not valid JSON (line {exc.lineno}, column {exc.colno})", "json") from None
    except ValueError:  # NaN, Infinity: Python reads them, a browser does not
        constant = re.search(r"-?\b(?:NaN|Infinity)\b", text)
        if nesting(text[:constant.start() if constant else len(text)]) > DEPTH_MAX:
            raise ExchangeError(DEEP, "deep") from None
        raise ExchangeError("the file is not valid JSON (NaN and Infinity are not JSON)", "json") from None
    if depth_of(raw) > DEPTH_MAX:
        raise ExchangeError(DEEP, "deep")
    return raw



@dataclass
class Dump:
    """A parsed progress file: its header and its entries, keyed as in the browser's storage."""

    data: dict[str, object]
    course: str = ""
    build: str = ""
    origin: str = ""
    saved: str = ""
    learner: str = ""  # the name the learner chose (learner_name), or ""
    skipped: list[str] = field(default_factory=list)  # keys this reader does not know, left out

    def code(self) -> dict[str, str]:
        """slug -> source of every `code:` entry."""
        found = {}
        for key, value in self.data.items():
            if key.startswith("code:") and isinstance(value, dict) and isinstance(value.get("code"), str):
                found[key.split(":", 1)[1]] = value["code"]
        return found


def parse(text: str, course: str) -> Dump:
    """Read a progress file's text; `course` is this side's course name (a file of another course is refused)."""
    if not text.strip():
        raise ExchangeError("the file is empty", "empty")
    raw = loads(text)
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ExchangeError("this is not a tinyllm progress file (no \"format\": \"tinyllm-progress\")", "format")
    version = raw.get("version")
    if version != FORMAT_VERSION:
        newer = isinstance(version, str) and re.fullmatch(r"v\d+", version) and int(version[1:]) > int(FORMAT_VERSION[1:])
        raise ExchangeError(f"the file is format {version!r}, and this reads {FORMAT_VERSION!r}"
                            + ("; update to read it" if newer else ""), "version", version)
    other = raw.get("course")
    if isinstance(other, str) and other and other != course:
        raise ExchangeError(f"the file is from the course {other!r}, not {course!r}", "course", other)
    data = raw.get("data")
    if not isinstance(data, dict):
        raise ExchangeError("the file has no \"data\" table", "data")
    dump = Dump({}, course=other or "", build=str(raw.get("build") or ""), origin=str(raw.get("origin") or ""),
                saved=str(raw.get("saved") or ""), learner=learner_name(raw.get("learner")))
    for key, value in data.items():
        if not isinstance(key, str) or not KEY_RE.match(key) or key.startswith("draft:"):
            dump.skipped.append(str(key))  # unknown here, or a browser's unsaved edits: left out, as the browser does
            continue
        if key.startswith("code:") and not (isinstance(value, dict) and isinstance(value.get("code"), str)):
            raise ExchangeError(f"the entry {key!r} holds no code (expected {{\"code\": \"...\"}})", "code", key)
        dump.data[key] = value
    return dump


def render(data: dict[str, object], *, course: str, build: str, origin: str, learner: str = "") -> str:
    """The text of a progress file holding `data`, carrying the learner's name when there is one."""
    doc = {"format": FORMAT, "version": FORMAT_VERSION,
           "saved": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z"),
           "course": course, "build": build, "origin": origin}
    if learner_name(learner):
        doc["learner"] = learner_name(learner)
    doc["data"] = dict(sorted(data.items()))
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def now_ms() -> int:
    return int(dt.datetime.now(dt.timezone.utc).timestamp() * 1000)


def merge_help(mine: object, theirs: object) -> dict:
    """Help taken on an exercise from two records (the learner's here, a file's): nothing revealed is hidden
    again, so the larger counts and the earlier reveal win, and every pitfall named in either is kept
    (web/src/page/exchange.js `mergeHelp`)."""
    a = mine if isinstance(mine, dict) else {}
    b = theirs if isinstance(theirs, dict) else {}

    def count(value: object) -> int:
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0

    merged: dict = {"hints": max(count(a.get("hints")), count(b.get("hints"))),
                    "failed": max(count(a.get("failed")), count(b.get("failed")))}
    reveals = [v for v in (a.get("revealed"), b.get("revealed"))
               if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0]
    if reveals:
        merged["revealed"] = min(reveals)
    pitfalls = merge_pitfalls(a.get("pitfalls"), b.get("pitfalls"))
    if pitfalls:
        merged["pitfalls"] = pitfalls
    return merged


def merge_pitfalls(*lists: object) -> list[str]:
    """The pitfalls of several help records, each once, in the order first named, at most PITFALLS_MAX."""
    found: list[str] = []
    for items in lists:
        for item in items if isinstance(items, list) else []:
            if isinstance(item, str) and item and well_formed(item) not in found and len(found) < PITFALLS_MAX:
                found.append(well_formed(item))
    return found


def pitfall_labels(diagnosis: object) -> list[str]:
    """The pitfalls a check's diagnosis names (checker/diagnosis.py `diagnose`), as a help record keeps them:
    "3. the residual ..." for a numbered pitfall of the page, else its text."""
    labels = []
    for item in diagnosis if isinstance(diagnosis, list) else []:
        if isinstance(item, dict) and isinstance(item.get("pitfall"), str) and item["pitfall"]:
            number = item.get("number")
            ok = (isinstance(number, (int, float)) and not isinstance(number, bool) and float(number).is_integer()
                  and abs(number) <= SAFE_MAX)  # a browser's Number.isSafeInteger
            labels.append(f"{int(number)}. {item['pitfall']}" if ok else item["pitfall"])
    return labels
