"""Module pages in Chromium, on the fixture course's two modules (one requires the other): dependency gating, the
reference dependencies, the live test catalogue, mutants, the diff after a pass, the learner's own dependency."""
from playwright.sync_api import expect

from e2e_helpers import (FIXTURE, cell, check, failures, fixture_modules, mutant_source, outcomes, reference,
                         set_code, uri, wait_python, wait_result)

BASE, NEXT = fixture_modules()  # T01.1, and T01.2 which requires it
SLUG = NEXT.slug


def test_a_module_needs_its_requirement_then_passes_with_reference_dependencies(page, fixture_url):
    page.goto(fixture_url + uri(NEXT.page))
    deps = cell(page, SLUG).locator(".tl-deps")
    needs = f"{NEXT.id} needs {BASE.id}"
    expect(deps).to_contain_text(needs)  # said up front, before any Check
    set_code(page, SLUG, reference(FIXTURE, SLUG))
    cell(page, SLUG).locator("button.tl-check").click()
    expect(cell(page, SLUG).locator(".tl-summary")).to_contain_text(needs)
    assert cell(page, SLUG).locator("li[data-test]").count() == 0, "nothing was judged without the dependency"

    deps.locator("input.tl-refdeps").check()  # use the reference of the requirement: checks at once
    assert wait_result(page, SLUG) == "passed", failures(page, SLUG)
    got = outcomes(page, SLUG)
    assert list(got) == NEXT.test_names()
    assert set(got.values()) == {"passed"}
    catalogue = page.locator(f'.tl-catalogue[data-exercise="{SLUG}"]')
    for name in NEXT.test_names():
        assert catalogue.locator(f'tr[data-test="{name}"]').get_attribute("data-outcome") == "passed"

    diff = cell(page, SLUG).locator("details.tl-diff")
    expect(diff).to_be_visible()
    expect(diff.locator("summary")).to_have_text("Your code is identical to the reference")

    mine = reference(FIXTURE, SLUG).replace('"""', '"""My notes. ', 1)
    assert check(page, SLUG, mine) == "passed", failures(page, SLUG)
    diff.locator("summary").click()
    assert "My notes." in diff.locator(".tl-diff-del").first.inner_text()


def test_mutants_fail_their_named_tests(page, fixture_url):
    page.goto(fixture_url + uri(NEXT.page))
    page.evaluate("(slug) => localStorage.setItem(`tinyllm:v1:prefs:${slug}`, JSON.stringify({refDeps: true}))", SLUG)
    page.reload()
    wait_python(page, SLUG)
    assert NEXT.mutants
    for m in NEXT.mutants:
        source, fails = mutant_source(FIXTURE, SLUG, m.name)
        assert check(page, SLUG, source) == "failed", m.name
        assert outcomes(page, SLUG)[fails] in ("failed", "error"), m.name
        row = page.locator(f'.tl-catalogue[data-exercise="{SLUG}"] tr[data-test="{fails}"]')
        assert row.get_attribute("data-outcome") in ("failed", "error"), "the catalogue shows the latest result"
    assert not cell(page, SLUG).locator("details.tl-diff").is_visible(), "no diff before a pass"


def test_passing_the_chain_unlocks_the_learners_own_dependency(page, fixture_url):
    """The requirement passed in the browser: the module then runs against the learner's own code of it."""
    page.goto(fixture_url + uri(BASE.page))
    expect(cell(page, BASE.slug).locator(".tl-deps")).to_be_hidden()  # it needs nothing
    assert check(page, BASE.slug, reference(FIXTURE, BASE.slug) + "\nMINE = True\n") == "passed", failures(page, BASE.slug)
    page.goto(fixture_url + uri(NEXT.page))
    expect(cell(page, SLUG).locator(".tl-deps")).to_be_hidden()
    base = BASE.module.rsplit(".", 1)[1]  # the name the module's reference imports it by (`from fixture import base`)
    assert f"import {base}" in reference(FIXTURE, SLUG)
    proof = reference(FIXTURE, SLUG) + f"\nassert {base}.MINE, 'the reference {BASE.id}, not mine'\n"
    assert check(page, SLUG, proof) == "passed", f"not the learner's own {BASE.id}? {failures(page, SLUG)}"
