"""`ol`: the learner's local workflow on the site's own exercises, hidden tests and judge.

    ol start M07.6      put the starter at python/tinyllm/prob/rejection.py in your folder
    ol tests M07.6      the catalogue of hidden tests: what each checks and why it matters
    ol check M07.6      run the hidden tests on your file; the exit code is the verdict
    ol trace M07.6 EXPR one call of your function, line by line
    ol diff  M07.6      after a pass (or as the exercise allows): your code against the reference
    ol hint  M07.6      the next hint, once a check has failed
    ol diagnoses off    stop naming the known mistake a failing check looks like (on: name it again)
    ol list             every exercise and its status in this folder
    ol export FILE      your code and passes as the site's progress file (the progress page imports it)
    ol import FILE      the site's progress export: its code into python/..., nothing counted as passed
    ol class FOLDER     a teacher's class view of many progress files, every pass checked again (ol/classrun.py)

This file is the parser and the entry point; the commands are ol/commands.py, what they print ol/report.py, and
where the exercises and the learner's folder are ol/workspace.py. Exercises come from $TL_EXERCISES, else from
the course data packed in the `tinyllm-ol` wheel (ol/layout.py, written by tools/ol_wheel.py), else from the
`exercises/` folder of the checkout this package lives in. Every problem ends as a short message and a non-zero
exit, never as a traceback of `ol`.
"""
from __future__ import annotations

import argparse
import os
import sys

from course import manifest

from .commands import cmd_check, cmd_diagnoses, cmd_diff, cmd_export, cmd_hint, cmd_import, cmd_list, cmd_start, \
    cmd_tests, cmd_trace
from .classrun import add_parser as add_class
from .layout import EXERCISES_DIR, PACKAGED
from .report import BAD_INPUT, FAILED, OlError, say
from .workspace import build_info

EPILOG = """exit codes: 0 success (for check: every hidden test passed); 1 not passed, stopped, or refused;
2 bad input (unknown exercise, missing file, broken exercise data).
Exercise ids are accepted in any case and as E7.3, e7.3 or e7-3. Your folder is --dir, else the nearest folder
at or above the current one that holds .ol/ (ol start creates it), else the current folder.
Exercises are read from $TL_EXERCISES, the tinyllm-ol wheel, or the course checkout ol is installed from."""


