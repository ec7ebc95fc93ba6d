"""Course widgets: a chapter's lessons, a lesson's place in its chapter, shared chapter sections, module maps.

    /// chapter | E7              the chapter's lessons in order; written ones linked, with the learner's status
    The chapter's introduction, in Markdown.
    ///

    /// lesson | E7.3             "E7.3 · Lesson 3 of 6 · Chapter E7, Speculative decoding", at the top of a lesson
    ///

    /// chapter-section | E7 reference   the chapter's shared section `reference`, written once
    ///

    /// module-map | MS-P6        the milestone's modules, what they need and what builds on them, and the gate
    The gate's description, in Markdown.
    ///

Everything is derived, never typed twice: a chapter's lessons (written or planned) and its shared sections come
from its definition, `exercises/chapters/<chapter>.toml` (course.chapters); a lesson is written when an exercise
folder has its id; a map's modules are the exercises whose `milestone` is the argument, everything they require,
anything written that requires them, and the `used_by` entries that are not written yet ("not yet available").
The HTML is complete without JavaScript (an ordered list, and an SVG with a text alternative); web/src/course.js
only fills in each status from this browser's saved work.
"""
from __future__ import annotations

import posixpath
import textwrap
import xml.etree.ElementTree as etree
from dataclasses import dataclass

from pymdownx.blocks.block import type_any

from course import manifest, records
from course.chapters import CHAPTER_RE, Chapter as ChapterDef
from mdwidgets import TLBlock, _json_script

NOT_STARTED = "not started"  # what a status reads before the page's script has looked at saved work


def _sub(parent: etree.Element, tag: str, text: str = "", tail: str = "", **attrs: str) -> etree.Element:
    """A child element; `class_`, `data_x` and `aria_x` keywords become `class`, `data-x` and `aria-x`."""
    el = etree.SubElement(parent, tag, {k.rstrip("_").replace("_", "-"): v for k, v in attrs.items()})
    el.text = text or None
    el.tail = tail or None
    return el


class _CourseBlock(TLBlock):
    """Links from the page being converted to another page (MkDocs rewrites and checks them)."""

    def href(self, page: str) -> str:
        here = self.page.source.uri
        return posixpath.relpath(page, posixpath.dirname(here) or ".")

    def chapter_def(self, ident: str) -> ChapterDef:
        if not CHAPTER_RE.match(ident):
            raise self.fail("expected a chapter id, like `E7`")
        chapters = self.chapters()
        if ident not in chapters:
            known = ", ".join(sorted(chapters)) or "none"
            raise self.fail(f"no chapter {ident} (define it in exercises/chapters/{ident.lower()}.toml; "
                            f"known: {known})")
        return chapters[ident]


class Chapter(_CourseBlock):
    """A chapter's lessons in order: the written ones linked with a status, the others "not yet written"."""

    NAME = "chapter"
    OPTIONS = {"lessons": (None, type_any)}  # no longer used: reported, so an old page is not silently wrong

    def check(self) -> None:
        if self.options["lessons"] is not None:
            raise self.fail("remove the option `lessons:`: the chapter's lessons are listed in "
                            f"exercises/chapters/{self.argument.strip().lower()}.toml")
        self.chapter = self.chapter_def(self.argument.strip())

    def create(self, parent: etree.Element) -> etree.Element:
        chapter = self.chapter
        by_id = {e.id: e for e in self.exercises().values()}
        written = [by_id.get(lesson) for lesson in chapter.lessons]
        root = _sub(parent, "div", class_="tl-chapter", data_chapter=chapter.id)
        self.intro = _sub(root, "div", class_="tl-chapter-intro")
        count = sum(ex is not None for ex in written)
        total = len(chapter.lessons)
        _sub(root, "p", f"{total} lesson{'s' if total != 1 else ''}, "
                        f"{'all' if count == total else count} written so far.", class_="tl-chapter-count")
        items = _sub(root, "ol", class_="tl-lessons")
        for n, (lesson, ex) in enumerate(zip(chapter.lessons, written), 1):
            if ex is None:
                item = _sub(items, "li", class_="tl-lesson tl-unwritten", data_lesson=str(n), data_id=lesson)
                _sub(item, "span", f"Lesson {n}", ": ", class_="tl-lesson-number")
                _sub(item, "span", "not yet written", class_="tl-lesson-state")
                continue
            item = _sub(items, "li", class_="tl-lesson", data_lesson=str(n), data_id=lesson, data_exercise=ex.slug,
                        data_status="not-started")
            _sub(item, "span", f"Lesson {n}", ": ", class_="tl-lesson-number")
            _sub(item, "a", f"{ex.id} {ex.title}", " · ", href=self.href(ex.page))
            _sub(item, "span", NOT_STARTED, class_="tl-course-status")
        _json_script(root, {"chapter": chapter.id, "lessons": [records.status(ex) for ex in written if ex is not None]})
        return root

    def add(self, block: etree.Element) -> etree.Element:
        return self.intro


