"""`python -m checker validate ...`: see checker/validate.py (`ol` is the learners' command, checker/ol.py)."""
import argparse
import sys

from . import validate


def parser() -> argparse.ArgumentParser:
    """The command line: one subcommand today, so `python -m checker --help` says what there is."""
    top = argparse.ArgumentParser(prog="python -m checker", description="Authoring tools for the exercises.")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = commands.add_parser(
        "validate", help="prove exercises consistent (reference passes, starter fails, mutants caught, ...)",
        description="Prove exercises consistent: every file compiles, the reference passes every hidden test in "
                    "several fresh processes with the same outcome each time, the starter fails, each mutant "
                    "fails the test it names, prompt answers equal what the reference computes, and the suite "
                    "fits its time_limit in the browser. Problems are printed as path:line: message.")
    validate.add_arguments(check)
    return top


if __name__ == "__main__":
    args = parser().parse_args()
    sys.exit(validate.main(args))
