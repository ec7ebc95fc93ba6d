"""`/// module-map | MS-P6`: a milestone's modules as a dependency map (an SVG and an ordered list), and its gate;
the body is the gate's description."""
from __future__ import annotations

import textwrap
import xml.etree.ElementTree as etree
from dataclasses import dataclass

from course import manifest, records
from mdwidgets.base import _json_script
from mdwidgets.course import NOT_STARTED, _CourseBlock, _sub


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
    course = manifest.Course.of(exercises)
    members = sorted(e.id for e in course.values() if e.milestone == milestone)
    live = set(members)
    for ident in members:
        live.update(d.id for d in course.dependencies(course.by_id[ident]))
    live.update(e.id for e in exercises.values() if set(e.requires) & set(members))
    later: dict[str, Node] = {}
    for ident in sorted(live):
        for user in course.by_id[ident].used_by:
            if user.id not in course.by_id:
                old = later.get(user.id)
                later[user.id] = Node(user.id, "", (old.needs if old else ()) + (ident,), how=user.how)
    by_id = course.by_id
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
        by_id = manifest.Course.of(exercises).by_id
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
