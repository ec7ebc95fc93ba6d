"""Careful learners: correct code that takes an exercise's page at its word, to find what the page leaves unsaid.

An alternative solution (authoring/corpus.py) is written by a capable learner, who fills a gap in the page with good
sense. A careful learner fills none: where the page says "raise ValueError when a row does not sum to 1" it
compares the sum with 1 exactly; where a sentence can be read two ways it takes the other way. When such code
fails a hidden test, the test pins a rule the page never states, and it is the page that needs a sentence (or the
test that is wrong), not the learner who needs a hint. Beside an exercise's `mutants/`:

    careful/<name>.toml    reads        the page's sentence this learner takes literally, as the page's Markdown
                                        writes it (the page checks find it there: authoring/pages.py)
                           description  how the code takes it
                           base         the code the edits apply to: "reference" (the default) or the name of
                                        one of the exercise's alternatives
                           [[edit]]     find/replace against the base, each `find` exactly once, as a mutant's

Validation runs every careful learner through the whole hidden suite with the alternatives (validate._run_corpus)
and reports each test one fails as a page that needs a sentence. When the page is given that sentence, the careful
learner is written again from the new words (its `reads` changes with them), and must then pass.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from course import manifest
from course.manifest import NAME_RE, Edit, Exercise, ManifestError, rel

FOLDER = "careful"


@dataclass(frozen=True)
class Careful:
    """One careful learner: the page's words it reads, and its code as edits of the reference or an alternative."""

    name: str
    path: Path
    reads: str
    description: str
    base: str
    edits: tuple[Edit, ...]


def load(ex: Exercise) -> tuple[list[Careful], list[str]]:
    """The careful learners of `ex` (none without a careful/ folder) and one `path:line: problem` per file that
    does not load."""
    folder = ex.folder / FOLDER
    found: list[Careful] = []
    problems: list[str] = []
    if not folder.is_dir():
        return found, problems
    for path in sorted(folder.iterdir()):
        if path.name == "__pycache__":
            continue
        if path.suffix != ".toml" or not NAME_RE.match(path.stem):
            problems.append(f"{rel(path)}:1: not a careful learner: {FOLDER}/ holds <name>.toml files, kebab-case")
            continue
        try:
            found.append(_load_one(path))
        except ManifestError as exc:
            problems += exc.lines
    return found, problems


def _load_one(path: Path) -> Careful:
    f = manifest.read_toml(path)
    f.unknown({"reads", "description", "base", "edit"})
    edits = []
    for e in f.tables("edit"):
        e.unknown({"find", "replace"})
        edits.append(Edit(find=e.text("find"), replace=e.get("replace", str, what="a string")))
    if not edits:
        raise f.fail("edit", "a careful learner needs at least one [[edit]]: it is the base as the page's words "
                             "would have it")
    return Careful(path.stem, path, f.text("reads"), f.text("description"), f.text("base", "reference"), tuple(edits))


def base_file(ex: Exercise, careful: Careful) -> Path:
    """The file the edits of `careful` apply to: the reference, or alternatives/<base>.py."""
    return ex.reference if careful.base == "reference" else ex.folder / "alternatives" / f"{careful.base}.py"


def source(ex: Exercise, careful: Careful) -> str:
    """The careful learner's code: its base with its edits applied in order. ManifestError `path:line: problem`
    for a base that does not exist, a `find` that does not occur exactly once, or code that does not compile."""
    base = base_file(ex, careful)
    if not base.is_file():
        raise ManifestError(f"{rel(careful.path)}:{manifest.line_of_field(careful.path, 'base')}: base: "
                            f"{careful.base!r} is neither \"reference\" nor an alternative "
                            f"({rel(base)} does not exist)")
    text = base.read_text(encoding="utf-8")
    for i, edit in enumerate(careful.edits):
        count = text.count(edit.find)
        if count != 1:
            raise ManifestError(f"{rel(careful.path)}:{manifest.line_of_field(careful.path, f'edit[{i}].find')}: "
                                f"edit[{i}].find occurs {count} times in {rel(base)} (needs exactly 1)")
        text = text.replace(edit.find, edit.replace)
    try:
        compile(text, str(base), "exec", dont_inherit=True)
    except SyntaxError as exc:
        where = manifest.line_of_field(careful.path, f"edit[{len(careful.edits) - 1}].replace")
        raise ManifestError(f"{rel(careful.path)}:{where}: careful learner {careful.name} does not compile: "
                            f"{exc.msg} at line {exc.lineno} of {base.name} after its edits") from None
    return text


def failures(ex: Exercise, careful: Careful, result: dict) -> list[str]:
    """One line per hidden test the careful learner fails: the page leaves unsaid what that test pins."""
    if result.get("status") == "passed":
        return []
    where = f"{rel(careful.path)}:{manifest.line_of_field(careful.path, 'reads')}"
    said = f"it takes {ex.page}'s words {_short(careful.reads)!r} literally ({careful.description})"
    if result.get("phase") != "tests":
        last = ([ln.strip() for ln in result.get("traceback", "").splitlines() if ln.strip()] or
                [result.get("status", "")])[-1]
        return [f"{where}: careful learner {careful.name} is not judged ({result.get('phase')}): {last}; {said}"]
    return [f"{where}: careful learner {careful.name} fails {t['name']} ({t['message']}): {said}, so the page "
            f"needs a sentence saying what {t['name']} pins (or the test is wrong)"
            for t in result["tests"] if t["outcome"] != "passed"]


def words(text: str) -> str:
    """Text with its runs of white space made one space: a sentence of the page as it reads, however wrapped."""
    return " ".join(text.split())


def _short(text: str, limit: int = 120) -> str:
    flat = words(text)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def reads_errors(ex: Exercise, page: Path, text: str) -> list[str]:
    """Each careful learner of `ex` whose `reads` is not on its page (whitespace aside): the page changed since it
    was written, so it must be read, and the careful learner written, again. What does not load is validation's."""
    found, _ = load(ex)
    flat = words(text)
    return [f"{rel(c.path)}:{manifest.line_of_field(c.path, 'reads')}: reads: {_short(c.reads)!r} is not on "
            f"{rel(page)}: the page changed since this careful learner read it; read it again and write the code "
            f"as its words now say" for c in found if words(c.reads) not in flat]
