"""What the build changes in every built page, after the generator: a page a phone can lay out in parts.

A lesson is long (tables, formulas, several code cells), and a phone's main thread is slow: laying the whole of
it out, and laying it out again each time the theme's scripts read a size after changing the page, kept a big
lesson's main thread busy for seconds (issue 51, bench/README.md "Each kind of page on a phone"). Three changes,
made to the HTML the generator wrote, so they hold for MkDocs' build and Zensical's alike (and two more, below):

- **Folds.** The article's prose, tables, formulas and code between its h2 and h3 headings and its widgets go
  into `<div class="tl-fold">`, which tl.css gives `content-visibility: auto`: a fold out of view is neither
  styled nor laid out until it nears the viewport. The headings stay outside the folds, so a heading's position
  never needs a fold's insides, and so do the widgets (any top-level element holding a `data-tl-block` other
  than the read-only `STILL` ones): a widget is mounted, changed and read by scripts, and its text is what a
  reader, a screen reader or a test finds whether or not it is on screen (an element in a fold out of view has
  no `innerText`). Each fold carries an
  estimate of its height (`--tl-fold-narrow`, `--tl-fold-wide`, in lines) so the page's length and its scroll bar
  are near right before a fold is drawn; once drawn, the browser remembers its real height (`auto`). A run
  shorter than `MIN_LINES` is left as it is.
- **Tables wrapped here**, in the markup the theme's script would put around them at load
  (`md-typeset__scrollwrap` > `md-typeset__table`): a wide table scrolls in its own box on a phone.
- **The theme's content, table-of-contents, back-to-top, palette and header-title components are left to the
  page's own script** (web/src/page/theme.js): their `data-md-component` becomes `data-tl-component`, so
  mkdocs-material's script does not mount them. Theirs read element sizes after changing the page, once per
  code block and again at every change of the page's height, and the palette's restyled the whole page three
  times as it loaded, each read a layout of the whole page; the page's script does the same jobs (the palette
  switch, the table of contents' current section, back to top, a details element opened for its anchor or for
  printing, search terms highlighted, the header's title) with observers that never force one.

And two more:

- **The theme's script when it is needed.** mkdocs-material's bundle (RxJS and every component) was the page's
  largest task on a phone after the folds: parsed, run and mounted in one piece as the page loads (issue 51's
  Lighthouse runs: total blocking time 253-378 ms on the lesson pages). Its tag becomes an inert one
  (`type="text/x-tl-later"`, the address in `data-src`) that web/src/page/theme.js `themeScriptLater` loads:
  at once on a screen where the theme's sidebars are boxes it sizes (960 px and wider),
  and elsewhere at the reader's first use of what only it does: the search (its box, its button, its keys) or a
  keyboard shortcut, whose key is then given to it. The header's title is the page's to mount too
  (`header-title` above: the page's title once the heading has scrolled away).
- **The sidebars without their indentation.** The theme's templates indent the navigation and the table of
  contents with runs of spaces and newlines, about 40% of the sidebars' bytes. Every page carries the sidebars
  (mkdocs.yml's `navigation.prune` keeps them to the page's own section in full and one link per other
  section, so they grow with the course by one link a section); each run of white space there becomes one
  space, which renders the same, as the sidebars hold no preformatted text (a sidebar that does is left as it
  is).
"""
from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

ARTICLE = re.compile(r'<article class="md-content__inner md-typeset">')
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
FOLD_AT = {"h2", "h3"}
# Placeholders a page may hold as raw HTML, not as a block, which the page's script mounts (web/src/page/main.js).
LIVE = {"tl-offline"}
# Blocks that are read, not used: a chapter's shared section, the tests' catalogue (its rows take their outcomes
# as data, never as a size) and the mutants' table. They fold like prose, unless a widget is inside.
STILL = {"chapter-section", "tests", "mutants"}
OWN_COMPONENTS = ("content", "toc", "top", "palette", "header-title")
# The theme's script (mkdocs-material's and Zensical's bundle: one classic script tag at the end of the body).
THEME_SCRIPT = re.compile(r'<script src="([^"]*assets/javascripts/bundle\.[0-9a-f]+\.min\.js)"></script>')
# A fold's height in lines of body text (1.6em), per block, character of text, table row, line of code, displayed
# formula and list item drawn, on a phone (390 px) and a wide screen (1280 px): fitted to the drawn height of the
# real course's 94 folds and the generated course's home (its 5), minimising the relative error (`python -m
# bench.fold_heights` prints the fit and its error: a median of 6-7 %).
PER = {"narrow": {"block": 1.27, "chars": 0.0197, "rows": 2.04, "code": 0.0876, "math": 3.84, "li": 1.11},
       "wide": {"block": 0.839, "chars": 0.0105, "rows": 1.73, "code": 0.49, "math": 4.68, "li": 0.762}}
MIN_LINES = 8  # a shorter run costs little to lay out, and its estimate would be most of it


