"""Render the pages' maths at build time, with the KaTeX the front end bundles, so no page loads KaTeX to do it.

pymdownx.arithmatex (generic mode) leaves each formula as its source, `\\( … \\)` in a `<span class="arithmatex">`
or `\\[ … \\]` in a `<div class="arithmatex">`. Rendered in the browser, that cost a lesson page ~0.25 s of its
main thread while Python was starting (web/src/page/math.js, which also made KaTeX a third of tl.js). This step renders
every formula of every built page under Node.js (tools/formulas.mjs, KaTeX's `renderToString` with the options
math.js uses) and writes the result in place. math.js renders in the browser only what is still source, and
loads KaTeX only then.

A formula KaTeX cannot parse is written as KaTeX's own error rendering (its source, in red, the message as a
tooltip), as the browser showed it before, and named in a warning, `docs/page.md:line: …`, which fails a
`--strict` build.
"""
from __future__ import annotations

import html
import json
import re
import tempfile
from pathlib import Path

from tools import snapshot

SCRIPT = Path(__file__).with_name("formulas.mjs")
# arithmatex's generic output: its source, escaped, alone in the element.
FORMULA = re.compile(r'<(span|div) class="arithmatex">([^<]*)</\1>')


class FormulaError(RuntimeError):
    """KaTeX could not be run at all; the message says why."""


def source(element: str, text: str) -> tuple[str, bool]:
    """(TeX, display mode) of one arithmatex element's escaped text, as math.js reads it."""
    raw = html.unescape(text).strip()
    display = raw.startswith("\\[") or element == "div"
    return re.sub(r"\\[)\]]$", "", re.sub(r"^\\[([]", "", raw)), display


def _source_file(page: Path, site: Path, docs: Path) -> Path | None:
    """The Markdown file a built page came from (use_directory_urls), when it can be found."""
    folder = page.parent.relative_to(site)
    for candidate in (docs / folder.with_suffix(".md"), docs / folder / "index.md", docs / folder / "README.md"):
        if folder != Path(".") and candidate.is_file():
            return candidate
    return docs / "index.md" if folder == Path(".") and (docs / "index.md").is_file() else None


def _where(page: Path, site: Path, docs: Path, tex: str) -> str:
    md = _source_file(page, site, docs)
    if md is None:
        return page.relative_to(site).as_posix()
    lines = md.read_text(encoding="utf-8").splitlines()
    # As written with its delimiters first: the bare TeX may also be part of another formula.
    bare = tex.strip()
    forms = [f"\\({tex}\\)", f"\\[{tex}\\]", f"${tex}$", f"$${tex}$$", bare] if bare else []
    number = next((n for form in forms for n, line in enumerate(lines, 1) if form in line), 1)
    return f"{md.relative_to(docs.parent).as_posix()}:{number}"


# An inline formula is one MathML element, which no browser breaks across lines; KaTeX's HTML rendering broke after
# a relation or an operator at the formula's top level, as TeX does. A long inline formula is cut there into
# consecutive <math> elements, between which a line can break, so it never widens a phone's page.
BREAK_AFTER = set("=<>≤≥≠≈∼≡∈∉⊂⊆→←⇒⇔+−×⋅·±")
LONG_INLINE = 24  # characters drawn: shorter formulas fit a phone's line and keep their one element
WHOLE = re.compile(r'(<span class="katex">)(<math [^>]*>)<semantics><mrow>(.*)</mrow>'
                   r'<annotation encoding="application/x-tex">.*?</annotation></semantics></math></span>', re.S)
TAG = re.compile(r"<(/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*?(/?)>")


def top_level(mathml: str) -> list[str]:
    """The top-level elements of a run of MathML, each as written."""
    items, depth, start = [], 0, 0
    for tag in TAG.finditer(mathml):
        closing, selfclosing = tag[1] == "/", tag[3] == "/"
        if depth == 0 and not closing:
            start = tag.start()
        depth += 0 if selfclosing else (-1 if closing else 1)
        if depth == 0:
            items.append(mathml[start:tag.end()])
    return items


def breakable(rendered: str) -> str:
    """A long inline formula as consecutive <math> elements, cut after each top-level relation or operator; a
    short one, or one without such a place, as it was."""
    whole = WHOLE.fullmatch(rendered)
    if not whole or len(html.unescape(re.sub(r"<[^>]+>", "", whole[3]))) < LONG_INLINE:
        return rendered
    pieces: list[list[str]] = [[]]
    for item in top_level(whole[3]):
        pieces[-1].append(item)
        operator = re.fullmatch(r"<mo\b[^>]*>(.*?)</mo>", item, re.S)
        if operator and html.unescape(operator[1]).strip() in BREAK_AFTER:
            pieces.append([])
    pieces = [p for p in pieces if p]
    if len(pieces) < 2:
        return rendered
    return whole[1] + "".join(f"{whole[2]}<mrow>{''.join(p)}</mrow></math>" for p in pieces) + "</span>"


def render(site: Path, docs: Path) -> list[str]:
    """Render every formula of every page under `site` in place; returns one warning per formula KaTeX rejects."""
    pages = {page: page.read_text(encoding="utf-8") for page in sorted(site.rglob("*.html"))}
    found = {page: FORMULA.findall(text) for page, text in pages.items()}
    wanted = sorted({source(element, text) for hits in found.values() for element, text in hits})
    if not wanted:
        return []
    with tempfile.TemporaryDirectory() as tmp:
        request, answer = Path(tmp) / "formulas.json", Path(tmp) / "rendered.json"
        request.write_text(json.dumps([{"tex": tex, "display": display} for tex, display in wanted]))
        snapshot.run_node(SCRIPT, request, answer, error=FormulaError)
        rendered = json.loads(answer.read_text(encoding="utf-8"))
    if len(rendered) != len(wanted):
        raise FormulaError(f"{SCRIPT.name} answered {len(rendered)} formulas for {len(wanted)}")
    by_source = dict(zip(wanted, rendered))
    warnings = []
    for page, text in pages.items():
        if not found[page]:
            continue

        def replace(match: re.Match) -> str:
            tex, display = source(match[1], match[2])
            result = by_source[(tex, display)]
            if result.get("error"):
                shown = f"\\[{tex}\\]" if display else f"\\({tex}\\)"
                warnings.append(f"{_where(page, site, docs, tex)}: KaTeX cannot render {shown}: {result['error']}")
            if result.get("html") is None:
                return match[0]  # left to the browser's math.js, which shows the source if it fails too
            rendered = result["html"] if display else breakable(result["html"])
            return f'<{match[1]} class="arithmatex">{rendered}</{match[1]}>'

        page.write_text(FORMULA.sub(replace, text), encoding="utf-8")
    return warnings
