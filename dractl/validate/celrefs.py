"""What a device selector reads of a device, from its CEL tree: attribute and capacity
references with their offsets, the names guarded by has() or `in`, comparisons with literals,
and the drivers it compares device.driver with. For dractl's inventory lints."""

from __future__ import annotations

from dataclasses import dataclass, replace

from dractl.cel import ast as A


@dataclass(frozen=True)
class Ref:
    map: str               # attributes | capacity
    domain: str
    name: str
    name_offset: int       # offset of the name in the expression (for line:column)
    domain_offset: int
    value_offset: int = 0  # for comparisons: offset of the literal


def _is_device_map(node) -> str | None:
    """'attributes' / 'capacity' for device.attributes / device.capacity."""
    if isinstance(node, A.Select) and not node.test_only and node.field in ("attributes", "capacity") \
            and isinstance(node.operand, A.Ident) and node.operand.name == "device":
        return node.field
    return None


def _domain(node):
    """(map, domain, offset of the domain literal) for device.<map>["domain"]."""
    if isinstance(node, A.Call) and node.function == "_[_]" and len(node.args) == 2:
        which = _is_device_map(node.args[0])
        key = node.args[1]
        if which and isinstance(key, A.Lit) and isinstance(key.value, str):
            return which, key.value, key.offset
    return None


def _reference(node) -> Ref | None:
    if isinstance(node, A.Select):
        found = _domain(node.operand)
        if found:
            # The select's offset is its '.', the name follows it.
            return Ref(found[0], found[1], node.field, node.offset + 1, found[2])
    if isinstance(node, A.Call) and node.function == "_[_]" and len(node.args) == 2:
        found = _domain(node.args[0])
        key = node.args[1]
        if found and isinstance(key, A.Lit) and isinstance(key.value, str):
            return Ref(found[0], found[1], key.value, key.offset, found[2])
    return None


def references(text: str) -> tuple[list[Ref], set, list[tuple[Ref, object]]]:
    """(references in source order, guarded (map, domain, name), [(reference, literal)] of ==)."""
    from dractl.cel.parser import parse

    try:
        tree = parse(text)
    except Exception:  # noqa: BLE001 - compile errors are reported by the API-server rules
        return [], set(), []
    refs, guarded, comparisons = [], set(), []
    for node in A.walk(tree):
        if isinstance(node, A.Select) and node.test_only:
            found = _domain(node.operand)
            if found:
                guarded.add((found[0], found[1], node.field))
            continue
        if isinstance(node, A.Call) and node.function == "@in" and len(node.args) == 2:
            found = _domain(node.args[1])
            key = node.args[0]
            if found and isinstance(key, A.Lit) and isinstance(key.value, str):
                guarded.add((found[0], found[1], key.value))
            continue
        if isinstance(node, A.Call) and node.function == "_==_" and len(node.args) == 2:
            for left, right in (node.args, reversed(node.args)):
                ref = _reference(left)
                if ref and isinstance(right, A.Lit) and right.value is not None:
                    comparisons.append((replace(ref, value_offset=right.offset), right.value))
        ref = _reference(node)
        if ref:
            refs.append(ref)
    # A Select whose operand is itself a reference (device.attributes["d"].name.lowerAscii())
    # is found once, as the inner reference; test-only guards never count as reads.
    refs.sort(key=lambda r: r.name_offset)
    return refs, guarded, comparisons


def driver_literals(text: str) -> set[str]:
    """The drivers a selector compares device.driver with (== only)."""
    from dractl.cel.parser import parse

    try:
        tree = parse(text)
    except Exception:  # noqa: BLE001
        return set()
    out = set()
    for node in A.walk(tree):
        if isinstance(node, A.Call) and node.function == "_==_" and len(node.args) == 2:
            for left, right in (node.args, reversed(node.args)):
                if isinstance(left, A.Select) and left.field == "driver" and \
                        isinstance(left.operand, A.Ident) and left.operand.name == "device" and \
                        isinstance(right, A.Lit) and isinstance(right.value, str):
                    out.add(right.value)
    return out
