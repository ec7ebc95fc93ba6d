"""Help for a learner stuck on code, in real headless Chromium on the fixture course: the known mistake a failing
check looks like (linked to the page's pitfall row), hints one at a time, the reference on the author's terms,
and all of it through a reload and an export/import round trip.

The exercise, its hints, its reveal policy and the mutant are read from the fixture's manifests.
"""
import json
import re

from playwright.sync_api import expect

from e2e_helpers import (FIXTURE, PROGRESS, cell, check, exercises, mutant_source, reference, starter, uri,
                         wait_python)

HELPED = next(e for e in exercises(FIXTURE).values() if e.hints and e.reveal_after)
NUMBERED = next(m for m in HELPED.mutants if re.match(r"\d+\. ", m.pitfall))
NUMBER = NUMBERED.pitfall.split(".", 1)[0]
SLUG = HELPED.slug


def open_cell(page, url):
    page.goto(url + uri(HELPED.page))
    wait_python(page, SLUG)
    return cell(page, SLUG)


def test_a_failure_like_a_known_mistake_names_the_pages_pitfall(page, fixture_url):
    c = open_cell(page, fixture_url)
    assert check(page, SLUG, mutant_source(FIXTURE, SLUG, NUMBERED.name)[0]) == "failed"
    box = c.locator("[data-diagnosis]")
    expect(box).to_be_visible()
    expect(box).to_contain_text("This looks like a known mistake")
    item = box.locator(f'[data-pitfall="{NUMBER}"]')
    expect(item).to_contain_text(f"pitfall {NUMBER}: {NUMBERED.pitfall.split('. ', 1)[1]}")
    item.locator("a").click()
    assert page.evaluate("location.hash") == f"#pitfall-{NUMBER}"
    assert check(page, SLUG, starter(FIXTURE, SLUG)) == "failed"
    expect(box).to_be_hidden()  # the starter: every test errors, nothing the mutants encode
    assert check(page, SLUG, reference(FIXTURE, SLUG)) == "passed"
    expect(box).to_be_hidden()


def test_hints_then_the_reference_survive_a_reload_and_an_export_import(page, fixture_url, tmp_path):
    c = open_cell(page, fixture_url)
    expect(c.locator(".tl-help")).to_be_hidden()
    broken = starter(FIXTURE, SLUG)
    for attempt in range(HELPED.reveal_after):
        assert check(page, SLUG, broken) == "failed"
        if attempt == 0:
            expect(c.locator(".tl-reveal")).to_be_hidden()
            expect(c.locator(".tl-reveal-rule")).to_contain_text(f"after {HELPED.reveal_after} failed checks")
    for i in range(1, len(HELPED.hints) + 1):
        c.get_by_role("button", name=re.compile(rf"Show (a|the next) hint \({i} of {len(HELPED.hints)}\)")).click()
        expect(c.locator(f'[data-hint="{i}"]')).to_be_visible()
    expect(c.locator(".tl-hint-next")).to_be_hidden()
    c.get_by_role("button", name="Show the reference…").click()
    c.get_by_role("button", name="Yes, show the reference").click()
    shown = c.locator("[data-reveal]")
    expect(shown).to_be_visible()
    expect(shown.locator("pre")).to_have_text(reference(FIXTURE, SLUG))
    assert cell(page, SLUG).get_attribute("data-status") == "failed", "seeing the reference is not a pass"

    page.reload()
    wait_python(page, SLUG, "python")
    expect(c.locator("[data-hint]")).to_have_count(len(HELPED.hints))
    expect(c.locator("[data-reveal] pre")).to_have_text(reference(FIXTURE, SLUG))

    page.goto(fixture_url + PROGRESS)
    row = page.locator(f'tr[data-exercise="{SLUG}"]')
    expect(row.locator('[data-help="revealed"]')).to_contain_text(f"{len(HELPED.hints)} hints; saw the reference")
    with page.expect_download() as download:
        page.get_by_role("button", name="Export progress to a file").click()
    path = tmp_path / "progress.json"
    download.value.save_as(path)
    assert json.loads(path.read_text())["data"][f"help:{SLUG}"]["hints"] == len(HELPED.hints)
    page.get_by_role("button", name="Reset all progress…").click()
    page.get_by_role("button", name="Yes, erase everything").click()
    expect(row.locator("[data-help]")).to_have_count(0)
    page.locator(".tl-import input").set_input_files(path)
    expect(row.locator('[data-help="revealed"]')).to_be_visible()
    open_cell(page, fixture_url)
    expect(c.locator("[data-hint]")).to_have_count(len(HELPED.hints))
    expect(c.locator("[data-reveal]")).to_be_visible()


def test_naming_known_mistakes_can_be_turned_off(page, fixture_url):
    c = open_cell(page, fixture_url)
    source = mutant_source(FIXTURE, SLUG, NUMBERED.name)[0]
    assert check(page, SLUG, source) == "failed"
    c.get_by_label("Name the known mistake a failing check looks like").uncheck()
    expect(c.locator("[data-diagnosis]")).to_be_hidden()
    page.reload()
    wait_python(page, SLUG)
    assert check(page, SLUG, source) == "failed"
    expect(c.locator("[data-diagnosis]")).to_be_hidden()
    c.get_by_label("Name the known mistake a failing check looks like").check()
    expect(c.locator(f'[data-diagnosis] [data-pitfall="{NUMBER}"]')).to_be_visible()
