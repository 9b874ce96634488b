"""The allocator's fast path against its straightforward path on random scenarios.

Fast: fact verdicts cached per (device, request shape) in the process-wide FactCache and reused
across pods, nodes and Allocator instances, node pools cached by NodeInfo identity, counter
availability cached per state version. Straightforward: `shortcuts=False` (every check evaluated
every time, a private cache). Each scenario places a sequence of pods on three nodes (first node
that fits, committing the allocation), once with one Allocator for the run, once with a new
Allocator per attempt (as a scheduler that builds one per node would), and once straightforwardly;
the transcripts (outcome, error, results, explanation) must be identical.

Pruning of hopeless scans is compared separately: without it (`Search.prune = False`) outcomes,
errors and results must be the same (explanations may differ, they record what the scans saw).
The mutant tests check that each comparison notices a broken shortcut.
"""

from __future__ import annotations

import dataclasses
import itertools
import random

import pytest

from dractl.allocator import Allocator, Compat
from dractl.allocator import search as search_module
from dractl.allocator.checks import FactCache
from dractl.allocator.nodes import NodeInfo
from dractl.allocator.prepass import RequestData
from dractl.api.resource import DeviceClass, DeviceTaintRule, ResourceClaim, ResourceSlice
from dractl.api.versions import FeatureGates

SCENARIOS = 45
NODES = [NodeInfo(f"node-{i}", {"zone": f"z{i % 2}"}) for i in range(3)]
TOGGLED = ("DRAAdminAccess", "DRAConsumableCapacity", "DRADeviceBindingConditions", "DRADeviceTaints",
           "DRAPartitionableDevices", "DRAPrioritizedList", "DRAListTypeAttributes")
SELECTORS = [
    'device.attributes["gpu.example.com"].model == "A"',
    'device.attributes["gpu.example.com"].numa == 1',
    'device.capacity["gpu.example.com"].memory.compareTo(quantity("20Gi")) >= 0',
    'device.attributes["gpu.example.com"].model.startsWith("B")',
    'device.attributes["gpu.example.com"].numa > 5',   # runtime error on devices without numa
]
TOLERATIONS = [
    [],
    [{"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"}],
    [{"key": "k", "operator": "Exists"}],
]


def _device(rng: random.Random, name: str, counters: bool) -> dict:
    dev: dict = {"name": name, "attributes": {"model": {"string": rng.choice("AB")}}}
    if rng.random() < 0.8:
        dev["attributes"]["numa"] = {"int": rng.randrange(3)}
    if rng.random() < 0.6:
        dev["capacity"] = {"memory": {"value": rng.choice(["16Gi", "40Gi"])}}
    if rng.random() < 0.2:
        dev["taints"] = [{"key": "k", "value": rng.choice("vw"), "effect": rng.choice(["NoSchedule", "NoExecute"])}]
    if rng.random() < 0.1:
        dev["bindingConditions"] = ["ready"]
        dev["bindingFailureConditions"] = ["failed"]
    if rng.random() < 0.15:
        dev["allowMultipleAllocations"] = True
        dev["capacity"] = {"memory": {"value": "40Gi", "requestPolicy": {
            "default": "10Gi", "validRange": {"min": "10Gi", "step": "10Gi"}}}}
    if counters and rng.random() < 0.5:
        dev["consumesCounters"] = [{"counterSet": "mem", "counters": {"memory": {"value": rng.choice(["20Gi", "40Gi"])}}}]
    return dev


def _slices(rng: random.Random) -> list[ResourceSlice]:
    out = []
    for n, node in enumerate(NODES):
        counters = rng.random() < 0.5
        devices = [_device(rng, f"d{n}-{i}", counters) for i in range(rng.randrange(2, 6))]
        spec: dict = {"driver": "gpu.example.com", "nodeName": node.name, "devices": devices,
                      "pool": {"name": f"pool-{n}", "generation": 1, "resourceSliceCount": 2 if counters else 1}}
        out.append(ResourceSlice.from_dict({"metadata": {"name": f"s{n}"}, "spec": spec}))
        if counters:
            out.append(ResourceSlice.from_dict({"metadata": {"name": f"s{n}-counters"}, "spec": {
                "driver": "gpu.example.com", "nodeName": node.name,
                "pool": {"name": f"pool-{n}", "generation": 1, "resourceSliceCount": 2},
                "sharedCounters": [{"name": "mem", "counters": {"memory": {"value": "60Gi"}}}]}}))
    if rng.random() < 0.4:
        devices = [{"name": f"net-{i}", "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "zone", "operator": "In", "values": [f"z{i % 2}"]}]}]},
            "attributes": {"model": {"string": "B"}, "numa": {"int": i}}} for i in range(3)]
        out.append(ResourceSlice.from_dict({"metadata": {"name": "shared"}, "spec": {
            "driver": "gpu.example.com", "perDeviceNodeSelection": True, "devices": devices,
            "pool": {"name": "shared", "generation": 1, "resourceSliceCount": 1}}}))
    return out


def _request(rng: random.Random, name: str, sub: bool = False) -> dict:
    req: dict = {"deviceClassName": rng.choice(["gpu", "gpu", "any"])}
    if rng.random() < 0.1 and not sub:
        req["allocationMode"] = "All"
    else:
        req["count"] = rng.choice([1, 1, 1, 2, 3])
    if rng.random() < 0.5:
        req["selectors"] = [{"cel": {"expression": rng.choice(SELECTORS)}}]
    tolerations = rng.choice(TOLERATIONS)
    if tolerations:
        req["tolerations"] = tolerations
    if rng.random() < 0.15:
        req["capacity"] = {"requests": {"memory": rng.choice(["5Gi", "10Gi", "20Gi"])}}
    if rng.random() < 0.05 and not sub:
        req["adminAccess"] = True
    return req


