"""The journal undoes a transaction newest change first (dractl/simulate/journal.py).

Order matters whenever one piece of state changes twice inside a transaction: each entry holds
the value from just before its own change, so only newest-first ends at the value from before
the transaction. In the dry run that happens when the members of a gang share a claim: each
member's Reserve marks the claim as touched, and a failed gang must leave the claim exactly as
the input had it (`-o yaml` prints only objects the dry run wrote, docs/architecture.md,
"Cluster state and the journal").

`rollback_problems()` runs every check and returns what went wrong; the mutant test applies an
oldest-first rollback in this process and requires each check to notice it (the same pattern as
the allocator's differential test, tests/unit/allocator/test_differential.py).
"""

from __future__ import annotations

import pytest
import yaml

from dractl.api.versions import parse_feature_gates
from dractl.pipeline import CheckOptions, DryRunOptions, dry_run
from dractl.report.registry import render
from dractl.simulate import journal as journal_module
from dractl.simulate.journal import Journal

WORKLOAD_GATES = "GenericWorkload=true,DRAWorkloadResourceClaims=true"

# Four pods of one gang share claim `shared` (one GPU) and each asks for two more GPUs. The shared
# claim's GPU is node-local, so every member must run on its node, which has 8 GPUs of
# builtin:example-gpu, not 9: the gang cannot reach minCount and every member's cycle is rolled
# back, the shared claim's reservation included.
SHARED_CLAIM_GANG = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: two-gpus, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.example.com, count: 2}
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {name: gang, namespace: default}
spec:
  schedulingPolicy:
    gang: {minCount: 4}
---
apiVersion: batch/v1
kind: Job
metadata: {name: g, namespace: default}
spec:
  parallelism: 4
  completions: 4
  template:
    spec:
      schedulingGroup: {podGroupName: gang}
      restartPolicy: Never
      resourceClaims:
      - {name: shared, resourceClaimName: shared}
      - {name: gpu, resourceClaimTemplateName: two-gpus}
      containers:
      - name: worker
        image: busybox
        resources: {claims: [{name: shared}, {name: gpu}]}
"""


class _Thing:
    def __init__(self) -> None:
        self.state = "original"


def _field_changed_twice() -> list[str]:
    journal, thing = Journal(), _Thing()
    journal.begin()
    journal.set_attr(thing, "state", "first change")
    journal.set_attr(thing, "state", "second change")
    journal.rollback()
    return [] if thing.state == "original" else [f"attribute set twice rolled back to {thing.state!r}"]


def _item_changed_twice() -> list[str]:
    journal, mapping = Journal(), {}
    journal.begin()
    journal.set_item(mapping, "key", "first")
    journal.set_item(mapping, "key", "second")
    journal.rollback()
    return [] if mapping == {} else [f"item added then changed rolled back to {mapping!r}"]


def _nested_transactions() -> list[str]:
    journal, thing = Journal(), _Thing()
    journal.begin()                       # the gang
    journal.set_attr(thing, "state", "member 1")
    journal.begin()                       # one member's cycle, committed into the gang
    journal.set_attr(thing, "state", "member 2")
    journal.commit()
    journal.rollback()
    return [] if thing.state == "original" else [f"committed inner change rolled back to {thing.state!r}"]


def _failed_gang_leaves_shared_claim_untouched(tmp_path) -> list[str]:
    path = tmp_path / "gang.yaml"
    path.write_text(SHARED_CLAIM_GANG)
    options = CheckOptions(gates=parse_feature_gates(WORKLOAD_GATES, "1.37"), jobs=1)
    result = dry_run([str(path)], options, DryRunOptions(inventory=("builtin:example-gpu",)))
    pods = [pod for pod in result.plan.pods if pod.status != "Unschedulable"]
    if pods:
        return [f"the gang was expected to fail, {len(pods)} pod(s) placed"]
    written = [doc for doc in yaml.safe_load_all(render("yaml", result)) if doc]
    claims = [doc["metadata"]["name"] for doc in written if doc.get("kind") == "ResourceClaim"]
    return [f"-o yaml prints claim {name!r} after the gang was rolled back" for name in claims]


def rollback_problems(tmp_path) -> list[str]:
    return (_field_changed_twice() + _item_changed_twice() + _nested_transactions()
            + _failed_gang_leaves_shared_claim_untouched(tmp_path))


def _oldest_first_rollback(self: Journal) -> int:
    """The mutant: the same entries undone in the order they were recorded."""
    mark = self._marks.pop()
    undone = self._entries[mark:]
    del self._entries[mark:]
    for undo, args in undone:
        undo(*args)
    return len(undone)


def test_rollback_restores_the_state_before_the_transaction(tmp_path):
    assert rollback_problems(tmp_path) == []


@pytest.mark.parametrize("check", [_field_changed_twice, _item_changed_twice, _nested_transactions])
def test_each_unit_check_catches_an_oldest_first_rollback(monkeypatch, check):
    monkeypatch.setattr(journal_module.Journal, "rollback", _oldest_first_rollback)
    assert check()


def test_the_dry_run_check_catches_an_oldest_first_rollback(monkeypatch, tmp_path):
    monkeypatch.setattr(journal_module.Journal, "rollback", _oldest_first_rollback)
    assert _failed_gang_leaves_shared_claim_untouched(tmp_path) == [
        "-o yaml prints claim 'shared' after the gang was rolled back"]
