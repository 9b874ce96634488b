"""dractl's shortcuts for unschedulable pods -- explanations kept per node state, and a pod that
fails exactly like the previous one with nothing changed in between -- give the same plan,
explanations and device verdicts as computing everything for every pod."""

from __future__ import annotations

from sim_manifests import BIG_MODEL_SELECTOR, claim_template, device_class, exactly, gpu_node, pod

from dractl.report import plan_json
from dractl.simulate.shortcuts import Shortcuts

NODES = "".join(gpu_node(f"n{i}", ["big" if i % 2 else "small", "small"]) for i in range(6)) \
    + device_class() + claim_template("one", exactly()) \
    + claim_template("big", exactly(BIG_MODEL_SELECTOR))

# Big-model pods first fill the three big devices, then plain pods fill the rest; more of each
# than fit, interleaved so that failures repeat, and the cluster changes between them.
PODS = "".join(pod(f"p{i:02d}", "big" if i % 3 == 0 else "one") for i in range(30))


def everything(plan) -> list:
    out = [plan_json.plan_document(plan, [])]
    for p in plan.pods:
        out.append((p.pod.name, dict(p.node_failures),
                    {n: list(p.node_explanations[n]) for n in p.node_explanations},
                    {n: list(v) for n, v in p.node_devices.items()}))
    return out


def test_same_plan_and_explanations_without_the_shortcuts(dry_run, monkeypatch):
    taken = []
    real_init = Shortcuts.__init__

    def keep(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        taken.append(self.stats)

    monkeypatch.setattr(Shortcuts, "__init__", keep)
    fast = dry_run(NODES + PODS, inventory=None)
    assert sum(p.status == "Scheduled" for p in fast.pods) == 12
    stats = taken[-1]
    assert stats["repeat_failure"] and stats["explanation"]  # both shortcuts were taken
    slow = dry_run(NODES + PODS, inventory=None, shortcuts=False)
    assert not taken[-1]  # nothing taken with the switch off
    assert everything(fast) == everything(slow)
    # and the explanations name each pod's own claim
    for p in fast.pods:
        if p.status != "Scheduled":
            own = p.claims[0].claim.ref
            assert any(own in line for r in p.reasons for line in r.details)
            assert all(own in line for lines in p.node_explanations.values() for line in lines
                       if line.startswith("claim "))
