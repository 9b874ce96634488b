"""The fast path against the straightforward path (see test_differential.py) on random scenarios
that also use the 1.37 allocator features: compatibility groups on the counter-consuming
devices, derived attributes on the requests (read by the claims' matchAttribute constraints, one
expression failing on devices without `numa`), slices that skip node operations. Like the base
test it checks that caches and pruning never change a transcript; the semantics themselves are
pinned by testdata/conformance/v137 and test_allocator_137.py."""

from __future__ import annotations

import dataclasses
import random

import test_differential as base
from test_differential import Scenario

from dractl.api.resource import DeviceDerivedAttribute
from dractl.api.versions import FeatureGates

SCENARIOS = 30
GROUPS = [(), ("x",), ("y",), ("x", "y")]
EXPRESSIONS = [
    'device.attributes["gpu.example.com"].model',
    'device.attributes["gpu.example.com"].numa',        # runtime error on devices without numa
    'device.attributes["gpu.example.com"].model == "A"',
]



def _replace(obj, **changes):
    """dataclasses.replace, also for the frozen records of dractl.api.record (__slots__ classes)."""
    if dataclasses.is_dataclass(obj):
        return dataclasses.replace(obj, **changes)
    return type(obj)(**{**{name: getattr(obj, name) for name in obj._fields}, **changes})

def _with_groups(rng: random.Random, sl):
    devices = []
    for dev in sl.devices:
        consumes = tuple(_replace(cc, compatibility_groups=rng.choice(GROUPS))
                         for cc in dev.consumes_counters)
        devices.append(_replace(dev, consumes_counters=consumes))
    skip = ("*",) if rng.random() < 0.1 else None
    return _replace(sl, devices=tuple(devices), skip_node_operations=skip)


def _with_derived(rng: random.Random, claim):
    if not claim.constraints or rng.random() < 0.3:
        return claim
    name = "derived/v"
    constraints = tuple(_replace(c, match_attribute=name) if c.match_attribute else c
                        for c in claim.constraints)
    requests = []
    for req in claim.requests:
        derived = (DeviceDerivedAttribute(name, rng.choice(EXPRESSIONS)),)
        if req.exactly is not None:
            req = _replace(req, exactly=_replace(req.exactly, derived_attributes=derived))
        else:
            req = _replace(req, first_available=tuple(
                _replace(s, derived_attributes=derived) for s in req.first_available))
        requests.append(req)
    return _replace(claim, requests=tuple(requests), constraints=constraints)


class Scenario137(Scenario):
    def __init__(self, seed: int):
        super().__init__(seed)
        rng = random.Random(seed * 7919 + 1)
        on = {g: rng.random() < 0.7 for g in ("DRADerivedAttributes", "DRADeviceCompatibilityGroups",
                                                "DRAOptionalNodeOperations")}
        self.gates = FeatureGates("1.37", {**self.gates.overrides, **on})
        self.slices = [_with_groups(rng, sl) for sl in self.slices]
        self.pods = [[_with_derived(rng, c) for c in pod] for pod in self.pods]


def test_fast_and_straightforward_paths_agree_with_1_37_features(monkeypatch):
    monkeypatch.setattr(base, "Scenario", Scenario137)
    assert base.differences(range(1000, 1000 + SCENARIOS)) == []


def test_scenarios_exercise_the_features():
    used = {"groups": 0, "derived": 0}
    for seed in range(1000, 1000 + SCENARIOS):
        s = Scenario137(seed)
        used["groups"] += any(cc.compatibility_groups for sl in s.slices for d in sl.devices
                              for cc in d.consumes_counters)
        used["derived"] += any(r.exactly is not None and r.exactly.derived_attributes
                               for pod in s.pods for c in pod for r in c.requests)
    assert used["groups"] > 5 and used["derived"] > 5, used
