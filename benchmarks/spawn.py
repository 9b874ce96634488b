"""Run a command as the child of this small process and report its own time and peak memory.

    python benchmarks/spawn.py REPORT_FILE COMMAND [ARG...]

Writes "WALL_SECONDS CPU_SECONDS PEAK_RSS" (ru_maxrss: KiB on Linux) to REPORT_FILE and exits
as the command did (re-raising a fatal signal). Linux carries a process's peak RSS across
exec(): a command started straight from a big process (the benchmark runner holding generated
scenarios, pytest after a thousand tests) reports that process's size as its own. Started from
here, it starts small. Used by benchmarks/runner.py and tests/fuzz/cli_harness.py.

A script, not an import: the caller runs it by path, before anything heavy is loaded.
"""

import os
import signal
import sys
import time


def main() -> None:
    report, command = sys.argv[1], sys.argv[2:]
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(command[0], command)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    with open(report, "w") as out:
        out.write(f"{wall} {usage.ru_utime + usage.ru_stime} {usage.ru_maxrss}")
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code)


if __name__ == "__main__":
    main()
