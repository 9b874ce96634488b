"""dractl's extension podgroup-constraints (docs/decisions/0001-podgroup-constraints-extension.md):
acceptance behind the opt-in, the rules on the constraints, and the group search (matchAttribute
across pods and nodes, distinctAttribute, Workload templates, basic groups, the --timeout bound, a
16-pod gang on 500 nodes)."""

from __future__ import annotations

import time

import pytest
from groupconstraint_manifests import (
    CLASS,
    DOMAIN,
    GATES,
    domains,
    match,
    node,
    podgroup,
    pods,
    template,
)

from dractl.api.versions import parse_feature_gates
from dractl.downward import resolve_plan
from dractl.extensions import PODGROUP_CONSTRAINTS
from dractl.load.loader import load_paths
from dractl.simulate.scheduler import Options, simulate
from dractl.validate.pipeline import validate_documents


@pytest.fixture
def run(tmp_path):
    def run_it(docs: list[str], extension: bool = True, **options):
        path = tmp_path / "input.yaml"
        path.write_text("---\n".join(docs))
        gates = parse_feature_gates(GATES, "1.37")
        if extension:
            gates = gates.with_extensions([PODGROUP_CONSTRAINTS])
        validated = validate_documents(load_paths([str(path)]), gates)
        plan = simulate(validated.documents, gates, Options(**options), validated.invalid)
        resolve_plan(plan, plan.slices)
        plan.findings = validated.findings
        return plan
    return run_it


def devices_of(plan) -> dict[str, list[str]]:
    return {p.name: [f"{r.pool}/{r.device}" for ref in p.claims for r in ref.claim.allocation.devices]
            for p in plan.pods if p.status == "Scheduled"}


# -- acceptance -----------------------------------------------------------------------------------

def test_without_the_extension_constraints_are_an_unknown_field(run):
    plan = run([CLASS, template(1), podgroup("g", "gang: {minCount: 1}", match()), pods("g", 1)],
               extension=False)
    assert [(f.code, f.field) for f in plan.findings] == [("DRA0101", "spec.resourceClaims[0].constraints")]


def test_with_the_extension_constraints_are_accepted(run):
    plan = run([CLASS, node("n1", 2, "nvlinkDomain", lambda i: "a"), template(1),
                podgroup("g", "gang: {minCount: 2}", match()), pods("g", 2)])
    assert plan.findings == []
    assert [p.status for p in plan.pods] == ["Scheduled", "Scheduled"]


@pytest.mark.parametrize("constraints, code, field", [
    ("    constraints:\n    - {}\n", "DRA8001", "spec.resourceClaims[0].constraints[0]"),
    ("    constraints:\n    - {matchAttribute: a.example.com/x, distinctAttribute: a.example.com/y}\n",
     "DRA8001", "spec.resourceClaims[0].constraints[0]"),
    ("    constraints:\n    - matchAttribute: nvlinkDomain\n", "DRA8002",
     "spec.resourceClaims[0].constraints[0].matchAttribute"),
    ("    constraints:\n    - distinctAttribute: gpu/block-name\n", "DRA8002",
     "spec.resourceClaims[0].constraints[0].distinctAttribute"),
    ("    constraints:\n" + "    - matchAttribute: a.example.com/x\n" * 33, "DRA8004",
     "spec.resourceClaims[0].constraints"),
])
def test_constraint_rules(run, constraints, code, field):
    plan = run([CLASS, template(1), podgroup("g", "gang: {minCount: 1}", constraints), pods("g", 1)])
    assert [(f.code, f.field) for f in plan.findings] == [(code, field)]
    assert "[dractl extension podgroup-constraints]" in plan.findings[0].message


def test_constraint_on_a_named_claim_is_refused(run):
    group = """apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {name: g, namespace: default}
spec:
  schedulingPolicy: {basic: {}}
  resourceClaims:
  - name: shared
    resourceClaimName: shared
    constraints:
    - matchAttribute: gpu.example.com/nvlinkDomain
"""
    claim = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
