"""The course-scale benchmark: what a course of many exercises costs its authors, measured on a generated one.

    python -m bench.course [--count 100] [--small 8] [--repeat 3] [--keep DIR] [--out bench/results/course-latest.md]
    (make bench-course [COUNT=N])

The course is generated in a temporary folder from the four real exercises (E7.3, M06.3, M07.1, M07.6), copied
with new ids, pages, learner paths and import names, mutants included, until it has N exercises (the first N of
the cycle). Copy k renames every id of the chapter E7 and of the modules M06/M07 by adding 100·k to its number
(E7.3 -> E107.3, M07.6 -> M107.6, milestone MS-P6 -> MS-C1, docs/m07/ -> docs/m107/), and puts its learner files
under python/tinyllm/c1/ (import names tinyllm.c1.*), so no two copies share an id, a page or a module. Each copy
has its chapter definition, chapter overview and module map; the course's mkdocs.yml is the repository's, with
absolute paths to the platform's hook and theme overrides and a nav listing every page.

Then, for a small course and for the full one in the same run, it times the build (cold validation cache, then
warm), validation (cold on one and two cores, then after one exercise changed), the live preview's rebuild after
one page edit and after one exercise edit, the site's and the service worker's precache size, and the
validation tier in Pyodide. Everything runs from a copy of the platform taken at the start (`freeze`), so that
others' edits to the checkout during the run change nothing measured. bench/README.md says how each figure is
taken. A benchmark, never a test: nothing here asserts a time, the targets are printed next to the figures.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from course import chapters as chapter_defs
from course import manifest
from authoring.preview import error_lines

REPO = Path(__file__).resolve().parent.parent
SOURCES = ("e7-3", "m06-3", "m07-1", "m07-6")  # one cycle, each after what it requires
CHAPTER = "e7"                                  # the chapter definition E7.3 belongs to
MODULE_MAP = "modules.md"                       # the module map of MS-P6, one per copy
TEXT_SUFFIXES = (".py", ".toml", ".pyi", ".md")
LINK_RE = re.compile(r"\[([^\]]*)\]\(([^)\s#]+\.md)(#[^)\s]*)?\)")


# ---- generating a course ----------------------------------------------------------------------------------------

def renamer(k: int):
    """The text substitution of copy k (k >= 1; copy 0 is left as it is): ids and folder names get +100·k, the
    milestone and the learner package become the copy's own. Applied to every text file of the copy, so references
    stay consistent (a mutant's `find` changes exactly as the reference does)."""
    words = {"E7": f"E{7 + 100 * k}", "M06": f"M{6 + 100 * k:02d}", "M07": f"M{7 + 100 * k:02d}",
             "L8": f"L{8 + 100 * k}", "L10": f"L{10 + 100 * k}"}
    words |= {w.lower(): v.lower() for w, v in words.items() if not w.startswith("L")}
    words["MS-P6"] = f"MS-C{k}"
    ident = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, words)) + r")(?![A-Za-z0-9_])")
    package = re.compile(r"\btinyllm([./])")

    def rename(text: str) -> str:
        text = ident.sub(lambda m: words[m.group(1)], text)
        return package.sub(lambda m: f"tinyllm{m.group(1)}c{k}{m.group(1)}", text)

    # Copy 0 is the real course as it is (its ids, milestone, learner package and module map), so a generated
    # course holds the generator's own sources and can be generated again (bench/course_test.py's clone).
    return rename if k else (lambda text: text)


def _rename_page(k: int):
    base = renamer(k)
    map_link = re.compile(r"(?<![\w-])" + re.escape(MODULE_MAP))
    return lambda text: map_link.sub(_map_page(k), base(text))


def _map_page(k: int) -> str:
    """Copy k's module map. Copy 0 keeps the real course's name, as it keeps its ids: a generated course then holds
    the generator's own sources, so it can be generated again from a clone whose course was replaced by one
    (bench/course_test.py, whose unit tier runs tests/unit/test_bench_course.py)."""
    return MODULE_MAP if k == 0 else f"modules-c{k}.md"


def _copy_tree(source: Path, target: Path, rename) -> None:
    """Copy a folder, renaming the text of its text files and the names of its files and folders."""
    for path in sorted(source.rglob("*")):
        if "__pycache__" in path.parts or not path.is_file():
            continue
        dest = target / Path(*(rename(part) for part in path.relative_to(source).parts))
        dest.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix in TEXT_SUFFIXES:
            dest.write_text(rename(path.read_text(encoding="utf-8")), encoding="utf-8")
        else:
            shutil.copyfile(path, dest)


def _write_page(source: Path, target: Path, rename) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(rename(source.read_text(encoding="utf-8")), encoding="utf-8")


