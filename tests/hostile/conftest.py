"""tests/hostile shares the CLI harness with tests/fuzz (cli_harness.py)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fuzz"))
