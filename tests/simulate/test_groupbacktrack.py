"""dractl's extension podgroup-constraints (docs/decisions/0001-podgroup-constraints-extension.md):
the backtracking search across a group's pods for distinctAttribute
(dractl/simulate/groupbacktrack.py). The first placement it finds is the greedy one whenever greedy
works; it finds one whenever one exists (checked against a brute force on small random inventories);
the values-available bound only skips work; --timeout stops it with DRA8013; matchAttribute and
distinctAttribute together; a 16-pod gang on 500 nodes."""

from __future__ import annotations

import itertools
import random
import time
from pathlib import Path

import pytest
from groupconstraint_manifests import (
    CLASS,
    DOMAIN,
    GATES,
    INVENTORY_500,
    inventory_500_nodes,
    node,
    podgroup,
    template,
)

from dractl.api.versions import parse_feature_gates
from dractl.downward import resolve_plan
from dractl.extensions import PODGROUP_CONSTRAINTS
from dractl.load.loader import load_paths
from dractl.simulate.groupbacktrack import Backtracking
from dractl.simulate.groupconstraints import GroupSearch
from dractl.simulate.scheduler import Options, simulate
from dractl.validate.pipeline import validate_documents

ROOT = "gpu.example.com/pcieRoot"
DISTINCT = f"    constraints:\n    - distinctAttribute: {ROOT}\n"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def run(tmp_path):
    def run_it(docs: list[str], inventory: str | None = None, **options):
        path = tmp_path / "input.yaml"
        path.write_text("---\n".join(docs))
        gates = parse_feature_gates(GATES, "1.37").with_extensions([PODGROUP_CONSTRAINTS])
        paths = ([inventory] if inventory else []) + [str(path)]
        validated = validate_documents(load_paths(paths), gates)
        assert [f for f in validated.findings if f.severity == "error"] == []
        plan = simulate(validated.documents, gates, Options(**options), validated.invalid)
        resolve_plan(plan, plan.slices)
        return plan
    return run_it


def pod(name: str, group: str = "g", pin: str | None = None) -> str:
    selector = f"  nodeSelector: {{kubernetes.io/hostname: {pin}}}\n" if pin else ""
    return f"""apiVersion: v1
kind: Pod
metadata: {{name: {name}, namespace: default}}
spec:
  schedulingGroup: {{podGroupName: {group}}}
{selector}  resourceClaims:
  - {{name: gpus, resourceClaimTemplateName: gpus}}
  containers:
  - name: worker
    image: busybox
    resources: {{claims: [{{name: gpus}}]}}
"""


def roots_node(name: str, roots: list[str]) -> str:
    return node(name, len(roots), "pcieRoot", lambda i: roots[i])


def placement(plan) -> dict[str, tuple]:
    return {p.name: (p.node, tuple(f"{r.pool}/{r.device}" for ref in p.claims
                                   for r in ref.claim.allocation.devices))
            for p in plan.pods if p.status == "Scheduled"}


def roots_of(plan) -> list[str]:
    by_device = {(sl.pool.name, d.name): d for sl in plan.slices for d in sl.devices}
    return [str(by_device[(r.pool, r.device)].attributes["pcieRoot"].value) for p in plan.pods
            if p.status == "Scheduled" for ref in p.claims for r in ref.claim.allocation.devices]


def last_reason(plan):
    return plan.pods[0].reasons[-1]


# -- the scenario of golden 84 ----------------------------------------------------------------------

def stealing_docs() -> list[str]:
    return [CLASS, roots_node("n1", ["n1-root0", "n1-root0"]), roots_node("n2", ["n2-root0", "n2-root1"]),
            roots_node("n3", ["n3-root0"]), template(1), podgroup("g", "gang: {minCount: 4}", DISTINCT),
            pod("g-0"), pod("g-1"), pod("g-2"), pod("g-3", pin="n1")]


