"""The module pages M06.3 → M07.1 → M07.6 in Chromium: dependency gating, the 19 tests, mutants, the diff."""
from playwright.sync_api import expect

from e2e_helpers import cell, exercise, mutant_source, outcomes, reference, set_code, wait_python, wait_result

MODULE = "m07/rejection-sampling/"
SLUG = "m07-6"


def check(page, slug: str, code: str) -> str:
    set_code(page, slug, code)
    cell(page, slug).locator("button.tl-check").click()
    return wait_result(page, slug)


def test_m07_6_needs_m07_1_then_passes_all_19_with_reference_dependencies(page, site_url):
    page.goto(site_url + MODULE)
    deps = cell(page, SLUG).locator(".tl-deps")
    expect(deps).to_contain_text("M07.6 needs M07.1")  # said up front, before any Check
    set_code(page, SLUG, reference(SLUG))
    cell(page, SLUG).locator("button.tl-check").click()
    expect(cell(page, SLUG).locator(".tl-summary")).to_contain_text("M07.6 needs M07.1")
    assert cell(page, SLUG).locator("li[data-test]").count() == 0, "nothing was judged without the dependency"

    deps.locator("input.tl-refdeps").check()  # use the reference M07.1 (and M06.3): checks at once
    assert wait_result(page, SLUG) == "passed"
    got = outcomes(page, SLUG)
    assert len(got) == 19 and list(got) == exercise(SLUG).test_names()
    assert set(got.values()) == {"passed"}
    catalogue = page.locator('.tl-catalogue[data-exercise="m07-6"]')
    for name in ("test_hand_example", "test_speculative_chi_square", "test_rejection_sample_checks_the_envelope"):
        assert catalogue.locator(f'tr[data-test="{name}"]').get_attribute("data-outcome") == "passed"

    diff = cell(page, SLUG).locator("details.tl-diff")
    expect(diff).to_be_visible()
    expect(diff.locator("summary")).to_have_text("Your code is identical to the reference")

    mine = reference(SLUG).replace('"""', '"""My notes. ', 1)
    assert check(page, SLUG, mine) == "passed"
    diff.locator("summary").click()
    assert "My notes." in diff.locator(".tl-diff-del").first.inner_text()


def test_mutants_fail_their_named_tests(page, site_url):
    page.goto(site_url + MODULE)
    page.evaluate("() => localStorage.setItem('tinyllm:v1:prefs:m07-6', JSON.stringify({refDeps: true}))")
    page.reload()
    wait_python(page, SLUG)
    for name in ("s01", "s06", "s09", "s16", "s17"):
        source, fails = mutant_source(SLUG, name)
        assert check(page, SLUG, source) == "failed", name
        assert outcomes(page, SLUG)[fails] in ("failed", "error"), name
        row = page.locator(f'.tl-catalogue[data-exercise="m07-6"] tr[data-test="{fails}"]')
        assert row.get_attribute("data-outcome") in ("failed", "error"), "the catalogue shows the latest result"
    assert not cell(page, SLUG).locator("details.tl-diff").is_visible(), "no diff before a pass"


def test_passing_the_chain_unlocks_the_learners_own_dependencies(page, site_url):
    """M06.3 and M07.1 passed in the browser: M07.6 then runs against the learner's own M07.1 and M06.3."""
    for slug, path in (("m06-3", "m06/pcg32/"), ("m07-1", "m07/categorical-sampling/")):
        page.goto(site_url + path)
        if slug == "m07-1":
            expect(cell(page, slug).locator(".tl-deps")).to_be_hidden()  # M06.3 passed a moment ago
        assert check(page, slug, reference(slug)) == "passed", slug
    page.goto(site_url + MODULE)
    expect(cell(page, SLUG).locator(".tl-deps")).to_be_hidden()
    assert check(page, SLUG, reference(SLUG)) == "passed"
