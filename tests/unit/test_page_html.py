"""The build's changes to every built page (tools/page_html.py): folds, tables wrapped, the theme's components the
page mounts itself."""
from __future__ import annotations

import re

from tools import page_html

PROSE = "<p>" + "A long paragraph of the lesson's prose. " * 12 + "</p>\n"
TABLE = ("<table>\n<thead>\n<tr><th>a</th></tr>\n</thead>\n<tbody>\n" + "<tr><td>1</td></tr>\n" * 10
         + "</tbody>\n</table>\n")
WIDGET = '<div class="tl-widget tl-numeric" data-tl-block="numeric"><p>How many?</p></div>\n'


def page(article: str) -> str:
    return ('<html><body><div class="md-content" data-md-component="content">'
            f'<article class="md-content__inner md-typeset">\n{article}</article></div>'
            '<button class="md-top" data-md-component="top" hidden>Top</button>'
            '<ul data-md-component="toc"></ul><div data-md-component="header"></div></body></html>')


def in_fold(html: str, marker: str) -> bool:
    """Whether the element whose start tag holds `marker` is inside a fold: the open elements where it starts."""
    stack = []
    for tag in re.finditer(r"<(/?)(\w+)([^>]*)>", html[: html.index(marker)]):
        if tag[1]:
            while stack and stack.pop()[0] != tag[2]:
                pass
        elif tag[2] not in page_html.VOID:
            stack.append((tag[2], 'class="tl-fold"' in tag[3]))
    return any(fold for _, fold in stack)


def test_content_between_headings_is_folded_and_headings_and_the_intro_are_not():
    html = page_html.fold(page(f"<h1>Title</h1>\n{PROSE}<h2 id='a'>A</h2>\n{PROSE}{PROSE}<h3>B</h3>\n{PROSE}"))
    assert html.count('class="tl-fold"') == 2
    assert "<h1>Title</h1>\n<p>" in html, "what comes before the first h2 is on screen at once: never folded"
    assert re.search(r"<h2 id='a'>A</h2>\n<div class=\"tl-fold\"", html)
    assert re.search(r"</p>\n</div><h3>B</h3>", html) or "</div><h3>B</h3>" in html.replace("\n", "")
    assert html.replace('<div class="tl-fold"', "").count("<p>") == html.count("<p>"), "every paragraph kept"
    # the page is still well formed: as many divs open as close
    assert html.count("<div") == html.count("</div>")


def test_a_widget_ends_a_fold_and_stays_outside_every_fold():
    html = page_html.fold(page(f"<h2>A</h2>\n{PROSE}{PROSE}{WIDGET}{PROSE}{PROSE}"))
    assert html.count('class="tl-fold"') == 2
    assert not in_fold(html, 'data-tl-block="numeric"'), "the widget is not inside a fold"
    assert in_fold(html, "A long paragraph"), "the prose before it is"


def test_a_placeholder_the_page_script_mounts_is_never_folded_though_it_is_no_block():
    html = page_html.fold(page(f"<h2>A</h2>\n{PROSE}{PROSE}<div class=\"tl-offline\"></div>\n{PROSE}{PROSE}"))
    assert not in_fold(html, 'class="tl-offline"')


def test_a_short_run_is_not_folded_and_a_page_without_an_article_is_unchanged():
    assert 'tl-fold' not in page_html.fold(page("<h2>A</h2>\n<p>Short.</p>\n<h2>B</h2>\n<p>Also short.</p>\n"))
    assert page_html.fold("<html><body><p>x</p></body></html>") == "<html><body><p>x</p></body></html>"


def test_each_fold_estimates_its_height_in_lines_for_a_phone_and_a_wide_screen():
    html = page_html.fold(page(f"<h2>A</h2>\n{PROSE}{TABLE}"))
    narrow, wide = map(int, re.search(r"--tl-fold-narrow: (\d+); --tl-fold-wide: (\d+)", html).groups())
    assert narrow > wide > 0, "a phone's lines are shorter, so the same content takes more of them"
    longer = page_html.fold(page(f"<h2>A</h2>\n{PROSE}{TABLE}{TABLE}"))
    assert int(re.search(r"--tl-fold-narrow: (\d+)", longer)[1]) > narrow


def narrow_lines(article: str) -> int:
    return int(re.search(r"--tl-fold-narrow: (\d+)", page_html.fold(page(article)))[1])


def test_what_a_closed_details_holds_beyond_its_summary_adds_no_height_and_an_open_one_does():
    summary = "<summary>The mutants</summary>"
    closed = narrow_lines(f"<h2>A</h2>\n{PROSE}<details>{summary}{TABLE}{PROSE}</details>\n")
    assert closed == narrow_lines(f"<h2>A</h2>\n{PROSE}<details>{summary}</details>\n")
    assert narrow_lines(f"<h2>A</h2>\n{PROSE}<details open>{summary}{TABLE}{PROSE}</details>\n") > closed
    run = page_html.folded_runs(page(f"<h2>A</h2>\n{PROSE}<details>{summary}{TABLE}</details>\n"))[0]
    assert page_html.features(run)["chars"] == len(PROSE[3:-5].strip()) + len("The mutants"), "the summary is drawn"
    assert page_html.features(run)["rows"] == 0