def test_greedy_fails_and_the_search_across_the_pods_succeeds(run, monkeypatch):
    plan = run(stealing_docs())
    assert placement(plan) == {"g-0": ("n2", ("n2/gpu-0",)), "g-1": ("n2", ("n2/gpu-1",)),
                               "g-2": ("n3", ("n3/gpu-0",)), "g-3": ("n1", ("n1/gpu-0",))}
    note = last_reason(plan)
    assert note.code == "DRA8011" and note.to_json()["extension"] is True
    assert "found by backtracking across the pods: 7 placement(s) tried, 3 undone" in note.message
    # Greedy in member order gives g-0 n1's only root and g-3 nothing: the gang fails.
    monkeypatch.setattr(GroupSearch, "backtrack", False)
    greedy = run(stealing_docs())
    assert {p.status for p in greedy.pods} == {"Unschedulable"}
    assert last_reason(greedy).code == "DRA8010"


def test_the_bound_only_skips_work(run, monkeypatch):
    with_bound = run(stealing_docs())
    monkeypatch.setattr(Backtracking, "use_bound", False)
    without = run(stealing_docs())
    assert placement(with_bound) == placement(without)
    assert "0 branch(es) cut" in last_reason(without).message
    steps = [int(r.message.split("tried")[0].rsplit(": ", 1)[1].split()[0]) for r in
             (last_reason(with_bound), last_reason(without))]
    assert steps[0] < steps[1], steps


# -- properties on small random inventories ------------------------------------------------------

def random_case(seed: int):
    """(docs, {node: [root, ...]}, [allowed nodes per pod]); roots repeat across nodes, about half
    the pods are pinned to one node."""
    rng = random.Random(seed)
    nodes = {f"n{i}": [f"r{rng.randrange(5)}" for _ in range(rng.randint(1, 3))] for i in range(rng.randint(2, 4))}
    pods = [rng.choice([None, rng.choice(sorted(nodes))]) for _ in range(rng.randint(2, 5))]
    docs = [CLASS] + [roots_node(n, roots) for n, roots in nodes.items()] + [
        template(1), podgroup("g", f"gang: {{minCount: {len(pods)}}}", DISTINCT)] + [
        pod(f"g-{i}", pin=pin) for i, pin in enumerate(pods)]
    allowed = [[pin] if pin else sorted(nodes) for pin in pods]
    return docs, nodes, allowed


def solution_exists(nodes: dict, allowed: list) -> bool:
    """One GPU per pod, all roots different: a root for each pod among its nodes' roots."""
    reach = [{r for n in names for r in nodes[n]} for names in allowed]
    values = sorted(set().union(*reach))
    return any(all(v in reach[i] for i, v in enumerate(choice))
               for choice in itertools.permutations(values, len(allowed)))


def test_search_is_complete_and_greedy_first(run, monkeypatch):
    seen = {"greedy works": 0, "only the search works": 0, "nothing works": 0}
    for seed in range(40):
        docs, nodes, allowed = random_case(seed)
        monkeypatch.setattr(GroupSearch, "backtrack", True)
        monkeypatch.setattr(Backtracking, "use_bound", True)
        plan = run(docs)
        placed = {p.status for p in plan.pods} == {"Scheduled"}
        assert placed == solution_exists(nodes, allowed), (seed, nodes, allowed)
        if placed:
            roots = roots_of(plan)
            assert len(roots) == len(set(roots)) == len(allowed), seed
        else:
            assert last_reason(plan).code == "DRA8010" and last_reason(plan).to_json()["extension"] is True
        monkeypatch.setattr(Backtracking, "use_bound", False)
        assert placement(run(docs)) == placement(plan), seed    # the bound only skips work
        monkeypatch.setattr(GroupSearch, "backtrack", False)
        greedy = run(docs)
        if {p.status for p in greedy.pods} == {"Scheduled"}:
            assert placement(plan) == placement(greedy), seed   # the first solution is the greedy one
            seen["greedy works"] += 1
        else:
            seen["only the search works" if placed else "nothing works"] += 1
    assert min(seen.values()) >= 3, seen   # the cases exercise every branch


