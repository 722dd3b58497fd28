"""The old name of :mod:`trap_scripts.train` (``trap-train``), kept for scripts that run it."""

import sys

from trap_scripts.train import main

if __name__ == "__main__":
    sys.exit(main())
