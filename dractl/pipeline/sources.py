"""Which files a run reads: command-line paths walked into sources, minus excluded files and
dractl's own settings file, with built-in inventories shown as builtin:NAME."""

from __future__ import annotations

import dataclasses
import os
from typing import BinaryIO, Callable

from dractl.config import CONFIG_NAMES
from dractl.load.limits import Limits
from dractl.load.reader import LoadProblem, Source, iter_sources
from dractl.pipeline.errors import UsageError
from dractl.pipeline.notmanifests import NotRead, classify, relative_to_root

BUILTIN_PREFIX = "builtin:"


def select_sources(paths: list[str], limits: Limits, *, stdin: BinaryIO | None = None,
                   exclude: Callable[[str], bool] | None = None, explicit_excluded: bool = False,
                   aliases: dict[str, str] | None = None,
                   not_read: NotRead | None = None) -> list[Source | LoadProblem]:
    """Read `paths` (files, directories walked recursively, - for stdin) in input order.

    exclude(name): skip a file found by walking a directory (and, with explicit_excluded, a
    file named on the command line too). aliases: names to show instead of some paths.
    not_read: apply the default excludes (dractl.pipeline.notmanifests: Helm charts, Kustomize
    files, package files) the same way, counting what they leave out there.
    """
    explicit = set(paths)
    roots = [p for p in paths if p != "-"]
    items: list[Source | LoadProblem] = []
    for item in iter_sources(paths, limits, stdin):
        walked = item.name not in explicit and not getattr(item, "usage", False)
        if walked and os.path.basename(item.name) in CONFIG_NAMES:
            continue  # dractl's own settings file is not a manifest
        if exclude is not None and (walked or explicit_excluded) and exclude(item.name):
            continue
        if not_read is not None and (walked or explicit_excluded) and item.name != "<stdin>":
            prefix, rest = relative_to_root(item.name, roots if walked else ["."])
            what = classify(rest)
            if what is not None:
                not_read.add(what, prefix, rest)
                continue
        if aliases and item.name in aliases:
            item = dataclasses.replace(item, name=aliases[item.name])
        items.append(item)
    return items


def resolve_inventory(values: list[str], aliases: dict[str, str] | None = None) -> list[str]:
    """Inventory paths; built-in inventories are shown as builtin:NAME (filled into aliases)."""
    paths = []
    for value in values:
        if not value.startswith(BUILTIN_PREFIX):
            _check_not_a_builtin_name(value)
            paths.append(value)
            continue
        from dractl.inventories import inventory_path, list_inventories

        name = value[len(BUILTIN_PREFIX):]
        try:
            path = str(inventory_path(name))
        except (KeyError, OSError, ValueError):
            from dractl.suggest import closest_match

            names = [n for n, _ in list_inventories()]
            guess = closest_match(name, names)
            hint = f"; did you mean builtin:{guess}?" if guess else ""
            raise UsageError(f"--inventory: no built-in inventory {name!r}{hint} "
                             f"(available: {', '.join(names)})") from None
        paths.append(path)
        if aliases is not None:
            aliases[path] = value
    return paths


def _check_not_a_builtin_name(value: str) -> None:
    """`-i example-gpu` (no such file, but a built-in inventory's name): a usage error before
    the dry run, not a run that ends in "no nodes"."""
    from dractl.report.inventory_info import builtin_hint

    hint = builtin_hint(value)
    if hint is not None:
        raise UsageError(f"--inventory {value}: no such file; did you mean {hint}?")