def _unlink_missing(docs: Path) -> None:
    """A copy cut short by N (say, E107.3 without M107.6) keeps its pages' links to exercises it does not have;
    those become plain text, as an author would write them before the page exists."""
    for page in docs.rglob("*.md"):
        text = page.read_text(encoding="utf-8")

        def keep(match: re.Match) -> str:
            return match.group(0) if (page.parent / match.group(2)).is_file() else match.group(1)

        fixed = LINK_RE.sub(keep, text)
        if fixed != text:
            page.write_text(fixed, encoding="utf-8")


@dataclass
class Generated:
    """A generated course: its folder, exercise ids (copy by copy), and the platform folder (the repository, or
    a frozen copy of it) whose hook, theme overrides and tools build and validate it."""

    root: Path
    platform: Path = REPO
    copies: list[list[str]] = field(default_factory=list)

    @property
    def config(self) -> Path:
        return self.root / "mkdocs.yml"

    @property
    def exercises(self) -> Path:
        return self.root / "exercises"

    @property
    def docs(self) -> Path:
        return self.root / "docs"

    @property
    def ids(self) -> list[str]:
        return [i for copy in self.copies for i in copy]


def generate(root: Path, count: int, repo: Path = REPO, platform: Path | None = None) -> Generated:
    """Write a course of `count` exercises, copied from `repo`'s, into `root` (which must not exist or be empty),
    to be built by the platform in `platform` (default: `repo` itself)."""
    if count < 1:
        raise ValueError("a course needs at least one exercise")
    sources = manifest.load_all(repo / "exercises")
    missing = [s for s in SOURCES if s not in sources]
    if missing:
        raise ValueError(f"exercises/{missing[0]}: missing; the generator copies {', '.join(SOURCES)}")
    course = Generated(root, (platform or repo).resolve())
    exercises, docs = course.exercises, course.docs
    chapter_file = repo / "exercises" / chapter_defs.FOLDER / f"{CHAPTER}.toml"
    chapter = chapter_defs.load_chapter(chapter_file)
    for k in range((count + len(SOURCES) - 1) // len(SOURCES)):
        rename, rename_page = renamer(k), _rename_page(k)
        slugs = SOURCES[: min(len(SOURCES), count - k * len(SOURCES))]
        for slug in slugs:
            ex = sources[slug]
            _copy_tree(ex.folder, exercises / rename(slug), rename)
            _write_page(repo / "docs" / ex.page, docs / rename(ex.page), rename_page)
        # The chapter: its definition and shared sections, and its overview page.
        folder = repo / "exercises" / chapter_defs.FOLDER
        _write_page(chapter_file, exercises / chapter_defs.FOLDER / rename(chapter_file.name), rename)
        _copy_tree(folder / CHAPTER, exercises / chapter_defs.FOLDER / rename(CHAPTER), rename)
        _write_page(repo / "docs" / chapter.page, docs / rename(chapter.page), rename_page)
        if any(sources[s].kind == "module" for s in slugs):
            _write_page(repo / "docs" / MODULE_MAP, docs / _map_page(k), rename_page)
        course.copies.append([rename(sources[s].id) for s in slugs])
    if (repo / "exercises" / manifest.COURSE_FILE).is_file():  # the course's defaults: reveal, decimals
        shutil.copyfile(repo / "exercises" / manifest.COURSE_FILE, exercises / manifest.COURSE_FILE)
    shutil.copyfile(repo / "docs" / "progress.md", docs / "progress.md")
    _write_home(course, repo)
    _unlink_missing(docs)
    _write_config(course, repo)
    return course


COPIES_HEADING = "## The copies of this generated course"


def _write_home(course: Generated, repo: Path) -> None:
    """The real home page (what every course's home says: how the widgets work, offline, privacy, the `ol`
    command; its links lead to copy 0, the real course as it is), then a list of the copies. A home page that
    already has that list (the course was generated from a generated one) has it replaced."""
    home = (repo / "docs" / "index.md").read_text(encoding="utf-8").split("\n" + COPIES_HEADING)[0].rstrip()
    lines = [home, "", COPIES_HEADING, "",
             f"A course of {len(course.ids)} exercises generated by `bench/course.py` from the four real ones, "
             "for the course-scale benchmark.", ""]
    for k, ids in enumerate(course.copies):
        chapter = f"e{7 + 100 * k}/index.md"
        modules = f" · [module map]({_map_page(k)})" if (course.docs / _map_page(k)).is_file() else ""
        lines.append(f"- Copy {k}: [chapter E{7 + 100 * k}]({chapter}){modules} ({', '.join(ids)})")
    (course.docs / "index.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _nav(course: Generated) -> list:
    exercises = {e.id: e for e in manifest.load_all(course.exercises).values()}
    chapters = chapter_defs.load_chapters(course.exercises, manifest.load_all(course.exercises))
    nav: list = [{"Home": "index.md"}]
    for k, ids in enumerate(course.copies):
        chapter = chapters[f"E{7 + 100 * k}"]
        lessons = [{f"{i} {exercises[i].title}": exercises[i].page} for i in chapter.lessons if i in ids]
        nav.append({f"C{k} {chapter.id} {chapter.title}": [{"Chapter overview": chapter.page}, *lessons]})
        modules = [{f"{i} {exercises[i].title}": exercises[i].page} for i in ids if exercises[i].kind == "module"]
        if modules:
            nav.append({f"C{k} Modules": [{"Module map": _map_page(k)}, *modules]})
    nav.append({"Your progress": "progress.md"})
    return nav


def _write_config(course: Generated, repo: Path) -> None:
    """The repository's mkdocs.yml, pointed at the generated pages, with absolute paths to what stays in the
    platform folder (the hook and the theme overrides) and to the course folder for snippets."""
    config = yaml.safe_load((repo / "mkdocs.yml").read_text(encoding="utf-8"))
    config["site_name"] = f"generated course ({len(course.ids)} exercises)"
    config["docs_dir"] = "docs"
    config["site_dir"] = str(course.root / "site")
    config["theme"]["custom_dir"] = str(course.platform / "overrides")
    config["hooks"] = [str(course.platform / "tools" / "mkdocs_hooks.py")]
    extensions = []
    for item in config["markdown_extensions"]:
        if isinstance(item, dict) and "pymdownx.snippets" in item:
            item = {"pymdownx.snippets": {**item["pymdownx.snippets"], "base_path": [str(course.root)]}}
        if isinstance(item, dict) and "mdwidgets" in item:
            item = {"mdwidgets": {k: v for k, v in item["mdwidgets"].items() if k != "exercises"}}
        extensions.append(item)
    config["markdown_extensions"] = extensions
    config["nav"] = _nav(course)
    course.config.write_text(yaml.safe_dump(config, sort_keys=False, allow_unicode=True, width=120),
                             encoding="utf-8")


# ---- measuring --------------------------------------------------------------------------------------------------

PY = sys.executable
SNAPSHOT_CACHE = Path(".cache") / "snapshot"      # under the platform folder (tools/snapshot.py)
PYODIDE_SCRIPT = Path("tests") / "pyodide" / "validate_in_pyodide.mjs"
# What the build, validation and preview run, besides the repository's top-level files (pyproject.toml, ...): a
# copy of these, taken at the start, is what is measured.
PLATFORM = ("checker", "course", "ol", "authoring", "tools", "mdwidgets", "overrides", "web/src", "web/build.mjs",
            "build/web", str(PYODIDE_SCRIPT), ".cache/validate/pyodide-factor.json")
POLL = 0.1  # seconds between two looks at the preview's state


class BenchError(Exception):
    """A step of the benchmark failed: the generated course did not validate or build, or a tool crashed."""


def freeze(target: Path, repo: Path = REPO) -> Path:
    """Copy the platform (checker, widgets, tools, theme overrides, front end and its bundle, and the
    repository's top-level files) into `target`.

    Others keep working in the checkout during a run of most of an hour: an edit to checker/ would invalidate
    every validation cached by content hash half-way through, and an edit anywhere the preview watches would
    start a rebuild in the middle of a measurement. The copy is the working tree as it was at the start, run
    from its own folder; node_modules is linked, the Pyodide snapshot's cache copied (so the run neither waits
    for a new snapshot nor evicts the developers' one)."""
    for name in [p.name for p in repo.iterdir() if p.is_file()] + list(PLATFORM):
        source, dest = repo / name, target / name
        if source.is_dir():
            shutil.copytree(source, dest, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.is_file():
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest)
        elif name in ("build/web",):
            raise BenchError(f"{name}: missing; bundle the front end first (`make bundle`)")
    (target / "node_modules").symlink_to(repo / "node_modules")
    if (repo / SNAPSHOT_CACHE).is_dir():
        shutil.copytree(repo / SNAPSHOT_CACHE, target / SNAPSHOT_CACHE, ignore=shutil.ignore_patterns("*.tmp"))
    return target


def _env(course: Generated, cache: Path | None = None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(course.platform), "NO_MKDOCS_2_WARNING": "1"}
    if cache is not None:
        env["TL_VALIDATE_CACHE"] = str(cache)
    return env


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(cmd: list[str], course: Generated, cache: Path | None = None,
         problems=None) -> tuple[float, float, subprocess.CompletedProcess]:
    """Run a command in the course's platform folder (`python -m` imports from the working directory first);
    (wall seconds, CPU seconds of it and its children, the process). CPU time is what a busy machine cannot
    distort. A failure stops the benchmark with the output's tail, unless `problems(proc)` finds the one-line
    problems of a validation that ran to its end (the caller records them)."""
    started, cpu = time.perf_counter(), _cpu()
    proc = subprocess.run(cmd, cwd=course.platform, env=_env(course, cache), capture_output=True, text=True)
    seconds, cpu = time.perf_counter() - started, _cpu() - cpu
    if proc.returncode != 0 and not (problems and "Traceback" not in proc.stderr and problems(proc)):
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-20:])
        raise BenchError(f"{' '.join(map(str, cmd))} exited with {proc.returncode}:\n{tail}")
    return seconds, cpu, proc