class _TopLevel(HTMLParser):
    """The article's top-level elements, each with its tag, its start and end offsets in the text parsed and how
    much it holds (text characters outside code, table rows, code lines, displayed formulas, list items), counting
    only what is drawn: what a closed <details> holds beyond its summary takes no height until it is opened."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.text = text
        self.lines = [0] + [m.end() for m in re.finditer("\n", text)]
        self.pre = 0
        self.hidden = 0
        self.items: list[dict] = []
        self.done = False
        self.open = [("", True)]  # the article, then each open element: its tag, and whether what it holds is drawn

    @property
    def depth(self) -> int:
        """How deep the parser is below the article (0: between its top-level elements)."""
        return len(self.open) - 1

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.lines[line - 1] + col

    def handle_starttag(self, tag, attrs) -> None:
        if self.done:
            return
        if self.depth == 0:
            self.items.append({"tag": tag, "start": self._offset(), "chars": 0, "rows": 0, "code": 0, "math": 0,
                               "li": 0, "live": False})
        item = self.items[-1]
        item["live"] = item["live"] or any((name == "data-tl-block" and value not in STILL) or
                                           (name == "class" and value in LIVE) for name, value in attrs)
        drawn = self.open[-1][1]
        item["rows"] += drawn and tag == "tr"
        item["li"] += drawn and tag == "li"
        item["math"] += drawn and tag == "math" and ("display", "block") in attrs
        self.pre += tag == "pre"
        self.hidden += tag == "annotation"  # a formula's TeX source: kept for copying, never drawn
        if tag not in VOID:
            if tag == "summary" and self.open[-1][0] == "details":
                drawn = self.open[-2][1]
            elif tag == "details" and not any(name == "open" for name, _ in attrs):
                drawn = False
            self.open.append((tag, drawn))

    def handle_endtag(self, tag) -> None:
        if self.done or tag in VOID:
            return
        self.pre -= tag == "pre" and self.pre > 0
        self.hidden -= tag == "annotation" and self.hidden > 0
        if self.depth == 0:  # the article's own end
            self.done = True
            return
        self.open.pop()
        if self.depth == 0 and self.items:
            self.items[-1]["end"] = self.text.index(">", self._offset()) + 1

    def handle_data(self, data) -> None:
        if self.done or not self.items or self.depth == 0 or self.hidden or not self.open[-1][1]:
            return
        if self.pre:
            self.items[-1]["code"] += data.count("\n")
        else:
            self.items[-1]["chars"] += len(data.strip())


def features(items: list[dict]) -> dict[str, int]:
    """What a run of top-level elements holds, as the height estimate reads it."""
    return {"block": len(items), **{k: sum(i[k] for i in items) for k in ("chars", "rows", "code", "math", "li")}}


def _lines(items: list[dict], width: str) -> int:
    return max(2, round(sum(PER[width][k] * n for k, n in features(items).items())))


def folded_runs(html: str) -> list[list[dict]]:
    """The runs of a page's article that become folds, in order (each a list of its top-level elements)."""
    found = ARTICLE.search(html)
    if not found:
        return []
    body = html[found.end():]
    parser = _TopLevel(body)
    parser.feed(body)
    runs: list[list[dict]] = []
    for item in (i for i in parser.items if "end" in i):
        if item["tag"] in FOLD_AT or item["live"]:
            runs.append([])
        elif runs:
            runs[-1].append(item)
    return [[{**i, "start": i["start"] + found.end(), "end": i["end"] + found.end()} for i in run]
            for run in runs if run and _lines(run, "narrow") >= MIN_LINES]


def fold(page: str) -> str:
    """The page with its article's content between h2/h3 headings and widgets in folds (unchanged if it has no
    article)."""
    out, at = [], 0
    for run in folded_runs(page):
        start, end = run[0]["start"], run[-1]["end"]
        out.append(page[at:start])
        holds = " ".join(str(n) for n in features(run).values())  # what bench.fold_heights fits the estimate to
        out.append(f'<div class="tl-fold" data-holds="{holds}" style="--tl-fold-narrow: {_lines(run, "narrow")}; '
                   f'--tl-fold-wide: {_lines(run, "wide")}">')
        out.append(page[start:end])
        out.append("</div>")
        at = end
    out.append(page[at:])
    return "".join(out)


TABLE = re.compile(r"<table>(.*?)</table>", re.S)


def wrap_tables(page: str) -> str:
    """Every bare table (the Markdown's: no class) in the theme's scrolling wrapper, as its script would wrap it."""
    return TABLE.sub(lambda m: ('<div class="md-typeset__scrollwrap"><div class="md-typeset__table">'
                                f"{m[0]}</div></div>"), page)


def own_components(page: str) -> str:
    """The theme's components that the page's script mounts instead (web/src/page/theme.js), renamed."""
    for name in OWN_COMPONENTS:
        page = page.replace(f'data-md-component="{name}"', f'data-tl-component="{name}"')
    return page


SIDEBARS = re.compile(r'<div class="md-sidebar md-sidebar--primary".*?(?=<div class="md-content")', re.S)
PREFORMATTED = re.compile(r"<(pre|textarea)\b")


def compact_sidebars(page: str) -> str:
    """The sidebars (both, from the primary one to the content) with each run of white space one space."""
    def compact(m: re.Match) -> str:
        return m[0] if PREFORMATTED.search(m[0]) else re.sub(r"\s+", " ", m[0])
    return SIDEBARS.sub(compact, page, count=1)


def theme_script_later(page: str) -> str:
    """The theme's script tag made inert, for the page's script to load when it is needed."""
    return THEME_SCRIPT.sub(r'<script type="text/x-tl-later" data-tl="theme-script" data-src="\1"></script>', page,
                            count=1)


def reshape(page: str) -> str:
    """All of them, once: a page already reshaped (its content component renamed) is left as it is."""
    if 'data-tl-component="content"' in page:
        return page
    return theme_script_later(compact_sidebars(own_components(fold(wrap_tables(page)))))


def write(site: Path) -> int:
    """Reshape every built page in place; returns how many pages changed."""
    changed = 0
    for path in sorted(site.rglob("*.html")):
        if path.relative_to(site).parts[0] == "assets":
            continue
        text = path.read_text(encoding="utf-8")
        new = reshape(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
    return changed