"""
    plan = run([CLASS, claim, group])
    assert [(f.code, f.field) for f in plan.findings] == [("DRA8003", "spec.resourceClaims[0].constraints")]


# -- matchAttribute -------------------------------------------------------------------------------

def test_gang_backtracks_to_the_one_domain_that_fits(run):
    shape = [("a1", 5, "a"), ("a2", 5, "a"), ("a3", 2, "a"), ("b1", 3, "b"), ("b2", 3, "b"), ("b3", 4, "b")]
    docs = [CLASS] + domains(shape) + [template(3), podgroup("g", "gang: {minCount: 3}", match()), pods("g", 3)]
    plan = run(docs)
    assert [p.node for p in plan.pods] == ["b1", "b2", "b3"]
    note = plan.pods[0].reasons[-1]
    assert note.code == "DRA8011" and note.to_json()["extension"] is True
    assert '= "b"' in note.message and "2 candidate value(s) tried" in note.message
    # Without the constraint (and the entry: without constraints it would be one shared claim)
    # first-fit spans both domains.
    docs[-2] = podgroup("g", "gang: {minCount: 3}", "").split("  resourceClaims:")[0]
    assert [p.node for p in run(docs).pods] == ["a1", "a2", "b1"]


def test_no_domain_fits_reports_each_value_and_the_unconstrained_outcome(run):
    shape = [("a1", 3, "a"), ("a2", 3, "a"), ("b1", 3, "b"), ("b2", 2, "b")]
    plan = run([CLASS] + domains(shape) + [template(3), podgroup("g", "gang: {minCount: 3}", match()),
                                           pods("g", 3)])
    assert {p.status for p in plan.pods} == {"Unschedulable"}
    reason = plan.pods[0].reasons[-1]
    assert reason.code == "DRA8010"
    assert f"no {DOMAIN} value lets 3 of 3 pod(s) be placed" in reason.message
    assert list(reason.details[:2]) == [
        f'{DOMAIN} = "a" (6 free device(s) on 2 node(s)): at most 2 of 3 pod(s), not tried: its free '
        'devices hold at most 2 claim(s) of 3 device(s) on their nodes',
        f'{DOMAIN} = "b" (5 free device(s) on 2 node(s)): at most 1 of 3 pod(s), not tried: its free '
        'devices hold at most 1 claim(s) of 3 device(s) on their nodes']
    assert reason.details[-1] == "without the PodGroup constraints: 3 of 3 pod(s) placed, the group would fit"
    assert all(c.allocation is None for c in plan.claims)  # everything rolled back


def test_the_bound_only_skips_work(run, monkeypatch):
    """With the device-count bound off every value is scheduled and rolled back: same outcome."""
    from dractl.simulate.groupconstraints import GroupSearch

    def outcome(shape, prune):
        monkeypatch.setattr(GroupSearch, "prune", prune)
        return run([CLASS] + domains(shape) + [template(3), podgroup("g", "gang: {minCount: 3}", match()),
                                               pods("g", 3)])

    # a (10 free GPUs) is tried first and holds only 2 pods of 3 GPUs; c (9) takes the gang.
    shape = [("a1", 5, "a"), ("a2", 5, "a"), ("b1", 4, "b"), ("b2", 4, "b"), ("c1", 3, "c"),
             ("c2", 3, "c"), ("c3", 3, "c")]
    pruned, scheduled = outcome(shape, True), outcome(shape, False)
    assert [p.node for p in pruned.pods] == [p.node for p in scheduled.pods] == ["c1", "c2", "c3"]
    assert "2 candidate value(s) tried" in scheduled.pods[0].reasons[-1].message
    shape[-1] = ("c3", 2, "c")  # now nothing fits
    failed_pruned, failed_scheduled = (outcome(shape, p).pods[0].reasons[-1] for p in (True, False))
    assert failed_pruned.code == failed_scheduled.code == "DRA8010"
    assert failed_pruned.details[-1] == failed_scheduled.details[-1]
    assert "first failure" in failed_scheduled.details[0] and "not tried" in failed_pruned.details[0]
    # Placed under the best failing value, the members' per-node explanations see the constraint.
    monkeypatch.setattr(GroupSearch, "prune", False)
    last = outcome(shape, False).pods[-1]
    lines = [line for r in last.reasons if r.code == "DRA5001" for line in r.details]
    assert any("violates a claim constraint" in line for line in lines), lines


def test_attribute_nobody_has(run):
    plan = run([CLASS, node("n1", 2, "nvlinkDomain", lambda i: "a"), template(1),
                podgroup("g", "gang: {minCount: 1}", match("gpu.example.com/rack")), pods("g", 1)])
    reason = plan.pods[0].reasons[-1]
    assert reason.code == "DRA8010" and "no free device of the inventory has gpu.example.com/rack" in reason.message


def test_matchattribute_holds_within_one_pod_claim_across_nodes_and_pods(run):
    # 2 pods x 2 GPUs; node n1 mixes domains, so the pod there must take its two "b" GPUs.
    docs = [CLASS, node("n1", 4, "nvlinkDomain", lambda i: "a" if i < 2 else "b"),
            node("n2", 2, "nvlinkDomain", lambda i: "b"), template(2),
            podgroup("g", "gang: {minCount: 2}", match()), pods("g", 2)]
    plan = run(docs)
    # "a" has fewer free devices (2) than "b" (4): b first, and it fits.
    assert devices_of(plan) == {"g-0": ["n1/gpu-2", "n1/gpu-3"], "g-1": ["n2/gpu-0", "n2/gpu-1"]}


def test_basic_group_places_what_fits_under_the_best_value(run):
    shape = [("a1", 1, "a"), ("b1", 1, "b"), ("b2", 1, "b")]
    plan = run([CLASS] + domains(shape) + [template(1), podgroup("g", "basic: {}", match()), pods("g", 3)])
    assert [p.node for p in plan.pods] == ["b1", "b2", ""]
    assert plan.pods[0].reasons[-1].code == "DRA8011"


def test_timeout_bounds_the_whole_group(run):
    shape = [("a1", 1, "a"), ("b1", 1, "b")]
    plan = run([CLASS] + domains(shape) + [template(1), podgroup("g", "gang: {minCount: 2}", match()),
                                           pods("g", 2)], timeout=1e-9)
    assert plan.pods[0].reasons[-1].code == "DRA8012"
    assert "timed out (--timeout) after trying 0 value(s)" in plan.pods[0].reasons[-1].message


def test_template_constraints_apply_to_its_podgroups(run):
    workload = f"""apiVersion: scheduling.k8s.io/v1alpha3
