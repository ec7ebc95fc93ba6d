"""Reading a TOML file so that every problem names its file, line and field: `exercises/e7-3/exercise.toml:12:
prompts[2].answer: expected a number or a list of numbers`. `Fields` is typed access to a table; `field_lines`
scans the document for the line that writes each field (tomllib keeps no positions).
"""
from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from course.model import ManifestError

REPO = Path(__file__).resolve().parent.parent


class Fields:
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

    def sub(self, key: str, index: int | None = None) -> "Fields":
        table = self.table[key] if index is None else self.table[key][index]
        label = f"{self.prefix}{key}" + (f"[{index}]" if index is not None else "")
        if not isinstance(table, dict):
            raise ManifestError(f"{rel(self.path)}:{locate(self.lines, label)}: {label}: expected a table")
        return Fields(self.path, table, label + ".", self.lines)

    def tables(self, key: str) -> list["Fields"]:
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


def read_toml(path: Path) -> Fields:
    """The parsed file as a Fields over its top-level table, with the line of every field."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ManifestError(f"{rel(path)}: file not found") from None
    lines = field_lines(text)
    try:
        return Fields(path, tomllib.loads(text), "", lines)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"at line (\d+)", str(exc))
        # "at end of document": an unterminated string or array; point at where it began
        line = int(found.group(1)) if found else lines.get("", max(1, len(text.splitlines())))
        raise ManifestError(f"{rel(path)}:{line}: invalid TOML: {exc}") from None
