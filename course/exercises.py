"""The course as one value: every exercise under a folder, by slug and by id, and the order of what each builds on.

    exercises = manifest.load_all()      # a Course (exercises/), raising the first ManifestError
    exercises.find("m07.6")              # by id or slug, in any case
    exercises.by_id["M07.6"]
    exercises.check_order(exercises.find("M07.6"))

A Course is a read-only mapping of slug -> Exercise (in slug order), so it goes wherever the exercises do. What an
exercise builds on is worked out here and nowhere else: the build's records, validation, the widgets and `ol` all
ask a Course. The known mistakes of an exercise are course/known.py's.
"""
from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import Iterator, Mapping

from course.fields import line_of_field, rel
from course.model import Exercise, ManifestError, slug_of


class Course(Mapping[str, Exercise]):
    """The exercises under `root`, keyed by slug in slug order."""

    def __init__(self, exercises: Mapping[str, Exercise], root: Path | None = None):
        self.root = root
        self._by_slug = dict(sorted(exercises.items()))

    @classmethod
    def of(cls, exercises: Mapping[str, Exercise]) -> "Course":
        """`exercises` as a Course (itself when it is one)."""
        return exercises if isinstance(exercises, Course) else cls(exercises)

    def __getitem__(self, slug: str) -> Exercise:
        return self._by_slug[slug]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_slug)

    def __len__(self) -> int:
        return len(self._by_slug)

    def __repr__(self) -> str:
        return f"Course({', '.join(e.id for e in self.values())})"

    @cached_property
    def by_id(self) -> dict[str, Exercise]:
        return {e.id: e for e in self.values()}

    def find(self, key: str) -> Exercise:
        """The exercise of an id or slug, in any case (`M07.6`, `m07.6`, `m07-6`); KeyError naming the known ids."""
        slug = slug_of(key)
        if slug in self._by_slug:
            return self._by_slug[slug]
        raise KeyError(f"unknown exercise {key!r} (known: {', '.join(sorted(self.by_id))})")

    def dependencies(self, ex: Exercise) -> list[Exercise]:
        """What `ex` builds on, transitively, deepest first (M07.6 -> [M06.3, M07.1])."""
        return dependency_order(ex, self.by_id)

    def requirements(self, ex: Exercise) -> list[Exercise]:
        """The exercises `ex` names in its own `requires`, in that order."""
        return [self.by_id[r] for r in ex.requires]

    def check_order(self, ex: Exercise) -> list[Exercise]:
        """The one order in which `ol check` and the page look at what `ex` builds on (`check_order`)."""
        return check_order(ex, self.by_id)


def dependency_order(ex: Exercise, by_id: Mapping[str, Exercise]) -> list[Exercise]:
    """Transitive dependencies of `ex`, deepest first (M07.6 -> [M06.3, M07.1])."""
    order: list[Exercise] = []
    stack: list[str] = []

    def visit(e: Exercise) -> None:
        if e.id in stack:
            raise ManifestError(f"{rel(e.manifest)}:{line_of_field(e.manifest, 'requires')}: requires: "
                                f"dependency cycle {' -> '.join(stack + [e.id])}")
        stack.append(e.id)
        for r in e.requires:
            dep = by_id[r]
            if dep not in order:
                visit(dep)
                order.append(dep)
        stack.pop()

    visit(ex)
    return order


def check_order(ex: Exercise, by_id: Mapping[str, Exercise]) -> list[Exercise]:
    """The order in which the dependency rule looks at what `ex` builds on, the one order of `ol check` and the
    page (course/records.py ships it as `checkOrder`): its own `requires` first, in dependency order, then the
    transitive ones nearest first. M07.6 asks for M07.1, and M07.1's own check will then ask for M06.3."""
    deps = dependency_order(ex, by_id)
    return [d for d in deps if d.id in ex.requires] + [d for d in reversed(deps) if d.id not in ex.requires]
