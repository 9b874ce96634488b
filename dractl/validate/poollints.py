"""dractl's inventory lints on pools (DRA72xx): what makes the allocator call a pool invalid or
incomplete, or count one device twice, found before a dry run does. Read from the slices'
v1 data so that each finding points at the field (slice, device, counter set) that causes it."""

from __future__ import annotations

from dractl.findings import WARNING, Finding, MapKey, register
from dractl.load.document import Document
from dractl.models import model_of

C_COUNTER_SET = register("DRA7201", WARNING, "inventory lint: a device consumes a counter set (or "
                         "counter) its pool does not define: the allocator treats the pool as "
                         "invalid", "dractl")
C_DUP_DEVICE = register("DRA7202", WARNING, "inventory lint: two devices of one pool have the same "
                        "name: the allocator treats the pool as invalid", "dractl")
C_DUP_SLICE = register("DRA7203", WARNING, "inventory lint: two ResourceSlices of one pool have the "
                       "same name", "dractl")
C_SLICE_COUNT = register("DRA7204", WARNING, "inventory lint: a pool's resourceSliceCount does not "
                         "match the slices of its newest generation (the pool is incomplete)",
                         "dractl")
C_EXPOSED_TWICE = register("DRA7205", WARNING, "inventory lint: one piece of hardware (the same "
                           "PCI bus ID on one node) is published by two drivers", "dractl")

PCI_BUS_ID = "resource.kubernetes.io/pciBusID"


def _spec(doc: Document) -> dict:
    try:
        spec = model_of(doc).v1.get("spec")
    except (TypeError, ValueError, AttributeError):
        return {}
    return spec if isinstance(spec, dict) else {}


def _list(value) -> list:
    return value if isinstance(value, list) else []


def pool_findings(slice_docs: list[Document]) -> list[tuple[Document, Finding]]:
    pools: dict[tuple, list[tuple[Document, dict]]] = {}
    for doc in slice_docs:
        spec = _spec(doc)
        pool = spec.get("pool") if isinstance(spec.get("pool"), dict) else {}
        if isinstance(spec.get("driver"), str) and isinstance(pool.get("name"), str):
            pools.setdefault((spec["driver"], pool["name"]), []).append((doc, spec))
    out: list[tuple[Document, Finding]] = []
    for (driver, name), members in pools.items():
        label = f"pool {driver}/{name}"
        out += _slice_names(label, members) + _slice_count(label, members)
        out += _device_names(label, members) + _counter_sets(label, members)
    out += _exposed_twice(pools)
    return out


def _slice_names(label: str, members) -> list:
    seen, out = {}, []
    for doc, _ in members:
        if doc.name in seen:
            out.append((doc, Finding(WARNING, C_DUP_SLICE, f"{label}: ResourceSlice name {doc.name} "
                                     f"is used twice (also at {seen[doc.name]})", ("metadata", "name"))))
        else:
            seen[doc.name] = f"{doc.file}:{doc.locate(())[0]}"
    return out


def _generation(spec: dict) -> int:
    value = spec["pool"].get("generation", 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _slice_count(label: str, members) -> list:
    newest = max(_generation(spec) for _, spec in members)
    current = [(doc, spec) for doc, spec in members if _generation(spec) == newest]
    doc, spec = current[0]
    count = spec["pool"].get("resourceSliceCount")
    if not isinstance(count, int) or isinstance(count, bool) or count == len(current):
        return []
    return [(doc, Finding(WARNING, C_SLICE_COUNT, f"{label}: resourceSliceCount is {count} but the "
                          f"inputs hold {len(current)} slice(s) of generation {newest}: the "
                          "allocator treats the pool as incomplete (being updated)",
                          ("spec", "pool", "resourceSliceCount")))]


def _device_names(label: str, members) -> list:
    seen, out = {}, []
    for doc, spec in members:
        for i, device in enumerate(_list(spec.get("devices"))):
            name = device.get("name") if isinstance(device, dict) else None
            if not isinstance(name, str):
                continue
            if name in seen:
                out.append((doc, Finding(WARNING, C_DUP_DEVICE, f"{label}: device name {name} is "
                                         f"used twice (also in ResourceSlice {seen[name]})",
                                         ("spec", "devices", i, "name"))))
            else:
                seen[name] = doc.name
    return out


def _counter_sets(label: str, members) -> list:
    defined: dict[str, set] = {}
    for _, spec in members:
        for counter_set in _list(spec.get("sharedCounters")):
            if isinstance(counter_set, dict) and isinstance(counter_set.get("name"), str):
                counters = counter_set.get("counters")
                defined[counter_set["name"]] = set(counters) if isinstance(counters, dict) else set()
    out = []
    for doc, spec in members:
        for i, device in enumerate(_list(spec.get("devices"))):
            for j, use in enumerate(_list(device.get("consumesCounters") if isinstance(device, dict)
                                          else None)):
                out += _check_consumption(label, doc, device, (i, j), use, defined)
    return out


def _check_consumption(label, doc, device, where, use, defined) -> list:
    if not isinstance(use, dict) or not isinstance(use.get("counterSet"), str):
        return []
    i, j = where
    path = ("spec", "devices", i, "consumesCounters", j)
    name = use["counterSet"]
    if name not in defined:
        known = ", ".join(sorted(defined)) or "none"
        return [(doc, Finding(WARNING, C_COUNTER_SET, f"{label}: device {device.get('name')} consumes "
                              f"counter set {name}, which no slice of the pool defines (defined: "
                              f"{known}); the allocator treats the pool as invalid",
                              path + ("counterSet",)))]
    counters = use.get("counters") if isinstance(use.get("counters"), dict) else {}
    missing = sorted(c for c in counters if c not in defined[name])
    if not missing:
        return []
    return [(doc, Finding(WARNING, C_COUNTER_SET, f"{label}: device {device.get('name')} consumes "
                          f"counter(s) {', '.join(missing)} that counter set {name} does not "
                          "define; the allocator treats the pool as invalid", path + ("counters",)))]


def _exposed_twice(pools) -> list:
    seen: dict[tuple, tuple[str, str]] = {}
    out = []
    for (driver, pool), members in pools.items():
        for doc, spec in members:
            node = spec.get("nodeName") if isinstance(spec.get("nodeName"), str) else ""
            for i, device in enumerate(_list(spec.get("devices"))):
                attributes = device.get("attributes") if isinstance(device, dict) else None
                value = (attributes or {}).get(PCI_BUS_ID) if isinstance(attributes, dict) else None
                bus = value.get("string") if isinstance(value, dict) else None
                if not node or not isinstance(bus, str):
                    continue
                here = f"{driver}/{pool}/{device.get('name')}"
                # Within one driver, partitions (MIG) share their parent's bus ID by design: only
                # two drivers publishing the same function (GPU driver and VFIO) count twice.
                first_driver, first = seen.setdefault((node, bus), (driver, here))
                if first_driver != driver:
                    out.append((doc, Finding(WARNING, C_EXPOSED_TWICE, f"device {here} has PCI bus "
                                             f"ID {bus} on node {node}, like {first}: the same "
                                             "hardware may be allocated twice",
                                             ("spec", "devices", i, "attributes", MapKey(PCI_BUS_ID)))))
    return out
