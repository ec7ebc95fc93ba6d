"""The offline copy's groups (tools/offline.py): what a first visit of a page saves, on a site laid out as the
fixture course builds (its pages, bundles and the platform's files, each a few bytes), so the rule is tested
without a build and without naming anything of the real course."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from course import chapters as chapter_defs
from course import manifest
from tools import build_outputs, offline

REPO = Path(__file__).resolve().parents[2]
COURSE = REPO / "tests" / "fixtures" / "course"
EXERCISES = COURSE / "exercises"
DOCS = COURSE / "docs"
PLATFORM_FILES = ["404.html", "assets/tl/tl.js", "assets/tl/checker.zip", "assets/tl/exercises/index.json",
                  "search/search_index.json", "assets/pyodide/core.wasm", "sitemap.xml"]
PACKAGE = build_outputs.OptionalPackage("plots", ("plots",), ("plots-1.0-py3-none-any.whl", "ink-2.0-py3-none-any.whl"))
needs_node = pytest.mark.skipif(not shutil.which("node"), reason="node runs sw.js's scopeOf")


def exercises():
    return manifest.load_all(EXERCISES)


def lesson():
    (found,) = [e for e in exercises().values() if e.kind == "lesson"]
    return found


def modules():
    """(a module that requires another, the one it requires)."""
    by_id = exercises().by_id
    (after,) = [e for e in exercises().values() if e.kind == "module" and e.requires]
    return after, by_id[after.requires[0]]


def data(value: dict) -> str:
    return f'<script class="tl-data" type="application/json">{json.dumps(value)}</script>'


@pytest.fixture()
def site(tmp_path) -> Path:
    """Every page of the fixture course, its bundles, the platform's files, an optional package that the lesson's
    runnable example imports, `ol`'s package index and the author's outputs."""
    root = tmp_path / "site"
    for md in DOCS.rglob("*.md"):
        url = offline.page_url(md.relative_to(DOCS).as_posix())
        (root / url).mkdir(parents=True, exist_ok=True)
        body = data({"code": "import numpy as np\nprint(1)"})
        if md.relative_to(DOCS).as_posix() == lesson().page:
            body += data({"code": "import numpy as np\nimport plots.draw as draw\ndraw.show()"})
        (root / url / "index.html").write_text(f"<title>{url}</title>{body}")
    for ex in exercises().values():
        (root / offline.BUNDLES).mkdir(parents=True, exist_ok=True)
        (root / offline.BUNDLES / f"{ex.slug}.json").write_text(json.dumps({"slug": ex.slug}))
        (root / "assets" / "tl" / build_outputs.AUTHORING_DIR).mkdir(parents=True, exist_ok=True)
        (root / "assets" / "tl" / build_outputs.AUTHORING_DIR / f"{ex.slug}.json").write_text("{}")
    for name in PLATFORM_FILES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(f"the platform's {name}")
    pyodide = root / "assets" / "pyodide"
    build_outputs.write_wheels_list(pyodide, build_outputs.WheelsList("0", ("pytest.whl",), optional=(PACKAGE,)))
    for name in PACKAGE.files:
        (pyodide / name).write_bytes(b"wheel " * 100)
    (root / "simple" / "tinyllm-ol").mkdir(parents=True)
    (root / "simple" / "index.html").write_text("<a>tinyllm-ol</a>")
    (root / "simple" / "tinyllm-ol" / "tinyllm_ol-1-py3-none-any.whl").write_bytes(b"every exercise again")
    (root / "assets" / "tl" / "build.json").write_text(json.dumps({"progress": "progress/"}))
    return root


def grouped(site: Path) -> offline.Groups:
    urls = [url for url, _hash in offline.precache_list(site)[0]]
    return offline.groups(site, urls, EXERCISES)


def own_files(ex) -> set[str]:
    return {offline.page_url(ex.page), f"{offline.BUNDLES}{ex.slug}.json"}


def test_a_chapter_is_a_unit_with_its_overview_its_lessons_and_the_packages_their_code_imports(site):
    groups = grouped(site)
    chapter = chapter_defs.chapter_of(lesson().id, chapter_defs.load_chapters(EXERCISES, exercises()))
    (unit,) = [u for u in groups.units if u.name == f"chapter {chapter.id}"]
    overview = offline.page_url(chapter.page)
    assert set(unit.pages) == {overview, offline.page_url(lesson().page)}
    packaged = {f"assets/pyodide/{name}" for name in PACKAGE.files}
    assert set(unit.files) == {overview} | own_files(lesson()) | packaged


def test_a_module_is_a_unit_with_the_pages_and_bundles_of_what_it_builds_on(site):
    groups = grouped(site)
    after, before = modules()
    units = {u.name: u for u in groups.units}
    assert set(units[f"module {after.id}"].files) == own_files(after) | own_files(before)
    assert units[f"module {after.id}"].pages == (offline.page_url(after.page),)
    assert set(units[f"module {before.id}"].files) == own_files(before), "what builds on it is not its"


def test_the_platform_is_what_every_page_needs_and_nothing_of_a_unit(site):
    groups = grouped(site)
    in_units = {f for u in groups.units for f in u.files}
    assert set(groups.platform) == {"", "progress/", *PLATFORM_FILES, "assets/pyodide/wheels.json",
                                    "assets/tl/build.json"}
    assert not in_units & set(groups.platform)
    every_exercise = {f for ex in exercises().values() for f in own_files(ex)}
    assert every_exercise <= in_units


def test_the_rest_waits_for_the_whole_course_and_the_authors_files_are_not_listed(site):
    groups = grouped(site)
    map_page = offline.page_url("modules.md")
    assert {map_page, "simple/", "simple/tinyllm-ol/tinyllm_ol-1-py3-none-any.whl"} <= set(groups.rest)
    every = set(groups.platform) | set(groups.rest) | {f for u in groups.units for f in u.files}
    listed = [url for url, _hash in offline.precache_list(site)[0]]
    assert every == set(listed) and len(groups.platform) + len(groups.rest) + len(
        {f for u in groups.units for f in u.files}) == len(listed), "every file in exactly one group"
    assert not any(url.startswith(f"assets/tl/{build_outputs.AUTHORING_DIR}/") for url in listed)


def test_without_a_course_everything_is_the_platforms(site):
    urls = [url for url, _hash in offline.precache_list(site)[0]]
    groups = offline.groups(site, urls, None)
    assert groups.platform == tuple(urls) and groups.units == () and groups.rest == ()


def read_precache(site: Path) -> dict:
    head = (site / "sw.js").read_text(encoding="utf-8").split("\n", 1)[0]
    return json.loads(head.removeprefix("const PRECACHE = ").removesuffix(";"))


def test_sw_js_carries_every_files_size_and_the_groups_as_indices(site):
    offline.write(site, EXERCISES)
    data = read_precache(site)
    files = data["files"]
    assert all(len(entry) == 3 and (site / (entry[0] + "index.html" if offline.is_page(entry[0]) else entry[0]))
               .stat().st_size == entry[2] for entry in files)
    assert data["bytes"] == sum(entry[2] for entry in files)
    groups = grouped(site)
    assert [files[i][0] for i in data["platform"]] == list(groups.platform)
    assert [([files[i][0] for i in u["pages"]], [files[i][0] for i in u["files"]]) for u in data["units"]] \
        == [(list(u.pages), list(u.files)) for u in groups.units]


@needs_node
def test_sw_js_saves_for_a_page_what_the_groups_say(site):
    """The service worker's scopeOf, run on the written sw.js: a module's page brings the platform and its unit,
    the module map only itself."""
    offline.write(site, EXERCISES)
    after, _before = modules()
    pages = [offline.page_url(after.page), offline.page_url("modules.md")]
    script = f"""
        import vm from "node:vm";
        import {{ readFileSync }} from "node:fs";
        const context = vm.createContext({{ self: {{ location: new URL("http://h/sw.js"), addEventListener() {{}} }},
            URL, Map, Set }});
        vm.runInContext(readFileSync({json.dumps(str(site / 'sw.js'))}, "utf8"), context);
        console.log(JSON.stringify({json.dumps(pages)}.map((p) =>
            Array.from(context.scopeOf("http://h/" + p), (u) => u.slice("http://h/".length)).sort())));"""
    out = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    module_scope, map_scope = json.loads(out.stdout)
    groups = grouped(site)
    unit = next(u for u in groups.units if u.name == f"module {after.id}")
    assert module_scope == sorted(set(groups.platform) | set(unit.files))
    assert map_scope == sorted(set(groups.platform) | {pages[1]})