def _validation_problems(proc: subprocess.CompletedProcess) -> list[str]:
    return [line for line in proc.stderr.splitlines() if line.strip() and not line.startswith("warning: ")]


def _build_problems(proc: subprocess.CompletedProcess) -> list[str]:
    output = proc.stdout + proc.stderr
    return error_lines(output) if "exercise validation failed" in output else []


def _validate(course: Generated, jobs: int, cache: Path | None = None) -> dict:
    """`authoring validate` over the whole course: wall and CPU seconds, how many exercises it validated (rather
    than found in the cache), and the problems it found, if any. A problem does not stop the benchmark: the
    validation did all its work, and a mutant caught only most of the time is worth reporting, not hiding."""
    cmd = [PY, "-m", "authoring", "validate", "--root", str(course.exercises), "--jobs", str(jobs)]
    seconds, cpu, proc = _run(cmd + (["--cache", str(cache)] if cache else []), course,
                              problems=_validation_problems)
    validated = len(re.findall(r"^[a-z0-9-]+: ok \(\d+ tests", proc.stdout, re.M))  # not "pages: ok (...)"
    out = {"s": seconds, "cpu_s": cpu, "validated": validated}
    return out | ({"errors": _validation_problems(proc)} if proc.returncode else {})


def _build(course: Generated, cache: Path, tolerate: bool = False) -> dict:
    """A `mkdocs build --strict` of the course; with `tolerate`, a build stopped by validation problems is
    returned with them instead of stopping the benchmark."""
    cmd = [PY, "-m", "mkdocs", "build", "--strict", "-f", str(course.config)]
    seconds, cpu, proc = _run(cmd, course, cache, problems=_build_problems if tolerate else None)
    return {"s": seconds, "cpu_s": cpu} | ({"errors": _build_problems(proc)} if proc.returncode else {})


