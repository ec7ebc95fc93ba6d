"""The course's data model: an exercise as its folder describes it, once loaded and checked (course/manifest.py
loads it), and the rules that name things (`slug_of`, `module_of`). Plain frozen dataclasses, standard library only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


class ManifestError(ValueError):
    """A manifest, mutant or referenced file is wrong: one or more lines `path:line: field: problem`.

    `lines` holds each problem on its own (load() reports every test missing from the catalogue at once);
    str() joins them with newlines.
    """

    def __init__(self, *lines: str):
        super().__init__("\n".join(lines))
        self.lines = list(lines)


@dataclass(frozen=True)
class CatalogueEntry:
    """One hidden test as the learner sees it in the catalogue (never its source)."""

    name: str
    kind: str
    checks: str
    why: str


@dataclass(frozen=True)
class Edit:
    """One textual edit of the reference: `find` must occur exactly once."""

    find: str
    replace: str


@dataclass(frozen=True)
class Mutant:
    """A deliberately wrong solution and the hidden test that must catch it."""

    name: str
    path: Path
    fails: str
    description: str
    pitfall: str
    edits: tuple[Edit, ...]
    # Mutants that fail every test exactly like this one though they stand for another pitfall, accepted by the
    # author: a learner making either mistake is shown both, and validation does not warn (checker/diagnosis.py).
    alike: tuple[str, ...] = ()


@dataclass(frozen=True)
class Feedback:
    """A known wrong answer of a numeric prompt and what to tell the learner about it."""

    answer: tuple[float, ...]
    message: str


@dataclass(frozen=True)
class NumericPrompt:
    """A numeric prompt; `expr` is evaluated against the reference to prove `answer` right."""

    id: str
    answer: tuple[float, ...]
    expr: str
    tolerance: float
    feedback: tuple[Feedback, ...]
    explain: str
    index: int


@dataclass(frozen=True)
class Option:
    """One option of a multiple-choice or predict question."""

    key: str
    text: str
    correct: bool
    feedback: str


@dataclass(frozen=True)
class Choice:
    """A multiple-choice check or a predict-first question."""

    id: str
    kind: str
    options: tuple[Option, ...]
    shows_prediction: str
    index: int


@dataclass(frozen=True)
class UsedBy:
    """A later exercise that builds on this one (the seed's "Used by"); it may not be written yet."""

    id: str
    how: str


@dataclass(frozen=True)
class Exercise:
    """A loaded `exercise.toml`; paths are absolute."""

    slug: str
    id: str
    title: str
    kind: str
    folder: Path
    manifest: Path
    page: str
    requires: tuple[str, ...]
    time_limit: float
    learner_path: str
    starter: Path
    reference: Path
    tests_file: Path
    catalogue: tuple[CatalogueEntry, ...]
    prompts: tuple[NumericPrompt, ...]
    choices: tuple[Choice, ...]
    prompt_setup: str
    mutants: tuple[Mutant, ...] = field(default=())
    # The course around the exercise: the milestone gate it counts towards, and what builds on it later.
    milestone: str = ""
    used_by: tuple[UsedBy, ...] = field(default=())
    # Help for a learner who is stuck: hints (Markdown, maths allowed) offered one at a time after a failed
    # check, and when the reference may be shown: after a pass (0), or after this many failed checks and every
    # hint (`reveal`; load_all fills in the course's default, exercises/course.toml, for an exercise without).
    hints: tuple[str, ...] = field(default=())
    reveal_after: int | None = None

    @property
    def reveal(self) -> str:
        """The reveal policy as written: `after-pass`, or `after-attempts = N`."""
        return f"after-attempts = {self.reveal_after}" if self.reveal_after else "after-pass"

    @property
    def module(self) -> str:
        """The import name of the learner's file: `python/tinyllm/prob/x.py` -> `tinyllm.prob.x`."""
        return module_of(self.learner_path)

    @property
    def import_path(self) -> str:
        """The learner's file relative to the import root (`tinyllm/prob/x.py`)."""
        return self.learner_path.split("/", 1)[1]

    def test_names(self) -> list[str]:
        """Catalogue test names, in catalogue order."""
        return [t.name for t in self.catalogue]




def module_of(learner_path: str) -> str:
    """Import name of a learner path rooted at `python/`."""
    return learner_path.split("/", 1)[1].removesuffix(".py").replace("/", ".")



def slug_of(key: str) -> str:
    """The folder name (slug) of an exercise id, in any case and spelling: `M07.6`, `m07.6`, `m07-6` -> `m07-6`."""
    return key.strip().lower().replace(".", "-")
