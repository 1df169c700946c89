"""python -m bawo.sim ...: the same as bawo sim ..."""

import sys

from bawo.cli import main

sys.exit(main(["sim"] + sys.argv[1:]))
