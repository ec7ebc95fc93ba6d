"""A teacher's class view, tried as a teacher would, in real headless Chromium on the fixture course.

Ten exports are made by the test itself: two through the site (a learner passes, fails, takes a hint, answers a
prompt wrong, exports under a name), eight with `ol` (TL_EXERCISES pointed at the fixture's exercises), one of
them by a learner who also exported from the browser (a conflict: a row each); one export is edited by hand to fake a pass, one fakes a
pass with code that loops, and a damaged file and another course's file come along. Dropped on the class page,
they give the right table (by the fixed hooks: `tr[data-learner]`, `td[data-exercise][data-verdict]`,
`[data-class-rejected]`), the fake passes are caught, the CSV the page downloads is byte for byte the one `ol
class --csv` writes for the same folder, and axe finds nothing serious on the page.

Everything typed or expected comes from the fixture's manifests (e2e_helpers).
"""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from e2e_helpers import (FIXTURE, LESSON, LESSON_EX, PROGRESS, REPO, answer, answer_text, cell, check, exercises,
                         fixture_modules, mutant_source, page_with, reference, uri, wait_python)
from test_a11y import BLOCKING, audit, report

BASE, NEXT = fixture_modules()
HELPED = next(e for e in exercises(FIXTURE).values() if e.hints)
NUMBERED = next(m for m in HELPED.mutants if m.pitfall[:1].isdigit())
PROMPT = LESSON_EX.prompts[0]
CLASS = page_with(FIXTURE.parent / "docs", "/// class")
CLASS_MS = 240_000  # ten learners' passes checked again on two cores, one of them a loop stopped by its time limit


