"""Scaffold a lesson or a module: the page, the exercise folder and the nav entry, valid from the first minute.

    make new ID=E7.4 KIND=lesson TITLE="Acceptance rate" [CHAPTER=E7] [REQUIRES="M07.6"] [MILESTONE=MS-P6]
    python -m authoring.scaffold --id E7.4 --kind lesson --title "Acceptance rate" [--chapter E7] [--requires M07.6]

Writes, for E7.4 in chapter E7:
    exercises/e7-4/exercise.toml       manifest with a catalogue of two tests
    exercises/e7-4/starter.py          fails the hidden tests (raises NotImplementedError)
    exercises/e7-4/reference.py        passes them
    exercises/e7-4/tests/test_<name>.py  two real tests
    exercises/e7-4/mutants/<name>.toml one mutant, caught by the first test, named as pitfall 1 of the page
    exercises/e7-4/alternatives/       a second correct solution with the mutant's mistake injected (the corpus)
    docs/e7/<title>.md                 the page: lesson header, objectives, predict-first question and its reveal,
                                       a numeric prompt, the code cell, a check question, the pitfalls table and
                                       the chapter's shared sections (a module's page: its code cell and catalogue)
and adds the lesson to `lessons` in exercises/chapters/e7.toml (creating the chapter, its overview page and
nav section when the chapter is new) and the page to mkdocs.yml's nav. A module goes under the "Modules" nav
section and shows on the module map of what it requires. Then it validates what it wrote.

Refuses, with one line each and nothing written: a malformed id, an id that exists, an unknown requirement, a
chapter that does not match a lesson's id.
"""
from __future__ import annotations

import argparse
import re
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from course import chapters as chapter_defs
from course import manifest

REPO = Path(__file__).resolve().parent.parent
ID_FORMAT = re.compile(r"^([A-Z]+[0-9]+)\.([0-9]+)$")


class ScaffoldError(Exception):
    """Why nothing was written; one line."""


@dataclass(frozen=True)
class Plan:
    """Everything the scaffold will write, computed and checked before any file is touched."""

    files: dict[Path, str]
    chapter_edit: tuple[Path, str] | None
    nav_text: str


def _snake(title: str) -> str:
    words = re.findall(r"[a-z0-9]+", title.lower())
    name = "_".join(words)[:40].strip("_") or "exercise"
    return name if not name[0].isdigit() else f"x_{name}"


def _kebab(title: str) -> str:
    return _snake(title).replace("_", "-")


