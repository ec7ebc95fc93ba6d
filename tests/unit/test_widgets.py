"""Unit tests of the Markdown widgets (mdwidgets): lesson Markdown in, HTML out, parsed and checked element by element.

They run on the fixture course (tests/fixtures/course), never on the real one. Expected data comes from
course.manifest, the same source the widgets read, so a test fails when the page and the exercise folder could
disagree, not when a manifest's wording changes.
"""
from __future__ import annotations

import json
import shutil
import sys
import textwrap
import xml.etree.ElementTree as etree
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import markdown
import pytest
from markdown.serializers import to_html_string

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import mdwidgets  # noqa: E402
from course import manifest  # noqa: E402
from mdwidgets.base import _json_script  # noqa: E402

PAGE = "docs/x.md"
FIXTURE = REPO / "tests" / "fixtures" / "course" / "exercises"
VOID = {"br", "hr", "img", "input", "meta", "link", "col", "area", "base", "wbr", "source"}


@dataclass
class Node:
    tag: str
    attrs: dict[str, str | None]
    children: list["Node | str"] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self):
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.iter()

    def find_all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list["Node"]:
        found = []
        for n in self.iter():
            if tag and n.tag != tag:
                continue
            if cls and cls not in n.classes:
                continue
            if any(n.attrs.get(k.replace("_", "-")) != v for k, v in attrs.items()):
                continue
            found.append(n)
        return found

    def one(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> "Node":
        found = self.find_all(tag, cls, **attrs)
        assert len(found) == 1, f"expected one <{tag or '*'} class={cls} {attrs}>, found {len(found)}"
        return found[0]

    def data(self) -> dict:
        """The JSON of the widget's own <script type="application/json" class="tl-data">."""
        scripts = [c for c in self.children if isinstance(c, Node) and c.tag == "script"]
        assert len(scripts) == 1, f"expected one data script directly in <{self.tag}>, found {len(scripts)}"
        script = scripts[0]
        assert script.attrs.get("type") == "application/json" and "tl-data" in script.classes
        return json.loads(script.text())


class _Builder(HTMLParser):
    """A strict tree builder: every element must be closed in order, which also proves the HTML is well formed."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_endtag(self, tag):
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def parse(html: str) -> Node:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    assert builder.stack == [builder.root], "unclosed elements"
    return builder.root


def convert(text: str, exercises: Path = FIXTURE, highlight: bool = False) -> str:
    """`highlight`: with the site's code highlighter too, which re-renders every <pre><code> in the tree."""
    text = textwrap.dedent(text)
    mdwidgets.set_source(PAGE, text)
    configs = {"pymdownx.arithmatex": {"generic": True}, "mdwidgets": {"exercises": str(exercises)},
               "pymdownx.highlight": {"use_pygments": True}}
    extensions = ["mdwidgets", "pymdownx.arithmatex", "tables"]
    extensions += ["pymdownx.highlight", "pymdownx.superfences"] if highlight else []
    md = markdown.Markdown(extensions=extensions, extension_configs=configs)
    return md.convert(text)


def widget_error(text: str) -> str:
    with pytest.raises(mdwidgets.WidgetError) as info:
        convert(text)
    return str(info.value)


@pytest.fixture(scope="module")
def lesson() -> manifest.Exercise:
    return manifest.load_all(FIXTURE)["t1-2"]


@pytest.fixture(autouse=True)
def _fresh_manifests():
    mdwidgets.reset_cache()
    yield
    mdwidgets.reset_cache()


# --- numeric -----------------------------------------------------------------------------------------------------

def test_numeric_prompt(lesson):
    root = parse(convert("""
        # Page

        /// numeric | T1.2 normalised
        **To do.** Type $p / s$, normalised.
        ///
    """))
    el = root.one("div", "tl-numeric")
    assert "tl-widget" in el.classes
    assert (el.attrs["data-exercise"], el.attrs["data-prompt"]) == ("t1-2", "normalised")
    question = el.one("div", "tl-question")
    assert question.one("strong").text() == "To do."
    assert question.one("span", "arithmatex").text() == r"\(p / s\)"
    prompt = lesson.prompts[0]
    assert el.data() == {
        "exercise": "t1-2", "prompt": "normalised", "answer": list(prompt.answer), "tolerance": prompt.tolerance,
        "feedback": [{"answer": list(f.answer), "message": f.message} for f in prompt.feedback],
    }
    assert el.data()["answer"] == [0.25, 0.25, 0.5]
    explain = el.one("div", "tl-explain")
    assert "hidden" in explain.attrs
    # The worked answer is rendered Markdown, not raw text: a paragraph, and **[0.25, 0.25, 0.5]** becomes <strong>.
    assert explain.find_all("p")
    assert "[0.25, 0.25, 0.5]" in [s.text() for s in explain.find_all("strong")]
    assert "**" not in explain.text()


def test_numeric_prompt_with_a_scalar_answer_and_its_known_wrong_answers(lesson):
    el = parse(convert("/// numeric | T1.2 mean\nQ\n///\n")).one("div", "tl-numeric")
    data = el.data()
    assert data["answer"] == [5]
    assert [f["answer"] for f in data["feedback"]] == [[4]]


# --- choice, predict, reveal -------------------------------------------------------------------------------------

def test_check_question(lesson):
    el = parse(convert("/// choice | T1.2 check\nIs the shortcut biased?\n///\n")).one("div", "tl-choice")
    assert {"tl-widget", "tl-check"} <= el.classes
    assert el.attrs["data-kind"] == "check" and el.attrs["data-shows-prediction"] == "predict"
    assert el.one("div", "tl-question").text().strip() == "Is the shortcut biased?"
    choice = lesson.choices[1]
    buttons = el.one("div", "tl-options").find_all("button")
    assert [b.attrs["data-key"] for b in buttons] == [o.key for o in choice.options]
    assert all("disabled" in b.attrs for b in buttons), "options stay disabled until the script wires them"
    assert [b.text() for b in buttons] == [f"{o.key} {o.text}" for o in choice.options]
    data = el.data()
    assert (data["kind"], data["showsPrediction"], data["exercise"], data["prompt"]) == (
        "check", "predict", "t1-2", "check")
    assert data["options"] == [{"key": o.key, "text": o.text, "correct": o.correct, "feedback": o.feedback}
                               for o in choice.options]
    assert [o["correct"] for o in data["options"]].count(True) == 1


def test_predict_question():
    el = parse(convert("/// choice | T1.2 predict\nPredict first.\n///\n")).one("div", "tl-choice")
    assert "tl-predict" in el.classes and el.attrs["data-kind"] == "predict"
    assert "data-shows-prediction" not in el.attrs
    assert el.data()["showsPrediction"] == ""


def test_reveal():
    el = parse(convert("/// reveal | T1.2 predict\nThe *answer* is below.\n///\n")).one("div", "tl-reveal")
    assert el.attrs["data-after"] == "predict" and el.attrs["data-exercise"] == "t1-2"
    assert el.one("p", "tl-reveal-note").text()
    body = el.one("div", "tl-reveal-body")
    assert body.one("em").text() == "answer"


def test_reveal_must_name_a_predict_question():
    text = "Intro.\n\n/// reveal | T1.2 check\nx\n///\n"
    assert widget_error(text) == f"{PAGE}:3: `/// reveal | T1.2 check`: T1.2 has no predict question 'check'"


# --- exercise cell and catalogue ---------------------------------------------------------------------------------

def test_exercise_cell(lesson):
    root = parse(convert("/// exercise | T1.2\nWrite **normalise** first.\n///\n"))
    cell = root.one("div", "tl-cell", data_kind="exercise")
    assert cell.attrs["data-exercise"] == "t1-2"
    assert cell.one("div", "tl-intro").one("strong").text() == "normalise"
    starter = lesson.starter.read_text(encoding="utf-8")
    assert cell.one("div", "tl-fallback").one("pre").one("code").text() == starter
    data = cell.data()
    assert (data["slug"], data["id"], data["importPath"]) == ("t1-2", "T1.2", lesson.import_path)
    assert data["starter"] == starter
    assert data["timeLimit"] == lesson.time_limit
    assert data["requires"] == []
    assert [t["name"] for t in data["tests"]] == lesson.test_names()
    assert data["tests"][0] == {"name": lesson.catalogue[0].name, "kind": lesson.catalogue[0].kind,
                                "checks": lesson.catalogue[0].checks}


def test_exercise_cell_lists_dependencies_deepest_first():
    data = parse(convert("/// exercise | T01.2\nx\n///\n")).one("div", "tl-cell").data()
    assert data["requires"] == ["t01-1"]


def test_exercise_cell_takes_one_argument():
    assert widget_error("/// exercise | T1.2 normalised\nx\n///\n").startswith(
        f"{PAGE}:1: `/// exercise | T1.2 normalised`: expected an exercise id")


def test_tests_catalogue(lesson):
    root = parse(convert("Before.\n\n/// tests | T1.2\n///\n"))
    [holder] = [n for n in root.find_all(cls="tl-catalogue") if n.attrs.get("data-exercise") == "t1-2"]
    rows = holder.find_all("tr")
    body = [r for r in rows if "data-test" in r.attrs]
    assert [r.attrs["data-test"] for r in body] == lesson.test_names()
    assert len(rows) == len(body) + 1  # plus the header row
    for row, entry in zip(body, lesson.catalogue):
        cells = row.find_all("td")
        assert [c.text() for c in cells] == [entry.name, entry.kind, entry.checks, entry.why, "not run"]
        assert row.attrs["data-outcome"] == "not-run"
        assert "tl-result" in cells[-1].classes


# --- pycell ------------------------------------------------------------------------------------------------------

def test_pycell_runs_and_carries_its_code():
    root = parse(convert("/// pycell\nimport math\nprint(math.sqrt(16) < 5)\n///\n"))
    cell = root.one("div", "tl-cell", data_kind="example")
    code = "import math\nprint(math.sqrt(16) < 5)\n"
    assert cell.one("code").text() == code
    assert cell.data() == {"code": code, "title": ""}


def test_an_example_that_ran_cleanly_runs_once_and_a_failing_one_every_time(tmp_path, monkeypatch):
    monkeypatch.setenv("TL_VALIDATE_CACHE", str(tmp_path))
    runs = []
    real = mdwidgets.examples.run
    monkeypatch.setattr(mdwidgets.examples, "run", lambda code, files: runs.append(code) or real(code, files))
    good = "/// pycell\nprint(2 + 2)\n///\n"
    convert(good)
    convert(good)
    assert len(runs) == 1 and len(list((tmp_path / "examples").iterdir())) == 1
    convert("/// pycell\nprint(2 + 3)\n///\n")
    assert len(runs) == 2, "other code is another example"
    bad = "/// pycell\nraise SystemExit(3)\n///\n"
    for _ in range(2):
        with pytest.raises(mdwidgets.WidgetError):
            convert(bad)
    assert len(runs) == 4 and len(list((tmp_path / "examples").iterdir())) == 2


def test_failing_pycell_names_the_page_and_line():
    text = "# Examples\n\nSome prose.\n\n/// pycell\nassert 1 == 2, 'one is not two'\n///\n"
    message = widget_error(text)
    assert message.startswith(f"{PAGE}:6: `/// pycell`: the example fails on CPython:")  # the failing line
    assert "AssertionError: one is not two" in message


def test_failing_second_pycell_names_its_own_line():
    text = "/// pycell\nprint('fine')\n///\n\nProse.\n\n/// pycell\nraise SystemExit(2)\n///\n"
    assert widget_error(text).startswith(f"{PAGE}:7: `/// pycell`")


USES = ("from fixture.lessons.stats import mean\n"
        "try:\n    print(mean([1, 2, 3]))\nexcept NotImplementedError:\n    print('write mean first')\n")


def test_a_pycell_that_uses_an_exercise_names_it_and_runs_against_its_reference_and_its_starter():
    root = parse(convert(f"/// pycell\n    uses: T1.2\n\n{USES}///\n"))
    assert root.one("div", "tl-cell", data_kind="example").data() == {"code": USES, "title": "", "uses": "t1-2"}


def test_a_pycell_that_fails_with_the_reference_or_the_starter_says_which():
    strict = "from fixture.lessons.stats import mean\nprint(mean([1, 2, 3]))\n"  # no fallback for the stubs
    message = widget_error(f"/// pycell\n    uses: T1.2\n\n{strict}///\n")
    assert "the example fails on CPython with T1.2's starter: NotImplementedError: mean" in message
    wrong = "from fixture.lessons.stats import mean\ntry:\n    assert mean([1, 2, 3]) == 3\nexcept NotImplementedError:\n    pass\n"
    assert "fails on CPython with T1.2's reference: AssertionError" in widget_error(f"/// pycell\n    uses: T1.2\n\n{wrong}///\n")
    assert "uses: unknown exercise 'Z9.9'" in widget_error(f"/// pycell\n    uses: Z9.9\n\nprint(1)\n///\n")


def test_a_plotting_pycell_draws_nothing_at_build_time():
    pytest.importorskip("matplotlib")
    code = "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\nprint(plt.get_backend())\n"
    root = parse(convert(f"/// pycell\n{code}///\n"))
    assert root.one("div", "tl-cell", data_kind="example").data()["code"] == code


def test_error_line_does_not_depend_on_header_spacing():
    text = "Intro.\n\n/// numeric |  T1.2   nope\nq\n///\n"
    assert widget_error(text).startswith(f"{PAGE}:3: ")


# --- errors ------------------------------------------------------------------------------------------------------

def test_unknown_exercise():
    message = widget_error("# T\n\n/// numeric | Z9.9 residual\nq\n///\n")
    assert message.startswith(f"{PAGE}:3: `/// numeric | Z9.9 residual`: unknown exercise 'Z9.9' (known: ")
    assert "T1.2" in message


def test_unknown_numeric_prompt():
    message = widget_error("# T\n\nText.\n\n/// numeric | T1.2 nope\nq\n///\n")
    assert message == (f"{PAGE}:5: `/// numeric | T1.2 nope`: T1.2 has no numeric prompt 'nope' "
                       "(known: normalised, mean)")


def test_unknown_choice():
    message = widget_error("/// choice | T1.2 normalised\nq\n///\n")
    assert message == (f"{PAGE}:1: `/// choice | T1.2 normalised`: T1.2 has no choice question 'normalised' "
                       "(known: predict, check)")


def test_numeric_needs_exercise_and_item():
    assert widget_error("/// numeric | T1.2\nq\n///\n") == (
        f"{PAGE}:1: `/// numeric | T1.2`: expected EXERCISE ITEM, like `E7.3 residual`")


# --- JSON cannot break out of its script element -----------------------------------------------------------------

EVIL = "</script><script>alert(1)</script><!--"


def test_json_script_escapes_closing_tags():
    parent = etree.Element("div")
    _json_script(parent, {"message": EVIL, "nested": [EVIL]})
    html = to_html_string(parent)
    assert html.count("</script") == 1 and html.endswith("</script></div>")
    assert "<!--" not in html
    assert parse(html).one("div").data() == {"message": EVIL, "nested": [EVIL]}


def test_manifest_text_with_a_script_tag_stays_data(tmp_path):
    folder = tmp_path / "t1-2"
    shutil.copytree(FIXTURE / "t1-2", folder, ignore=shutil.ignore_patterns("__pycache__"))
    toml = folder / "exercise.toml"
    old = 'message = "4 is the median'
    assert toml.read_text().count(old) == 1
    toml.write_text(toml.read_text().replace(old, f'message = "{EVIL} 4 is the median'))
    root = parse(convert("/// numeric | T1.2 mean\nQ\n///\n", exercises=tmp_path))
    assert len(root.find_all("script")) == 1
    el = root.one("div", "tl-numeric")
    assert el.data()["feedback"][0]["message"].startswith(EVIL + " 4 is the median")


# --- class ---------------------------------------------------------------------------------------------------------

def test_the_class_view_is_a_placeholder_the_page_mounts():
    el = parse(convert("/// class\n///\n")).one("div", "tl-class")
    assert "JavaScript" in el.one("p", "tl-fallback").text()


# --- ol-install --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("highlight", [False, True], ids=["plain", "highlighted"])
def test_ol_install_has_a_placeholder_the_page_fills_in_and_steps_for_an_exercise(lesson, highlight):
    el = parse(convert("/// ol-install | T1.2\n///\n", highlight=highlight)).one("div", "tl-ol-install")
    command = el.one("code", "tl-ol-command")
    assert command.text() == "pip install --extra-index-url https://<this site>/simple/ tinyllm-ol"
    assert command.one("span", "tl-site-root").text() == "https://<this site>/"
    steps = [c.text() for c in el.find_all("code") if "ol start" in c.text()]
    assert steps and steps[0].splitlines()[0] == "ol start T1.2" and "ol export progress.json" in steps[0]
    assert lesson.learner_path in el.text()
    bare = parse(convert("/// ol-install\n///\n")).one("div", "tl-ol-install")
    assert not [c for c in bare.find_all("code") if "ol start" in c.text()]


def test_ol_install_names_an_unknown_exercise():
    assert widget_error("/// ol-install | Z9.9\n///\n").startswith(f"{PAGE}:1: `/// ol-install | Z9.9`: unknown")


def test_course_check_is_a_placeholder_with_its_hook_and_a_fallback():
    html = convert("/// course-check\n///\n")
    assert 'class="tl-course-check"' in html and "data-course-check" in html
    assert '<p class="tl-fallback">' in html and "when JavaScript runs" in html