def test_a_list_of_short_items_takes_more_lines_than_its_text_in_one_paragraph():
    items = [f"Copy {k}: chapter E{k}07" for k in range(25)]
    as_list = narrow_lines("<h2>A</h2>\n<ul>\n" + "".join(f"<li>{i}</li>\n" for i in items) + "</ul>\n")
    assert as_list > narrow_lines("<h2>A</h2>\n<p>" + " ".join(items) + "</p>\n")
    assert as_list >= 25, "each item starts a line of its own"


def test_bare_tables_are_wrapped_as_the_theme_wraps_them_and_classed_ones_are_not():
    html = page_html.wrap_tables(f'<p>x</p>{TABLE}<table class="tl-own"><tr><td>1</td></tr></table>')
    assert html.count('<div class="md-typeset__scrollwrap"><div class="md-typeset__table"><table>') == 1
    assert '<table class="tl-own">' in html and html.count("md-typeset__scrollwrap") == 1


def test_the_theme_leaves_content_toc_and_top_to_the_page_and_keeps_the_rest():
    html = page_html.reshape(page(PROSE))
    for name in ("content", "toc", "top"):
        assert f'data-md-component="{name}"' not in html
        assert f'data-tl-component="{name}"' in html
    assert 'data-md-component="header"' in html


def test_reshaping_twice_changes_nothing_more(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "index.html").write_text(page(f"<h2>A</h2>\n{PROSE}{TABLE}{PROSE}"))
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "x.html").write_text(page(TABLE))
    assert page_html.write(tmp_path) == 1
    once = (tmp_path / "a" / "index.html").read_text()
    assert 'data-md-component="content"' in (tmp_path / "assets" / "x.html").read_text(), "assets are not pages"
    page_html.write(tmp_path)
    assert (tmp_path / "a" / "index.html").read_text().count("md-typeset__scrollwrap") == once.count(
        "md-typeset__scrollwrap")


def test_the_page_budget_counts_every_element_and_byte_as_built(tmp_path):
    from authoring import page_kinds

    (tmp_path / "a").mkdir()
    html = page(PROSE * 3 + TABLE + '<math><mrow><mi>x</mi></mrow></math>')
    (tmp_path / "a" / "index.html").write_text(html)
    [built] = page_kinds.built_pages(tmp_path)
    elements = page_kinds.element_count(html)
    assert elements == html.count("<") - html.count("</"), "every start tag, MathML's too"
    assert page_kinds.over_budget(built, {"elements": elements, "bytes": len(html)}) == []
    over = page_kinds.over_budget(built, {"elements": elements - 1, "bytes": len(html) - 1})
    assert [line.split(":")[0] for line in over] == ["/a/", "/a/"]
    assert f"{elements:,} elements" in over[0] and "bytes" in over[1]


def test_a_read_only_block_folds_like_prose_unless_a_widget_is_inside():
    catalogue = '<div class="tl-catalogue" data-tl-block="tests">' + TABLE + "</div>\n"
    section = f'<div class="tl-chapter-section" data-tl-block="chapter-section">{PROSE}{WIDGET}</div>\n'
    html = page_html.fold(page(f"<h2>A</h2>\n{PROSE}{catalogue}{PROSE}{section}{PROSE}{PROSE}"))
    assert in_fold(html, 'data-tl-block="tests"'), "the catalogue is in a fold"
    assert not in_fold(html, 'data-tl-block="chapter-section"'), "a section with a widget inside is not"


def test_the_sidebars_lose_their_indentation_and_nothing_else_does():
    sidebars = ('<div class="md-sidebar md-sidebar--primary" data-md-component="sidebar">\n  <ul>\n    <li>\n'
                '      <a href="../e7/" class="md-nav__link">\n        <span>E7   Speculative\n  decoding</span>\n'
                '      </a>\n    </li>\n  </ul>\n</div>\n<div class="md-sidebar md-sidebar--secondary">\n  <nav>\n'
                '    <a href="#a">A</a>\n  </nav>\n</div>\n')
    code = "<pre><code>x  =  1\n    y</code></pre>\n"
    built = page(PROSE + code).replace('<div class="md-content"', sidebars + '<div class="md-content"')
    html = page_html.reshape(built)
    start, end = html.index('<div class="md-sidebar'), html.index('<div class="md-content"')
    assert not re.search(r"\s\s", html[start:end])
    assert ('<a href="../e7/" class="md-nav__link"> <span>E7 Speculative decoding</span> </a>'
            in html[start:end]), "one space where there was white space: the same text, the same rendering"
    assert code in html and PROSE in html, "the page's own white space is kept"
    with_pre = built.replace("<a href=\"#a\">A</a>", "<pre>a  b</pre>")
    kept = page_html.reshape(with_pre)
    assert "<pre>a  b</pre>" in kept and "\n    <li>\n" in kept, "a sidebar with preformatted text is left alone"


def test_the_theme_script_is_left_for_the_page_to_load_and_other_scripts_are_not():
    theme = '<script src="../../assets/javascripts/bundle.a5f9d56c.min.js"></script>'
    ours = '<script src="../../assets/tl/tl.js" type="module"></script>'
    html = page_html.reshape(page(PROSE).replace("</body>", theme + ours + "</body>"))
    assert theme not in html and ours in html
    assert ('<script type="text/x-tl-later" data-tl="theme-script" '
            'data-src="../../assets/javascripts/bundle.a5f9d56c.min.js"></script>') in html
    assert 'data-tl-component="header-title"' in page_html.reshape(
        page(PROSE).replace("<body>", '<body><div data-md-component="header-title"></div>'))
