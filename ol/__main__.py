"""`python -m ol`: the same as the `ol` command."""
import sys

from ol.cli import main

sys.exit(main())
