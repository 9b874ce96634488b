"""least-/most-allocated try nodes in usage order and stop at the first feasible one (dractl's
own shortcut); the plan must be exactly the one of scoring every feasible node."""

from __future__ import annotations

import pytest
from sim_manifests import BIG_MODEL_SELECTOR, claim_template, device_class, exactly, gpu_node, pod

from dractl.report import plan_json
from dractl.simulate.shortcuts import Shortcuts

# Nodes with 1-4 devices, some tainted, some labelled; pods with and without node selectors,
# two device models, more pods than devices.
NODES = "".join(
    gpu_node(f"n{i}", ["big" if (i + k) % 4 == 0 else "small" for k in range(1 + i % 4)],
             cpu=str(2 + i % 3), labels={"zone": f"z{i % 3}"},
             taints=[{"key": "gpu", "effect": "NoSchedule"}] if i == 4 else None)
    for i in range(9)) + device_class() + claim_template("any", exactly()) \
    + claim_template("big", exactly(BIG_MODEL_SELECTOR))

PODS = "".join(pod(f"p{i:02d}", "big" if i % 4 == 0 else "any", cpu="1",
                   node_selector={"zone": f"z{i % 3}"} if i % 5 == 0 else None)
               for i in range(26))


@pytest.mark.parametrize("order", ["least-allocated", "most-allocated"])
def test_same_plan_as_scoring_every_node(dry_run, monkeypatch, order):
    taken = []
    real_init = Shortcuts.__init__
    monkeypatch.setattr(Shortcuts, "__init__", lambda self, *a: real_init(self, *a) or taken.append(self.stats))
    fast = dry_run(NODES + PODS, inventory=None, node_order=order)
    assert taken[-1]["scan_by_usage"]
    full = dry_run(NODES + PODS, inventory=None, node_order=order, shortcuts=False)
    assert plan_json.plan_document(fast, []) == plan_json.plan_document(full, [])
    placed = [p.node for p in fast.pods if p.node]
    assert len(set(placed)) > 3 and len(placed) < len(fast.pods)  # spread, and some do not fit
