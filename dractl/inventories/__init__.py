"""Sample inventories shipped inside the package (`--inventory builtin:NAME`).

Each `<name>.yaml` next to this module is a multi-document stream describing a small, consistent
cluster modeled on a real DRA driver: Node objects, the driver's DeviceClasses and its
ResourceSlices. The first line of every file reads

    # dractl builtin inventory <name>: <one-line description>

and the comment block under it cites the driver sources the data was taken from.
"""

from __future__ import annotations

import atexit
import contextlib
import pathlib
import re

_SUFFIX = ".yaml"
_NAME = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")
_FIRST_LINE = re.compile(r"^# dractl builtin inventory (?P<name>[a-z0-9-]+): (?P<description>.+)$")

# Keeps files extracted from a zipped install alive until the interpreter exits.
_extracted = contextlib.ExitStack()
atexit.register(_extracted.close)


def _package_dir() -> pathlib.Path | None:
    """This package's directory when it is one (every install but a zipped one). Reading it
    directly is ~30x cheaper than importlib.resources, which `allocate -i builtin:NAME` paid
    at every start-up."""
    here = pathlib.Path(__file__).parent
    return here if (here / "__init__.py").is_file() else None


def _resource_files():
    from importlib import resources

    return sorted((entry for entry in resources.files(__name__).iterdir()
                   if entry.is_file() and entry.name.endswith(_SUFFIX)),
                  key=lambda entry: entry.name[: -len(_SUFFIX)])


def _description(entry) -> str:
    with entry.open("r", encoding="utf-8") as handle:
        first = handle.readline().rstrip("\n")
    match = _FIRST_LINE.match(first)
    return match.group("description") if match else ""


def list_inventories() -> list[tuple[str, str]]:
    """(name, one-line description) of every builtin inventory, sorted by name."""
    return [(entry.name[: -len(_SUFFIX)], _description(entry)) for entry in _resource_files()]


def inventory_path(name: str) -> pathlib.Path:
    """Filesystem path of builtin inventory `name`; KeyError when there is no such inventory."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise KeyError(name)
    directory = _package_dir()
    if directory is not None:
        path = directory / (name + _SUFFIX)
        if not path.is_file():
            raise KeyError(name)
        return path
    from importlib import resources

    entry = resources.files(__name__) / (name + _SUFFIX)
    if not entry.is_file():
        raise KeyError(name)
    if isinstance(entry, pathlib.Path):
        return entry
    return pathlib.Path(_extracted.enter_context(resources.as_file(entry)))
