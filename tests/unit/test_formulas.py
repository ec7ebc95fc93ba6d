"""The build renders the pages' maths with the front end's KaTeX (tools/formulas.py), under Node.js, as MathML alone,
and cuts the math font down to what the formulas draw (tools/math_font.py)."""
import re
import shutil

import pytest

from tools import formulas, math_font

pytestmark = pytest.mark.skipif(not shutil.which("node"), reason="node runs KaTeX")

PAGE = """<article><p>Mean <span class="arithmatex">\\(a &lt; b\\)</span> and</p>
<div class="arithmatex">\\[ \\frac{1}{n} \\sum_i x_i \\]</div>
<p>broken: <span class="arithmatex">\\(\\frac{1\\)</span></p>
<pre><code>\\(left alone\\)</code></pre></article>"""


def site_with(tmp_path, pages):
    site, docs = tmp_path / "site", tmp_path / "docs"
    for rel, (html, md) in pages.items():
        (site / rel).mkdir(parents=True, exist_ok=True)
        (site / rel / "index.html").write_text(html)
        source = docs / f"{rel}.md"
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text(md)
    return site, docs


def test_source_reads_an_element_as_the_browser_does():
    assert formulas.source("span", "\\(a &lt; b\\)") == ("a < b", False)
    assert formulas.source("span", " \\[x\\] ") == ("x", True)
    assert formulas.source("div", "\\[ y \\]") == (" y ", True)


def test_every_formula_is_rendered_in_place_and_a_broken_one_is_named(tmp_path):
    md = "# Page\n\nMean \\(a < b\\) and\n\n\\[ \\frac{1}{n} \\sum_i x_i \\]\n\nbroken: \\(\\frac{1\\)\n"
    site, docs = site_with(tmp_path, {"t1/page": (PAGE, md), "t1/plain": ("<p>no maths</p>", "# Plain\n")})
    warnings = formulas.render(site, docs)
    out = (site / "t1/page/index.html").read_text()
    assert out.count('<span class="arithmatex"><span class="katex') == 2  # inline, and the broken one's error
    assert '<div class="arithmatex"><span class="katex"><math xmlns="http://www.w3.org/1998/Math/MathML" display="block">' in out
    assert "katex-html" not in out  # one rendering, MathML, not KaTeX's second one in HTML as well
    assert '<annotation encoding="application/x-tex">a &lt; b</annotation>' in out  # the TeX, unescaped once
    assert 'class="katex-error"' in out  # KaTeX's own error rendering, as the browser showed it
    assert "<pre><code>\\(left alone\\)</code></pre>" in out
    assert (site / "t1/plain/index.html").read_text() == "<p>no maths</p>"
    assert len(warnings) == 1
    assert warnings[0].startswith("docs/t1/page.md:7: KaTeX cannot render \\(\\frac{1\\): KaTeX parse error")


def test_a_site_without_maths_does_not_start_node(tmp_path, monkeypatch):
    site, docs = site_with(tmp_path, {"a": ("<p>x</p>", "# A\n")})
    monkeypatch.setattr(formulas.snapshot, "run_node", lambda *a, **k: pytest.fail("node was started"))
    assert formulas.render(site, docs) == []


def test_katex_that_cannot_run_stops_the_build_with_its_reason(tmp_path, monkeypatch):
    site, docs = site_with(tmp_path, {"a": (PAGE, "# A\n")})
    broken = tmp_path / "broken.mjs"
    broken.write_text("throw new Error('no katex here');\n")
    monkeypatch.setattr(formulas, "SCRIPT", broken)
    monkeypatch.setattr(formulas.snapshot, "REPO", tmp_path)
    with pytest.raises(formulas.FormulaError, match="no katex here"):
        formulas.render(site, docs)
    assert (site / "a/index.html").read_text() == PAGE


def test_the_math_font_holds_what_the_formulas_draw_and_its_math_table(tmp_path):
    from fontTools.ttLib import TTFont

    md = "# Page\n\n\\[ \\frac{1}{n} \\sum_i x_i \\]\n"
    site, docs = site_with(tmp_path, {"t1/page": (PAGE, md)})
    formulas.render(site, docs)
    drawn = math_font.characters(site)
    assert {"∑", "a", "<", "1", "n"} <= drawn  # a display sum, an inline formula's letters and operator
    assert not {"l", "e", "f"} & drawn  # "left alone" is code, not a formula; the TeX source is not drawn
    size = math_font.write(site)
    font = TTFont(site / "assets/tl" / math_font.build_outputs.MATH_FONT)
    assert "MATH" in font  # MathML's layout reads it: the size of a displayed sum, a fraction's rule
    assert {ord("∑"), ord("a")} <= set(font.getBestCmap())
    assert ord("Ω") not in font.getBestCmap()  # cut down to what is drawn (and ASCII)
    assert size < 60_000
    assert "Open Font License" in (site / "assets/tl" / math_font.build_outputs.MATH_FONT_LICENCE).read_text()


def test_a_long_inline_formula_is_cut_where_a_line_may_break_and_a_short_one_is_not(tmp_path):
    md = "# P\n\nIt is \\(a + b\\) and \\(x_1 + x_2 + x_3 = y_1 \\cdot y_2 + 1234567890 = z\\) and\n\n\\[ p + q + r + s + t + u + v + w + x + y + z = 1 \\]\n"
    html = ('<article><p>It is <span class="arithmatex">\\(a + b\\)</span> and <span class="arithmatex">'
            '\\(x_1 + x_2 + x_3 = y_1 \\cdot y_2 + 1234567890 = z\\)</span> and</p>'
            '<div class="arithmatex">\\[ p + q + r + s + t + u + v + w + x + y + z = 1 \\]</div></article>')
    site, docs = site_with(tmp_path, {"p": (html, md)})
    formulas.render(site, docs)
    out = (site / "p/index.html").read_text()
    spans = re.findall(r'<span class="arithmatex">(<span class="katex">.*?</span>)</span>', out)
    assert spans[0].count("<math") == 1, "a short formula keeps its one element (and its TeX annotation)"
    assert "annotation" in spans[0]
    pieces = re.findall(r"<math[^>]*>(.*?)</math>", spans[1])
    assert len(pieces) == 7, pieces  # cut after the three pluses, the two equals signs and the dot
    assert all(p.startswith("<mrow>") for p in pieces)
    drawn = "".join(re.sub(r"<[^>]+>", "", p) for p in pieces)
    assert drawn == "x1+x2+x3=y1⋅y2+1234567890=z", "nothing lost, nothing added, in order"
    assert re.search(r'<div class="arithmatex"><span class="katex"><math [^>]*display="block"', out)
    assert out.count('display="block"') == 1, "a displayed formula is never cut"
