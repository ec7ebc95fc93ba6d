"""`python -m authoring validate ...`: see authoring/validate.py (`ol` is the learners' command, ol/cli.py)."""
import argparse
import sys
from pathlib import Path

from course import manifest

from . import validate


def parser() -> argparse.ArgumentParser:
    """The command line: one subcommand today, so `python -m authoring --help` says what there is."""
    top = argparse.ArgumentParser(prog="python -m authoring", description="Authoring tools for the exercises.")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = commands.add_parser(
        "validate", help="prove exercises consistent (reference passes, starter fails, mutants caught, ...)",
        description="Prove exercises consistent: every file compiles, the reference passes every hidden test in "
                    "several fresh processes with the same outcome each time, the starter fails, each mutant "
                    "fails the test it names, prompt answers equal what the reference computes, and the suite "
                    "fits its time_limit in the browser. Problems are printed as path:line: message.")
    validate.add_arguments(check)
    check.add_argument("--config", type=Path, metavar="FILE", help="the site's config, whose pages are checked "
                       "too (default: mkdocs.yml next to the exercises folder); pages can be named as IDs, "
                       "like docs/e7/rejection-correction.md")
    check.add_argument("--no-pages", action="store_true", help="check exercises only, not the pages")
    return top


def check_pages(args: argparse.Namespace, root: Path, page_args: list[str]) -> int:
    """Every page check of the site (authoring/pages.py), or those of the named exercises' and pages' pages."""
    config = args.config or root.resolve().parent / "mkdocs.yml"
    if not config.is_file():
        if args.config or page_args:
            print(f"{config}: no such file, so no page can be checked", file=sys.stderr)
            return 1
        return 0
    from authoring import pages  # the build's page checks (Markdown, widgets, links): imported only when pages are checked
    course = pages.course_of(config)
    only = None
    if args.ids or page_args:
        exercises = manifest.load_all(course.exercises, [])
        only = {Path(p).resolve().relative_to(course.docs).as_posix() if Path(p).resolve().is_relative_to(course.docs)
                else p for p in page_args}
        only |= {e.page for key in args.ids for e in [exercises.get(manifest.slug_of(key))] if e}
    errors = pages.check(config, only)
    if args.ids or not page_args:  # validation ran and named each broken exercise file already
        errors = [e for e in errors if e not in getattr(args, "reported", ())]
    checked = "every page" if only is None else f"{len(only)} page{'s' if len(only) != 1 else ''}"
    print(f"pages: {'FAILED' if errors else 'ok'} ({checked} of {manifest.rel(config)})")
    for line in errors:
        print(line, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    args = parser().parse_args()
    page_args = [a for a in args.ids if a.endswith(".md")]
    args.ids = [a for a in args.ids if not a.endswith(".md")]
    code = validate.main(args) if args.ids or not page_args else 0
    if not args.no_pages and not args.json and code != 2:
        code = max(code, check_pages(args, args.root or manifest.EXERCISES, page_args))
    sys.exit(code)
