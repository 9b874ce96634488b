"""The console script (dractl.cli.entry): what it does outside main()."""

from __future__ import annotations

import subprocess
import sys


def test_console_script_outside_main():
    """dractl.cli.entry: --version without the CLI library, Ctrl-C while it loads, exit codes."""
    def run(code: str, *args: str):
        return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                              timeout=60)

    fast = run("import sys; from dractl.cli.entry import entry; entry(); "
               "print('not reached')", "--version")
    assert fast.returncode == 0 and fast.stdout.startswith("dractl ") and "not reached" not in fast.stdout
    assert "typer" not in run("import sys; from dractl.cli.entry import entry; "
                              "import atexit; sys.argv[1:] = ['--version']; "
                              "import os; os._exit = lambda c: (print(sorted(sys.modules)), sys.exit(c)); entry()"
                              ).stdout
    interrupted = run("import dractl.cli.app as app\n"
                      "def boom(): raise KeyboardInterrupt\n"
                      "app.main = boom\n"
                      "from dractl.cli.entry import entry; entry()", "validate", "x")
    assert interrupted.returncode == 130, interrupted
    assert interrupted.stderr.strip() == "dractl: interrupted" and "Traceback" not in interrupted.stderr
