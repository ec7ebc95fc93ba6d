"""Checks of a course's pages against its exercises and chapters, each mistake one `file:line: message`.

What no single page can know: that a manifest's `page` exists, that every page is reachable (in the nav, or a
lesson of a chapter), that a lesson page shows its code cell and its chapter's shared sections, that each numeric
prompt's tolerance takes an answer rounded as its question asks (or to the course's precision), that the sentence
each careful learner reads is still on its page. And what each page
knows: its widget errors, found by converting it with the site's own Markdown extensions (mdwidgets collects them
instead of raising). Used by the MkDocs hook (tools/mkdocs_hooks.py) during a build and by
`python -m authoring validate` without one.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from course import chapters as chapter_defs
from course import manifest, numeric
from course.manifest import rel

from . import careful


@dataclass(frozen=True)
class Course:
    """Where a course lives: the generator's config file, its pages and its exercise folders."""

    config_file: Path
    docs: Path
    exercises: Path


def _line(path: Path, key: str) -> int:
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if pattern.match(text):
            return number
    return 1


def _block_re(name: str, argument: str) -> re.Pattern:
    return re.compile(rf"^\s*/{{3,}}\s*{re.escape(name)}\s*\|\s*{argument}\s*$", re.M | re.I)


def structure_errors(course: Course, nav_pages: set[str] | None, only: set[str] | None = None) -> list[str]:
    """Pages, manifests and chapters that disagree. `nav_pages`: paths under docs/ listed in the nav, or left out
    of it on purpose (`not_in_nav`, outside_nav); None when the generator has no nav: reachability is then not
    checked. `only`: the pages (under docs/) to check, with their exercises and chapters; None: all. An exercise
    whose manifest does not load is left to its own error (validation names it), and the others are checked."""
    load_errors: list[str] = []
    exercises = manifest.load_all(course.exercises, load_errors)
    try:
        chapters = chapter_defs.load_chapters(course.exercises, exercises)
    except manifest.ManifestError as exc:
        return [*load_errors, str(exc)]
    errors = list(load_errors)
    pages = {p.relative_to(course.docs).as_posix() for p in course.docs.rglob("*.md")}
    if only is not None:
        exercises = {slug: ex for slug, ex in exercises.items() if ex.page in only}
        chapters = {cid: c for cid, c in chapters.items() if c.page in only or any(
            ex.id in c.lessons for ex in exercises.values())}
        errors = []  # a broken exercise is named by validation and by the widgets that name it (mdwidgets find)
    for ex in sorted(exercises.values(), key=lambda e: e.id):
        if ex.page not in pages:
            errors.append(f"{rel(ex.manifest)}:{_line(ex.manifest, 'page')}: page: {rel(course.docs / ex.page)} "
                          f"does not exist")
    for chapter in chapters.values():
        if chapter.page not in pages:
            errors.append(f"{rel(chapter.path)}:{_line(chapter.path, 'page')}: page: "
                          f"{rel(course.docs / chapter.page)} does not exist")
    decimals = course_decimals(course.exercises)
    by_id = manifest.Course.of(exercises).by_id
    lesson_pages = {by_id[i].page for c in chapters.values() for i in c.lessons if i in by_id}
    if nav_pages is not None:
        for page in sorted(pages - nav_pages - lesson_pages - (set() if only is None else pages - only)):
            errors.append(f"{rel(course.docs / page)}:1: this page is in neither the nav of "
                          f"{course.config_file.name} nor a chapter's lessons: add it to `nav:`, or its "
                          "exercise to a chapter (or, for a page left out on purpose, to `not_in_nav:`)")
    for ex in sorted(exercises.values(), key=lambda e: e.id):
        if ex.page not in pages:
            continue
        path = course.docs / ex.page
        text = path.read_text(encoding="utf-8")
        ident = re.escape(ex.id).replace(r"\.", "[.-]")
        if not _block_re("exercise", ident).search(text):
            errors.append(f"{rel(path)}:1: {ex.id}'s code cell is not on its page: add `/// exercise | {ex.id}`")
        errors += pitfall_errors(ex, path, text)
        errors += precision_errors(ex, path, text, decimals)
        errors += careful.reads_errors(ex, path, text)
        chapter = chapter_defs.chapter_of(ex.id, chapters)
        if chapter is None:
            continue
        if not _block_re("lesson", ident).search(text):
            errors.append(f"{rel(path)}:1: lesson {ex.id} does not say where it sits in {chapter.id}: add "
                          f"`/// lesson | {ex.id}` under its title")
        for section in chapter.shared:
            if not _block_re("chapter-section", rf"{chapter.id}\s+{re.escape(section.id)}").search(text):
                errors.append(f"{rel(path)}:1: lesson {ex.id} does not show {chapter.id}'s shared section "
                              f"{section.id!r}: add `/// chapter-section | {chapter.id} {section.id}`")
    return errors


