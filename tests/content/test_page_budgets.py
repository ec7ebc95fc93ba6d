"""Every page of the built course within the page budget (authoring/page_kinds.py BUDGET): elements and bytes as
built, counted from the files, so the figures are the same on every machine and no script can change them. Times
are never asserted: bench.pages measures them (bench/README.md, "Each kind of page on a phone")."""
from __future__ import annotations

from pathlib import Path

from authoring import page_kinds

SITE = Path(__file__).resolve().parents[2] / "site"


def test_every_built_page_is_within_the_page_budget():
    pages = page_kinds.built_pages(SITE)
    assert pages, "the site is built (make build)"
    over = [line for page in pages for line in page_kinds.over_budget(page)]
    assert over == [], "\n".join(over)