def _toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def exercise_files(ident: str, kind: str, title: str, requires: list[str], learner_path: str, page: str,
                   deps: dict[str, manifest.Exercise], milestone: str = "") -> dict[str, str]:
    """The exercise folder's files, relative to the folder."""
    module = manifest.module_of(learner_path)
    test_name = _snake(title)
    lesson_parts = LESSON_PARTS if kind == "lesson" else ""
    uses = "".join(f"# It builds on {r} ({deps[r].title}): `import {deps[r].module}` to use it.\n" for r in requires)
    manifest_text = f"""\
id = "{ident}"
title = {_toml_string(title)}
kind = "{kind}"
page = "{page}"
requires = [{", ".join(f'"{r}"' for r in requires)}]
time_limit = 10
{f'milestone = "{milestone}"' if milestone else '# milestone = "MS-P6"   # the module map and gate it counts towards'}
{LESSON_SETUP if kind == "lesson" else ""}
[code]
path = "{learner_path}"
starter = "starter.py"
reference = "reference.py"
tests = "tests/test_{test_name}.py"

# The catalogue: one entry per hidden test, in the order learners see them.
[[tests]]
name = "test_scale_small_list"
kind = "unit"
checks = "scale([1, 2.5], 2) is [2.0, 5.0]"
why = "the basic contract: every element, multiplied, as floats"

[[tests]]
name = "test_scale_keeps_the_input"
kind = "property"
checks = "scale leaves its argument unchanged"
why = "callers reuse their lists; a function that edits its input breaks them silently"

# Hints for a learner who is stuck, offered one at a time after a failed check: from a nudge to the decisive
# idea (Markdown, maths allowed). The reference is shown after a pass (exercises/course.toml); to allow it
# sooner, write `reveal = {{ after-attempts = 5 }}` above [code].
[[hints]]
text = "Read the catalogue: which element does the first test miss?"

[[hints]]
text = "Build a new list with one float per element of `xs`, each multiplied by `factor`."
{lesson_parts}"""
    reference = f'''\
"""{ident} {title}: the reference solution. Replace this example with the exercise's real code."""
{uses}

def scale(xs, factor):
    """Every number of `xs` multiplied by `factor`, as a new list of floats."""
    return [float(x) * factor for x in xs]
'''
    starter = f'''\
"""{ident} {title}. Write the functions below; Ctrl/Cmd+Enter runs the hidden tests."""
{uses}

def scale(xs, factor):
    """Every number of `xs` multiplied by `factor`, as a new list of floats."""
    raise NotImplementedError("scale(xs, factor)")
'''
    tests = f'''\
"""Hidden tests of {ident}. Each assertion message is what the learner reads."""
import {module} as sol


def test_scale_small_list():
    got = sol.scale([1, 2.5], 2)
    assert got == [2.0, 5.0], f"scale([1, 2.5], 2) should be [2.0, 5.0], got {{got!r}}"


def test_scale_keeps_the_input():
    xs = [1.0, 2.0, 3.0]
    sol.scale(xs, 3)
    assert xs == [1.0, 2.0, 3.0], f"scale changed its input list to {{xs!r}}"
'''
    # The pitfall is what a learner reads when their failing check fails exactly as this mutant does
    # (checker/diagnosis.py); "N. ..." names row N of the page's pitfalls table (AUTHORING.md).
    pitfall = ("1. " if kind == "lesson" else "") + "an off-by-one slice loses the first element without raising"
    mutant = f'''\
description = "drops the first element"
pitfall = "{pitfall}"
fails = "test_scale_small_list"

[[edit]]
find = "return [float(x) * factor for x in xs]"
replace = "return [float(x) * factor for x in xs[1:]]"
'''
    # The diagnosis corpus (AUTHORING.md): a correct solution written unlike the reference, with every
    # mutant's mistake injected into it again, so the diagnosis is measured on code it was not built from.
    alternative = f'''\
"""{ident} {title}, written unlike the reference (a loop): a correct solution for the diagnosis corpus.
Write two or more, as a capable learner would from the page alone; alternatives/<name>/ injects each mutant."""
{uses}

def scale(xs, factor):
    out = []
    for x in xs:
        out.append(float(x) * factor)
    return out
'''
    injected = '''\
description = "the loop skips the first element"
mirrors = "drops-first"

[[edit]]
find = "    for x in xs:"
replace = "    for x in xs[1:]:"
'''
    return {"exercise.toml": manifest_text, "reference.py": reference, "starter.py": starter,
            f"tests/test_{test_name}.py": tests, "mutants/drops-first.toml": mutant,
            "alternatives/loop.py": alternative, "alternatives/loop/drops-first.toml": injected}


# What every lesson has besides its code (issue 40's list): a numeric prompt, a predict-first question and a
# check question; the page places each (lesson_page). Replace the examples with the lesson's own.
LESSON_SETUP = '''
# Values shared by the numeric prompts' `expr`, evaluated in the reference module's namespace.
prompt_setup = """
XS = [1, 2.5]
"""
'''
LESSON_PARTS = '''
# A numeric prompt: validation proves `answer` equals `expr` computed with the reference.
[[prompts]]
id = "scaled"
answer = [2, 5]
expr = "scale(XS, 2)"
tolerance = 1e-9        # wide enough for the answer rounded to the course's decimals (AUTHORING.md): exact here
explain = "Each element times 2: 1 × 2 = **2** and 2.5 × 2 = **5**."

[[prompts.feedback]]    # one per wrong answer a learner would plausibly type: each pitfall gives one
answer = [5]
message = "That drops the first element (pitfall 1): every element is scaled, the first one too."

# The predict-first question: the learner commits an answer before the page reveals the idea.
[[choices]]
id = "predict"
kind = "predict"

[[choices.options]]
key = "A"
text = "Yes"
feedback = "A natural guess; the section below shows why not."

[[choices.options]]
key = "B"
text = "No"
correct = true
feedback = "Right; the section below shows why."

# The check of understanding, after the code; it may show what the learner predicted.
[[choices]]
id = "check"
kind = "check"
shows_prediction = "predict"

[[choices.options]]
key = "A"
text = "Yes"
feedback = "Why each option is wrong, in a sentence."

[[choices.options]]
key = "B"
text = "No"
correct = true
feedback = "Why it is right, in a sentence."
'''


