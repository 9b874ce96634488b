"""How the CI formats (SARIF, GitHub annotations) name an input file: relative to the working
directory (the checkout) when the file is inside it, so that code-scanning and the annotations
find it in the repository."""

from __future__ import annotations

import os


def checkout_path(name: str) -> str | None:
    """The input's path, normalised, relative to the working directory when it is below it
    (else as given); None for standard input and built-in inventories (no file to point at)."""
    if not name or name.startswith(("<", "builtin:")):
        return None
    path = os.path.normpath(name)
    if os.path.isabs(path):
        try:
            rel = os.path.relpath(path)
        except ValueError:  # another drive (Windows)
            rel = path
        if not rel.startswith(".."):
            path = rel
    return path