def solution_exists_two_each(nodes: dict, allowed: list) -> bool:
    """Two GPUs per pod on one of its nodes, all roots of the group different."""
    def options(names):
        return [frozenset(pair) for n in names for pair in itertools.combinations(sorted(set(nodes[n])), 2)]

    def place(k: int, used: frozenset) -> bool:
        return k == len(allowed) or any(not (pair & used) and place(k + 1, used | pair)
                                        for pair in options(allowed[k]))
    return place(0, frozenset())


def test_search_is_complete_with_two_devices_per_pod(run):
    outcomes = []
    for seed in range(30):
        rng = random.Random(1000 + seed)
        nodes = {f"n{i}": [f"r{rng.randrange(6)}" for _ in range(rng.randint(2, 4))] for i in range(3)}
        pins = [rng.choice([None, rng.choice(sorted(nodes))]) for _ in range(rng.randint(2, 3))]
        docs = [CLASS] + [roots_node(n, roots) for n, roots in nodes.items()] + [
            template(2), podgroup("g", f"gang: {{minCount: {len(pins)}}}", DISTINCT)] + [
            pod(f"g-{i}", pin=pin) for i, pin in enumerate(pins)]
        plan = run(docs)
        placed = {p.status for p in plan.pods} == {"Scheduled"}
        allowed = [[pin] if pin else sorted(nodes) for pin in pins]
        assert placed == solution_exists_two_each(nodes, allowed), (seed, nodes, allowed)
        if placed:
            roots = roots_of(plan)
            assert len(roots) == len(set(roots)) == 2 * len(pins), seed
        outcomes.append(placed)
    assert 5 <= sum(outcomes) <= 25, outcomes   # both kinds of case occur


# -- bounds, explanations, timeout ---------------------------------------------------------------

def test_too_few_values_is_explained_by_the_count(run):
    docs = [CLASS, roots_node("n1", ["a", "a", "b"]), roots_node("n2", ["c"]), template(1),
            podgroup("g", "gang: {minCount: 4}", DISTINCT)] + [pod(f"g-{i}") for i in range(4)]
    reason = last_reason(run(docs))
    assert reason.code == "DRA8010"
    assert reason.message.endswith(f"the 4 pod(s) to place need 4 distinct {ROOT} values (1 device(s) "
                                   "each), but only 3 are free on the nodes they may run on")
    assert reason.details == ("without the PodGroup constraints: 4 of 4 pod(s) placed, the group would fit",)


def test_pods_pinned_to_one_root_are_counted_together(run):
    docs = [CLASS, roots_node("n1", ["a", "a"]), roots_node("n2", ["b", "c"]), template(1),
            podgroup("g", "gang: {minCount: 3}", DISTINCT), pod("g-0", pin="n1"), pod("g-1", pin="n1"),
            pod("g-2")]
    reason = last_reason(run(docs))
    assert reason.code == "DRA8010"
    assert reason.message.endswith(f"2 of the 3 pod(s) to place may only run on nodes with 1 free distinct "
                                   f"{ROOT} value(s) between them (1 for each pod), so at most 2 of the 3 "
                                   "needed can be placed")
    assert reason.details[:2] == ("pod default/g-0: 1 free value(s) on the 1 node(s) it may run on (n1)",
                                  "pod default/g-1: 1 free value(s) on the 1 node(s) it may run on (n1)")


