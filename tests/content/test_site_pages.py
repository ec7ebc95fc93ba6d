"""Every page of the built site, checked statically: what an accessibility audit finds in the HTML alone, at a cost
of milliseconds a page, so that it runs on every page however large the course grows.

axe in a browser (tests/e2e/test_a11y.py) audits one page of each kind in both palettes, with saved work on
screen: colours, live regions and everything the page's script adds. What the built HTML decides is the same on
every page of a kind, except what the content brings: a table, an image, a heading, a widget's placeholder. That is
checked here, on every page: a language, one h1, heading levels that do not skip, an alternative text for every
image, a name for every link, button and form field, ids used once.
"""
from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "site"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Page(HTMLParser):
    """What the checks need of one page: its elements with attributes, text inside links and buttons, labels."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lang = None
        self.ids: dict[str, int] = {}
        self.headings: list[int] = []
        self.images: list[dict] = []
        self.fields: list[dict] = []
        self.labelled: set[str] = set()
        self.named: list[tuple[str, dict, str]] = []  # (tag, attributes, text) of links and buttons
        self.open: list[tuple[str, dict, list[str]]] = []
        self.in_label = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "html":
            self.lang = a.get("lang", "")
        if "id" in a:
            self.ids[a["id"]] = self.ids.get(a["id"], 0) + 1
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self.headings.append(int(tag[1]))
        if tag == "img":
            self.images.append(a)
        if tag == "label":
            self.in_label += 1
            if a.get("for"):
                self.labelled.add(a["for"])
        # The theme's state toggles (`md-toggle`: the drawer, search, the nav's sections) are checkboxes hidden by
        # its stylesheet, never shown or focused as fields; axe, which sees the styles, skips them too.
        if tag in ("input", "select", "textarea") and a.get("type") != "hidden" and "md-toggle" not in a.get("class", ""):
            self.fields.append({**a, "_in_label": self.in_label > 0})
        if tag in ("a", "button"):
            self.open.append((tag, a, []))
        elif self.open and tag == "img":
            self.open[-1][2].append(a.get("alt", ""))
        if tag in VOID:
            self.handle_endtag(tag) if tag != "img" else None

    def handle_endtag(self, tag: str) -> None:
        if tag == "label":
            self.in_label = max(0, self.in_label - 1)
        if self.open and tag == self.open[-1][0]:
            name, attrs, text = self.open.pop()
            self.named.append((name, attrs, " ".join(text).strip()))
            if self.open:
                self.open[-1][2].append(" ".join(text))

    def handle_data(self, data: str) -> None:
        if self.open:
            self.open[-1][2].append(data.strip())


def has_name(attrs: dict, text: str = "") -> bool:
    return bool(text.strip() or attrs.get("aria-label", "").strip() or attrs.get("aria-labelledby")
                or attrs.get("title", "").strip())


def problems(html: str) -> list[str]:
    page = Page()
    page.feed(html)
    found = []
    if not page.lang:
        found.append("<html> has no lang")
    if page.headings.count(1) != 1:
        found.append(f"{page.headings.count(1)} h1 elements (one is wanted)")
    for before, after in zip(page.headings, page.headings[1:]):
        if after > before + 1:
            found.append(f"a heading level skipped: h{before} then h{after}")
            break
    found += [f"an image without alt: {img.get('src', '')}" for img in page.images if "alt" not in img]
    found += [f"id {i!r} used {n} times" for i, n in page.ids.items() if n > 1]
    for field in page.fields:
        if not (field["_in_label"] or field.get("id") in page.labelled or has_name(field)):
            found.append(f"a form field without a label: <{field.get('type', 'field')} name={field.get('name', '')!r}>")
    for tag, attrs, text in page.named:
        if tag == "a" and "href" not in attrs:
            continue
        if not has_name(attrs, text) and attrs.get("aria-hidden") != "true":
            found.append(f"a {'link' if tag == 'a' else 'button'} without a name: {attrs.get('href', attrs.get('class', ''))}")
    return found


def built_pages() -> list[Path]:
    return sorted(SITE.rglob("*.html")) if SITE.is_dir() else []


PAGES = built_pages()


def test_the_site_is_built():
    assert PAGES, "site/ holds no page: build the site first (make build)"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.relative_to(SITE).as_posix())
def test_every_page_passes_the_static_checks(path):
    assert problems(path.read_text(encoding="utf-8")) == []


def test_the_checks_find_what_they_look_for():
    """Each check can fail."""
    bad = ('<html><body><h1>a</h1><h1>b</h1><h4>c</h4><img src="x.png"><a href="/y"></a><button></button>'
           '<input type="text" name="q"><span id="d"></span><span id="d"></span></body></html>')
    found = problems(bad)
    for words in ("no lang", "2 h1", "skipped", "without alt", "link without", "button without", "without a label",
                  "used 2 times"):
        assert any(words in line for line in found), (words, found)
    good = ('<html lang="en"><body><h1>a</h1><h2>b</h2><img src="x.png" alt=""><a href="/y">y</a>'
            '<button aria-label="go"></button><label>q <input name="q"></label><span id="d"></span></body></html>')
    assert problems(good) == []
