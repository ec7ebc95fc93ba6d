"""The `tinyllm-ol` wheel, and the static package index the site serves it from.

A learner who keeps their own repository installs `ol` from the site itself:

    pip install --extra-index-url https://<the site>/simple/ tinyllm-ol

so the built site carries, under `simple/`, a PEP 503 index with one project, `tinyllm-ol`, and its wheel. The
wheel holds exactly what a learner runs (`learner_modules`: the judge, `checker/`, the same files the browser runs;
the command line, `ol/`; of `course/` what `ol` imports) and everything `ol` needs of every exercise (manifest, starter, reference, hidden tests, contract and spec files; not the mutants) under
`ol/course/exercises/`, plus `ol/course/build.json` naming the build (ol/layout.py). numpy and pytest come from the
usual index, pinned as in pyproject.toml, so a verdict is the same as in a checkout.

The wheel is written with zipfile, not by a build backend: the build must run offline, and a fixed date on every
member makes it depend on its inputs only. Its version is `0.2.<commit time>+<content hash>`: the public part
orders builds (ol says when it is older than the build that recorded a pass), the local part tells apart two
builds of one commit with different content.
"""
from __future__ import annotations

import ast
import base64
import hashlib
import html
import io
import json
import os
import re
import subprocess
import tomllib
import zipfile
from pathlib import Path
from typing import Mapping

from course import known, manifest
from ol import exchange, layout

REPO = Path(__file__).resolve().parent.parent
PROJECT = "tinyllm-ol"
DIST = "tinyllm_ol"
COURSE = exchange.COURSE
DATE = (2020, 1, 1, 0, 0, 0)
# alternatives: the diagnosis corpus (authoring/corpus.py); careful: the careful learners (authoring/careful.py)
SKIPPED_PARTS = {"mutants", "alternatives", "careful", "__pycache__"}


def _commit_time() -> int:
    if os.environ.get("SOURCE_DATE_EPOCH", "").isdigit():
        return int(os.environ["SOURCE_DATE_EPOCH"])
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=REPO, capture_output=True, text=True,
                             timeout=10).stdout.strip()
        return int(out) if out.isdigit() else 0
    except (OSError, subprocess.SubprocessError):
        return 0


def course_files(root: Path, mistakes: Mapping[str, list[dict]] | None = None) -> dict[str, bytes]:
    """Archive name -> bytes of the exercise data `ol` reads, for every exercise folder under `root`: the course's
    defaults (course.toml), and per exercise its files and, from `mistakes` (slug -> known mistakes, validation's),
    `mistakes.json`."""
    exercises = manifest.load_all(root)
    files = {}
    if (root / manifest.COURSE_FILE).is_file():
        files[layout.archive_name(layout.EXERCISES_DIR, manifest.COURSE_FILE)] = (root / manifest.COURSE_FILE).read_bytes()
    for ex in sorted(exercises.values(), key=lambda e: e.slug):
        for path in sorted(ex.folder.rglob("*")):
            rel = path.relative_to(ex.folder)
            if path.is_file() and not (set(rel.parts) & SKIPPED_PARTS) and path.suffix != ".pyc":
                files[layout.archive_name(layout.EXERCISES_DIR, ex.slug, rel.as_posix())] = path.read_bytes()
        if mistakes is not None:
            files[layout.archive_name(layout.EXERCISES_DIR, ex.slug, known.MISTAKES_FILE)] = (
                json.dumps(mistakes.get(ex.slug, []), indent=1, ensure_ascii=False) + "\n").encode()
    return files


