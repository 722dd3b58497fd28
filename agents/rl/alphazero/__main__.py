"""``python -m agents.rl.alphazero``: the same as ``trap-train alphazero``."""

import sys

from agents.rl.alphazero.cli import main

sys.exit(main())
