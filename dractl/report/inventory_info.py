"""`dractl inventories`: the built-in sample inventories listed (text or JSON) and shown.

`show NAME` prints the inventory file exactly as shipped, so a location such as
`builtin:nvidia-mig:66:3` in a finding is line 66 of `dractl inventories show nvidia-mig`.
"""

from __future__ import annotations

from collections import Counter

from dractl.inventories import inventory_path, list_inventories
from dractl.suggest import closest_match

PREFIX = "builtin:"


class UnknownInventory(LookupError):
    """No built-in inventory of that name; the message lists them and suggests the closest."""

    def __init__(self, name: str) -> None:
        names = [n for n, _ in list_inventories()]
        guess = closest_match(name, names)
        hint = f"; did you mean {guess!r}?" if guess else ""
        super().__init__(f"no built-in inventory {name!r}{hint} (available: {', '.join(names)})")
        self.name, self.suggestion = name, guess


def inventory_text(name: str) -> str:
    """The file of built-in inventory NAME (or builtin:NAME), byte for byte."""
    bare = name[len(PREFIX):] if name.startswith(PREFIX) else name
    try:
        path = inventory_path(bare)
    except KeyError:
        raise UnknownInventory(bare) from None
    return path.read_text(encoding="utf-8")


def inventory_summary(name: str, description: str) -> dict:
    """One row of `dractl inventories -o json`: what the inventory holds."""
    import yaml

    kinds: Counter = Counter()
    devices = 0
    drivers: set[str] = set()
    text = inventory_text(name)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    for doc in yaml.load_all(text, Loader=loader):
        if not isinstance(doc, dict):
            continue
        kinds[doc.get("kind", "")] += 1
        if doc.get("kind") == "ResourceSlice":
            spec = doc.get("spec") or {}
            devices += len(spec.get("devices") or [])
            if spec.get("driver"):
                drivers.add(spec["driver"])
    return {"name": name, "inventory": PREFIX + name, "description": description,
            "nodes": kinds["Node"], "deviceClasses": kinds["DeviceClass"],
            "resourceSlices": kinds["ResourceSlice"], "devices": devices,
            "drivers": sorted(drivers), "lines": text.count("\n")}


def inventories_document() -> list[dict]:
    return [inventory_summary(name, description) for name, description in list_inventories()]


def inventories_text() -> str:
    return "".join(f"{name:<24} {description}\n" for name, description in list_inventories())


def builtin_hint(path: str) -> str | None:
    """For an inventory path that does not exist but names a built-in inventory (`-i
    example-gpu`), the value the user probably meant: `builtin:example-gpu`."""
    import os

    if path.startswith(PREFIX) or os.path.exists(path):
        return None
    names = [n for n, _ in list_inventories()]
    stem = os.path.basename(path).removesuffix(".yaml").removesuffix(".yml")
    guess = stem if stem in names else closest_match(stem, names)
    return PREFIX + guess if guess else None