class LessonHeader(_CourseBlock):
    """A lesson's place in its chapter, derived from the chapter definition: `E7.3 · Lesson 3 of 6 · Chapter E7`."""

    NAME = "lesson"

    def check(self) -> None:
        try:
            self.exercise = manifest.find(self.argument, self.exercises())
        except KeyError as exc:
            raise self.fail(str(exc).strip("'\"")) from None
        ex = self.exercise
        if ex.kind != "lesson":
            raise self.fail(f"{ex.id} is a {ex.kind}, not a lesson")
        if self.page.source.uri and ex.page != self.page.source.uri:
            raise self.fail(f"{ex.id}'s page is {ex.page} ({manifest.rel(ex.manifest)}), not this page")
        self.chapter = next(c for c in self.chapters().values() if ex.id in c.lessons)

    def create(self, parent: etree.Element) -> etree.Element:
        ex, chapter = self.exercise, self.chapter
        el = _sub(parent, "p", class_="tl-eyebrow", data_exercise=ex.slug, data_chapter=chapter.id)
        _sub(el, "strong", ex.id, f" · Lesson {chapter.number(ex.id)} of {len(chapter.lessons)} · ")
        _sub(el, "a", f"Chapter {chapter.id}, {chapter.title}", href=self.href(chapter.page))
        return el


class ChapterSection(_CourseBlock):
    """A chapter's shared section: the Markdown of `exercises/chapters/...`, expanded in place by
    mdwidgets.page before the page is parsed, so it is written once and identical on every lesson."""

    NAME = "chapter-section"

    def check(self) -> None:
        parts = self.argument.split()
        if len(parts) != 2:
            raise self.fail("expected CHAPTER SECTION, like `E7 reference`")
        self.chapter = self.chapter_def(parts[0])
        self.section = self.chapter.section(parts[1])
        if self.section is None:
            known = ", ".join(s.id for s in self.chapter.shared) or "none"
            raise self.fail(f"{self.chapter.id} has no shared section {parts[1]!r} (known: {known})")

    def create(self, parent: etree.Element) -> etree.Element:
        key = f"{self.chapter.id}/{self.section.id}"
        self.page.sections.append(key)
        return _sub(parent, "div", class_="tl-chapter-section", data_section=key)


@dataclass(frozen=True)
class Node:
    """One box of the map: a written exercise, or a later one that is not available yet."""

    id: str
    title: str
    needs: tuple[str, ...]
    exercise: manifest.Exercise | None = None
    how: str = ""


def module_graph(exercises: dict[str, manifest.Exercise], milestone: str) -> tuple[list[Node], list[str]]:
    """The map's nodes in dependency order (deepest first), and the ids of the milestone's members."""
    by_id = {e.id: e for e in exercises.values()}
    members = sorted(e.id for e in exercises.values() if e.milestone == milestone)
    live = set(members)
    for ident in members:
        live.update(d.id for d in manifest.dependency_order(by_id[ident], by_id))
    live.update(e.id for e in exercises.values() if set(e.requires) & set(members))
    later: dict[str, Node] = {}
    for ident in sorted(live):
        for user in by_id[ident].used_by:
            if user.id not in by_id:
                old = later.get(user.id)
                later[user.id] = Node(user.id, "", (old.needs if old else ()) + (ident,), how=user.how)
    nodes = [Node(i, by_id[i].title, tuple(r for r in by_id[i].requires if r in live), by_id[i]) for i in live]
    nodes += list(later.values())
    order = {ident: i for i, ident in enumerate(later)}  # later ones keep the order their manifest lists them in
    depth: dict[str, int] = {}

    def level(node: Node) -> int:
        if node.id not in depth:
            depth[node.id] = 1 + max((level(find[n]) for n in node.needs), default=-1)
        return depth[node.id]

    find = {n.id: n for n in nodes}
    return sorted(nodes, key=lambda n: (level(n), n.exercise is None, n.id if n.exercise else order[n.id])), members