def lesson_page(ident: str, title: str, chapter: chapter_defs.Chapter | None, chapter_id: str) -> str:
    shared = "".join(f"\n/// chapter-section | {chapter_id} {s.id}\n///\n" for s in (chapter.shared if chapter else ()))
    return f"""\
---
title: {_toml_string(f"{ident} {title}")}
---

# {title}

/// lesson | {ident}
///

**Objectives.** What the learner can do after this lesson.

## The idea

Write the lesson here (AUTHORING.md, section 2, lists the widgets; `/// pycell` runs an example).

/// choice | {ident} predict
**Predict first.** Does scaling a list change how many elements it has?
///

/// reveal | {ident} predict
Shown once the learner has committed a prediction: the idea, with a table or worked numbers.
///

## Try it yourself

/// numeric | {ident} scaled
**To do.** Scale [1, 2.5] by 2. Type the result (2 numbers).
///

/// exercise | {ident}
Press **Ctrl/⌘ + Enter** to run your code against the hidden tests; **Shift + Enter** only runs it.
///

## Check your understanding

/// choice | {ident} check
Does scaling a list change how many elements it has?
///

## Pitfalls

Each row is a mistake a mutant makes (`mutants/*.toml`, its `pitfall` starts with the row's number); a learner
whose check fails like that mutant is sent to the row.

| pitfall | what goes wrong | caught by |
|---|---|---|
| <span id="pitfall-1"></span>1. slicing off the first element | one element fewer, no error | `test_scale_small_list` |
{shared}"""


def module_page(ident: str, title: str, requires: list[str]) -> str:
    needs = ", ".join(requires) if requires else "nothing before it"
    return f"""\
---
title: {_toml_string(f"{ident} {title}")}
---

# {ident} {title}

**Needs:** {needs}.

## What you build

Describe the module here (see AUTHORING.md for the widgets).

/// exercise | {ident}
Press **Ctrl/⌘ + Enter** to run your code against the hidden tests; **Shift + Enter** only runs it.
///

## The hidden tests

/// tests | {ident}
///
"""


def chapter_page(chapter_id: str) -> str:
    return f"""\
---
title: "Chapter {chapter_id}"
---

# Chapter {chapter_id}

/// chapter | {chapter_id}
The lessons of this chapter, in reading order.
///
"""


def _nav_insert(nav_text: str, after_page: str | None, entry: str, section: str) -> str:
    """mkdocs.yml with `entry` (a nav line's text without indentation) added: after the nav line of
    `after_page` at the same indentation, or at the end of the section titled `section`, or a new section."""
    lines = nav_text.splitlines(keepends=True)
    if after_page:
        for i, line in enumerate(lines):
            if re.search(rf":\s*{re.escape(after_page)}\s*$", line):
                indent = line[: len(line) - len(line.lstrip())]
                return "".join(lines[: i + 1] + [f"{indent}- {entry}\n"] + lines[i + 1:])
    for i, line in enumerate(lines):
        if re.match(rf'^\s*-\s*"?{re.escape(section)}"?\s*:\s*$', line):
            indent = len(line) - len(line.lstrip())
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
                j += 1
            child = " " * (indent + 4)
            return "".join(lines[:j] + [f"{child}- {entry}\n"] + lines[j:])
    raise ScaffoldError(f"mkdocs.yml: nav: no section {section!r} and no page to add {entry!r} after; "
                        "add the nav entry by hand")