def _append(path: Path, line: str) -> None:
    """An edit that changes a file's content but not its meaning: a comment in Python, a paragraph in Markdown."""
    with path.open("a", encoding="utf-8") as f:
        f.write(f"\n# {line}\n" if path.suffix == ".py" else f"\n{line}\n")


def _medians(runs: list[dict]) -> dict:
    """The median of each timing over runs, the largest count, every run's problems, and the runs themselves."""
    def timing(key: str) -> bool:
        return key == "s" or key.endswith("_s")

    numbers = [k for k, v in runs[0].items() if isinstance(v, (int, float))]
    out = {key: (statistics.median if timing(key) else max)(r[key] for r in runs) for key in numbers}
    errors = [e for r in runs for e in r.get("errors", [])]
    return {**out, **({"errors": errors} if errors else {}), "runs": runs}


class Preview:
    """`python -m authoring.preview` on the generated course, on a free port, stopped (its process group) on exit."""

    def __init__(self, course: Generated, cache: Path):
        cmd = [PY, "-m", "authoring.preview", "--config", str(course.config), "--port", "0",
               "--out", str(course.root / "preview")]
        self.proc = subprocess.Popen(cmd, cwd=course.platform, env=_env(course, cache), stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, start_new_session=True)
        self.output: list[str] = []
        for line in self.proc.stdout:  # the first line names the port; the rest is drained by a thread
            self.output.append(line)
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if match:
                self.base = f"http://127.0.0.1:{match.group(1)}/"
                break
        else:
            raise BenchError("authoring.preview exited before serving:\n" + "".join(self.output[-20:]))
        threading.Thread(target=lambda: self.output.extend(self.proc.stdout), daemon=True).start()

    def get(self, path: str) -> bytes:
        with urllib.request.urlopen(self.base + path, timeout=30) as response:
            return response.read()

    def state(self) -> dict:
        return json.loads(self.get("__preview/state"))

    def wait(self, done, timeout: float, seen=None) -> dict:
        """Poll the state until `done(state)` holds for a finished build; a failed build stops the benchmark.
        `seen(state)`, if given, is shown every state polled on the way."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = self.state()
            if seen:
                seen(state)
            if not state["building"] and state["errors"]:
                raise BenchError("the preview's build failed:\n" + "\n".join(state["errors"][:20]))
            if not state["building"] and done(state):
                return state
            time.sleep(POLL)
        raise BenchError(f"the preview did not finish within {timeout:g} s:\n" + "".join(self.output[-20:]))

    def edit_and_wait(self, path: Path, url: str, marker: str, timeout: float) -> dict:
        """Edit `path`, then wait until the preview serves `url` with the edit; seconds from the save, the
        builds it took (more than one when another change landed meanwhile) and the build's own time. For an
        exercise's edit, also the seconds from the save until the preview showed the gate's verdict
        (`gate_s`, its state's `gate` replaced) and the gate's own time (`gate_own_s`)."""
        first = self.state()
        before, gate_before = first["version"], first.get("gate")
        started = time.perf_counter()
        _append(path, marker)
        gate: dict = {}

        def note_gate(state: dict) -> None:
            if not gate and state.get("gate") and state["gate"] != gate_before:
                gate.update(gate_s=time.perf_counter() - started, gate_own_s=state["gate"]["ms"] / 1000,
                            gate_ok=state["gate"]["ok"])

        state = self.wait(lambda s: s["version"] > before and marker.encode() in self.get(url), timeout, note_gate)
        return {"s": time.perf_counter() - started, "builds": state["version"] - before,
                "build_s": state["ms"] / 1000, **gate}

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGINT)  # the preview stops its server and removes its temp folder
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def _page_url(page: str) -> str:
    """The URL of a page under use_directory_urls: e107/rejection-correction.md -> e107/rejection-correction/."""
    return "" if page == "index.md" else page.removesuffix("index.md").removesuffix(".md").rstrip("/") + "/"


def _targets(course: Generated) -> dict[str, manifest.Exercise]:
    """The exercises the benchmark edits: the last copy's lesson and the heaviest module (M07.6's last copy, or
    the last module of a course too small to have one)."""
    exercises = {e.id: e for e in manifest.load_all(course.exercises).values()}
    lessons = [i for i in course.ids if exercises[i].kind == "lesson"]
    heavy = [i for i in course.ids if i.endswith(".6") and i.startswith("M")] or course.ids
    return {"lesson": exercises[lessons[-1]], "module": exercises[heavy[-1]]}


def _sizes(site: Path) -> dict[str, int]:
    """Bytes of the built site, and of the files the service worker precaches (PRECACHE in sw.js)."""
    files = [p for p in site.rglob("*") if p.is_file()]
    pyodide = site / "assets" / "pyodide"
    head = (site / "sw.js").read_text(encoding="utf-8").split("\n", 1)[0]
    listed = json.loads(head.removeprefix("const PRECACHE = ").rstrip(";"))["files"]
    urls = [entry[0] if isinstance(entry, list) else entry for entry in listed]  # [url, hash] since issue 12
    paths = [site / url / "index.html" if url == "" or url.endswith("/") else site / url for url in urls]
    return {"site_bytes": sum(p.stat().st_size for p in files), "site_files": len(files),
            "site_bytes_without_pyodide": sum(p.stat().st_size for p in files if pyodide not in p.parents),
            "precache_bytes": sum(p.stat().st_size for p in paths), "precache_files": len(paths),
            "precache_bytes_without_pyodide": sum(p.stat().st_size for p in paths if pyodide not in p.parents)}


def _pyodide(course: Generated) -> dict:
    """The Pyodide tier's validation of the whole course. validate_in_pyodide.mjs validates `<repo>/exercises`
    with the checker it finds in `<repo>`, so the course folder gets a copy of checker/ and stands in for it."""
    shutil.copytree(course.platform / "checker", course.root / "checker", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__"))
    seconds, cpu, proc = _run(["node", str(course.platform / PYODIDE_SCRIPT), str(course.root),
                               str(course.root / "site" / "assets" / "pyodide")], course)
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"s": seconds, "cpu_s": cpu, "start_s": report["timing"]["startMs"] / 1000,
            "validate_s": report["timing"]["validateMs"] / 1000, "exercises": len(report["outcomes"])} | (
        {"errors": report["errors"]} if report["errors"] else {})


def _recorder(out: dict, n: int, log):
    """step(name, value): keep a figure in `out` and log it (rounded, without its raw runs)."""
    def step(name: str, value: dict) -> None:
        out[name] = value
        shown = {k: round(v, 2) if isinstance(v, float) else v for k, v in value.items() if k != "runs"}
        log(f"N={n} {name}: {shown}")

    return step


def _commit() -> str:
    """This checkout's commit, `-dirty` when it has uncommitted changes (the platform measured is a copy of it)."""
    return subprocess.run(["git", "describe", "--always", "--dirty"], cwd=REPO, capture_output=True,
                          text=True).stdout.strip()