kind: Workload
metadata: {{name: train, namespace: default}}
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy:
      gang: {{minCount: 2}}
    resourceClaims:
    - name: gpus
      resourceClaimTemplateName: gpus
      constraints:
      - matchAttribute: {DOMAIN}
"""
    group = """apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {name: g, namespace: default}
spec:
  schedulingPolicy:
    gang: {minCount: 2}
  workloadRef: {workloadName: train, templateName: workers}
  resourceClaims:
  - name: gpus
    resourceClaimTemplateName: gpus
"""
    shape = [("a1", 1, "a"), ("b1", 1, "b"), ("b2", 1, "b")]
    plan = run([CLASS] + domains(shape) + [template(1), workload, group, pods("g", 2)])
    assert [f for f in plan.findings if f.severity == "error"] == []
    assert [p.node for p in plan.pods] == ["b1", "b2"]


# -- distinctAttribute ----------------------------------------------------------------------------

def test_distinct_attribute_across_pods(run):
    root = "gpu.example.com/pcieRoot"
    docs = [CLASS, node("n1", 4, "pcieRoot", lambda i: f"n1-r{i // 2}"),
            node("n2", 4, "pcieRoot", lambda i: f"n2-r{i // 2}"), template(1),
            podgroup("g", "gang: {minCount: 4}", f"    constraints:\n    - distinctAttribute: {root}\n"),
            pods("g", 4)]
    plan = run(docs)
    assert devices_of(plan) == {"g-0": ["n1/gpu-0"], "g-1": ["n1/gpu-2"], "g-2": ["n2/gpu-0"],
                                "g-3": ["n2/gpu-2"]}
    # A fifth pod has no root left: the gang fails, and would fit without the constraint.
    docs[-1] = pods("g", 5)
    docs[-2] = docs[-2].replace("minCount: 4", "minCount: 5")
    plan = run(docs)
    reason = plan.pods[0].reasons[-1]
    assert reason.code == "DRA8010"
    assert reason.details[-1] == "without the PodGroup constraints: 5 of 5 pod(s) placed, the group would fit"


# -- size -----------------------------------------------------------------------------------------

def test_gang_of_16_pods_on_500_nodes_finishes(run, record_property):
    """500 nodes in NVLink domains of 16 nodes (d00..d31). The nodes of d00..d29 have 9 GPUs, but
    2 are in use on each domain's first node: 142 free GPUs per domain, more than d30's 16 x 8 =
    128, so the search tries all 30 of them first; each places only 15 pods of 8 GPUs and is
    rolled back. d30 (nodes 480-495) takes the gang. The time is a test property (JUnit XML), not
    asserted."""
    nodes = []
    for n in range(500):
        domain = n // 16
        nodes.append(node(f"n{n:03d}", 9 if domain < 30 else 8, "nvlinkDomain",
                          lambda i, d=f"d{domain:02d}": d))
    busy = "---\n".join(f"""apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: busy-{d}, namespace: default}}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {{deviceClassName: gpu.example.com, count: 2}}
status:
  allocation:
    devices:
      results:
      - {{request: gpu, driver: gpu.example.com, pool: n{d * 16:03d}, device: gpu-0}}
      - {{request: gpu, driver: gpu.example.com, pool: n{d * 16:03d}, device: gpu-1}}
""" for d in range(30))
    docs = [CLASS] + nodes + [busy, template(8), podgroup("g", "gang: {minCount: 16}", match()),
                              pods("g", 16)]
    start = time.monotonic()
    plan = run(docs)
    elapsed = time.monotonic() - start
    record_property("seconds", round(elapsed, 2))
    assert {p.status for p in plan.pods} == {"Scheduled"}
    assert {p.node for p in plan.pods} == {f"n{n}" for n in range(480, 496)}
    assert "31 candidate value(s) tried" in plan.pods[0].reasons[-1].message