def _claim(rng: random.Random, name: str) -> ResourceClaim:
    requests = []
    for r in range(rng.choice([1, 1, 2])):
        if rng.random() < 0.25:
            subs = [dict(_request(rng, f"s{s}", True), name=f"s{s}") for s in range(2)]
            requests.append({"name": f"r{r}", "firstAvailable": subs})
        else:
            requests.append({"name": f"r{r}", "exactly": _request(rng, f"r{r}")})
    devices: dict = {"requests": requests}
    if rng.random() < 0.2:
        devices["constraints"] = [{"matchAttribute": "gpu.example.com/numa"}]
    elif rng.random() < 0.1:
        devices["constraints"] = [{"distinctAttribute": "gpu.example.com/model"}]
    return ResourceClaim.from_dict({"metadata": {"name": name, "namespace": "default", "uid": name},
                                    "spec": {"devices": devices}})


class Scenario:
    def __init__(self, seed: int):
        rng = random.Random(seed)
        self.gates = FeatureGates("1.37", {g: rng.random() < 0.75 for g in TOGGLED})
        self.compat = Compat(release_reserved_state=rng.random() < 0.5, distinct_all_devices=rng.random() < 0.5)
        self.classes = [
            DeviceClass.from_dict({"metadata": {"name": "gpu"}, "spec": {"selectors": [
                {"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}}),
            DeviceClass.from_dict({"metadata": {"name": "any"}, "spec": {}}),
        ]
        self.slices = _slices(rng)
        self.rules = [DeviceTaintRule.from_dict({"metadata": {"name": "r"}, "spec": {
            "deviceSelector": {"pool": "pool-1"}, "taint": {"key": "k", "value": "v", "effect": "NoSchedule"}}})] \
            if rng.random() < 0.3 else []
        self.pods = [[_claim(rng, f"p{p}-c{c}") for c in range(rng.choice([1, 1, 2]))] for p in range(8)]

    def allocator(self, committed, share_ids, **kwargs) -> Allocator:
        return Allocator(self.gates, self.classes, self.slices, committed, self.rules, compat=self.compat,
                         share_id=lambda: f"share-{next(share_ids)}", **kwargs)


def _transcript(outcome) -> tuple:
    results = tuple(repr(r.to_dict()) for r in outcome.results)
    return (outcome.status, outcome.error, outcome.node_failure, results, outcome.explanation)


def _without_explanations(transcript: list[tuple]) -> list[tuple]:
    return [(node, entry[:-1]) for node, entry in transcript]


def run_scenario(scenario: Scenario, mode: str) -> list[tuple]:
    """mode: "fast" (one Allocator), "per-attempt" (a new Allocator per node attempt), "plain",
    "unpruned" (plain, and no pruning)."""
    if mode == "unpruned":
        search_module.Search.prune = False
        try:
            return run_scenario(scenario, "plain")
        finally:
            search_module.Search.prune = True
    kwargs = {"shortcuts": False, "facts": FactCache()} if mode == "plain" else {}
    committed: list[ResourceClaim] = []
    share_ids = itertools.count()
    shared = scenario.allocator([], share_ids, **kwargs)
    transcript = []
    for claims in scenario.pods:
        for node in NODES:
            allocator = shared if mode != "per-attempt" else scenario.allocator(committed, share_ids)
            outcome = allocator.allocate(node, claims, explain=True)
            transcript.append((node.name, _transcript(outcome)))
            if outcome.allocated:
                for claim, result in zip(claims, outcome.results, strict=True):
                    shared.commit(claim, result)
                    committed.append(dataclasses.replace(claim, allocation=result))
                break
    return transcript


def _first_difference(got: list, want: list) -> int:
    return next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), min(len(got), len(want)))


def differences(seeds) -> list[str]:
    found = []
    for seed in seeds:
        scenario = Scenario(seed)
        plain = run_scenario(scenario, "plain")
        for mode in ("fast", "per-attempt"):
            got = run_scenario(scenario, mode)
            if got != plain:
                found.append(f"seed {seed}, {mode}, attempt {_first_difference(got, plain)}")
        got = _without_explanations(run_scenario(scenario, "unpruned"))
        if got != _without_explanations(plain):
            found.append(f"seed {seed}, unpruned, attempt {_first_difference(got, _without_explanations(plain))}")
    return found


def test_scenarios_exercise_every_outcome():
    outcomes = {entry[1][0] for seed in range(SCENARIOS) for entry in run_scenario(Scenario(seed), "plain")}
    assert outcomes == {"allocated", "unsatisfiable", "error"}


def test_fast_path_matches_straightforward_path():
    assert differences(range(SCENARIOS)) == []


def test_differential_catches_a_shape_key_without_tolerations(monkeypatch):
    # Mutant: the fact cache forgets that tolerations are part of a request's shape.
    monkeypatch.setattr(RequestData, "shape", property(lambda rd: (rd.class_selectors, rd.selectors)))
    assert differences(range(SCENARIOS))


def test_differential_catches_over_eager_pruning(monkeypatch):
    # Mutant: a scan with too few candidates left is pruned even when it has unevaluated devices.
    monkeypatch.setattr(search_module.Search, "_nothing_to_evaluate", lambda self, c, rd, start: self.prune)
    assert differences(range(SCENARIOS))


@pytest.mark.parametrize("seed", range(3))
def test_transcripts_are_deterministic(seed):
    assert run_scenario(Scenario(seed), "fast") == run_scenario(Scenario(seed), "fast")