def pitfall_errors(ex: manifest.Exercise, path: Path, text: str) -> list[str]:
    """A mutant whose pitfall starts with a number ("3. the residual ...") names a row of its page's pitfalls
    table, which a learner told "pitfall 3" is linked to: that row must carry the anchor `id="pitfall-3"`."""
    errors = []
    for mutant in ex.mutants:
        found = re.match(r"\s*(\d+)\.\s", mutant.pitfall)
        if found and not re.search(rf"""id=["']pitfall-{found.group(1)}["']""", text):
            errors.append(f"{rel(mutant.path)}:{manifest.line_of_field(mutant.path, 'pitfall')}: pitfall: names "
                          f"pitfall {found.group(1)} of {rel(path)}, which has no row with id=\"pitfall-"
                          f"{found.group(1)}\": start that row of its pitfalls table with "
                          f"<span id=\"pitfall-{found.group(1)}\"></span>")
    return errors


# ---- numeric prompts: the precision a question asks for, and the tolerance that must take it ----------------------

_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
_ASKED = re.compile(r"\b(\d+|" + "|".join(_NUMBER_WORDS) + r")\s+decimal(?:s|\s+places?)?\b", re.I)
_NUMERIC = re.compile(r"^\s*/{3,}\s*numeric\s*\|\s*(\S+)\s+(\S+)\s*$", re.I)
_END = re.compile(r"^\s*/{3,}\s*$")


def course_decimals(exercises: Path) -> int:
    """The precision a course's numeric prompts accept by default: course.toml's `decimals`, else the platform's
    (a course.toml that does not load is reported by validation)."""
    try:
        return manifest.course_defaults(exercises).get("decimals", numeric.DECIMALS)
    except manifest.ManifestError:
        return numeric.DECIMALS


def numeric_questions(text: str) -> dict[tuple[str, str], tuple[int, str]]:
    """Each `/// numeric | <id> <prompt>` block of a page: (exercise slug, prompt id) -> (line, its question)."""
    found, lines = {}, text.splitlines()
    for number, line in enumerate(lines, 1):
        match = _NUMERIC.match(line)
        if match:
            body = []
            for later in lines[number:]:
                if _END.match(later):
                    break
                body.append(later)
            found[(manifest.slug_of(match.group(1)), match.group(2))] = (number, "\n".join(body))
    return found


def asked_decimals(question: str) -> set[int]:
    """The precisions a question asks for in words: "to 3 decimals", "two decimal places"."""
    return {int(n) if n.isdigit() else _NUMBER_WORDS[n.lower()] for n in _ASKED.findall(question)}


def precision_errors(ex: manifest.Exercise, path: Path, text: str, default: int) -> list[str]:
    """A numeric prompt must accept its answer rounded to the decimals its question asks for, or else to the
    course's precision (`default`); a known wrong answer (`feedback`) must not count as right. AUTHORING.md,
    "Numeric prompts: the precision rule"."""
    errors, questions = [], numeric_questions(text)
    for prompt in ex.prompts:
        field = f"prompts[{prompt.index}]"
        line, question = questions.get((ex.slug, prompt.id), (0, ""))
        asked = sorted(asked_decimals(question))
        if len(asked) > 1:
            errors.append(f"{rel(path)}:{line}: `/// numeric | {ex.id} {prompt.id}` asks for "
                          f"{' and '.join(map(str, asked))} decimals: ask for one precision")
            continue
        decimals = asked[0] if asked else default
        refused = numeric.refused(prompt.answer, prompt.tolerance, decimals)
        if refused:
            target, typed = refused[0]
            why = (f"as {rel(path)}:{line} asks" if asked else "the course's precision" +
                   (f"; {rel(path)}:{line} asks for no other" if line else ""))
            errors.append(f"{rel(ex.manifest)}:{manifest.line_of_field(ex.manifest, field + '.tolerance')}: "
                          f"{field}.tolerance: {prompt.tolerance:g} refuses {typed:g}, the answer {target:g} "
                          f"rounded to {decimals} decimals ({why}): make it "
                          f"{numeric.tolerance_for(prompt.answer, decimals):g} or more, or ask for more decimals "
                          f"in the question")
        for j, known in enumerate(prompt.feedback):
            if numeric.all_close(list(known.answer), prompt.answer, prompt.tolerance):
                where = manifest.line_of_field(ex.manifest, f"{field}.feedback[{j}].answer")
                errors.append(f"{rel(ex.manifest)}:{where}: {field}.feedback[{j}].answer: "
                              f"{list(known.answer)} counts as the right answer under the tolerance "
                              f"{prompt.tolerance:g}, so its message is never shown")
    return errors