def _imported(path: Path, package: str) -> set[str]:
    """The modules of `package` that `path` imports (absolute `from package import x`, `from package.x import`,
    `import package.x`, and relative ones within `package` itself)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            inside = node.level == 1 and path.parent.name == package
            if node.module == package or (inside and not node.module):
                found |= {a.name for a in node.names}
            elif node.module and node.module.startswith(package + "."):
                found.add(node.module.split(".")[1])
            elif inside and node.module:
                found.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names if a.name.startswith(package + ".")}
    return found


def learner_modules() -> list[str]:
    """What a learner runs, as paths under the repository: the judge (checker/, whole, as the browser has it),
    the command line (ol/, whole) and of the course's data (course/) the modules those import, transitively."""
    chosen = [p for pkg in ("checker", "ol") for p in sorted((REPO / pkg).glob("*.py"))]
    course, todo = {"__init__"}, list(chosen)
    while todo:
        for name in _imported(todo.pop(), "course") - course:
            if (REPO / "course" / f"{name}.py").is_file():
                course.add(name)
                todo.append(REPO / "course" / f"{name}.py")
    chosen += [REPO / "course" / f"{name}.py" for name in sorted(course)]
    return [p.relative_to(REPO).as_posix() for p in chosen]


def code_files() -> dict[str, bytes]:
    return {name: (REPO / name).read_bytes() for name in learner_modules()}


def dependencies() -> list[str]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]


def version_of(payload: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for name in sorted(payload):
        digest.update(name.encode() + b"\0" + payload[name] + b"\0")
    return f"0.2.{_commit_time()}+{digest.hexdigest()[:10]}"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build(out: Path, root: Path = manifest.EXERCISES, site_url: str = "",
          mistakes: Mapping[str, list[dict]] | None = None) -> Path:
    """Write the wheel into `out` (created) and return its path."""
    payload = {**code_files(), **course_files(root, mistakes)}
    version = version_of(payload)
    payload[layout.archive_name(layout.BUILD_INFO)] = layout.build_info_bytes(COURSE, version, site_url)
    info = f"{DIST}-{version}.dist-info"
    requires = "".join(f"Requires-Dist: {d}\n" for d in dependencies())
    meta = {
        f"{info}/METADATA": (f"Metadata-Version: 2.1\nName: {PROJECT}\nVersion: {version}\n"
                             "Summary: ol: work the tinyllm exercises in your own folder, with the site's own "
                             f"hidden tests and judge\nRequires-Python: >=3.11\n{requires}").encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: tinyllm tools/ol_wheel.py\nRoot-Is-Purelib: true\n"
                         b"Tag: py3-none-any\n",
        f"{info}/entry_points.txt": b"[console_scripts]\nol = ol.cli:main\n",
        f"{info}/top_level.txt": b"checker\ncourse\nol\n",
    }
    members = {**payload, **meta}
    record = "\n".join(_record_line(n, d) for n, d in members.items()) + f"\n{info}/RECORD,,\n"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{DIST}-{version}-py3-none-any.whl"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in [*members.items(), (f"{info}/RECORD", record.encode())]:
            item = zipfile.ZipInfo(name, date_time=DATE)
            item.compress_type = zipfile.ZIP_DEFLATED
            item.external_attr = 0o644 << 16
            zf.writestr(item, data)
    path.write_bytes(buffer.getvalue())
    return path


def write_index(site: Path, root: Path = manifest.EXERCISES, mistakes: Mapping[str, list[dict]] | None = None) -> Path:
    """`site/simple/` as a PEP 503 index holding the wheel; returns the wheel's path."""
    project = site / "simple" / PROJECT
    for old in project.glob("*.whl") if project.is_dir() else ():
        old.unlink()
    wheel = build(project, root, mistakes=mistakes)
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    name = html.escape(wheel.name)
    (project / "index.html").write_text(
        f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Links for {PROJECT}</title></head><body>\n"
        f"<h1>Links for {PROJECT}</h1>\n<a href=\"{name}#sha256={digest}\" data-requires-python=\"&gt;=3.11\">"
        f"{name}</a><br>\n</body></html>\n", encoding="utf-8")
    (site / "simple" / "index.html").write_text(
        f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Simple index</title></head><body>\n"
        f"<h1>Simple index</h1>\n<a href=\"{PROJECT}/\">{PROJECT}</a><br>\n</body></html>\n", encoding="utf-8")
    return wheel


def wheel_version(name: str) -> str:
    """The version in a wheel's file name."""
    match = re.match(rf"^{DIST}-(.+?)-py3-none-any\.whl$", name)
    return match.group(1) if match else ""
