"""The pages' math font: STIX Two Math, cut down at build time to the characters the course's formulas use.

The build writes every formula as MathML alone (tools/formulas.py, web/src/shared/katex-options.js), which
Chromium, Firefox and Safari lay out natively: KaTeX's second rendering, in HTML, was half of a big lesson's
elements and most of its style and layout time on a phone. MathML's layout reads an OpenType MATH table (the
size of a displayed sum, a fraction's rule, a stretched bracket), which a phone's or a desktop's default fonts
may not have, so the site brings its own: STIX Two Math (SIL Open Font License, from the npm package
@fontsource/stix-two-math), subset to the characters of the built pages' formulas plus printable ASCII, with its
MATH table and layout features kept: about 20 kB, fetched only by a page that shows a formula (tl.css
`@font-face`). A formula with a character outside the subset still renders: the browser falls back to the
system's math font for that character.
"""
from __future__ import annotations

import html
import io
import re
from pathlib import Path

from tools import build_outputs

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "node_modules" / "@fontsource" / "stix-two-math"
SOURCE = PACKAGE / "files" / "stix-two-math-latin-400-normal.woff"
MATH = re.compile(r"<math\b.*?</math>", re.S)
ANNOTATION = re.compile(r"<annotation\b.*?</annotation>", re.S)  # the TeX source, not drawn
TAG = re.compile(r"<[^>]+>")
ASCII = range(0x20, 0x7F)


class MathFontError(RuntimeError):
    """The font to subset is missing or unreadable; the message names it."""


def characters(site: Path) -> set[str]:
    """Every character a formula of the built site draws."""
    found: set[str] = set()
    for page in site.rglob("*.html"):
        for formula in MATH.findall(page.read_text(encoding="utf-8")):
            found |= set(html.unescape(TAG.sub("", ANNOTATION.sub("", formula))))
    return {c for c in found if not c.isspace()}


def subset(chars: set[str], source: Path = SOURCE) -> bytes:
    """The font cut down to `chars` and printable ASCII, as WOFF, with its MATH table and layout features."""
    from fontTools import subset as fonttools_subset
    from fontTools.ttLib import TTFont

    if not source.is_file():
        raise MathFontError(f"{source.relative_to(REPO)}: missing; install the npm packages (`make setup-node`)")
    options = fonttools_subset.Options()
    options.layout_features = ["*"]
    options.flavor = "woff"
    options.notdef_outline = True
    font = TTFont(source)
    cutter = fonttools_subset.Subsetter(options)
    cutter.populate(unicodes=sorted({ord(c) for c in chars} | set(ASCII)))
    cutter.subset(font)
    if "MATH" not in font:
        raise MathFontError(f"{source.relative_to(REPO)}: has no MATH table, so MathML could not lay out with it")
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def write(site: Path) -> int:
    """The subset font and its licence into assets/tl/; returns the font's size in bytes."""
    target = site / "assets" / "tl"
    target.mkdir(parents=True, exist_ok=True)
    data = subset(characters(site))
    (target / build_outputs.MATH_FONT).write_bytes(data)
    (target / build_outputs.MATH_FONT_LICENCE).write_text((PACKAGE / "LICENSE").read_text(encoding="utf-8"))
    return len(data)