def measure(course: Generated, repeat: int, log=print) -> dict:
    """Every figure for one generated course; raw runs kept, see bench/README.md for what each one is."""
    n = len(course.ids)
    out: dict = {"n": n, "load_average": os.getloadavg(), "repeat": repeat}
    cache = course.root / "cache"

    step = _recorder(out, n, log)

    step("validate_cold_jobs2", _validate(course, 2))
    step("validate_cold_jobs1", _validate(course, 1))
    cold = _build(course, cache, tolerate=True)
    if "errors" in cold:  # a mutant that survived by chance: record it, then measure a cold build again
        step("build_cold_failed", cold)
        cache = course.root / "cache-again"
        cold = _build(course, cache)
    step("build_cold", cold)
    step("build_warm", _medians([_build(course, cache) for _ in range(repeat)]))
    step("validate_cached", _medians([_validate(course, 2, cache) for _ in range(repeat)]))
    targets = _targets(course)
    for kind, ex in targets.items():
        runs = []
        for i in range(repeat):
            _append(ex.tests_file, f"bench-course edit {i} {time.time_ns()}")
            runs.append(_validate(course, 2, cache))
        step(f"validate_changed_{kind}", {"id": ex.id, **_medians(runs)})
    step("sizes", _sizes(course.root / "site"))
    edit_loop(course, cache, repeat, step)
    step("pyodide_validate", _pyodide(course))
    return out


