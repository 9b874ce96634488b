"""Size limits of dractl/: no class over 500 lines, no function over 80 lines (COMMON rules,
issue #14). Generated tables (modules whose first line says "generated") are left out.

Usage: python scripts/check_sizes.py [ROOT]   (exit 1 and a list when something exceeds)
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

MAX_CLASS = 500
MAX_FUNCTION = 80


def _generated(text: str) -> bool:
    head = text.lstrip()[:300].lower()
    return "generated" in head.splitlines()[0] if head else False


def oversized(root: Path) -> list[tuple[str, str, str, int]]:
    """(file, 'class'|'function', qualified name, lines) of everything over its limit."""
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if _generated(text):
            continue
        tree = ast.parse(text, filename=str(path))
        found.extend((str(path), *item) for item in _walk(tree, ""))
    return found


def _walk(node: ast.AST, prefix: str):
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            name = prefix + child.name
            lines = child.end_lineno - child.lineno + 1
            is_class = isinstance(child, ast.ClassDef)
            if lines > (MAX_CLASS if is_class else MAX_FUNCTION):
                yield ("class" if is_class else "function", name, lines)
            yield from _walk(child, name + ".")
        else:
            yield from _walk(child, prefix)


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent.parent / "dractl"
    found = oversized(root)
    for file, what, name, lines in found:
        print(f"{file}: {what} {name}: {lines} lines")
    print(f"{len(found)} over the limits (class {MAX_CLASS}, function {MAX_FUNCTION} lines)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
