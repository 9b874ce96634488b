#!/usr/bin/env python3
"""Write completions/dractl.{bash,zsh,fish} from the dractl command tree.

    python scripts/gen_completions.py           # regenerate
    python scripts/gen_completions.py --check   # exit 1 when a committed script is stale

Run it after changing options, commands, finding codes or built-in inventories
(tests/cli/test_cli_completions.py fails until then).
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = {"bash": "dractl.bash", "zsh": "dractl.zsh", "fish": "dractl.fish"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report stale scripts")
    parser.add_argument("--dir", default=os.path.join(ROOT, "completions"))
    args = parser.parse_args(argv)
    sys.path.insert(0, ROOT)
    from dractl.cli.completion import render

    stale = []
    for shell, name in FILES.items():
        path = os.path.join(args.dir, name)
        text = render(shell)
        try:
            with open(path, encoding="utf-8", newline="") as fh:
                current = fh.read()
        except FileNotFoundError:
            current = None
        if current == text:
            continue
        stale.append(path)
        if not args.check:
            os.makedirs(args.dir, exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(text)
            print(f"wrote {os.path.relpath(path, ROOT)}")
    if args.check and stale:
        for path in stale:
            print(f"stale: {os.path.relpath(path, ROOT)} (run python scripts/gen_completions.py)",
                  file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
