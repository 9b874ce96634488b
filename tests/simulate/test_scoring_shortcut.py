"""dractl's shortcut for prioritized lists (1.36+ DRA score): the node scan stops at the first
node reaching the best score any node could get, where a subrequest that no device of the
inventory can satisfy does not count. The plan must be exactly the full scan's."""

from __future__ import annotations

import pytest
from sim_manifests import (
    BIG_MODEL_SELECTOR,
    DRIVER,
    claim_template,
    device_class,
    exactly,
    gpu_node,
    pod,
)

from dractl.simulate.plugins.dynamicresources import DynamicResources

NODES = "".join(gpu_node(f"n{i}", ["small", "small"] + (["big"] if i in (3, 5) else []))
                for i in range(8))
CLASSES = device_class() + device_class("nothing.example.com", driver="none.example.com")


def template(first: str, first_selector: str = "") -> str:
    first_choice = {"name": "first", **exactly(first_selector, first)["exactly"]}
    return claim_template("prio", {"firstAvailable": [
        first_choice, {"name": "second", "deviceClassName": DRIVER}]})


PODS = "".join(pod(f"p{i}", "prio") for i in range(20))


def plan_summary(plan):
    return [(p.pod.name, p.status, p.node) for p in plan.pods], \
        [(c.name, c.status, c.allocation) for c in plan.claims]


@pytest.mark.parametrize("first,selector", [
    ("nothing.example.com", ""),                                   # no device anywhere
    ("gpu.example.com", BIG_MODEL_SELECTOR),                       # on two nodes
    ("gpu.example.com", 'device.attributes["gpu.example.com"].model == "huge"'),  # none
])
def test_same_plan_as_the_full_scan(dry_run, monkeypatch, first, selector):
    text = NODES + CLASSES + template(first, selector) + PODS
    calls = []
    real = DynamicResources.score_bound
    monkeypatch.setattr(DynamicResources, "score_bound",
                        lambda self, state: calls.append(1) or real(self, state))
    fast = dry_run(text, inventory=None, version="1.37")
    assert calls, "the scoring path was not taken"
    full = dry_run(text, inventory=None, version="1.37", shortcuts=False)
    assert plan_summary(fast) == plan_summary(full)
    assert all(p.status == "Scheduled" for p in fast.pods[:16])


def test_the_bound_counts_only_alternatives_some_device_satisfies(dry_run, monkeypatch):
    seen = []
    real = DynamicResources.score_bound
    monkeypatch.setattr(DynamicResources, "score_bound",
                        lambda self, state: seen.append(real(self, state)) or seen[-1])
    dry_run(NODES + CLASSES + template("nothing.example.com") + PODS, inventory=None)
    assert seen and set(seen) == {7}  # the second alternative: 8 - 1
    seen.clear()
    dry_run(NODES + CLASSES + template("gpu.example.com", BIG_MODEL_SELECTOR) + PODS,
            inventory=None)
    assert seen and set(seen) == {8}