def test_a_search_that_finds_nothing_says_where_the_bound_cut(run):
    # g-0, g-1, g-2 may each run on two of n1, n2, n3 (one root each), g-3 on n1 or n2: four pods
    # for three roots, which no single pod's nodes show; g-4 has n4 and n5 to itself.
    def on(name, nodes):
        affinity = ("  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
                    "        nodeSelectorTerms:\n        - matchExpressions:\n"
                    f"          - {{key: kubernetes.io/hostname, operator: In, values: [{', '.join(nodes)}]}}\n")
        return pod(name).replace("  resourceClaims:", affinity + "  resourceClaims:", 1)
    docs = [CLASS] + [roots_node(f"n{i}", [f"r{i}", f"r{i}"]) for i in range(1, 6)] + [
        template(1), podgroup("g", "gang: {minCount: 5}", DISTINCT), on("g-0", ["n1", "n2"]),
        on("g-1", ["n2", "n3"]), on("g-2", ["n1", "n3"]), on("g-3", ["n1", "n2"]), on("g-4", ["n4", "n5"])]
    reason = last_reason(run(docs))
    assert reason.code == "DRA8010"
    assert "the search across the pods (10 placement(s) tried, 6 undone, 3 branch(es) cut by the " \
           "values-available bound) placed at most 3 together" in reason.message
    assert reason.details[0].startswith("first branch cut by the values-available bound, with default/g-0, "
                                        "default/g-1 placed: 1 of the 3 pod(s) to place have fewer than 1")
    assert reason.details[1] == "  pod default/g-3: 0 free value(s) on the 2 node(s) it may run on (n1, n2)"


def test_timeout_stops_the_search_across_the_pods(run):
    reason = last_reason(run(stealing_docs(), timeout=1e-9))
    assert reason.code == "DRA8013" and reason.to_json()["extension"] is True
    assert "the search across the pods ran out of --timeout (1e-09 s) after 0 placement(s)" in reason.message
    assert reason.details[-1].startswith("without the PodGroup constraints:")  # the allocator timed out too


def test_two_devices_per_pod(run):
    # 2 pods x 2 GPUs, all 4 roots different. Greedy gives g-0 n1's roots a and b; g-1 (n1 only)
    # needs two roots there: g-0 must take one of n2's.
    docs = [CLASS, roots_node("n1", ["a", "b", "c"]), roots_node("n2", ["d", "e"]), template(2),
            podgroup("g", "gang: {minCount: 2}", DISTINCT), pod("g-0"), pod("g-1", pin="n1")]
    plan = run(docs)
    assert {p.status for p in plan.pods} == {"Scheduled"}
    roots = roots_of(plan)
    assert len(roots) == len(set(roots)) == 4
    assert placement(plan)["g-1"][0] == "n1"


def test_min_count_lower_than_the_gang(run):
    # 3 pods, 2 roots: a gang of minCount 2 is admitted with 2 pods, the third stays pending.
    docs = [CLASS, roots_node("n1", ["a", "b"]), template(1),
            podgroup("g", "gang: {minCount: 2}", DISTINCT)] + [pod(f"g-{i}") for i in range(3)]
    plan = run(docs)
    assert [p.status for p in plan.pods] == ["Scheduled", "Scheduled", "Unschedulable"]
    assert sorted(roots_of(plan)) == ["a", "b"]
    assert last_reason(plan).code == "DRA8011"
    assert "placed under its constraints (2 of 3 pod(s)" in last_reason(plan).message
    assert [r.code for r in plan.pods[2].reasons if r.code.startswith("DRA80")] == []


def test_min_count_lower_than_the_gang_with_backtracking(run):
    # Golden 84's group (minCount 4) and a fifth pod that may only run on n1 too: the search for
    # all 5 finds nothing (4 roots); the search for 4 leaves one pod pending and backtracks.
    plan = run(stealing_docs() + [pod("g-4", pin="n1")])
    assert [p.status for p in plan.pods].count("Scheduled") == 4
    roots = roots_of(plan)
    assert len(roots) == len(set(roots)) == 4
    assert last_reason(plan).code == "DRA8011" and "found by backtracking" in last_reason(plan).message


