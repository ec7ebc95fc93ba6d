"""The code is in folders by audience, and imports only point one way.

    checker/    the judge: runs in every browser (checker.zip), under `ol` and in validation; imports nothing of
                the project outside itself
    course/     the course's data: exercise folders and chapters read and checked, the records the browser reads
    ol/         the learner's command line: never imports the author's toolchain or the build
    mdwidgets/  the Markdown widgets: the course's data, never the author's toolchain (the build hands it its
                example runner)
    authoring/  the author's toolchain: validation, page checks, scaffold, preview, the local server
    tools/      the build steps: may import any of the above
    bench/      the benchmarks: may import anything; nothing imports them

Module paths written as strings (`python -m ...`, fork-server jobs, entry points, the Makefile, the Node scripts)
and file paths in the docs must name modules and files that exist.
"""
from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
PACKAGES = ("checker", "course", "ol", "authoring", "tools", "mdwidgets", "bench")
# What each package may import of the others (its own modules always).
ALLOWED = {
    "checker": set(),
    "course": {"checker"},
    "ol": {"checker", "course"},
    "mdwidgets": {"checker", "course"},
    "authoring": {"checker", "course", "mdwidgets"},  # mdwidgets: the page checks convert pages as the build does
    "tools": {"checker", "course", "ol", "mdwidgets", "authoring"},
    "bench": {"checker", "course", "ol", "mdwidgets", "authoring", "tools"},
}


def imports_of(path: Path, root: Path = REPO) -> list[tuple[int, str]]:
    """(line, top-level package) of every import in `path` that names one of PACKAGES; relative ones resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name.split(".")[0]) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: within the file's own package, or above it
                found.append((node.lineno, path.relative_to(root).parts[0] if node.level == 1 else "<outside>"))
            elif node.module:
                found.append((node.lineno, node.module.split(".")[0]))
    return [(line, top) for line, top in found if top in PACKAGES or top == "<outside>"]


def violations(package: str, root: Path = REPO) -> list[str]:
    allowed = ALLOWED[package] | {package}
    bad = []
    for path in sorted((root / package).rglob("*.py")):
        for line, top in imports_of(path, root):
            if top not in allowed:
                bad.append(f"{path.relative_to(root)}:{line}: imports {top} ({package}/ may import "
                           f"{', '.join(sorted(allowed - {package})) or 'nothing of the project'})")
    return bad


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_imports_point_one_way(package):
    assert violations(package) == []


def test_a_forbidden_import_is_found(tmp_path):
    """The check above can fail: a judge module that imports the course's data, and `ol` importing validation."""
    for package, text in {"checker": "from course import manifest\n", "ol": "from authoring import validate\n",
                          "course": "x = 1\n", "authoring": "from . import validate\nfrom ol import cli\n"}.items():
        (tmp_path / package).mkdir()
        (tmp_path / package / "bad.py").write_text(text)
    assert violations("checker", tmp_path) == [
        "checker/bad.py:1: imports course (checker/ may import nothing of the project)"]
    assert violations("ol", tmp_path) == ["ol/bad.py:1: imports authoring (ol/ may import checker, course)"]
    assert violations("course", tmp_path) == []
    assert violations("authoring", tmp_path) == [
        "authoring/bad.py:2: imports ol (authoring/ may import checker, course, mdwidgets)"]


