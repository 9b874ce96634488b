"""The type-safe view of a document: what every stage after the schema check reads.

The schema check knows, for every value of a document, whether it is what its field's Go type can
hold. Values that are not (a boolean where a list belongs, `containers: 5`, `env: 1.5`, an
unknown field, an invalid quantity, a null) are removed from a copy of the document; what remains
has exactly the types the schema promises, so the API-server rules, the reference checks, the
lints, the dry run and the reporters never meet a type they did not expect. The schema findings
still say what was wrong, at the path the user wrote, and the document counts as invalid.

Why remove rather than repair: Go's decoder rejects the whole object on a wrong type, so there is
no faithful repaired value; an absent field is what every later stage already handles (the
schema reports required fields as missing). A wrong-typed list item cannot be removed without
shifting the indexes of its siblings (findings would point at the wrong item), so the whole list
goes instead.

Copy-on-write: only the containers on the path to a removed value are copied; the rest of the
view is shared with the parsed document.
"""

from __future__ import annotations

from typing import Any, Iterable


def type_safe_view(data: dict, drops: Iterable[tuple]) -> dict:
    """`data` without the values at `drops` (paths from SchemaSet.check); `data` itself when
    there is nothing to drop. The input is never modified."""
    root: dict | None = None
    copies: set[int] = set()
    for path in drops:
        target = _removal_target(data, path)
        if target is None:
            continue
        if root is None:
            root = dict(data)
            copies.add(id(root))
        _remove(root, target, copies)
    return data if root is None else root


def _removal_target(data: Any, path: tuple) -> tuple | None:
    """The prefix of `path` ending at the last key of a mapping on the way (the value itself
    when it sits in a mapping, else the list holding it); None when the path does not exist."""
    node = data
    last_key = -1
    for i, elem in enumerate(path):
        if isinstance(node, dict) and isinstance(elem, str):
            if elem not in node:
                return None
            last_key = i
            node = node[elem]
        elif isinstance(node, list) and isinstance(elem, int) and not isinstance(elem, bool) \
                and 0 <= elem < len(node):
            node = node[elem]
        else:
            return None
    return path[:last_key + 1] if last_key >= 0 else None


def _remove(root: dict, target: tuple, copies: set[int]) -> None:
    node: Any = root
    for elem in target[:-1]:
        try:
            child = node[elem]
        except (KeyError, IndexError, TypeError):
            return  # an earlier removal took a parent away already
        if not isinstance(child, (dict, list)):
            return
        if id(child) not in copies:
            child = dict(child) if isinstance(child, dict) else list(child)
            copies.add(id(child))
            node[elem] = child
        node = child
    if isinstance(node, dict):
        node.pop(target[-1], None)
