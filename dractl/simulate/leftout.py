"""Inventory objects the dry run leaves out, said once in the plan
(docs/decisions/0003-inventory-is-cluster-state.md): which objects,
where, why (the finding codes that made them unusable) and what is therefore not counted."""

from __future__ import annotations

from dractl.load.document import Document
from dractl.models import model_of
from dractl.simulate.state import Reason
from dractl.validate.pipeline import C_LEFT_OUT

# Kinds whose absence changes what the allocator can use; claims and templates say so on their
# own (the claim is not allocated), pods are reported per pod.
STATE_KINDS = ("ResourceSlice", "DeviceClass", "DeviceTaintRule")


def left_out_reasons(docs: list[Document], invalid) -> list[Reason]:
    """One warning per (kind, driver) group of unusable documents, in input order."""
    codes_of = getattr(invalid, "codes", {})
    groups: dict[tuple, list[Document]] = {}
    for doc in docs:
        spec = doc.data.get("spec") if isinstance(doc.data.get("spec"), dict) else {}
        driver = spec.get("driver") if doc.kind == "ResourceSlice" else None
        groups.setdefault((doc.kind, driver if isinstance(driver, str) else ""), []).append(doc)
    out = []
    for (kind, driver), group in groups.items():
        codes = sorted({c for d in group for c in codes_of.get(id(d), ())})
        out.append(Reason(C_LEFT_OUT, _message(kind, driver, group, codes), severity="warning"))
    return out


def _message(kind: str, driver: str, group: list[Document], codes: list[str]) -> str:
    noun = kind + ("s" if len(group) > 1 else "")
    of = f" of {driver}" if driver else (" with no driver" if kind == "ResourceSlice" else "")
    where = _places(group)
    why = f"invalid ({', '.join(codes)})" if codes else "invalid"
    verb = "was" if len(group) == 1 else "were"
    text = f"{len(group)} {noun}{of} at {where} {verb} left out: {why}"
    if kind == "ResourceSlice":
        devices = sum(_device_count(d) for d in group)
        counter_sets = [n for d in group for n in _counter_sets(d)]
        if devices or not counter_sets:
            text += f"; their {devices} device(s) are not counted"
        if counter_sets:
            text += (f"; counter set(s) {', '.join(counter_sets)} are missing from their pool, so "
                     "devices that consume them make the pool invalid")
    elif kind == "DeviceClass":
        text += "; requests naming them find no class"
    else:
        text += "; their taints are not applied"
    return text


def slices_by_pool(docs: list[Document], invalid) -> dict[tuple[str, str], list[str]]:
    """(driver, pool) -> `ResourceSlice NAME at file:line (invalid: CODES)` of the left-out slices,
    for the explanations of the pools they leave incomplete or invalid."""
    codes_of = getattr(invalid, "codes", {})
    out: dict[tuple[str, str], list[str]] = {}
    for doc in docs:
        if doc.kind != "ResourceSlice":
            continue
        spec = doc.data.get("spec") if isinstance(doc.data.get("spec"), dict) else {}
        pool = spec.get("pool") if isinstance(spec.get("pool"), dict) else {}
        driver, name = spec.get("driver"), pool.get("name")
        if isinstance(driver, str) and isinstance(name, str):
            codes = ", ".join(codes_of.get(id(doc), ())) or "invalid"
            out.setdefault((driver, name), []).append(
                f"ResourceSlice {doc.name} at {doc.file}:{doc.locate(())[0]} ({codes})")
    return out


def _places(group: list[Document]) -> str:
    """file:line, :line for more in the same file."""
    parts, last_file = [], None
    for doc in group:
        line = doc.locate(())[0]  # where the object starts (its findings point there too)
        parts.append(f":{line}" if doc.file == last_file else f"{doc.file}:{line}")
        last_file = doc.file
    return ", ".join(parts)


def _counter_sets(doc: Document) -> list[str]:
    try:
        sets = (model_of(doc).v1.get("spec") or {}).get("sharedCounters")
    except (TypeError, ValueError, AttributeError):
        return []
    return [s["name"] for s in sets if isinstance(s, dict) and isinstance(s.get("name"), str)] \
        if isinstance(sets, list) else []


def _device_count(doc: Document) -> int:
    try:
        devices = (model_of(doc).v1.get("spec") or {}).get("devices")
    except (TypeError, ValueError, AttributeError):
        return 0
    return len(devices) if isinstance(devices, list) else 0
