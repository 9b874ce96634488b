"""Feature-gate names: a name no Kubernetes version has raises, and every name the code base reads
is one that exists (a typo would otherwise switch a gate off, or on, without anyone noticing)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from dractl.allocator import AllocatorFeatures
from dractl.api.versions import (
    ALLOCATOR_GATES,
    FeatureGates,
    GateError,
    UnknownGateError,
    known_gates,
    parse_feature_gates,
)

ROOT = Path(__file__).resolve().parents[3]
SOURCES = sorted((ROOT / "dractl").rglob("*.py")) + sorted((ROOT / "benchmarks").rglob("*.py"))

# Calls that read a gate by name, and which positional argument holds the name.
_READERS = {"enabled": 0, "gate_enabled": 1, "gate": 0, "on": 0}
# A gate name as written in messages and tables: DRA followed by a CamelCase word.
_DRA_NAME = re.compile(r"^DRA[A-Z][a-z][A-Za-z]+$")


def _called_name(call: ast.Call) -> str | None:
    fn = call.func
    if isinstance(fn, ast.Attribute):
        return fn.attr
    if isinstance(fn, ast.Name):
        return fn.id
    return None


def _constants(node: ast.AST, assigned: dict[str, list[ast.AST]]) -> list[str]:
    """String constants `node` can evaluate to: a literal, a conditional of literals, or a local
    name assigned such values in the same module."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _constants(node.body, assigned) + _constants(node.orelse, assigned)
    if isinstance(node, ast.Name):
        out: list[str] = []
        for value in assigned.get(node.id, ()):
            out += _constants(value, {})
        return out
    return []


def gate_reads(source: str) -> list[tuple[int, str]]:
    """(line, gate name) of every gate read by a constant name in `source`."""
    tree = ast.parse(source)
    assigned: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(node.value)
    reads = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if _called_name(node) == "with_overrides":
            reads += [(node.lineno, kw.arg) for kw in node.keywords if kw.arg is not None]
            continue
        position = _READERS.get(_called_name(node) or "")
        if position is None or len(node.args) <= position:
            continue
        reads += [(node.lineno, name) for name in _constants(node.args[position], assigned)]
    return reads


def test_every_gate_name_read_in_the_code_base_is_known() -> None:
    known = set(known_gates())
    found, unknown = 0, []
    for path in SOURCES:
        text = path.read_text()
        for line, name in gate_reads(text):
            # `gate`/`on` are also ordinary names; only gate-shaped strings count there.
            if name not in known and not _DRA_NAME.match(name) and not name[:1].isupper():
                continue
            found += 1
            if name not in known:
                unknown.append(f"{path.relative_to(ROOT)}:{line}: {name}")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and _DRA_NAME.match(node.value):
                found += 1
                if node.value not in known:
                    unknown.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value}")
    assert found > 50, "the scan found almost no gate reads: it no longer recognises them"
    assert not unknown, "gate names that no Kubernetes version has:\n" + "\n".join(unknown)


def test_the_scan_sees_a_misspelt_gate() -> None:
    source = ('def f(gates, em):\n'
              '    g = "DRAPartitionableDevice" if em else "GenericWorkload"\n'
              '    return gates.enabled("DRADeviceTaint") or common.gate_enabled(em, g)\n')
    names = {name for _, name in gate_reads(source)}
    assert names == {"DRADeviceTaint", "DRAPartitionableDevice", "GenericWorkload"}
    assert not names <= set(known_gates())


def test_unknown_gate_raises() -> None:
    gates = FeatureGates("1.37")
    with pytest.raises(UnknownGateError, match="DRADeviceTaint'"):
        gates.enabled("DRADeviceTaint")
    with pytest.raises(UnknownGateError):
        gates("NoSuchGate")
    with pytest.raises(UnknownGateError):
        FeatureGates("1.37", {"DRAPartitionableDevice": True})
    with pytest.raises(UnknownGateError):
        gates.with_overrides(DRAConsumableCapacty=True)


def test_known_gate_absent_from_a_version_reads_false() -> None:
    assert FeatureGates("1.34").enabled("DRAListTypeAttributes") is False
    assert FeatureGates("1.36").enabled("CompositePodGroup") is False


def test_user_input_with_unknown_gate_is_a_gate_error_not_a_key_error() -> None:
    with pytest.raises(GateError, match="unrecognized feature gate"):
        parse_feature_gates("DRADeviceTaint=true", "1.37")


def test_allocator_features_read_only_known_gates() -> None:
    assert set(ALLOCATOR_GATES) <= set(known_gates())
    for version in ("1.34", "1.35", "1.36", "1.37"):
        AllocatorFeatures.from_gates(FeatureGates(version))  # raises on a misspelt name


def test_a_misspelt_gate_in_a_rule_is_an_internal_error_finding_not_a_silent_on() -> None:
    from dractl.validate.rules import _base, common

    class Ctx:
        gates = FeatureGates("1.37")
        kube_version = "1.37"

    with pytest.raises(UnknownGateError):
        common.gate_enabled(_base.Emitter(Ctx()), "DRADeviceTaint")