class ModuleMap(_CourseBlock):
    """A milestone's modules as a dependency map (SVG plus an ordered list) and the milestone's gate."""

    NAME = "module-map"

    def check(self) -> None:
        self.milestone = self.argument.strip()
        if not manifest.MILESTONE_RE.match(self.milestone):
            raise self.fail("expected a milestone id, like `MS-P6`")

    def create(self, parent: etree.Element) -> etree.Element:
        exercises = self.exercises()
        nodes, members = module_graph(exercises, self.milestone)
        if not members:
            known = sorted({e.milestone for e in exercises.values() if e.milestone}) or ["none"]
            raise self.fail(f"no exercise counts towards {self.milestone} (known: {', '.join(known)})")
        root = _sub(parent, "div", class_="tl-module-map", data_milestone=self.milestone)
        _svg(root, nodes, self.milestone, members)
        items = _sub(root, "ol", class_="tl-map-list", aria_label=f"Modules of {self.milestone} in dependency order")
        for node in nodes:
            _list_item(items, node, self.milestone, self.href)
        gate = _sub(root, "div", class_="tl-gate", data_gate=self.milestone, data_state="closed")
        head = _sub(gate, "p", class_="tl-gate-head")
        _sub(head, "strong", f"Milestone {self.milestone}", ": ")
        _sub(head, "span", "gate closed", class_="tl-gate-state")
        self.body = _sub(gate, "div", class_="tl-gate-body")
        _sub(gate, "p", f"Opens when all {len(members)} of its modules pass: {', '.join(members)}.",
             class_="tl-gate-count")
        by_id = {e.id: e for e in exercises.values()}
        _json_script(root, {
            "milestone": self.milestone, "members": [by_id[m].slug for m in members],
            "nodes": [records.status(n.exercise) for n in nodes if n.exercise],
        })
        return root

    def add(self, block: etree.Element) -> etree.Element:
        return self.body


def _list_item(items: etree.Element, node: Node, milestone: str, href) -> None:
    needs = f"needs {' and '.join(node.needs)}" if node.needs else "needs nothing before it"
    if node.exercise is None:
        item = _sub(items, "li", class_="tl-map-item tl-later", data_node=node.id, data_status="later")
        _sub(item, "strong", node.id, " · ")
        _sub(item, "span", "not yet available", " ", class_="tl-course-status")
        _sub(item, "span", f"{needs} · {node.how}", class_="tl-map-detail")
        return
    ex = node.exercise
    item = _sub(items, "li", class_="tl-map-item", data_node=node.id, data_exercise=ex.slug,
                data_status="not-started")
    _sub(item, "a", f"{ex.id} {ex.title}", " · ", href=href(ex.page))
    _sub(item, "span", NOT_STARTED, " ", class_="tl-course-status")
    detail = needs + (f" · counts towards {milestone}" if ex.milestone == milestone else "")
    _sub(item, "span", detail, class_="tl-map-detail")


# SVG layout, in the viewBox's units: one row per dependency level, the gate drawn under its last member's row.
WIDTH, ROW_GAP, GATE_GAP, LINE, PAD = 360, 34, 30, 17, 10


