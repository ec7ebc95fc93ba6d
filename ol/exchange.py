"""The progress file shared by the browser and `ol`: what one side exports, the other imports.

The format is the progress page's Export (web/src/page/store.js `exportAll`), extended, never changed in meaning:

    {"format": "tinyllm-progress", "version": "v1", "saved": "<ISO time>",
     "course": "tinyllm", "build": "<build version>", "origin": "browser" | "ol",
     "data": {"code:<slug>":           {"code": "<source>", "at": <ms>},
              "result:<slug>":         the browser's last check (only the browser writes these),
              "elsewhere:<slug>":      {"status": "passed", "by": "ol", "sha256": ..., "when": ..., "build": ...},
              "prompt:<slug>/<id>":    an answer or prediction (browser only; ol keeps them to pass them on),
              "prefs:<slug>":          the browser's per-exercise preferences,
              "draft:<slug>":          never written (a browser's own unsaved edits); both readers leave it out,
              "help:<slug>":           {"hints": revealed, "failed": failed checks, "revealed"?: <ms>}: the help
                                       taken (both sides merge it: larger counts, earlier reveal),
              "settings:<name>":       a course-wide preference ("settings:diagnoses": true | false)}}

Neither side trusts the other's verdicts: a pass from `ol` arrives in the browser as `elsewhere:` ("checked
elsewhere") and counts once the page has checked the code itself; code from the browser arrives in `ol` as files
and counts once `ol check` has judged them. Every problem with a file is a `ExchangeError` with one readable
sentence; nothing is written before a file has been read whole and checked.
"""
from __future__ import annotations

import datetime as dt
import json
import re
from dataclasses import dataclass, field

FORMAT = "tinyllm-progress"
COURSE = "tinyllm"  # the course a file belongs to; another course's file is refused
FORMAT_VERSION = "v1"
KEY_RE = re.compile(r"^(code|result|elsewhere|prefs|draft|help):([a-z0-9]+(?:-[a-z0-9]+)*)$"
                    r"|^prompt:([a-z0-9-]+)/([a-z0-9-]+)$|^settings:[a-z0-9-]+$")


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
                saved=str(raw.get("saved") or ""))
    for key, value in data.items():
        if not isinstance(key, str) or not KEY_RE.match(key) or key.startswith("draft:"):
            dump.skipped.append(str(key))  # unknown here, or a browser's unsaved edits: left out, as the browser does
            continue
        if key.startswith("code:") and not (isinstance(value, dict) and isinstance(value.get("code"), str)):
            raise ExchangeError(f"the entry {key!r} holds no code (expected {{\"code\": \"...\"}})")
        dump.data[key] = value
    return dump


def render(data: dict[str, object], *, course: str, build: str, origin: str) -> str:
    """The text of a progress file holding `data`."""
    doc = {"format": FORMAT, "version": FORMAT_VERSION,
           "saved": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z"),
           "course": course, "build": build, "origin": origin, "data": dict(sorted(data.items()))}
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def now_ms() -> int:
    return int(dt.datetime.now(dt.timezone.utc).timestamp() * 1000)


def merge_help(mine: object, theirs: object) -> dict:
    """Help taken on an exercise from two records (the learner's here, a file's): nothing revealed is hidden
    again, so the larger counts and the earlier reveal win (web/src/page/exchange.js `mergeHelp`)."""
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
    return merged