def package_graph(root: Path = REPO) -> dict[str, set[str]]:
    """Which packages each package imports, as its files' imports say."""
    graph: dict[str, set[str]] = {}
    for package in PACKAGES:
        edges = graph.setdefault(package, set())
        for path in (root / package).rglob("*.py") if (root / package).is_dir() else ():
            edges |= {top for _, top in imports_of(path, root) if top not in (package, "<outside>")}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import cycle between packages, each as the path that closes it (`a -> b -> a`), found by a
    depth-first walk; [] when the imports form layers."""
    found, done = [], set()

    def walk(node: str, path: list[str]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt in path:
                found.append(path[path.index(nxt):] + [nxt])
            elif nxt not in done:
                walk(nxt, path + [nxt])
        done.add(node)

    for start in sorted(graph):
        if start not in done:
            walk(start, [start])
    return found


def test_every_package_is_in_a_layer():
    assert set(ALLOWED) == set(PACKAGES)


def test_no_package_imports_in_a_circle():
    assert cycles(package_graph()) == []


def test_a_package_cycle_is_found(tmp_path):
    """The check above can fail: the cycle authoring -> mdwidgets -> authoring, as it was before the example
    runner moved (mdwidgets/examples.py imported authoring.forkserver)."""
    for package, text in {"authoring": "import mdwidgets\n", "mdwidgets": "from authoring import forkserver\n",
                          "checker": "x = 1\n"}.items():
        (tmp_path / package).mkdir()
        (tmp_path / package / "m.py").write_text(text)
    assert cycles(package_graph(tmp_path)) == [["authoring", "mdwidgets", "authoring"]]
    assert violations("mdwidgets", tmp_path) == [
        "mdwidgets/m.py:1: imports authoring (mdwidgets/ may import checker, course)"]


def _top_level(tree: ast.Module) -> list[ast.stmt]:
    """The statements that run when a module is imported: its body, and the bodies of its top-level `if`, `try`
    and `with` (not functions' or classes': an import inside a function runs later, once every module is in)."""
    out, todo = [], list(tree.body)
    while todo:
        node = todo.pop(0)
        out.append(node)
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            todo += [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", []),
                     *(s for h in getattr(node, "handlers", []) for s in h.body)]
    return out


def module_graph(package: str, root: Path = REPO) -> dict[str, set[str]]:
    """Which modules of `package` each of its modules imports when it is imported (`from . import x`,
    `from .x import y`, `from ol import x`, `import ol.x`)."""
    folder = root / package
    names = {p.stem for p in folder.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in sorted(folder.glob("*.py")):
        edges = graph.setdefault(path.stem, set())
        for node in _top_level(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.ImportFrom) and (node.level == 1 or node.module and node.level == 0
                                                     and node.module.split(".")[0] == package):
                inner = (node.module or "") if node.level else node.module.partition(".")[2]
                edges |= {inner.split(".")[0]} if inner else {a.name for a in node.names}
            elif isinstance(node, ast.Import):
                edges |= {a.name.split(".")[1] for a in node.names if a.name.startswith(package + ".")}
        edges &= names - {path.stem}
    return graph


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_imports_in_a_circle(package):
    """Within a package too: a circle of imports works or breaks by which module happens to be imported first."""
    assert cycles(module_graph(package)) == []


def test_a_module_cycle_is_found(tmp_path):
    """The check above can fail: the circle ol/checkrun.py -> installed.py -> report.py -> checkrun.py as it was
    (installed.py took OlError from report.py, which prints checkrun's outcomes); an import inside a function is
    not one."""
    (tmp_path / "ol").mkdir()
    for name, text in {"checkrun": "from . import installed\n", "installed": "from .report import FAILED, OlError\n",
                       "report": "import re\nfrom ol import checkrun\n", "cli": "def main():\n    from . import cli\n",
                       "lazy": "def f():\n    from . import checkrun\n"}.items():
        (tmp_path / "ol" / f"{name}.py").write_text(text)
    (tmp_path / "ol" / "checkrun.py").write_text("from . import installed\ntry:\n    from ol import lazy\nexcept ImportError:\n    pass\n")
    assert cycles(module_graph("ol", tmp_path)) == [["checkrun", "installed", "report", "checkrun"]]
    assert module_graph("ol", tmp_path)["lazy"] == set()


def tracked(*suffixes: str) -> list[Path]:
    names = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    return [REPO / n for n in names if n.endswith(suffixes) and (REPO / n).is_file()]


MODULE_RE = re.compile(r"(?<![\w./-])((?:" + "|".join(PACKAGES) + r")(?:\.[A-Za-z_]\w*)+)(?![\w-])")  # not `ol.tl-x`
QUOTED_RE = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'|`[^`]*`")  # a JavaScript string: where a module path is text, not code
MADE_AT_RUN_TIME = ("checker.tl_fake",)  # a module tests/unit/test_judge.py writes to prove tampering is refused
FILE_RE = re.compile(r"(?<![\w./-])((?:" + "|".join(PACKAGES) + r")/[\w/]+\.py)\b")
RUN_PACKAGE_RE = re.compile(r"-m[\s\"',]+(" + "|".join(PACKAGES) + r")\b(?![.\w])")
FROM_IMPORT_RE = re.compile(r"\bfrom ((?:" + "|".join(PACKAGES) + r")(?:\.\w+)*) import ([\w, ]+)")
NOT_MODULES = {"zip", "py", "json", "toml", "whl", "js", "mjs", "md", "html", "txt"}


def exists_as_module(dotted: str) -> bool:
    """`a.b.c` names a module or package here, or an attribute of one (a function, a constant)."""
    parts = dotted.split(".")
    if parts[-1] in NOT_MODULES or dotted.startswith(MADE_AT_RUN_TIME):
        return True
    for n in range(len(parts), 1, -1):
        base = REPO.joinpath(*parts[:n])
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            return True
    return False


def strings_in(path: Path) -> list[tuple[int, str]]:
    """Text where a module path is written as a string: a Python file's string constants and comments are
    skipped for code (imports are checked above), but its strings are not; other files whole."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix in (".js", ".mjs"):
        return [(text.count("\n", 0, m.start()) + 1, m.group()) for m in QUOTED_RE.finditer(text)]
    if path.suffix != ".py":
        return list(enumerate(text.splitlines(), 1))
    return [(node.lineno, node.value) for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.Constant) and isinstance(node.value, str)]


