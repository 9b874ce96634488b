"""Fuzzing budget and the count of cases run (printed at the end of the session, except with -q).

Default: a bounded run for CI (the whole fuzz + hostile suite well under 90 s on 2 cores),
deterministic (derandomized) so CI never fails at random on an old bug. A longer, random run:

    DRACTL_FUZZ_EXAMPLES=5000 python -m pytest tests/fuzz -q

(the number is the examples per fuzz test; DRACTL_FUZZ_SEED=N picks a seed). The campaign of
docs/decisions/0006-hostile-inputs.md (10,000 mutated inputs through the entry point, every command
and format, the hostile generators of fuzz_hostile.py included) is one command:

    DRACTL_FUZZ_EXAMPLES=2500 DRACTL_SWEEP=full python -m pytest tests/fuzz tests/hostile -q

(DRACTL_SWEEP=full: the wrong-type sweep of tests/hostile/test_type_confusion.py at every path of
the controllers' pod templates too). The CEL entry points have a coverage-guided target, run by
hand: `pip install atheris && python tests/fuzz/atheris_cel.py -max_total_time=600`.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from cli_harness import CASES  # noqa: E402


def pytest_terminal_summary(terminalreporter):
    # Said in the default and verbose modes; `pytest -q` prints nothing but progress and results.
    if CASES and terminalreporter.config.get_verbosity() >= 0:
        total = sum(CASES.values())
        detail = ", ".join(f"{k}: {v}" for k, v in sorted(CASES.items()))
        terminalreporter.write_line(f"dractl fuzz: {total} cases run ({detail})")
