"""Suite-wide: the pytest summary says when tests were skipped because the third-party
real-world corpus is absent (a fresh clone has no ../shared/realworld), so a green run never
hides that part of the suite did not run."""

from __future__ import annotations

from realworld_corpus import REALWORLD, SKIP_REASON


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if SKIP_REASON in _reason(r)]
    if not skipped:
        return
    terminalreporter.write_sep("=", "realworld corpus", yellow=True)
    terminalreporter.write_line(
        f"{len(skipped)} test(s) skipped: {SKIP_REASON} at {REALWORLD}. It is the set of public DRA "
        "manifests described in README.md (Tests); point DRACTL_REALWORLD at a copy to run them. "
        "Under CI=true these tests fail instead.")


def _reason(report) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr)