def edit_loop(course: Generated, cache: Path, repeat: int, step) -> None:
    """The preview's first build, then `repeat` edits of one lesson page and of the heaviest exercise's tests."""
    targets = _targets(course)
    preview = Preview(course, cache)
    try:
        started = time.perf_counter()
        first = preview.wait(lambda s: s["root"] is not None, timeout=1800)
        step("preview_first_build", {"s": time.perf_counter() - started, "build_s": first["ms"] / 1000})
        page = targets["lesson"].page
        edits = {"page": (course.docs / page, _page_url(page)),
                 "exercise": (targets["module"].tests_file, f"assets/tl/exercises/{targets['module'].slug}.json")}
        for kind, (path, url) in edits.items():
            runs = [preview.edit_and_wait(path, url, f"bench-course-{kind}-edit-{i}-{time.time_ns()}", 1800)
                    for i in range(repeat)]
            step(f"preview_{kind}", {"file": str(path.relative_to(course.root)), **_medians(runs)})
    finally:
        preview.close()


# ---- the report -------------------------------------------------------------------------------------------------

def _speedup(r: dict) -> float:
    return r["validate_cold_jobs1"]["s"] / r["validate_cold_jobs2"]["s"]


# (label, key of a size's results or a function of them, field, unit, how it is taken, target).
# bench/README.md explains each row. A wall time whose figure has a CPU time shows it too.
ROWS = (
    ("cold build (`mkdocs build --strict`, empty validation cache)", "build_cold", "s", "s", "1 run", ""),
    ("warm build (the same again, nothing changed)", "build_warm", "s", "s", "median", ""),
    ("cold validation, `--jobs 2` (the CPython tier, `make validate`)", "validate_cold_jobs2", "s", "s", "1 run",
     "< 300 s at N = 100"),
    ("cold validation, `--jobs 1`", "validate_cold_jobs1", "s", "s", "1 run", ""),
    ("… one core's wall time over two cores'", _speedup, "", "x", "", "2× at best"),
    ("validation with the cache, nothing changed", "validate_cached", "s", "s", "median", ""),
    ("validation after one lesson changed (its last copy)", "validate_changed_lesson", "s", "s", "median", "< 5 s"),
    ("validation after M07.6's last copy changed (55 mutants)", "validate_changed_module", "s", "s", "median",
     "< 5 s"),
    ("preview: first build (front end bundled, cache warm)", "preview_first_build", "s", "s", "1 run", ""),
    ("preview: one page edited → served", "preview_page", "s", "s", "median", "< 5 s"),
    ("… of which the build", "preview_page", "build_s", "s", "median", ""),
    ("preview: M07.6's copy edited (a test's comment) → re-validated, served", "preview_exercise", "s", "s",
     "median", "< 5 s"),
    ("… of which the build", "preview_exercise", "build_s", "s", "median", ""),
    ("site size", "sizes", "site_bytes", "B", "", ""),
    ("… without Pyodide (`assets/pyodide/`)", "sizes", "site_bytes_without_pyodide", "B", "", ""),
    ("service worker precache", "sizes", "precache_bytes", "B", "", ""),
    ("… without Pyodide", "sizes", "precache_bytes_without_pyodide", "B", "", ""),
    ("… files precached", "sizes", "precache_files", "n", "", ""),
    ("validation in Pyodide under Node.js (the Pyodide tier)", "pyodide_validate", "s", "s", "1 run", ""),
    ("… of which loading Pyodide, numpy and pytest", "pyodide_validate", "start_s", "s", "1 run", ""),
    ("generating the course", lambda r: r["generate_s"], "", "s", "1 run", ""),
)


def _fmt(value: float, unit: str, per: bool = False) -> str:
    if unit == "B":
        return f"{value / 1e3:,.1f} kB" if per or abs(value) < 1e6 else f"{value / 1e6:,.2f} MB"
    if unit == "x":
        return f"{value:.2f}×"
    if unit == "n":
        return f"{value:,.1f}" if per else f"{value:,.0f}"
    return f"{value:,.3f} s" if per else f"{value:,.2f} s" if value < 100 else f"{value:,.0f} s"


def _values(r: dict, key, field: str) -> tuple[float, float | None]:
    """A figure's value, and its CPU time when it is a wall time that has one."""
    if callable(key):
        return key(r), None
    return r[key][field], r[key].get("cpu_s") if field == "s" else None


def _cell(value: float, cpu: float | None, unit: str, per: bool = False) -> str:
    text = _fmt(value, unit, per)
    return text if cpu is None else f"{text} (CPU {_fmt(cpu, unit, per)})"