def _new_section(nav_text: str, title: str, entries: list[str]) -> str:
    """A new top-level nav section, placed before "Modules" (or at the end of the nav)."""
    lines = nav_text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if re.match(r"^nav:\s*$", line)), None)
    if start is None:
        raise ScaffoldError("mkdocs.yml: no `nav:`; add the page to the navigation by hand")
    block = [f'  - "{title}":\n'] + [f"      - {e}\n" for e in entries]
    for i in range(start + 1, len(lines)):
        if re.match(r'^  - "?Modules"?\s*:', lines[i]) or (lines[i].strip() and not lines[i].startswith(" ")):
            return "".join(lines[:i] + block + lines[i:])
    return "".join(lines + ([] if nav_text.endswith("\n") else ["\n"]) + block)


def plan(ident: str, kind: str, title: str, chapter_id: str | None, requires: list[str], config: Path,
         exercises_root: Path, docs: Path, milestone: str = "") -> Plan:
    """Check the request against the course and compute every file; raises ScaffoldError, writes nothing."""
    ident = ident.strip()
    match = ID_FORMAT.match(ident)
    if not match:
        raise ScaffoldError(f"ID {ident!r} is malformed: expected a chapter or module group and a number, like "
                            "E7.4 or M08.1")
    if kind not in manifest.KINDS:
        raise ScaffoldError(f"KIND {kind!r} must be lesson or module")
    if not title.strip():
        raise ScaffoldError('TITLE is empty: give the exercise a title, like TITLE="Acceptance rate"')
    exercises = manifest.load_all(exercises_root)
    chapters = chapter_defs.load_chapters(exercises_root, exercises)
    by_id = exercises.by_id
    slug = manifest.slug_of(ident)
    if ident in by_id or (exercises_root / slug).exists():
        raise ScaffoldError(f"{ident} exists already: {manifest.rel(exercises_root / slug)}")
    unknown = [r for r in requires if r not in by_id]
    if unknown:
        raise ScaffoldError(f"unknown requirement {unknown[0]!r} (known: {', '.join(sorted(by_id))})")
    if milestone and not manifest.MILESTONE_RE.match(milestone):
        raise ScaffoldError(f"MILESTONE {milestone!r} is malformed: expected like MS-P6")
    group = match.group(1)
    folder = group.lower()
    chapter = None
    if kind == "lesson":
        chapter_id = (chapter_id or group).strip()
        if chapter_id != group:
            raise ScaffoldError(f"CHAPTER {chapter_id} does not match the lesson id {ident} (a lesson of "
                                f"{chapter_id} is {chapter_id}.N)")
        chapter = chapters.get(chapter_id)
    elif chapter_id:
        raise ScaffoldError("CHAPTER is for lessons; a module is placed by REQUIRES on the module map")
    stem = _kebab(title)
    page = f"{folder}/{stem}.md"
    if (docs / page).exists():
        raise ScaffoldError(f"{manifest.rel(docs / page)} exists already; choose another TITLE")
    learner = (f"python/tinyllm/lessons/{_snake(title)}.py" if kind == "lesson"
               else f"python/tinyllm/{folder}/{_snake(title)}.py")
    taken = {e.learner_path: e.id for e in exercises.values()}
    if learner in taken:
        raise ScaffoldError(f"{learner} is already the file of {taken[learner]}; choose another TITLE")
    files = {exercises_root / slug / name: text
             for name, text in exercise_files(ident, kind, title, requires, learner, page, by_id,
                                                      milestone).items()}
    nav_text = config.read_text(encoding="utf-8")
    entry = f'"{ident} {title}": {page}'
    chapter_edit = None
    if kind == "lesson":
        files[docs / page] = lesson_page(ident, title, chapter, chapter_id)
        if chapter is None:
            chapter_file = exercises_root / chapter_defs.FOLDER / f"{chapter_id.lower()}.toml"
            files[chapter_file] = (f'id = "{chapter_id}"\ntitle = "Chapter {chapter_id}"\npage = "{folder}/index.md"\n'
                                   f'lessons = ["{ident}"]\n')
            if not (docs / folder / "index.md").exists():
                files[docs / folder / "index.md"] = chapter_page(chapter_id)
            nav_text = _new_section(nav_text, f"{chapter_id} Chapter {chapter_id}",
                                    [f'"Chapter overview": {folder}/index.md', entry])
        else:
            if ident not in chapter.lessons:
                chapter_edit = (chapter.path, _add_lesson(chapter.path.read_text(encoding="utf-8"), ident))
            position = chapter.number(ident) if ident in chapter.lessons else len(chapter.lessons) + 1
            before = [by_id[i].page for i in chapter.lessons[: position - 1] if i in by_id]
            nav_text = _nav_insert(nav_text, before[-1] if before else chapter.page, entry, "")
    else:
        files[docs / page] = module_page(ident, title, requires)
        modules = sorted((e for e in exercises.values() if e.kind == "module"), key=lambda e: e.id)
        before = [e.page for e in modules if e.id < ident]
        nav_text = _nav_insert(nav_text, before[-1] if before else "modules.md", entry, "Modules")
    _check_yaml(nav_text, config)
    return Plan(files, chapter_edit, nav_text)