def test_match_and_distinct_together(run):
    # Every GPU in one NVLink domain and on its own PCIe root. Domain x (tried first: most free
    # GPUs) has roots r1, r1, r1, r2: 2 distinct values for 3 pods, cut by the bound. In domain y
    # the scheduler's picks give g-0 and g-1 n3's roots r3 and r4, and g-2 may only run on n3: the
    # search moves g-1 to n4 (root r5).
    def gpus(name, pairs):
        devices = "".join(f"  - name: gpu-{i}\n    attributes:\n      nvlinkDomain: {{string: {d}}}\n"
                          f"      pcieRoot: {{string: {r}}}\n" for i, (d, r) in enumerate(pairs))
        return node(name, 0, "x", lambda i: "") .replace("  devices:\n", "  devices:\n" + devices)
    docs = [CLASS, gpus("n1", [("x", "r1"), ("x", "r1"), ("x", "r1")]), gpus("n2", [("x", "r2")]),
            gpus("n3", [("y", "r3"), ("y", "r4")]), gpus("n4", [("y", "r5")]), template(1),
            podgroup("g", "gang: {minCount: 3}", f"    constraints:\n    - matchAttribute: {DOMAIN}\n"
                     f"    - distinctAttribute: {ROOT}\n"),
            pod("g-0"), pod("g-1"), pod("g-2", pin="n3")]
    plan = run(docs)
    assert {p.status for p in plan.pods} == {"Scheduled"}
    assert sorted(roots_of(plan)) == ["r3", "r4", "r5"]
    note = last_reason(plan)
    assert f'every device has {DOMAIN} = "y"' in note.message and "2 candidate value(s) tried" in note.message


# -- size ---------------------------------------------------------------------------------------------

def test_inventory_of_golden_86_is_generated():
    assert (REPO / INVENTORY_500).read_text() == inventory_500_nodes()


def test_gang_of_16_pods_on_500_nodes(run, record_property):
    """Golden 86's case: train-15 may only run on n000; the scheduler's picks give n000's roots to
    the first two pods. The time is recorded as a test property (JUnit XML), not asserted."""
    docs = [CLASS, template(1), podgroup("g", "gang: {minCount: 16}", DISTINCT)] + [
        pod(f"g-{i:02d}", pin="n000" if i == 15 else None) for i in range(16)]
    start = time.monotonic()
    plan = run(docs, inventory=str(REPO / INVENTORY_500))
    elapsed = time.monotonic() - start
    record_property("seconds", round(elapsed, 2))
    assert {p.status for p in plan.pods} == {"Scheduled"}
    roots = roots_of(plan)
    assert len(set(roots)) == 16 and placement(plan)["g-15"][0] == "n000"
    assert "30 placement(s) tried, 14 undone, 14 branch(es) cut" in last_reason(plan).message


def test_out_of_time_a_lower_min_count_is_still_admitted_in_the_schedulers_order(run, monkeypatch):
    # minCount 3 of 4; all 4 would need the search. The search is stopped after two steps (a
    # deterministic stand-in for --timeout): the scheduler's order places 3, which admits the gang.
    docs = stealing_docs()
    docs[5] = docs[5].replace("minCount: 4", "minCount: 3")
    checks = iter(range(1000))
    monkeypatch.setattr(GroupSearch, "timed_out", lambda self: next(checks) >= 2)
    plan = run(docs)
    assert [p.status for p in plan.pods] == ["Scheduled", "Scheduled", "Scheduled", "Unschedulable"]
    note = last_reason(plan)
    assert note.code == "DRA8011"
    assert "3 of 4 pod(s), in the scheduler's order: the search for a placement of all of them ran out of " \
           "--timeout (10 s) after 2 placement(s) tried" in note.message
    monkeypatch.undo()
    assert {p.status for p in run(docs).pods} == {"Scheduled"}   # with time, all 4


def test_a_member_without_a_claim_from_the_entry_needs_no_value(run):
    # Golden 84's group and a coordinator pod without a GPU claim: 5 pods, 4 roots. Counting the
    # coordinator as needing a root would cut the search at its start.
    coordinator = """apiVersion: v1
kind: Pod
metadata: {name: g-coordinator, namespace: default}
spec:
  schedulingGroup: {podGroupName: g}
  containers:
  - {name: main, image: busybox}
"""
    docs = stealing_docs()
    docs[5] = docs[5].replace("minCount: 4", "minCount: 5")
    plan = run(docs + [coordinator])
    assert {p.status for p in plan.pods} == {"Scheduled"}
    assert placement(plan) == {**placement(run(stealing_docs())), "g-coordinator": ("n1", ())}
