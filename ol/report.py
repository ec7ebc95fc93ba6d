"""What `ol` prints: its text wrapped to the terminal, the judge's verdict of a check test by test, the learner's
output, a stopped check, and the known mistake a failure looks like. Nothing here judges or decides; the
commands (ol/commands.py) call it with the judge's result.
"""
from __future__ import annotations

import re
import shutil
import sys
import textwrap
from pathlib import Path

from checker import diagnosis
from course.model import Exercise

from . import checkrun
from .errors import BAD_INPUT, FAILED, OlError  # noqa: F401 - the commands take them from here too

WIDTH = 100
OUTPUT_LINES = 40  # lines of the learner's own printed output shown after a check


def width() -> int:
    """Terminal width, at most WIDTH columns, so text stays readable in a wide window too."""
    return max(60, min(WIDTH, shutil.get_terminal_size((WIDTH, 24)).columns))


def say(text: str = "", *, indent: str = "", hang: int = 0, file=None) -> None:
    """Print `text` wrapped to the terminal, keeping its own line breaks; `hang` indents continuation lines."""
    out = file or sys.stdout
    # A command in backticks is one unit: keep it on one line so it can be copied.
    glued = re.sub(r"`[^`\n]*`", lambda m: m.group(0).replace(" ", "\0"), text)
    for line in glued.split("\n"):
        wrapped = textwrap.wrap(line, width(), initial_indent=indent, subsequent_indent=indent + " " * hang,
                                break_long_words=False, break_on_hyphens=False)
        for part in wrapped or [""]:
            print(part.rstrip().replace("\0", " "), file=out)


def shown(path: Path) -> str:
    """`path` relative to the current directory when it is below it, else absolute."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve())) or "."
    except ValueError:
        return str(path)


def place(folder: Path) -> str:
    """A folder as a sentence can name it: "this folder" for the current one."""
    where = shown(folder)
    return "this folder" if where == "." else where


def learner_paths(text: str, exercises: dict[str, Exercise]) -> str:
    """Show files under the names the learner knows (python/tinyllm/...), not the judge's import paths."""
    for e in exercises.values():
        text = re.sub(r'(File "|of )' + re.escape(e.import_path) + r'\b', r"\g<1>" + e.learner_path, text)
    return text


def stopped_message(ex: Exercise, outcome: checkrun.Outcome) -> str:
    limit = f"{ex.time_limit:g} s"
    seconds = f"stopped after {outcome.elapsed:.0f} s"
    why = ("and could not be interrupted: for example a long call into C code (numpy on a huge array), or a "
           "loop that catches every exception, even the one that stops it.")
    if outcome.stopped == "import":
        return (f"{ex.id}: {seconds} while importing {ex.learner_path}: the code at the top level of your file "
                f"ran past the {limit} limit {why}")
    if outcome.stopped == "test":
        return (f"{ex.id}: {seconds} in {outcome.test}: it ran past the {limit} limit per test {why} "
                f"The remaining tests did not run.")
    if outcome.stopped == "collect":
        return (f"{ex.id}: {seconds} while the hidden tests were loading (they import your module's names) "
                f"{why}")
    if outcome.stopped == "boot":
        return f"{ex.id}: {seconds}: the checker's Python did not start (is the machine very busy?)."
    return f"{ex.id}: {seconds}: the check as a whole took far longer than {limit} per test {why}"


def print_tests(result: dict, exercises: dict[str, Exercise]) -> None:
    for test in result["tests"]:
        label = {"passed": "passed", "failed": "FAILED"}.get(test["outcome"], "ERROR")
        say(f"  {label:7} {test['name']}")
        if test["outcome"] != "passed" and test.get("message"):
            say(learner_paths(test["message"], exercises), indent=" " * 10)


def print_output(stdout: str) -> None:
    lines = stdout.rstrip("\n").splitlines()
    if not lines:
        return
    print("\nYour code printed:")
    for line in lines[:OUTPUT_LINES]:
        print("  | " + line)
    if len(lines) > OUTPUT_LINES:
        print(f"  | ... {len(lines) - OUTPUT_LINES} more lines")


def print_diagnosis(ex: Exercise, result: dict, mistakes: list[dict]) -> None:
    """Under the test list: the known mistakes the failure looks like, as the site shows them."""
    found = diagnosis.diagnose(result, mistakes)
    if not found:
        return
    say("\nThis looks like a known mistake:" if len(found) == 1 else "\nThis looks like one of these known mistakes:")
    for item in found:
        text = "; or: ".join([item["pitfall"], *item.get("also", [])])
        say(f"- pitfall {item['number']}: {text}" if item.get("number") else f"- {text}", indent="  ", hang=2)
    if any(item.get("number") for item in found):
        say(f"(Pitfall numbers are the rows of the Pitfalls table on {ex.id}'s page.)", indent="  ")
    say("(`ol diagnoses off` stops naming known mistakes.)", indent="  ")


_TEX = {r"\le": "≤", r"\ge": "≥", r"\ne": "≠", r"\dots": "…", r"\cdot": "·", r"\,": " ", r"\alpha": "α",
        r"\max": "max", r"\min": "min", r"\sum": "Σ", r"\times": "×", r"\lvert": "|", r"\rvert": "|"}


def plain(markdown: str) -> str:
    r"""A hint's Markdown as terminal text: paragraphs unwrapped (say() wraps them again), maths without its
    dollars and with the few TeX commands hints use as symbols (`$u \le r$` -> `u ≤ r`)."""
    def maths(found: re.Match) -> str:
        text = found.group(1)
        for command, symbol in _TEX.items():
            text = re.sub(re.escape(command) + r"(?![A-Za-z])", symbol, text)
        return re.sub(r"\^\{([^{}]*)\}", r"^\1", text).replace("{", "").replace("}", "")
    text = re.sub(r"\$([^$]+)\$", maths, markdown.strip())
    return "\n\n".join(" ".join(part.split()) for part in re.split(r"\n\s*\n", text))