def report(results: dict, meta: dict) -> str:
    """The Markdown report: one row per figure, one column per course size, and the growth per exercise."""
    sizes = sorted(results, key=int)
    head = "| figure | " + " | ".join(f"N = {n}" for n in sizes)
    growth = len(sizes) == 2
    head += " | per exercise | target | runs |" if growth else " | target | runs |"
    lines = ["# Course-scale benchmark", "",
             f"`python -m bench.course {meta['args']}` on {meta['date']}, {meta['cpus']} cores. The platform "
             f"measured is the working tree of {meta['commit']} as it was at the start, copied (a `-dirty` "
             "commit has uncommitted changes), so that others' edits during the run do not change it.", "",
             head, "|---|" + "---:|" * len(sizes) + ("---:|" if growth else "") + "---|---|"]
    for label, key, field_, unit, how, target in ROWS:
        values = [_values(results[n], key, field_) for n in sizes]
        cells = [_cell(v, cpu, unit) for v, cpu in values]
        if growth:
            (low, low_cpu), (high, high_cpu) = values
            span = int(sizes[1]) - int(sizes[0])
            cpu = None if low_cpu is None else (high_cpu - low_cpu) / span
            cells.append("" if unit == "x" else _cell((high - low) / span, cpu, unit, per=True))
        runs = f"median of {results[sizes[0]]['repeat']}" if how == "median" else how
        lines.append(f"| {label} | " + " | ".join(cells) + f" | {target} | {runs} |")
    lines += ["", "Times are wall times; \"CPU\" is the CPU time (user + system) of the command and all its "
              "processes, which other work on the machine does not inflate: on two idle cores, a command that "
              "keeps both busy would take about half of it. Per exercise: the difference between the two sizes "
              "divided by the difference in exercises. bench/README.md says how each figure is taken.", ""]
    for n in sizes:
        r = results[n]
        load = ", ".join(f"{x:.2f}" for x in r["load_average"])
        lines.append(f"- N = {n}: load average {load} at the start; the lesson edited is "
                     f"{r['validate_changed_lesson']['id']}, the module {r['validate_changed_module']['id']} "
                     f"(re-validated: {r['validate_changed_lesson']['validated']} and "
                     f"{r['validate_changed_module']['validated']} exercise(s) of {n}; with nothing changed: "
                     f"{r['validate_cached']['validated']}); preview builds per edit: "
                     f"{max(x['builds'] for k in ('preview_page', 'preview_exercise') for x in r[k]['runs'])} "
                     "at most (more than 1 would mean a rebuild that was not the edit's own).")
    lines += [f"- {meta['snapshot']}", *[f"- {note}" for note in meta.get("notes", ())]]
    problems = [(n, name, line) for n in sizes for name, value in results[n].items()
                if isinstance(value, dict) for line in value.get("errors", [])]
    if problems:
        lines += ["", "Problems the validations found on the way (each figure was still taken; a failed cold "
                  "build was taken again with a new empty cache):", ""]
        lines += [f"- N = {n}, {name}: `{line}`" for n, name, line in problems]
    return "\n".join(lines) + "\n"


def _snapshots(platform: Path) -> set[str]:
    cache = platform / SNAPSHOT_CACHE
    return {p.name for p in cache.iterdir()} if cache.is_dir() else set()


