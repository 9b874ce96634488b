"""Seed scenarios for structure-aware fuzzing: real manifests plus the inventory they run against.

A scenario is a list of JSON-like documents (inventory first, then manifests) that dractl reads
well today. Sources: the third-party real-world corpus (tests/realworld_corpus.py, when present;
test_fuzz_seeds.py requires it like every corpus test), the repository's examples/ and the
built-in inventories (always present, so a fresh clone still fuzzes).
"""

from __future__ import annotations

import functools
import pathlib
import re
from dataclasses import dataclass

import yaml
from realworld_corpus import REALWORLD

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

# realworld top folder -> the built-in inventory whose driver it targets
_INVENTORY_FOR = {
    "dra-example-driver": "example-gpu", "dra-driver-nvidia-gpu": "nvidia-gpu",
    "k8s-gpu-dra-driver": "example-gpu", "dra-driver-cpu": "cpu", "dra-driver-google-tpu": "tpu",
    "intel-resource-drivers-for-kubernetes": "intel-gpu", "dra-driver-sriov": "sriov-nic",
    "dranet": "mixed",
}
_EXAMPLE_INVENTORY = re.compile(r"builtin:([a-z0-9-]+)")


@dataclass(frozen=True)
class Scenario:
    name: str
    inventory: str                  # built-in inventory name
    manifests: tuple                # documents (dicts), never mutated in place


def _load_docs(path: pathlib.Path) -> list[dict]:
    try:
        docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
    except (yaml.YAMLError, UnicodeDecodeError, OSError, RecursionError):
        return []
    return [d for d in docs if isinstance(d, dict) and d.get("kind")]


@functools.lru_cache(maxsize=None)
def inventory_docs(name: str) -> tuple:
    from dractl.inventories import inventory_path

    return tuple(_load_docs(pathlib.Path(inventory_path(name))))


@functools.lru_cache(maxsize=None)
def inventory_names() -> tuple:
    from dractl.inventories import list_inventories

    return tuple(name for name, _ in list_inventories())


@functools.lru_cache(maxsize=1)
def scenarios() -> tuple:
    out = []
    names = set(inventory_names())
    for path in sorted(EXAMPLES.glob("*.yaml")):
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        m = _EXAMPLE_INVENTORY.search(first)
        inventory = m.group(1) if m and m.group(1) in names else "example-gpu"
        docs = _load_docs(path)
        if docs:
            out.append(Scenario(f"examples/{path.name}", inventory, tuple(docs)))
    if REALWORLD.is_dir():
        for path in sorted(REALWORLD.rglob("*")):
            if path.suffix not in (".yaml", ".yml", ".json") or not path.is_file():
                continue
            rel = path.relative_to(REALWORLD)
            inventory = _INVENTORY_FOR.get(rel.parts[0], "example-gpu")
            if inventory not in names:
                inventory = "example-gpu"
            docs = _load_docs(path)
            if docs:
                out.append(Scenario(f"realworld/{rel}", inventory, tuple(docs)))
    # every inventory on its own (the cluster state is input from strangers too)
    for name in sorted(names):
        out.append(Scenario(f"builtin:{name}", name, ()))
    return tuple(out)