def _check_yaml(text: str, config: Path) -> None:
    """Refuse to write a config file that would no longer parse (a nav this scaffold could not follow)."""
    import yaml

    try:
        yaml.safe_load(text)
    except yaml.constructor.ConstructorError:
        pass  # a tag such as !!python/name: safe_load does not know; the structure itself parsed
    except yaml.YAMLError as exc:
        raise ScaffoldError(f"{config.name}: adding the nav entry would break the file ({exc.problem}); add it "
                            "by hand") from None


def _add_lesson(text: str, ident: str) -> str:
    """A chapter definition with `ident` appended to its `lessons` list (the list may span lines)."""
    match = re.search(r"^lessons\s*=\s*\[(.*?)\]", text, re.M | re.S)
    if not match:
        raise ScaffoldError("chapter definition has no `lessons = [...]` to add to")
    items = match.group(1).rstrip().rstrip(",")
    joined = f'{items}, "{ident}"' if items.strip() else f'"{ident}"'
    return text[: match.start(1)] + joined + text[match.end(1):]


def write(p: Plan, config: Path) -> list[Path]:
    written = []
    for path, text in p.files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    if p.chapter_edit:
        p.chapter_edit[0].write_text(p.chapter_edit[1], encoding="utf-8")
        written.append(p.chapter_edit[0])
    config.write_text(p.nav_text, encoding="utf-8")
    written.append(config)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make new", description="Scaffold a lesson or a module (see AUTHORING.md).")
    parser.add_argument("--id", required=True, help="like E7.4 (lesson 4 of chapter E7) or M08.1")
    parser.add_argument("--kind", required=True, choices=manifest.KINDS)
    parser.add_argument("--title", required=True)
    parser.add_argument("--chapter", default="", help="a lesson's chapter (default: from its id)")
    parser.add_argument("--requires", default="", help="ids this exercise's code imports, comma or space separated")
    parser.add_argument("--milestone", default="", help="a module's milestone gate, like MS-P6 (module map)")
    parser.add_argument("--config", type=Path, default=REPO / "mkdocs.yml")
    parser.add_argument("--no-validate", action="store_true", help="skip validating what was written")
    args = parser.parse_args(argv)
    from authoring.pages import course_of

    from mkdocs.exceptions import ConfigurationError

    try:
        course = course_of(args.config)
    except (ConfigurationError, OSError) as exc:
        print(f"make new: {args.config}: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    requires = [r for r in re.split(r"[,\s]+", args.requires.strip()) if r]
    try:
        p = plan(args.id, args.kind, args.title, args.chapter or None, requires, args.config, course.exercises,
                 course.docs, args.milestone.strip())
    except (ScaffoldError, manifest.ManifestError) as exc:
        print(f"make new: {exc}", file=sys.stderr)
        return 2
    for path in write(p, args.config):
        print(f"wrote {manifest.rel(path)}")
    if args.no_validate:
        return 0
    from authoring import validate
    from authoring import pages

    _reports, errors = validate.validate_all([args.id], root=course.exercises)
    errors = pages.collapse(errors + pages.check(args.config))
    for error in errors:
        print(error, file=sys.stderr)
    if errors:
        return 1
    print(textwrap.dedent(f"""\
        {args.id} validates. Next: `make preview` and open its page; edit the files above (AUTHORING.md says
        what each holds); `make validate` checks them, `make build` builds the site."""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