def _svg(root: etree.Element, nodes: list[Node], milestone: str, members: list[str]) -> None:
    rows: list[list[Node]] = []
    placed: dict[str, int] = {}
    for node in nodes:
        row = 1 + max((placed[n] for n in node.needs), default=-1)
        placed[node.id] = row
        while len(rows) <= row:
            rows.append([])
        rows[row].append(node)
    gate_after = max(placed[m] for m in members)
    boxes: dict[str, tuple[float, float, float, float]] = {}
    shapes = []
    y = 4.0
    for r, row in enumerate(rows):
        w = min(260.0, (WIDTH - 12 * (len(row) + 1)) / len(row))
        lines = {n.id: _label_lines(n, w) for n in row}
        h = PAD * 2 + LINE * max(len(v) for v in lines.values())
        for i, node in enumerate(row):
            x = (WIDTH - len(row) * w - 12 * (len(row) - 1)) / 2 + i * (w + 12)
            boxes[node.id] = (x, y, w, h)
            shapes.append((node, lines[node.id]))
        y += h + ROW_GAP
        if r == gate_after:
            gate_y = y - ROW_GAP / 2 + GATE_GAP / 2
            y += GATE_GAP
    height = y - ROW_GAP + 4
    name = {n.id: n.id + ("" if n.exercise else " (not yet available)") for n in nodes}
    chain = "; ".join(f"{n.id} → " + ", ".join(name[m.id] for m in nodes if n.id in m.needs)
                      for n in nodes if any(n.id in m.needs for m in nodes))
    svg = _sub(root, "svg", class_="tl-map-svg", viewBox=f"0 0 {WIDTH} {height:g}", role="img",
               aria_labelledby=f"tl-map-{milestone}-title")
    _sub(svg, "title", f"Dependency map of {milestone}, each module pointing to what builds on it: {chain}. "
                       "The list below gives each module's status.", id=f"tl-map-{milestone}-title")
    defs = _sub(svg, "defs")
    marker = _sub(defs, "marker", id=f"tl-arrow-{milestone}", viewBox="0 0 10 10", refX="9", refY="5",
                  markerWidth="7", markerHeight="7", orient="auto-start-reverse")
    _sub(marker, "path", d="M 0 0 L 10 5 L 0 10 z", class_="tl-map-arrowhead")
    for node in nodes:
        for need in node.needs:
            x1, y1, w1, h1 = boxes[need]
            x2, y2, w2, _ = boxes[node.id]
            _sub(svg, "line", class_="tl-map-edge", x1=f"{x1 + w1 / 2:g}", y1=f"{y1 + h1:g}",
                 x2=f"{x2 + w2 / 2:g}", y2=f"{y2 - 2:g}", marker_end=f"url(#tl-arrow-{milestone})")
    gate = _sub(svg, "g", class_="tl-map-gate", data_gate=milestone, data_state="closed")
    _sub(gate, "line", x1="4", x2=f"{WIDTH - 4}", y1=f"{gate_y:g}", y2=f"{gate_y:g}")
    _sub(gate, "text", f"{milestone} gate: closed", x=f"{WIDTH - 6}", y=f"{gate_y - 5:g}",
         text_anchor="end", class_="tl-gate-state")
    for node, lines in shapes:
        x, y0, w, h = boxes[node.id]
        attrs = {"data_exercise": node.exercise.slug, "data_status": "not-started"} if node.exercise else {
            "data_status": "later"}
        g = _sub(svg, "g", class_="tl-map-node", data_node=node.id, **attrs)
        _sub(g, "rect", x=f"{x:g}", y=f"{y0:g}", width=f"{w:g}", height=f"{h:g}", rx="6")
        for i, text in enumerate(lines):
            cls = "tl-node-id" if i == 0 else "tl-course-status" if i == len(lines) - 1 else "tl-node-title"
            _sub(g, "text", text, x=f"{x + w / 2:g}", y=f"{y0 + PAD + LINE * i + 12:g}", text_anchor="middle",
                 class_=cls)


def _label_lines(node: Node, width: float) -> list[str]:
    """Id, the title wrapped to the box (at most two lines), and the status line."""
    if node.exercise is None:
        return [node.id, "not yet available"]
    chars = max(8, int((width - 16) / 7))
    title = textwrap.wrap(node.title, chars, max_lines=2, placeholder=" …")
    return [node.id, *title, NOT_STARTED]
