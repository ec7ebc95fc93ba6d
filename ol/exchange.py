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
characters collapsed, at most LEARNER_MAX characters); anything but a string is no name. A teacher's class view
(ol/classroom.py, web/src/page/class/) shows a file without a name under its file name.
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
# Runs of white space and control characters, as one space (web/src/page/exchange.js SPACES is the same class).
SPACES = re.compile(r"[\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]+")
PITFALLS_MAX = 20  # pitfalls a help record keeps per exercise


def learner_name(value: object) -> str:
    """A learner's name as both sides keep it: NFC, white space and control characters as single spaces, trimmed,
    at most LEARNER_MAX characters; "" for anything that is not a string."""
    if not isinstance(value, str):
        return ""
    text = SPACES.sub(" ", unicodedata.normalize("NFC", value)).strip(" ")
    return text[:LEARNER_MAX].rstrip(" ")


class ExchangeError(ValueError):
    """A progress file that cannot be used; the message says why in one sentence."""


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
        raise ExchangeError("the file is empty")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        # Cut short: the parser ran out of text, or a string runs to the end (it reports where the string began)
        truncated = exc.pos >= len(text.rstrip()) - 1 or exc.msg.startswith("Unterminated string")
        raise ExchangeError("the file ends in the middle (it was cut short while saving or copying)" if truncated
                            else f"the file is not valid JSON (line {exc.lineno}, column {exc.colno})") from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT:
        raise ExchangeError("this is not a tinyllm progress file (no \"format\": \"tinyllm-progress\")")
    version = raw.get("version")
    if version != FORMAT_VERSION:
        newer = isinstance(version, str) and re.fullmatch(r"v\d+", version) and int(version[1:]) > int(FORMAT_VERSION[1:])
        raise ExchangeError(f"the file is format {version!r}, and this reads {FORMAT_VERSION!r}"
                            + ("; update to read it" if newer else ""))
    other = raw.get("course")
    if isinstance(other, str) and other and other != course:
        raise ExchangeError(f"the file is from the course {other!r}, not {course!r}")
    data = raw.get("data")
    if not isinstance(data, dict):
        raise ExchangeError("the file has no \"data\" table")
    dump = Dump({}, course=other or "", build=str(raw.get("build") or ""), origin=str(raw.get("origin") or ""),
                saved=str(raw.get("saved") or ""), learner=learner_name(raw.get("learner")))
    for key, value in data.items():
        if not isinstance(key, str) or not KEY_RE.match(key) or key.startswith("draft:"):
            dump.skipped.append(str(key))  # unknown here, or a browser's unsaved edits: left out, as the browser does
            continue
        if key.startswith("code:") and not (isinstance(value, dict) and isinstance(value.get("code"), str)):
            raise ExchangeError(f"the entry {key!r} holds no code (expected {{\"code\": \"...\"}})")
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
            if isinstance(item, str) and item and item not in found and len(found) < PITFALLS_MAX:
                found.append(item)
    return found


def pitfall_labels(diagnosis: object) -> list[str]:
    """The pitfalls a check's diagnosis names (checker/diagnosis.py `diagnose`), as a help record keeps them:
    "3. the residual ..." for a numbered pitfall of the page, else its text."""
    labels = []
    for item in diagnosis if isinstance(diagnosis, list) else []:
        if isinstance(item, dict) and isinstance(item.get("pitfall"), str) and item["pitfall"]:
            number = item.get("number")
            ok = isinstance(number, (int, float)) and not isinstance(number, bool) and float(number).is_integer()
            labels.append(f"{int(number)}. {item['pitfall']}" if ok else item["pitfall"])
    return labels
