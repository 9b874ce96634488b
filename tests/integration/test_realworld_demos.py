"""Demos of the DRA example driver (../shared/realworld) dry-run against builtin:example-gpu give
the outcome their README (and INDEX.md) describes."""

from __future__ import annotations

from realworld_corpus import REALWORLD, require_realworld

from dractl.api.versions import FeatureGates
from dractl.inventories import inventory_path
from dractl.load.loader import load_paths
from dractl.simulate.scheduler import simulate
from dractl.validate.pipeline import validate_documents

EXAMPLES = REALWORLD / "dra-example-driver" / "demo" / "examples"


def dry_run(demo: str):
    require_realworld(EXAMPLES)
    files = sorted(str(p) for p in (EXAMPLES / demo).glob("*.yaml"))
    gates = FeatureGates("1.37")
    validated = validate_documents(load_paths([str(inventory_path("example-gpu"))] + files), gates)
    assert [f for f in validated.findings if f.severity == "error"] == []
    return simulate(validated.documents, gates, invalid=validated.invalid)


def devices(pod):
    return [(r.request, r.device) for ref in pod.claims for r in ref.claim.allocation.devices]


def test_prioritized_alternatives():
    pod0, pod1 = dry_run("prioritized-alternatives").pods
    assert devices(pod0) == [("gpu/older-gpu", "gpu-0")]
    assert devices(pod1) == [("gpu/latest-gpu", "gpu-1")]


def test_extended_resource_request():
    pod0, pod1 = dry_run("extended-resource-request").pods
    assert pod0.status == "Scheduled" and devices(pod0) == [("container-0-request-0", "gpu-0")]
    assert pod0.pod.status["extendedResourceClaimStatus"]["requestMappings"][0]["resourceName"] == \
        "deviceclass.resource.kubernetes.io/gpu.example.com"
    # example.com/gpu maps to no DeviceClass in the default chart and no node offers it:
    # NodeResourcesFit rejects it before DynamicResources (ShouldDelegateResourceToDRA is false)
    assert pod1.status == "Unschedulable" and "2 Insufficient example.com/gpu." in pod1.reasons[-1].message


def test_shared_claim_across_pods():
    plan = dry_run("basic-shared-claim-across-pods")
    assert {p.status for p in plan.pods} == {"Scheduled"}
    assert len({tuple(devices(p)) for p in plan.pods}) == 1  # both pods on the same GPU
    shared = next(c for c in plan.claims if not c.generated)
    assert len(shared.reserved_for) == 2
