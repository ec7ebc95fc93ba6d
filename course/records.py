"""The browser's view of an exercise, serialised in one place.

An exercise reaches the browser in three shapes: the code cell's placeholder data (the `/// exercise` widget,
mdwidgets), the exercise bundle fetched when a check needs it (`assets/tl/exercises/<slug>.json`) and an entry
of the exercise index (`assets/tl/exercises/index.json`), plus the few fields a status is derived from, which the
course blocks (`/// chapter`, `/// module-map`, mdwidgets/course.py) embed. They are built here from the manifest
(course/manifest.py) and nowhere else, so a field is named, and means, the same thing in each, and is added once.

The readers, in web/src: `cell` by cell/identity.js (`hints`: how many the page holds, `revealAfter`: the
reveal policy, 0 for after a pass, else the failed checks it takes); `bundle` by cell/bundles.js and
code-cell.js (hidden tests, names, known mistakes, reference, and `directRequires` for the dependency rule,
dependencies.js); `status` by progress-model.js
and course.js; `index_entry` by progress.js (the progress page). Field names are camelCase, as the JavaScript
that reads them.
"""
from __future__ import annotations

from typing import Mapping

from .exercises import Course
from .model import Exercise


def _requires(ex: Exercise, exercises: Mapping[str, Exercise]) -> list[str]:
    """Every exercise `ex` builds on, transitively, as slugs, deepest first (`ol check`'s order)."""
    return [d.slug for d in Course.of(exercises).dependencies(ex)]


def _direct_requires(ex: Exercise, exercises: Mapping[str, Exercise]) -> list[str]:
    """The exercises `ex` names in its own `requires`, as slugs."""
    return [d.slug for d in Course.of(exercises).requirements(ex)]


def _check_order(ex: Exercise, exercises: Mapping[str, Exercise]) -> list[str]:
    """What `ex` builds on, as slugs, in the order the dependency rule looks at them (Course.check_order)."""
    return [d.slug for d in Course.of(exercises).check_order(ex)]


def status(ex: Exercise) -> dict:
    """What a status ("not started", "passed", "done") is derived from: the slug saved work is kept under, the
    kind (a lesson is done when its prompts are answered too), and its prompts and choice questions."""
    return {"slug": ex.slug, "id": ex.id, "kind": ex.kind, "prompts": [p.id for p in ex.prompts],
            "choices": [{"id": c.id, "kind": c.kind} for c in ex.choices]}


def cell(ex: Exercise, exercises: dict[str, Exercise]) -> dict:
    """The code cell's placeholder data: the editor's file and starter, the time limit, what it builds on and
    the test catalogue. No hidden tests and no reference: those come with the bundle, when a check needs them."""
    return {
        "slug": ex.slug, "id": ex.id, "title": ex.title, "kind": ex.kind, "path": ex.learner_path,
        "importPath": ex.import_path, "starter": ex.starter.read_text(encoding="utf-8"),
        "timeLimit": ex.time_limit, "requires": _requires(ex, exercises),
        "tests": [{"name": t.name, "kind": t.kind, "checks": t.checks} for t in ex.catalogue],
        "hints": len(ex.hints), "revealAfter": ex.reveal_after or 0,
    }


def bundle(ex: Exercise, exercises: dict[str, Exercise], mistakes: list[dict] | None = None) -> dict:
    """The exercise bundle: everything a check sends to the worker (the hidden tests and their names, the known
    mistakes a failure is compared with: checker/diagnosis.py, from validation), the reference (the diff after a
    pass, "use the reference" for dependencies, a reveal) and the dependency rule's input."""
    return {
        "slug": ex.slug, "id": ex.id, "title": ex.title, "kind": ex.kind, "page": ex.page,
        "path": ex.learner_path, "importPath": ex.import_path, "timeLimit": ex.time_limit,
        "requires": _requires(ex, exercises), "directRequires": _direct_requires(ex, exercises),
        "checkOrder": _check_order(ex, exercises),
        "starter": ex.starter.read_text(encoding="utf-8"),
        "reference": ex.reference.read_text(encoding="utf-8"),
        "tests": {ex.tests_file.name: ex.tests_file.read_text(encoding="utf-8")},
        "names": ex.test_names(), "mistakes": list(mistakes or []),
    }


def index_entry(ex: Exercise, exercises: dict[str, Exercise]) -> dict:
    """One exercise in the index: its status fields, its title and page (the progress page's table), and the
    course around it as data (test names, requirements, milestone). Never the hidden tests or the reference.

    The manifests' `used_by` is not here: the module map renders it into the page at build time, and nothing
    in the browser reads it."""
    return {
        **status(ex), "title": ex.title, "page": ex.page, "requires": _requires(ex, exercises),
        "directRequires": _direct_requires(ex, exercises), "names": ex.test_names(), "milestone": ex.milestone,
    }
