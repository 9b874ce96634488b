"""A format added the documented way (one module + one registry line), for
tests/cli/test_cli_format_registry.py: `-o names`, one `Kind namespace/name` line per document."""

from __future__ import annotations


def report(result, view) -> str:
    lines = []
    for d in result.docs:
        obj = f"{d.namespace}/{d.name}" if d.namespace else d.name
        lines.append(f"{d.kind} {obj}")
    return "".join(line + "\n" for line in lines)
