"""Which generator built the site these tests run on, so a run meant for Zensical's build cannot pass on another.

The real course's end-to-end tests (test_content.py, the audits of test_a11y.py) run on mkdocs-material's build,
site/, and with TL_SITE=build/zensical/site (`make test-e2e-zensical`) on Zensical's, built by `make
build-zensical` from the same mkdocs.yml, docs/ and widgets. Each build names its generator in the pages' head;
this checks that name against the versions the requirements files pin.
"""
from __future__ import annotations

import re

from conftest import REPO, SITE

ZENSICAL_SITE = REPO / "build" / "zensical" / "site"


def pinned(requirements: str, package: str) -> str:
    text = (REPO / requirements).read_text(encoding="utf-8")
    return re.search(rf"^{re.escape(package)}==(\S+)", text, re.M).group(1)


def expected_generator() -> str:
    if SITE.resolve() == ZENSICAL_SITE.resolve():
        return f"zensical-{pinned('requirements-zensical.txt', 'zensical')}"
    return (f"mkdocs-{pinned('requirements.txt', 'mkdocs')}, "
            f"mkdocs-material-{pinned('requirements.txt', 'mkdocs-material')}")


def test_the_site_under_test_names_the_generator_expected(page, site_url):
    page.goto(site_url)
    assert page.locator('meta[name="generator"]').get_attribute("content") == expected_generator()
    assert page.locator(".md-header").count() == 1  # the theme's layout, which the widgets and audits expect