def test_module_paths_written_as_strings_exist():
    lost = []
    files = tracked(".py", ".mjs", ".js", ".toml", "Makefile", ".ci/run")
    for path in files:
        if "fixtures" in path.parts or path == Path(__file__):
            continue
        for line, text in strings_in(path):
            for dotted in MODULE_RE.findall(text):
                if dotted.split(".")[0] in PACKAGES and not exists_as_module(dotted):
                    lost.append(f"{path.relative_to(REPO)}:{line}: {dotted}")
            for package, names in FROM_IMPORT_RE.findall(text):  # "from checker import exchange" in a script
                folder = REPO.joinpath(*package.split("."))
                for name in (n.split(" as ")[0].strip() for n in names.split(",")):
                    if (folder / "__init__.py").is_file() and not (folder / f"{name}.py").is_file():
                        lost.append(f"{path.relative_to(REPO)}:{line}: from {package} import {name}")
            for package in RUN_PACKAGE_RE.findall(text):  # `python -m authoring validate`: a package's __main__
                if not (REPO / package / "__main__.py").is_file():
                    lost.append(f"{path.relative_to(REPO)}:{line}: -m {package}")
    assert lost == []


def test_file_paths_in_the_docs_and_comments_exist():
    lost = []
    for path in tracked(".md", ".py", ".mjs", ".js", ".toml", "Makefile"):
        if "fixtures" in path.parts or "results" in path.parts or path == Path(__file__):
            continue
        for line, text in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for name in FILE_RE.findall(text):
                if not (REPO / name).is_file():
                    lost.append(f"{path.relative_to(REPO)}:{line}: {name}")
    assert lost == []


# What reads the real course's content: its exercises (load_all() of the default folder, manifest.EXERCISES) or
# its pages. The unit tier tests the platform on the fixture courses; the content is the content tier's.
CONTENT_RE = re.compile(r"\bload_all\(\s*\)|\bmanifest\.EXERCISES\b|REPO\s*/\s*\"docs\"")


def content_reads(folder: Path) -> list[str]:
    return [f"{path.relative_to(folder)}:{n}: {line.strip()}" for path in sorted(folder.rglob("test_*.py"))
            if path != Path(__file__)
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if CONTENT_RE.search(line)]


def test_the_unit_tier_reads_none_of_the_real_course(tmp_path):
    """ARCHITECTURE.md's "content is data": a platform test that read the course would break, or grow, with it.
    Shown failing on a test file that loads the course's exercises."""
    assert content_reads(REPO / "tests" / "unit") == []
    (tmp_path / "test_x.py").write_text("from course import manifest\nexercises = manifest.load_all()\n")
    assert [line.split(": ", 1)[1] for line in content_reads(tmp_path)] == ["exercises = manifest.load_all()"]