def build_parser() -> argparse.ArgumentParser:
    """The argparse tree; `--help` on the command and every subcommand comes from here."""
    parser = argparse.ArgumentParser(
        prog="ol", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
        description="Work the tinyllm exercises in your own editor: the same starters, hidden tests and judge "
                    "as the site, offline.")
    info = build_info()
    source = info["site"] or ("the tinyllm-ol wheel" if (PACKAGED / EXERCISES_DIR).is_dir() else
                               f"the checkout at {manifest.REPO}")
    parser.add_argument("--version", action="version",
                        version=f"ol {info['version']} ({info['course']} exercises, from {source})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    folder = argparse.ArgumentParser(add_help=False)
    folder.add_argument("--dir", metavar="DIR", help="your working folder (default: see below)")
    ref_deps = argparse.ArgumentParser(add_help=False)
    ref_deps.add_argument("--ref-deps", action="store_true",
                          help="use the reference implementations of every exercise this one builds on")

    def command(name: str, summary: str, detail: str, func, parents=(folder,)) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=summary, description=detail, epilog=EPILOG, parents=list(parents),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        p.set_defaults(func=func)
        return p

    p = command("start", "put an exercise's starter into your folder",
                "Write the starter of an exercise at its path in your folder (M07.6: python/tinyllm/prob/"
                "rejection.py) and print where.\nExisting work is never overwritten without --force, which first "
                "copies it to .ol/backups/.", cmd_start)
    p.add_argument("id", help="exercise id, e.g. M07.6")
    p.add_argument("--force", action="store_true", help="replace your file with the starter (a backup is kept)")
    p = command("tests", "show the catalogue of hidden tests",
                "List the hidden tests of an exercise: name, kind, what it checks and why it matters.\n"
                "Read it before you start; the tests' source stays hidden.", cmd_tests, parents=())
    p.add_argument("id", help="exercise id, e.g. M07.6")
    p = command("check", "run the hidden tests on your file (exit code 0 = passed)",
                "Run the exercise's hidden tests on your file with the course's judge, in a fresh Python process\n"
                "with a time limit per test, print each outcome, and record a pass in .ol/progress.json.\n"
                "An exercise that builds on others (requires) uses your passed files of those, or with\n"
                "--ref-deps the reference implementations.", cmd_check, parents=(folder, ref_deps))
    p.add_argument("id", help="exercise id, e.g. M07.6")
    p = command("trace", "one call of your function, step by step",
                "Run your file as the site's Run does, then call EXPR (e.g. \"residual_distribution([0.5, 0.5],\n"
                "[0.25, 0.75])\") and print each line of your file it runs, with the call stack and the\n"
                "variables (numpy arrays with shape and dtype; * marks those that changed). Capped at 1000 steps;\n"
                "the exercise's time limit stops it, keeping the steps so far.", cmd_trace, parents=(folder, ref_deps))
    p.add_argument("id", help="exercise id, e.g. M07.6")
    p.add_argument("expr", help="the call to trace, in quotes")
    p = command("diff", "after a pass: your code against the reference",
                "Show a unified diff of your file against the reference solution: after your check has passed,\n"
                "or, where the exercise allows it, after enough failed checks and every hint (recorded; it\n"
                "never counts as a pass).", cmd_diff)
    p.add_argument("id", help="exercise id, e.g. M07.6")
    p.add_argument("--yes", action="store_true", help="before a pass: show the reference without asking")
    p = command("hint", "the next hint of an exercise, once a check has failed",
                "Print the next hint of an exercise (they go from a nudge to the decisive idea) and record it\n"
                "in .ol/progress.json, as the site does; --all prints the ones you have seen.", cmd_hint)
    p.add_argument("id", help="exercise id, e.g. M07.6")
    p.add_argument("--all", action="store_true", help="print every hint seen so far, revealing none")
    p = command("diagnoses", "turn the naming of known mistakes on or off",
                "After a failing check, ol names the known mistake your code looks like (from the course's\n"
                "mutants). `ol diagnoses off` stops that; `ol diagnoses on` brings it back.", cmd_diagnoses)
    p.add_argument("state", choices=["on", "off"])
    command("list", "every exercise and its status in your folder",
            "List every exercise with its kind, what it requires, and its status in your folder:\n"
            "not started, started, passed, or changed since pass.", cmd_list)
    p = command("export", "write your code and passes as the site's progress file",
                "Write the code of every exercise in your folder, and which of them passed here, in the format\n"
                "of the site's progress page, which imports it (each pass counts there once the page has\n"
                "checked the code itself).", cmd_export)
    p.add_argument("file", help="the file to write, e.g. progress.json")
    p.add_argument("--force", action="store_true", help="overwrite the file if it exists")
    p.add_argument("--name", metavar="NAME", help="the name a teacher's class view shows for this file (remembered "
                                                  "in .ol/; without it, asked once in a terminal)")
    p = command("import", "take the site's progress export into your folder",
                "Write the code from the site's progress export into python/... in your folder. Files that\n"
                "exist and differ are replaced only after you confirm (or with --force), each backed up to\n"
                ".ol/backups/ first. Nothing counts as passed until `ol check` has judged it.", cmd_import)
    p.add_argument("file", help="the exported file, e.g. tinyllm-progress-2026-12-01.json")
    p.add_argument("--force", action="store_true", help="replace differing files without asking (backups kept)")
    add_class(command)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `ol` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return BAD_INPUT
    try:
        return args.func(args)
    except OlError as exc:
        say(f"ol: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        say("ol: interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `ol tests X | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return FAILED
    except OSError as exc:  # a folder that is a file, a full disk, no permission: name the file
        where = f" ({exc.filename})" if exc.filename else ""
        say(f"ol: {exc.strerror or exc}{where}", file=sys.stderr)
        return BAD_INPUT
    except Exception as exc:  # noqa: BLE001 - a learner must never see a traceback of ol itself
        if os.environ.get("OL_DEBUG"):
            raise
        say(f"ol: internal error: {type(exc).__name__}: {exc}. This is a bug in ol, not in your code; please "
            f"report it with the command you ran (set OL_DEBUG=1 to see the traceback).", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
