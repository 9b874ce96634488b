"""Fast paths of the dry run's per-pod and per-device work give what the general code gave.

Each compares with the plain formulation it replaced (kept here as the reference): generated
name suffixes, a template claim's model renamed for its pod, and device attribute values.
"""

from __future__ import annotations

import dataclasses
import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from dractl.api import values
from dractl.api.resource import ResourceClaim
from dractl.simulate import names


def _suffix_reference(seed: str, length: int) -> str:
    digest = hashlib.sha256(seed.encode("utf-8")).digest()
    return "".join(names.SAFE_ALPHABET[b % len(names.SAFE_ALPHABET)] for b in digest[:length])


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40), st.integers(min_value=0, max_value=32))
def test_suffix_is_the_alphabet_pick_of_the_digest(seed, length):
    assert names.suffix(seed, length) == _suffix_reference(seed, length)


def test_renamed_claim_is_dataclasses_replace():
    claim = ResourceClaim.from_dict({
        "metadata": {"name": "t", "namespace": "ns", "uid": "u0"},
        "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "c"}}],
                             "constraints": [{"matchAttribute": "a/b"}],
                             "config": [{"opaque": {"driver": "d", "parameters": {}}}]}}})
    renamed = claim.renamed("pod-r-abcde", "other", "u1")
    expected = dataclasses.replace(claim, name="pod-r-abcde", namespace="other", uid="u1")
    # Every field, so that a field added to ResourceClaim later cannot be dropped silently.
    for f in dataclasses.fields(ResourceClaim):
        assert getattr(renamed, f.name) == getattr(expected, f.name), f.name


def _attribute_reference(raw):
    if not isinstance(raw, dict):
        return None
    for kind in values.LIST_TYPES:
        if raw.get(kind) is not None:
            return values.AttributeValue(kind, tuple(raw[kind]))
    for kind in values.SCALAR_TYPES:
        if raw.get(kind) is not None:
            return values.AttributeValue(kind, raw[kind])
    return None


def _outcome(function, raw):
    try:
        return "value", function(raw)
    except TypeError as exc:
        return "error", type(exc)


_members = st.sampled_from(list(values.LIST_TYPES + values.SCALAR_TYPES) + ["other", "Int"])
_values = st.none() | st.integers() | st.text(max_size=5) | st.booleans() \
    | st.lists(st.integers(), max_size=3)


@settings(max_examples=1500, deadline=None)
@given(st.dictionaries(_members, _values, max_size=3) | _values)
def test_attribute_values_keep_upstream_precedence(raw):
    assert _outcome(values.attribute_from_manifest, raw) == _outcome(_attribute_reference, raw)


def test_device_optional_fields_absent_or_present():
    """Device.from_dict reads optional fields only when present: absent ones must give what
    their parsers give for None, present ones what they always gave."""
    from dractl.api.resource import Device, NodeSelector

    bare = Device.from_dict({"name": "d0"}, driver="drv", pool="p", slice_name="s")
    assert (bare.consumes_counters, bare.taints, bare.node_name, bare.node_selector,
            bare.all_nodes, bare.binding_conditions, bare.binding_failure_conditions,
            bare.binds_to_node, bare.allow_multiple_allocations, dict(bare.capacities)) == \
        ((), (), None, None, None, None, None, False, False, {})
    full = Device.from_dict({
        "name": "d1", "nodeName": "", "allNodes": True, "bindsToNode": True,
        "allowMultipleAllocations": True, "bindingConditions": [], "bindingFailureConditions": ["x"],
        "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
            {"key": "metadata.name", "operator": "In", "values": ["n"]}]}]},
        "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}],
        "consumesCounters": [{"counterSet": "cs", "counters": {"mem": {"value": "1Gi"}}}],
        "capacity": {"memory": {"value": "2Gi"}},
    }, driver="drv", pool="p", slice_name="s")
    assert full.node_name is None and full.all_nodes is True and full.binds_to_node
    assert full.binding_conditions is None and full.binding_failure_conditions == ("x",)
    assert isinstance(full.node_selector, NodeSelector) and len(full.taints) == 1
    assert len(full.consumes_counters) == 1 and str(full.capacity["memory"]) == "2Gi"
