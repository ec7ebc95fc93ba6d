"""The learner's working folder as `ol` sees it: where it is, which exercises passed there, and backups.

State lives in the learner's folder, not in the repository: `.ol/progress.json` records, per exercise id, the
sha256 of the file that passed, so `ol list` can tell "passed" from "changed since pass" and `ol check` can use a
dependency's passed file without guessing. This module is the only one that reads or writes `.ol/`.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from .exchange import learner_name, merge_pitfalls

STATE_DIR = ".ol"
PROGRESS_FILE = "progress.json"
PROGRESS_VERSION = 1

NOT_STARTED, STARTED, PASSED, CHANGED = "not started", "started", "passed", "changed since pass"


class ProgressError(Exception):
    """`.ol/progress.json` cannot be read or written; the message names the file."""


@dataclass(frozen=True)
class Pass:
    """One recorded pass: the hash of the learner's file at that moment."""

    sha256: str
    when: str
    ref_deps: bool
    build: str = ""  # the version of ol (its wheel) that judged it; "" for a checkout


def find_workspace(explicit: Path | None, cwd: Path) -> Path:
    """The learner's folder: `explicit`, else the nearest folder at or above `cwd` holding `.ol/`, else `cwd`.

    Searching upwards, like git does, lets a learner run `ol check` from inside `python/tinyllm/prob/`.
    """
    if explicit is not None:
        return explicit.expanduser().resolve()
    cwd = cwd.resolve()
    for folder in (cwd, *cwd.parents):
        if (folder / STATE_DIR).is_dir():
            return folder
    return cwd


def sha256_of(data: bytes) -> str:
    """Hex sha256 of a file's bytes (what a pass is recorded against)."""
    return hashlib.sha256(data).hexdigest()


def file_sha256(path: Path) -> str | None:
    """sha256 of the file at `path`, or None when there is no such file."""
    try:
        return sha256_of(path.read_bytes())
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None


class Progress:
    """The passes recorded in one working folder; load with `Progress.load`, change, then `save`.

    Beside the passes: the help taken per exercise id (`help`: {"hints": revealed, "failed": failed checks,
    "revealed"?: ms when `ol diff` showed the reference before a pass}, as the site keeps it under `help:<slug>`)
    and the learner's settings (`settings`: {"diagnoses": false} turns off naming known mistakes). `learner`: the
    name `ol export` puts in its files (asked once, `--name` changes it); None until asked, "" for no name."""

    def __init__(self, folder: Path, passes: dict[str, Pass], help: dict[str, dict] | None = None,
                 settings: dict[str, object] | None = None, learner: str | None = None):
        self.folder, self.passes = folder, passes
        self.help = help or {}
        self.settings = settings or {}
        self.learner = learner

    @property
    def path(self) -> Path:
        return self.folder / STATE_DIR / PROGRESS_FILE

    @classmethod
    def load(cls, folder: Path) -> "Progress":
        """Read `.ol/progress.json`; a missing file means nothing passed yet."""
        path = folder / STATE_DIR / PROGRESS_FILE
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls(folder, {})
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ProgressError(f"{path}: cannot read it ({exc}). Fix or delete the file; deleting it forgets "
                                "which exercises you passed (your code is not touched).") from None
        passes = {}
        raw = data.get("passed", {}) if isinstance(data, dict) else None
        if not isinstance(raw, dict) or data.get("version") != PROGRESS_VERSION:
            raise ProgressError(f"{path}: not a progress file of this version of ol (expected \"version\": "
                                f"{PROGRESS_VERSION} and a \"passed\" table). Delete it to start the record afresh.")
        for ident, entry in raw.items():
            if isinstance(entry, dict) and isinstance(entry.get("sha256"), str):
                passes[ident] = Pass(entry["sha256"], str(entry.get("when", "")), bool(entry.get("ref_deps")),
                                     str(entry.get("build", "")))
        help_ = data.get("help") if isinstance(data.get("help"), dict) else {}
        settings = data.get("settings") if isinstance(data.get("settings"), dict) else {}
        learner = learner_name(data["learner"]) if isinstance(data.get("learner"), str) else None
        return cls(folder, passes, {k: v for k, v in help_.items() if isinstance(v, dict)}, settings, learner)

    def help_of(self, ident: str) -> dict:
        """The help taken on exercise `ident`: {"hints": n, "failed": n, "revealed"?: ms, "pitfalls"?: [...]}, the
        pitfalls being the known mistakes the diagnoses of its failed checks named."""
        entry = self.help.get(ident) or {}
        count = (lambda v: v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else 0)
        out = {"hints": count(entry.get("hints")), "failed": count(entry.get("failed"))}
        if isinstance(entry.get("revealed"), (int, float)) and entry["revealed"] > 0:
            out["revealed"] = entry["revealed"]
        if merge_pitfalls(entry.get("pitfalls")):
            out["pitfalls"] = merge_pitfalls(entry.get("pitfalls"))
        return out

    def record(self, ident: str, sha256: str, ref_deps: bool, build: str = "") -> None:
        """Remember that the file with this hash passed exercise `ident`, judged by ol of version `build`."""
        when = dt.datetime.now().astimezone().isoformat(timespec="seconds")
        self.passes[ident] = Pass(sha256, when, ref_deps, build)

    def save(self) -> None:
        """Write atomically, so an interrupted `ol` never leaves half a file behind."""
        ensure_state_dir(self.folder)
        data = {"version": PROGRESS_VERSION, "passed": {
            k: {"sha256": p.sha256, "when": p.when, "ref_deps": p.ref_deps, **({"build": p.build} if p.build else {})}
            for k, p in sorted(self.passes.items())}}
        if self.help:
            data["help"] = {k: self.help[k] for k in sorted(self.help)}
        if self.settings:
            data["settings"] = dict(sorted(self.settings.items()))
        if self.learner is not None:
            data["learner"] = self.learner
        tmp = self.path.with_suffix(".tmp")
        try:
            tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
            os.replace(tmp, self.path)
        except OSError as exc:
            raise ProgressError(f"{self.path}: cannot write it ({exc})") from None

    def status(self, ident: str, learner_file: Path) -> str:
        """not started / started / passed / changed since pass, for the file at `learner_file`."""
        sha = file_sha256(learner_file)
        if sha is None:
            return NOT_STARTED
        record = self.passes.get(ident)
        if record is None:
            return STARTED
        return PASSED if record.sha256 == sha else CHANGED


def build_order(version: str) -> tuple[int, ...]:
    """The orderable public part of an ol build version (`0.2.1764590000+abc` -> (0, 2, 1764590000)); () for
    a checkout or anything unreadable, which never counts as older or newer."""
    public = version.split("+", 1)[0]
    parts = public.split(".")
    return tuple(int(x) for x in parts) if public and all(x.isdigit() for x in parts) else ()


def ensure_state_dir(folder: Path) -> Path:
    """Create `.ol/` with a `.gitignore`, so the learner's own repository does not pick our state up."""
    state = folder / STATE_DIR
    state.mkdir(parents=True, exist_ok=True)
    ignore = state / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# local state of `ol`; not part of your code\n*\n", encoding="utf-8")
    return state


def backup(folder: Path, learner_path: str) -> Path:
    """Copy the learner's file to `.ol/backups/<time>/<learner_path>` and return the copy's path."""
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = ensure_state_dir(folder) / "backups"
    target = base / stamp / learner_path
    n = 1
    while target.exists():  # two --force in the same second must not overwrite the first backup
        n += 1
        target = base / f"{stamp}-{n}" / learner_path
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(folder / learner_path, target)
    return target