def widget_errors(course: Course, only: set[str] | None = None) -> list[str]:
    """Convert each page (or those under docs/ named in `only`) with the site's Markdown extensions and collect
    the widgets' errors, as the build would report them."""
    import markdown
    from mkdocs.config import load_config
    from mkdocs.utils.meta import get_data

    import mdwidgets
    from authoring import examples

    examples.install()
    config = load_config(str(course.config_file))
    configs = dict(config.mdx_configs)
    configs["mdwidgets"] = {**configs.get("mdwidgets", {}), "exercises": str(course.exercises), "errors": "collect"}
    mdwidgets.reset_cache()
    errors = []
    for path in sorted(course.docs.rglob("*.md")):
        uri = path.relative_to(course.docs).as_posix()
        if only is not None and uri not in only:
            continue
        raw = path.read_text(encoding="utf-8")
        text, _meta = get_data(raw)
        mdwidgets.set_source(rel(path), text, raw=raw, uri=uri)
        md = markdown.Markdown(extensions=config.markdown_extensions, extension_configs=configs)
        md.convert(text)
        errors += md.tl_page.errors
    return errors


def nav_pages(nav) -> list[str]:
    """Paths of the pages listed in a MkDocs `nav:` value (nested lists and dicts of titles to paths), in nav
    order, each once."""
    found: list[str] = []

    def walk(item):
        if isinstance(item, str):
            if item.endswith(".md") and item not in found:
                found.append(item)
        elif isinstance(item, dict):
            for value in item.values():
                walk(value)
        elif isinstance(item, list):
            for value in item:
                walk(value)

    walk(nav or [])
    return found


def outside_nav(config, docs: Path) -> set[str]:
    """Pages under `docs` that a MkDocs config's `not_in_nav` leaves out of the nav on purpose (the class page, a
    teacher's tool linked from the progress page; the author's course check): reachable by their address.."""
    spec = config.not_in_nav
    if not spec:
        return set()
    return {p.relative_to(docs).as_posix() for p in docs.rglob("*.md")
            if spec.match_file(p.relative_to(docs).as_posix())}


def course_of(config_file: Path) -> Course:
    """The course a MkDocs config file builds: its docs_dir and the widgets' exercises folder."""
    from mkdocs.config import load_config

    config = load_config(str(config_file))
    root = Path(config.config_file_path).parent
    folder = config.mdx_configs.get("mdwidgets", {}).get("exercises", "exercises")
    return Course(Path(config.config_file_path).resolve(), Path(config.docs_dir).resolve(),
                  (root / folder).resolve())


# A widget's error that only repeats its exercise's own: "docs/x.md:7: `/// numeric | E7.4 p`: exercises/...:38: ...".
_NESTED = re.compile(r"^\S+:\d+: `[^`]*`: (?P<inner>\S+:\d+: .*)$")


def collapse(errors: list[str]) -> list[str]:
    """Each mistake once: a widget error that wraps its exercise's error (a broken exercise.toml breaks every
    widget of its page) becomes that error, named at its own file and line, and repeats are dropped."""
    seen: dict[str, None] = {}
    for error in errors:
        match = _NESTED.match(error)
        seen.setdefault(match.group("inner") if match else error)
    return list(seen)


def check(config_file: Path, only: set[str] | None = None) -> list[str]:
    """Every page check of a course, for `checker validate` (no build needed); each mistake once."""
    from mkdocs.config import load_config

    course = course_of(config_file)
    config = load_config(str(config_file))
    listed = set(nav_pages(config.nav)) | outside_nav(config, course.docs) if config.nav is not None else None
    return collapse(structure_errors(course, listed, only) + widget_errors(course, only))