NOTES = (
    "Validation runs each reference suite 5 times in fresh processes (the flakiness check), as `make validate` "
    "and the build do.",
    "Not measured: the end-to-end tier (headless Chromium; this benchmark starts no browser) and the unit and "
    "JavaScript tiers, which run on fixture courses under tests/ and do not grow with the course.",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.course", description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=100, help="exercises in the full course (default 100)")
    parser.add_argument("--small", type=int, default=8, help="exercises in the small course measured in the same "
                        "run, to show the growth per exercise (default 8; 0 for none)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each cheap figure (default 3)")
    parser.add_argument("--keep", type=Path, metavar="DIR", help="generate into DIR/n<N>/ and keep the courses")
    parser.add_argument("--out", type=Path, help="the Markdown report; the JSON goes next to it (default "
                        "bench/results/course-latest.md, or course-edit-loop-latest.md with --edit-loop-only)")
    parser.add_argument("--generate-only", action="store_true", help="write the course(s) and stop")
    parser.add_argument("--from-json", type=Path, metavar="FILE", help="only write the Markdown report (--out) "
                        "again from the JSON of an earlier run")
    parser.add_argument("--edit-loop-only", type=Path, metavar="CACHE", help="only the preview's edit loop, on a "
                        "course of --count exercises generated into --keep (or a temporary folder), with a copy of "
                        "the validation cache CACHE (a build's .cache/validate of the same course) so that its "
                        "first build is warm; the report goes to --out (default course-edit-loop-latest.md)")
    args = parser.parse_args(argv)
    if args.edit_loop_only:
        return edit_loop_only(args.count, args.edit_loop_only, args.repeat, args.keep,
                              args.out or REPO / "bench" / "results" / "course-edit-loop-latest.md")
    args.out = args.out or REPO / "bench" / "results" / "course-latest.md"
    if args.from_json:
        data = json.loads(args.from_json.read_text(encoding="utf-8"))
        args.out.write_text(report(data["results"], data["meta"]), encoding="utf-8")
        return 0
    sizes = sorted({n for n in (args.small, args.count) if n > 0})
    base = (args.keep or Path(tempfile.mkdtemp(prefix="tl-course-"))).resolve()
    commit = _commit()
    results: dict[str, dict] = {}
    try:
        shutil.rmtree(base / "platform", ignore_errors=True)
        platform = freeze(base / "platform")
        before = _snapshots(platform)
        for n in sizes:
            root = base / f"n{n}"
            shutil.rmtree(root, ignore_errors=True)
            started = time.perf_counter()
            course = generate(root, n, platform=platform)
            generated = time.perf_counter() - started
            print(f"N={n}: generated in {root} ({generated:.2f} s)", flush=True)
            if args.generate_only:
                continue
            results[str(n)] = measure(course, args.repeat, log=lambda line: print(line, flush=True))
            results[str(n)]["generate_s"] = generated
    except BenchError as exc:
        print(f"bench.course: {exc}\n(the generated course is kept in {base})", file=sys.stderr)
        return 1
    if args.generate_only:
        return 0
    after = _snapshots(platform)
    meta = {"args": " ".join(argv if argv is not None else sys.argv[1:]) or "(defaults)",
            "date": time.strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count(), "notes": list(NOTES),
            "commit": commit,
            "snapshot": ("The Pyodide memory snapshot (a copy of .cache/snapshot) was warm: every build reused it."
                         if after <= before else "The Pyodide memory snapshot was made during this run (cold "
                         "cache): the first build includes making it.")}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report(results, meta), encoding="utf-8")
    args.out.with_suffix(".json").write_text(json.dumps({"meta": meta, "results": results}, indent=1) + "\n",
                                             encoding="utf-8")
    print(f"wrote {args.out} and {args.out.with_suffix('.json').name}")
    if not args.keep:
        shutil.rmtree(base, ignore_errors=True)
    return 0


def edit_loop_only(count: int, cache: Path, repeat: int, keep: Path | None, out: Path) -> int:
    """bench.course --edit-loop-only: the edit loop of a course of `count` exercises, its validation warm."""
    base = (keep or Path(tempfile.mkdtemp(prefix="tl-course-"))).resolve()
    commit = _commit()
    root = base / f"n{count}"
    shutil.rmtree(root, ignore_errors=True)
    platform = freeze(base / "platform")
    course = generate(root, count, platform=platform)
    shutil.copytree(cache, root / "cache")
    rows: dict = {"n": count, "load_average": os.getloadavg()}
    try:
        edit_loop(course, root / "cache", repeat, _recorder(rows, count, lambda line: print(line, flush=True)))
    except BenchError as exc:
        print(f"bench.course: {exc}\n(the generated course is kept in {base})", file=sys.stderr)
        return 1
    rows["load_average_after"] = os.getloadavg()
    page, ex = rows["preview_page"], rows["preview_exercise"]
    lines = ["# The author's edit loop on a generated course", "",
             f"`python -m bench.course --edit-loop-only CACHE --count {count} --repeat {repeat}` on "
             f"{time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} cores, commit {commit}. The preview "
             "(`python -m authoring.preview`) on a course of "
             f"{count} exercises, its validation cache warm; load average {rows['load_average'][0]:.2f} before, "
             f"{rows['load_average_after'][0]:.2f} after. Medians of {repeat} edits.", "",
             "| figure | seconds | target (issue 34) |", "|---|---:|---|",
             f"| preview: first build (validation from the cache) | {rows['preview_first_build']['s']:.2f} | |",
             f"| one page edited ({page['file']}) → served with the edit | {page['s']:.2f} | < 2 s |",
             f"| … of which the build | {page['build_s']:.2f} | |",
             f"| one exercise's hidden tests edited ({ex['file']}) → the gate's verdict shown | "
             f"{ex.get('gate_s', float('nan')):.2f} | < 5 s |",
             f"| … of which the gate itself | {ex.get('gate_own_s', float('nan')):.2f} | |",
             f"| … → validated in full, its bundle served with the edit | {ex['s']:.2f} | |",
             f"| … of which the build | {ex['build_s']:.2f} | |", "",
             "Builds per edit: at most " + str(max(page["builds"], ex["builds"])) + " (more than 1 would be a "
             "rebuild that was not the edit's own).", ""]
    out.write_text("\n".join(lines), encoding="utf-8")
    out.with_suffix(".json").write_text(json.dumps({"commit": commit, "results": rows}, indent=1) + "\n",
                                        encoding="utf-8")
    print(f"wrote {out}")
    if not keep:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