def ol(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TL_EXERCISES": str(FIXTURE), "PYTHONPATH": str(REPO), "COLUMNS": "200"}
    env.pop("OL_DEBUG", None)
    run = subprocess.run([sys.executable, "-m", "ol", *args], cwd=cwd, env=env, capture_output=True, text=True,
                         timeout=600)
    return run


def ol_learner(tmp: Path, name: str | None, steps: list[tuple[str, str, str]]) -> Path:
    """A learner's folder worked with ol: each step writes a file (exercise id, code) and runs `ol check` (or
    `ol hint`, or `ol check --ref-deps`); then `ol export`, under `name` when there is one."""
    folder = tmp / (name or "nameless").lower()
    folder.mkdir()
    by_id = {e.id: e for e in exercises(FIXTURE).values()}
    for what, ident, code in steps:
        ex = by_id[ident]
        if what == "hint":
            assert ol(folder, "hint", ident).returncode == 0
            continue
        path = folder / ex.learner_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(code, encoding="utf-8")
        if what != "write":
            ol(folder, "check", ident, *(["--ref-deps"] if what == "check-ref" else []))
    out = tmp / "ol-exports"
    out.mkdir(exist_ok=True)
    target = out / f"{(name or 'nameless').lower().replace(' ', '-')}.json"
    made = ol(folder, "export", str(target), *(["--name", name] if name else []))
    assert made.returncode == 0, made.stderr
    return target


def browser_export(page, url: str, tmp: Path, name: str, file: str) -> Path:
    """The progress page's Export, under `name`, saved as `file`."""
    page.goto(url + PROGRESS)
    page.locator("[data-learner-name]").fill(name)
    with page.expect_download() as download:
        page.get_by_role("button", name="Export progress to a file").click()
    path = tmp / file
    download.value.save_as(path)
    assert json.loads(path.read_text(encoding="utf-8"))["learner"] == name
    return path


@pytest.fixture(scope="module")
def folder(browser, fixture_url, tmp_path_factory) -> Path:
    """The class's folder: the ten exports (ol's in a zip), the two fakes, a damaged file, another course's."""
    tmp = tmp_path_factory.mktemp("exports")
    room = tmp_path_factory.mktemp("class")
    # Ada, in the browser: fails T01.1 the way a known mistake does, takes a hint, passes; answers a prompt wrong
    # then right, passes the lesson.
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(fixture_url + uri(HELPED.page))
    wait_python(page, HELPED.slug)
    assert check(page, HELPED.slug, mutant_source(FIXTURE, HELPED.slug, NUMBERED.name)[0]) == "failed"
    cell(page, HELPED.slug).locator(".tl-hint-next").click()
    assert check(page, HELPED.slug, reference(FIXTURE, HELPED.slug)) == "passed"
    page.goto(fixture_url + LESSON)
    wait_python(page, LESSON_EX.slug)
    assert answer(page, PROMPT.id, answer_text(tuple(v + 1 for v in PROMPT.answer)))[0] == "incorrect"
    assert answer(page, PROMPT.id, answer_text(PROMPT.answer))[0] == "correct"
    assert check(page, LESSON_EX.slug, reference(FIXTURE, LESSON_EX.slug)) == "passed"
    browser_export(page, fixture_url, room, "Ada Lovelace", "ada-browser.json")
    ctx.close()
    # Bob, in the browser: fails the lesson; his file is then edited by hand to claim a pass.
    ctx = browser.new_context()
    page = ctx.new_page()
    page.goto(fixture_url + LESSON)
    wait_python(page, LESSON_EX.slug)
    mutant = min(LESSON_EX.mutants, key=lambda m: m.name)
    assert check(page, LESSON_EX.slug, mutant_source(FIXTURE, LESSON_EX.slug, mutant.name)[0]) == "failed"
    bob = browser_export(page, fixture_url, tmp, "Bob", "bob.json")
    ctx.close()
    doc = json.loads(bob.read_text(encoding="utf-8"))
    result = doc["data"][f"result:{LESSON_EX.slug}"]
    result.update(status="passed", tests=[{**t, "outcome": "passed", "message": ""} for t in result["tests"]])
    (room / "bob.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")
    # Eight learners with ol.
    def ref(ex):
        return reference(FIXTURE, ex.slug)
    flood = "print('x' * 2_000_000)\n" + ref(LESSON_EX)
    ol_learner(tmp, "Ada Lovelace", [("check", BASE.id, ref(BASE)), ("check", NEXT.id, ref(NEXT))])
    ol_learner(tmp, "Cleo", [("check", BASE.id, "def total(xs):\n    return 0\n"), ("hint", BASE.id, ""),
                             ("check", BASE.id, ref(BASE)),
                             ("check", NEXT.id, mutant_source(FIXTURE, NEXT.slug, NEXT.mutants[0].name)[0])])
    ol_learner(tmp, "Dev", [("check-ref", NEXT.id, ref(NEXT))])
    ol_learner(tmp, "Eli", [("write", LESSON_EX.id, "# not yet\n")])
    ol_learner(tmp, None, [("check", BASE.id, ref(BASE))])
    ol_learner(tmp, "Gus", [("check", LESSON_EX.id, ref(LESSON_EX))])
    ol_learner(tmp, "Hal", [("check", BASE.id, mutant_source(FIXTURE, BASE.slug, NUMBERED.name)[0])])
    ol_learner(tmp, "Ivy", [("check", LESSON_EX.id, flood)])
    with zipfile.ZipFile(room / "ol-exports.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted((tmp / "ol-exports").iterdir()):
            zf.write(path, path.name)
    # A pass faked with code that never finishes, a damaged file, another course's file.
    lou = json.loads((tmp / "ol-exports" / "hal.json").read_text(encoding="utf-8"))
    lou["learner"] = "Lou"
    lou["data"] = {f"result:{BASE.slug}": {"status": "passed", "tests": [], "code": "while True:\n    pass\n",
                                           "at": 1796119200000}}
    (room / "lou.json").write_text(json.dumps(lou), encoding="utf-8")
    text = (room / "ada-browser.json").read_text(encoding="utf-8")
    (room / "cut.json").write_text(text[: len(text) // 3], encoding="utf-8")
    (room / "other-course.json").write_text(json.dumps({**lou, "learner": "Zed", "course": "another-course"}),
                                            encoding="utf-8")
    return room


EXPECTED = {  # learner (and file, for a learner two files name) -> {exercise id: verdict}
    "Ada Lovelace | ada-browser.json": {BASE.id: "passed", NEXT.id: "untried", LESSON_EX.id: "passed"},
    "Ada Lovelace | ol-exports.zip/ada-lovelace.json": {BASE.id: "passed", NEXT.id: "passed", LESSON_EX.id: "untried"},
    "Bob": {BASE.id: "untried", NEXT.id: "untried", LESSON_EX.id: "not-reproduced"},
    "Cleo": {BASE.id: "passed", NEXT.id: "failed", LESSON_EX.id: "untried"},
    "Dev": {BASE.id: "untried", NEXT.id: "passed", LESSON_EX.id: "untried"},
    "Eli": {BASE.id: "untried", NEXT.id: "untried", LESSON_EX.id: "untried"},
    "ol-exports.zip/nameless.json": {BASE.id: "passed", NEXT.id: "untried", LESSON_EX.id: "untried"},
    "Gus": {BASE.id: "untried", NEXT.id: "untried", LESSON_EX.id: "passed"},
    "Hal": {BASE.id: "failed", NEXT.id: "untried", LESSON_EX.id: "untried"},
    "Ivy": {BASE.id: "untried", NEXT.id: "untried", LESSON_EX.id: "passed"},
    "Lou": {BASE.id: "not-reproduced", NEXT.id: "untried", LESSON_EX.id: "untried"},
}


def test_a_teacher_grades_ten_exports_and_every_pass_is_checked_again(page, fixture_url, folder, tmp_path):
    page.goto(fixture_url + CLASS)
    expect(page.locator("article")).to_contain_text("Nothing leaves this computer")
    # A first visit: the page reloads itself once the offline copy's service worker takes it, and checks apart.
    page.wait_for_function("() => document.querySelector('.tl-class')?.dataset.boundary === 'separated'",
                           timeout=90_000)
    files = page.locator("input[type=file][data-class-files]")
    files.set_input_files([p for p in sorted(folder.iterdir()) if p.suffix == ".json"])
    # The zip is dropped, as a teacher drags it from a file manager.
    data = list((folder / "ol-exports.zip").read_bytes())
    page.evaluate("""(bytes) => { const files = new DataTransfer();
        files.items.add(new File([new Uint8Array(bytes)], 'ol-exports.zip', {type: 'application/zip'}));
        document.querySelector('.tl-class').dispatchEvent(new DragEvent('drop', {dataTransfer: files, bubbles: true,
            cancelable: true})); }""", data)
    page.wait_for_function("() => document.querySelector('.tl-class').dataset.state === 'checking'")
    expect(page.locator(".tl-class progress")).to_be_visible()
    page.wait_for_function("() => document.querySelector('.tl-class').dataset.state === 'done'", timeout=CLASS_MS)
    got = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('tr[data-learner]')].map((tr) =>
        [tr.dataset.learner + ('conflict' in tr.dataset ? ' | ' + tr.dataset.key.split('\\u0000')[1] : ''),
         Object.fromEntries([...tr.querySelectorAll('td[data-exercise][data-verdict]')]
            .map((td) => [td.dataset.exercise, td.dataset.verdict]))]))""")
    assert got == EXPECTED
    expect(page.locator('tr[data-conflict][data-key$="ada-browser.json"] th')).to_contain_text(
        "conflict: 2 files name this learner")
    bob = page.locator(f'[data-learner="Bob"] [data-exercise="{LESSON_EX.id}"]')
    expect(bob).to_contain_text("claimed pass did not hold")
    expect(bob).to_contain_text(mutant_failing_test())
    expect(page.locator(f'[data-learner="Lou"] [data-exercise="{BASE.id}"]')).to_contain_text("time limit")
    ada = page.locator(f'tr[data-key$="ada-browser.json"] [data-exercise="{HELPED.id}"]')
    expect(ada).to_contain_text("1 hint")
    expect(ada).to_contain_text(NUMBERED.pitfall)
    expect(page.locator(f'tr[data-key$="ada-browser.json"] [data-exercise="{LESSON_EX.id}"]')).to_contain_text(PROMPT.id)
    rejected = page.locator("[data-class-rejected]")
    expect(rejected).to_have_count(2)
    expect(rejected.filter(has_text="cut.json")).to_contain_text("ends in the middle")
    expect(rejected.filter(has_text="other-course.json")).to_contain_text("another-course")
    expect(page.locator(".tl-class [role=status]")).to_contain_text("2 claimed passes did not hold")
    summary = page.locator(f'.tl-class-summary [data-exercise="{LESSON_EX.id}"]')
    expect(summary).to_contain_text("Passed 3 of 11 (27%)")

    with page.expect_download() as download:
        page.get_by_role("button", name="Download the table (CSV)").click()
    from_page = tmp_path / "from-the-page.csv"
    download.value.save_as(from_page)
    table = list(csv.DictReader(io.StringIO(from_page.read_bytes().decode("utf-8-sig"), newline="")))
    learners = [r["learner"] for r in table if not r["problem"].startswith("refused: ")]
    assert learners == [k.split(" | ")[0] for k in sorted(EXPECTED, key=str.lower)], "one row per file's learner, by name"
    assert [r["learner"] for r in table[len(learners):]] == ["cut.json", "other-course.json"], "then the refused"
    assert table[0][f"{HELPED.id} checks"] == "2" and table[0][f"{HELPED.id} hints"] == "1"
    run = ol(tmp_path, "class", str(folder), "--csv", str(tmp_path / "from-ol.csv"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert (tmp_path / "from-ol.csv").read_bytes() == from_page.read_bytes(), "ol class writes the same CSV"
    assert "refused cut.json" in run.stderr and "refused other-course.json" in run.stderr

    # Audited at rest, as test_a11y audits every page: the theme's own hover and focus colour of a button (white on
    # its accent) is not this page's to judge.
    page.mouse.move(0, 0)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    violations = [v for v in audit(page) if v["impact"] in BLOCKING]
    assert not violations, report(violations)


def mutant_failing_test() -> str:
    mutant = min(LESSON_EX.mutants, key=lambda m: m.name)
    return mutant_source(FIXTURE, LESSON_EX.slug, mutant.name)[1]


TRICKS = sorted((REPO / "tests" / "fixtures" / "redteam").glob("*.py"))


def test_an_isolated_class_page_keeps_learner_code_apart_and_no_trick_forges_a_pass(page, fixture_isolated_url,
                                                                                       tmp_path):
    """The red-team suite (tests/fixtures/redteam/, every trick a wrong T01.1 claiming a pass) on the class page of
    a cross-origin isolated site: each check's code runs in a worker of its own, cut off from the origin's data
    (web/src/worker/confine.js), and no trick's pass holds; an honest pass still does, and the offline copy and the
    saved data are still there after."""
    t011 = next(e for e in exercises(FIXTURE).values() if e.id == "T01.1")
    assert t011.import_path == "fixture/base.py"
    folder = tmp_path / "tricks"
    folder.mkdir()
    learners = {trick.stem: trick.read_text(encoding="utf-8") for trick in TRICKS}
    learners["honest"] = reference(FIXTURE, t011.slug)
    for name, code in learners.items():
        doc = {"format": "tinyllm-progress", "version": "v1", "saved": "2026-12-01T10:00:00Z", "course": "tinyllm",
               "build": "b", "origin": "browser", "learner": name,
               "data": {f"result:{t011.slug}": {"status": "passed", "tests": [], "at": 1796119200000, "code": code}}}
        (folder / f"{name}.json").write_text(json.dumps(doc), encoding="utf-8")
    page.goto(fixture_isolated_url + CLASS)
    assert page.evaluate("() => crossOriginIsolated")
    expect(page.locator(".tl-class")).to_have_attribute("data-boundary", "separated")
    page.evaluate("""async () => { await (await caches.open('tl-redteam-canary')).put('/canary', new Response('x'));
        await new Promise((ok) => { const r = indexedDB.open('tl-redteam-canary'); r.onsuccess = ok; }); }""")
    page.locator("input[type=file][data-class-files]").set_input_files(sorted(folder.iterdir()))
    page.wait_for_function("() => document.querySelector('.tl-class').dataset.state === 'done'", timeout=CLASS_MS)
    got = page.evaluate(f"""() => Object.fromEntries([...document.querySelectorAll('tr[data-learner]')].map((tr) =>
        [tr.dataset.learner, tr.querySelector('td[data-exercise="{t011.id}"]').dataset.verdict]))""")
    honest = page.locator(f'[data-learner="honest"] [data-exercise="{t011.id}"]').text_content()
    assert got == {**{t.stem: "not-reproduced" for t in TRICKS}, "honest": "passed"}, (honest, got)
    kept = page.evaluate("""async () => ({caches: await caches.has('tl-redteam-canary'),
        databases: (await indexedDB.databases()).map((d) => d.name)})""")
    assert kept["caches"] and "tl-redteam-canary" in kept["databases"], kept
    left = page.evaluate("""async () => {
        const opfs = [];
        for await (const name of (await navigator.storage.getDirectory()).keys()) opfs.push(name);
        return {caches: await caches.has('tl-redteam-left'), opfs,
            databases: (await indexedDB.databases()).map((d) => d.name).filter((n) => n === 'tl-redteam-left'),
            buckets: navigator.storageBuckets ? await navigator.storageBuckets.keys() : [],
            locks: ((await navigator.locks.query()).held || []).map((l) => l.name)}; }""")
    assert left == {"caches": False, "opfs": [], "databases": [], "buckets": [], "locks": []}, left  # leave_storage
