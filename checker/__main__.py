"""`python -m checker validate ...`: see checker/validate.py."""
import sys

from . import validate

USAGE = "usage: python -m checker validate [ID ...] [--json] [--cache DIR]"

if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0] != "validate":
        print(USAGE, file=sys.stderr)
        sys.exit(2)
    sys.exit(validate.main(args[1:]))
