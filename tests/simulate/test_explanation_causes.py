"""For every reason that can leave a pod unschedulable, the text explanation
names the object that causes it (the taint and its slice or rule, the pool, the capacity, the
counter set, the class, the claim...).

Each case is a real dry run (`dractl allocate -o text`) of a small inventory and workload built
for that reason. The assertions look for the reason's own line in the output (the allocator
reason's description, or the finding code) and require the object's name on that line or on
the lines nested under it, so a case fails if the reason is not produced at all, or produced
without naming its cause.
"""

from __future__ import annotations

import copy

import pytest
import yaml
from typer.testing import CliRunner

from dractl.allocator import reasons as AR
from dractl.cli.app import app
from dractl.findings import CODES, ERROR
from dractl.simulate import reasons as SR

DRIVER = "dev.example.com"


def node(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}}}


def device_class(name: str = DRIVER, expression: str = f'device.driver == "{DRIVER}"', **spec) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expression}}], **spec}}


def rslice(name: str, devices: list[dict], node_name: str | None = "n1", pool: str = "n1", count: int = 1,
           generation: int = 1, **spec) -> dict:
    body = {"driver": DRIVER, "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
            "devices": devices, **spec}
    if node_name and "perDeviceNodeSelection" not in spec and "sharedCounters" not in spec:
        body["nodeName"] = node_name
    if "sharedCounters" in spec:
        del body["devices"]  # a slice holds counter sets or devices, not both
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": body}


def device(name: str, **fields) -> dict:
    return {"name": name, "attributes": {"model": {"string": "m1"}}, **fields}


def claim(name: str, requests: list[dict] | None = None, constraints: list[dict] | None = None,
          **metadata) -> dict:
    spec = {"devices": {"requests": requests or [request()]}}
    if constraints:
        spec["devices"]["constraints"] = constraints
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default", **metadata}, "spec": spec}


def request(name: str = "dev", cls: str = DRIVER, **exactly) -> dict:
    return {"name": name, "exactly": {"deviceClassName": cls, **exactly}}


def allocated(claim_doc: dict, *devices: str, request_name: str = "dev", pool: str = "n1", **result) -> dict:
    doc = copy.deepcopy(claim_doc)
    doc["status"] = {"allocation": {"devices": {"results": [
        {"request": request_name, "driver": DRIVER, "pool": pool, "device": d, **result} for d in devices]}}}
    return doc


def pod(name: str = "p", claims: tuple[str, ...] = ("c",), **spec) -> dict:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
            "spec": {"resourceClaims": [{"name": f"r{i}", "resourceClaimName": c} for i, c in enumerate(claims)],
                     "containers": [{"name": "main", "image": "pause",
                                     "resources": {"claims": [{"name": f"r{i}"} for i in range(len(claims))]}}],
                     **spec}}


def run(tmp_path, inventory: list[dict], workload: list[dict], *args: str) -> str:
    inv = tmp_path / "inventory.yaml"
    inv.write_text(yaml.safe_dump_all(inventory, sort_keys=False))
    work = tmp_path / "workload.yaml"
    work.write_text(yaml.safe_dump_all(workload, sort_keys=False))
    result = CliRunner().invoke(app, ["allocate", "-i", str(inv), *args, "-o", "text", "--no-color",
                                      "--no-config", "--explain", "*", str(work)])
    assert result.exit_code == 1, result.output
    return result.output


def block(output: str, marker: str) -> list[str]:
    """Each line containing `marker`, with the lines nested under it (deeper tree indentation)."""
    lines = output.splitlines()
    found = []
    for i, line in enumerate(lines):
        if marker not in line:
            continue
        depth = _depth(line)
        nested = [line]
        for more in lines[i + 1:]:
            if _depth(more) <= depth:
                break
            nested.append(more)
        found.append("\n".join(nested))
    return found


def _depth(line: str) -> int:
    stripped = line.lstrip(" │├└─")
    return len(line) - len(stripped)


def assert_named(output: str, marker: str, *names: str) -> None:
    blocks = block(output, marker)
    assert blocks, f"no line with {marker!r} in:\n{output}"
    assert any(all(n in b for n in names) for b in blocks), \
        f"{marker!r}: no block names {names}:\n" + "\n---\n".join(blocks)


def cause_marker(reason: str) -> str:
    """The cause line under a request: `<count> <description>: ...`."""
    return f" {AR.DESCRIPTIONS[reason]}: "


# -- allocator reasons -----------------------------------------------------------------------------

def case_tainted(tmp_path):
    taint = {"key": "example.com/broken", "value": "yes", "effect": "NoSchedule"}
    out = run(tmp_path, [node("n1"), device_class(), rslice("n1-devs", [device("d0", taints=[taint])])],
              [claim("c"), pod()])
    assert_named(out, cause_marker(AR.TAINTED), "example.com/broken=yes:NoSchedule", "ResourceSlice n1-devs",
                 "inventory.yaml:")
    # The toleration printed under it is YAML that admits the taint when pasted into the request.
    line = next(li for li in out.splitlines() if '{key: "example.com/broken"' in li)
    toleration = yaml.safe_load(line[line.index("- {"):])
    fixed = claim("c", [request(tolerations=toleration)])
    run_ok = CliRunner().invoke(app, ["allocate", "-i", str(tmp_path / "inventory.yaml"), "--no-config", "-o", "text",
                                      str(_write(tmp_path, "fixed.yaml", [fixed, pod()]))])
    assert run_ok.exit_code == 0, run_ok.output


def case_tainted_by_rule(tmp_path):
    rule = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": "drain-n1"},
            "spec": {"deviceSelector": {"driver": DRIVER, "pool": "n1"},
                     "taint": {"key": "example.com/drain", "effect": "NoSchedule"}}}
    out = run(tmp_path, [node("n1"), device_class(), rslice("n1-devs", [device("d0")]), rule],
              [claim("c"), pod()])
    assert_named(out, cause_marker(AR.TAINTED), "example.com/drain:NoSchedule", "DeviceTaintRule drain-n1",
                 'operator: "Exists"')


def _write(tmp_path, name, docs):
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(docs, sort_keys=False))
    return path


def case_pool_invalid(tmp_path):
    out = run(tmp_path, [node("n1"), device_class(),
                         rslice("n1-a", [device("d0")], count=2), rslice("n1-b", [device("d0")], count=2)],
              [claim("c"), pod()])
    assert "invalid resource pools were encountered" in out   # upstream's verdict stays
    assert_named(out, cause_marker(AR.POOL_INVALID), f"pool {DRIVER}/n1", "duplicate device name d0",
                 "n1-a", "n1-b")


def case_pool_invalid_dangling_counter_set(tmp_path):
    counters = rslice("n1-counters", [], node_name=None, sharedCounters=[
        {"name": "set-a", "counters": {"mem": {"value": "10Gi"}}}], count=2)
    counters["spec"]["nodeName"] = "n1"
    devices = rslice("n1-devs", [device("d0", consumesCounters=[
        {"counterSet": "set-b", "counters": {"mem": {"value": "1Gi"}}}])], count=2)
    out = run(tmp_path, [node("n1"), device_class(), counters, devices], [claim("c"), pod()])
    assert_named(out, cause_marker(AR.POOL_INVALID), f"pool {DRIVER}/n1", "counter set set-b",
                 "device d0", "ResourceSlice n1-devs", "set-a")


def case_pool_incomplete(tmp_path):
    out = run(tmp_path, [node("n1"), device_class(), rslice("n1-a", [device("d0")], count=3)],
              [claim("c"), pod()])
    assert_named(out, cause_marker(AR.POOL_INCOMPLETE), f"pool {DRIVER}/n1", "1 of 3 ResourceSlice(s)", "n1-a")


def case_in_use(tmp_path):
    holder = allocated(claim("holder"), "d0")
    out = run(tmp_path, [node("n1"), device_class(), rslice("n1-devs", [device("d0")]), holder],
              [claim("c"), pod()])
    assert_named(out, cause_marker(AR.IN_USE), "held by claim default/holder")


def case_allocating(tmp_path):
    two = claim("c", [request("first"), request("second")])
    out = run(tmp_path, [node("n1"), device_class(), rslice("n1-devs", [device("d0")])], [two, pod()])
    assert_named(out, cause_marker(AR.ALLOCATING), "request", "first")


def case_binding_conditions(tmp_path):
    dev = device("d0", bindingConditions=["example.com/attached"], bindsToNode=True)
    out = run(tmp_path, [node("n1"), device_class(), rslice("n1-devs", [dev])], [claim("c"), pod()],
              "--feature-gates", "DRADeviceBindingConditions=false")
    assert_named(out, cause_marker(AR.BINDING_CONDITIONS), "example.com/attached")


def case_class_selector(tmp_path):
    cls = device_class("picky.example.com", 'device.attributes["dev.example.com"].model == "m2"')
    out = run(tmp_path, [node("n1"), cls, rslice("n1-devs", [device("d0")])],
              [claim("c", [request(cls="picky.example.com")]), pod()])
    assert_named(out, cause_marker(AR.CLASS_SELECTOR), "class picky.example.com", '== "m2"')


def case_request_selector(tmp_path):
    sel = [{"cel": {"expression": 'device.attributes["dev.example.com"].model == "m9"'}}]
    out = run(tmp_path, [node("n1"), device_class(), rslice("n1-devs", [device("d0")])],
              [claim("c", [request(selectors=sel)]), pod()])
    assert_named(out, cause_marker(AR.REQUEST_SELECTOR), "request selector #0", '== "m9"')


def case_selector_error(tmp_path):
    # A CEL runtime error stops the allocation (DRA5011, upstream's message); dractl's detail under
    # it names the device, the attribute that is absent and what the device publishes.
    sel = [{"cel": {"expression": 'device.attributes["dev.example.com"].modle == "m1"'}}]
    out = run(tmp_path, [node("n1"), device_class(), rslice("n1-devs", [device("d0")])],
              [claim("c", [request(selectors=sel)]), pod()])
    assert_named(out, SR.ALLOCATOR_ERROR, "CEL runtime error", "dractl: modle is absent",
                 f"{DRIVER}/n1/d0", f"{DRIVER}/model", "did you mean model?")


def case_node_mismatch(tmp_path):
    devices = [device("d0", nodeName="n1"), device("d1", nodeName="n2")]
    inventory = [node("n1"), node("n2"), device_class(),
                 rslice("shared", devices, node_name=None, pool="shared", perDeviceNodeSelection=True),
                 allocated(claim("holder"), "d0", pool="shared")]
    out = run(tmp_path, inventory, [claim("c"), pod(nodeSelector={"kubernetes.io/hostname": "n1"})])
    assert_named(out, cause_marker(AR.NODE_MISMATCH), "node n2")


def _capacity_device(name="d0", **policy):
    cap = {"value": "64"}
    if policy:
        cap["requestPolicy"] = policy
    return device(name, allowMultipleAllocations=True, capacity={"cores": cap})


def case_capacity_missing(tmp_path):
    out = run(tmp_path, [node("n1"), device_class(), rslice("n1-devs", [_capacity_device()])],
              [claim("c", [request(capacity={"requests": {"memory": "1Gi"}})]), pod()])
    assert_named(out, cause_marker(AR.CAPACITY), "publishes no capacity memory", "it publishes cores")


def case_capacity_short(tmp_path):
    holder = allocated(claim("holder", [request(capacity={"requests": {"cores": "60"}})]), "d0",
                       shareID="11111111-1111-1111-1111-111111111111", consumedCapacity={"cores": "60"})
    out = run(tmp_path, [node("n1"), device_class(), rslice("n1-devs", [_capacity_device()]), holder],
              [claim("c", [request(capacity={"requests": {"cores": "10"}})]), pod()])
    assert_named(out, cause_marker(AR.CAPACITY), "capacity cores: needs 10, 4 of 64 left",
                 "held by claim default/holder")


def case_capacity_policy(tmp_path):
    dev = _capacity_device(validValues=["8", "16"], default="8")
    out = run(tmp_path, [node("n1"), device_class(), rslice("n1-devs", [dev])],
              [claim("c", [request(capacity={"requests": {"cores": "20"}})]), pod()])
    assert_named(out, cause_marker(AR.CAPACITY), "capacity cores", "requestPolicy", "validValues 8, 16")


def _partitioned(consumes: list[dict], sets=({"name": "gpu-0", "counters": {"mem": {"value": "10Gi"}}},),
                 devices=None):
    counters = rslice("n1-counters", [], node_name=None, count=2, sharedCounters=list(sets))
    counters["spec"]["nodeName"] = "n1"
    devs = devices or [device(f"part-{i}", consumesCounters=[c]) for i, c in enumerate(consumes)]
    return [counters, rslice("n1-parts", devs, count=2)]


def case_counters(tmp_path):
    consumes = [{"counterSet": "gpu-0", "counters": {"mem": {"value": "6Gi"}}}] * 2
    holder = allocated(claim("holder"), "part-0")
    out = run(tmp_path, [node("n1"), device_class(), *_partitioned(consumes), holder], [claim("c"), pod()])
    assert_named(out, cause_marker(AR.COUNTERS), "counter mem of counter set gpu-0", "needs 6Gi, 4Gi left")


def case_counters_disabled(tmp_path):
    dev = device("d0", consumesCounters=[{"counterSet": "gpu-0", "counters": {"mem": {"value": "1Gi"}}}])
    out = run(tmp_path, [node("n1"), device_class(), rslice("n1-devs", [dev])], [claim("c"), pod()],
              "--feature-gates", "DRAPartitionableDevices=false")
    assert_named(out, cause_marker(AR.COUNTERS_DISABLED), "counter set(s) gpu-0")


def case_constraint(tmp_path):
    devices = [device("d0"), {"name": "d1", "attributes": {"model": {"string": "m2"}}}]
    two = claim("c", [request("a"), request("b")], constraints=[{"matchAttribute": f"{DRIVER}/model"}])
    holder = allocated(claim("holder"), "d0")
    extra = {"name": "d2", "attributes": {"model": {"string": "m3"}}}
    out = run(tmp_path, [node("n1"), device_class(), rslice("n1-devs", devices + [extra]), holder], [two, pod()])
    assert_named(out, cause_marker(AR.CONSTRAINT), f"matchAttribute {DRIVER}/model")


def case_compatibility_groups(tmp_path):
    sets = ({"name": "gpu-0", "counters": {"mem": {"value": "10Gi"}}},)
    devices = [device("part-a", consumesCounters=[{"counterSet": "gpu-0", "counters": {"mem": {"value": "1Gi"}},
                                                    "compatibilityGroups": ["mig"]}]),
               device("part-b", consumesCounters=[{"counterSet": "gpu-0", "counters": {"mem": {"value": "1Gi"}},
                                                    "compatibilityGroups": ["mps"]}])]
    holder = allocated(claim("holder"), "part-a")
    out = run(tmp_path, [node("n1"), device_class(), *_partitioned([], sets, devices), holder],
              [claim("c"), pod()], "--kube-version", "1.37", "--feature-gates", "DRADeviceCompatibilityGroups=true")
    assert_named(out, cause_marker(AR.COMPATIBILITY_GROUPS), "counter set gpu-0", "mps")


def case_node_operations(tmp_path):
    sl = rslice("n1-devs", [device("d0")], skipNodeOperations=["Prepare"])
    out = run(tmp_path, [node("n1"), device_class(), sl], [claim("c"), pod()], "--kube-version", "1.37")
    assert_named(out, cause_marker(AR.NODE_OPERATIONS), "ResourceSlice n1-devs", "skipNodeOperations")


ALLOCATOR_CASES = {
    AR.TAINTED: [case_tainted, case_tainted_by_rule],
    AR.POOL_INVALID: [case_pool_invalid, case_pool_invalid_dangling_counter_set],
    AR.POOL_INCOMPLETE: [case_pool_incomplete],
    AR.IN_USE: [case_in_use],
    AR.ALLOCATING: [case_allocating],
    AR.BINDING_CONDITIONS: [case_binding_conditions],
    AR.CLASS_SELECTOR: [case_class_selector],
    AR.REQUEST_SELECTOR: [case_request_selector],
    AR.SELECTOR_ERROR: [case_selector_error],
    AR.NODE_MISMATCH: [case_node_mismatch],
    AR.CAPACITY: [case_capacity_missing, case_capacity_short, case_capacity_policy],
    AR.COUNTERS: [case_counters],
    AR.COUNTERS_DISABLED: [case_counters_disabled],
    AR.CONSTRAINT: [case_constraint],
    AR.COMPATIBILITY_GROUPS: [case_compatibility_groups],
    AR.NODE_OPERATIONS: [case_node_operations],
}


def test_every_allocator_reason_has_a_case():
    assert set(ALLOCATOR_CASES) == set(AR.ALL)


@pytest.mark.parametrize("case", [c for cases in ALLOCATOR_CASES.values() for c in cases],
                         ids=lambda c: c.__name__.removeprefix("case_"))
def test_allocator_reason_names_its_cause(case, tmp_path):
    case(tmp_path)


def test_already_allocated_counts_only_devices_of_the_request_class(tmp_path):
    other = device_class("other.example.com", 'device.attributes["dev.example.com"].model == "m2"')
    mine = device_class("mine.example.com", 'device.attributes["dev.example.com"].model == "m1"')
    devices = [device("d0"), {"name": "d1", "attributes": {"model": {"string": "m2"}}}]
    holders = [allocated(claim("mine-holder", [request(cls="mine.example.com")]), "d0"),
               allocated(claim("other-holder", [request(cls="other.example.com")]), "d1")]
    out = run(tmp_path, [node("n1"), other, mine, rslice("n1-devs", devices), *holders],
              [claim("c", [request(cls="mine.example.com")]), pod()])
    line = next(li for li in out.splitlines() if "request dev (class mine.example.com)" in li)
    assert "1 device: already allocated" in line and "1 device: device class selector is false" in line, line
    assert_named(out, cause_marker(AR.IN_USE), "default/mine-holder")
    assert "other-holder" not in "\n".join(block(out, cause_marker(AR.IN_USE)))


# -- the dry run's own error codes (DRA50xx) --------------------------------------------------------

def _basic(*more) -> list[dict]:
    return [node("n1"), device_class(), rslice("n1-devs", [device("d0")]), *more]


def template(name: str) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": [request()]}}}}


def template_pod(name: str = "p", template_name: str = "t") -> dict:
    doc = pod(name, ())
    doc["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": template_name}]
    doc["spec"]["containers"][0]["resources"] = {"claims": [{"name": "gpu"}]}
    return doc


def code_case_no_node_fits(tmp_path):
    out = run(tmp_path, _basic(allocated(claim("holder"), "d0")), [claim("c"), pod()])
    assert_named(out, SR.NO_NODE_FITS, "0/1 nodes are available", "held by claim default/holder")


def code_case_claim_not_found(tmp_path):
    out = run(tmp_path, _basic(), [pod(claims=("missing-claim",))])
    assert_named(out, SR.CLAIM_NOT_FOUND, "missing-claim")


def code_case_template_not_found(tmp_path):
    out = run(tmp_path, _basic(), [template_pod(template_name="no-such-template")])
    assert_named(out, SR.TEMPLATE_NOT_FOUND, "no-such-template")


def code_case_claim_deleting(tmp_path):
    doomed = claim("doomed", deletionTimestamp="2026-01-01T00:00:00Z", finalizers=["example.com/keep"])
    out = run(tmp_path, _basic(doomed), [pod(claims=("doomed",))])
    assert_named(out, SR.CLAIM_DELETING, "doomed")


def code_case_claim_not_created(tmp_path):
    out = run(tmp_path, _basic(), [template(name="t"), template_pod()], "--no-controller-simulation")
    assert_named(out, SR.CLAIM_NOT_CREATED, "pod claim gpu", "ResourceClaimTemplate default/t")


def code_case_class_not_found(tmp_path):
    out = run(tmp_path, _basic(), [claim("c", [request(cls="no-such-class.example.com")]), pod()])
    assert_named(out, SR.CLASS_NOT_FOUND, "no-such-class.example.com")


def code_case_allocator_error(tmp_path):
    case_selector_error(tmp_path)


def code_case_reserved_for_full(tmp_path):
    full = allocated(claim("crowded"), "d0")
    full["status"]["reservedFor"] = [{"resource": "pods", "name": f"u{i}", "uid": f"00000000-0000-0000-0000-{i:012d}"}
                                     for i in range(256)]
    out = run(tmp_path, _basic(full), [pod(claims=("crowded",))])
    assert_named(out, SR.RESERVED_FOR_FULL, "crowded", "256")


def code_case_node_not_found(tmp_path):
    out = run(tmp_path, _basic(), [claim("c"), pod(nodeName="ghost-node")])
    assert_named(out, SR.NODE_NOT_FOUND, "ghost-node")


def code_case_no_nodes(tmp_path):
    out = run(tmp_path, [device_class()], [claim("c"), pod()])
    assert_named(out, SR.NO_NODES, "no nodes in the inventory")


def code_case_unsatisfiable(tmp_path):
    out = run(tmp_path, _basic(allocated(claim("holder"), "d0")), [claim("lonely")])
    assert_named(out, SR.UNSATISFIABLE, "on n1:", "held by claim default/holder")


def code_case_claim_invalid(tmp_path):
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}
    out = run(tmp_path, _basic(namespace), [claim("sneaky", [request(adminAccess=True)]), pod(claims=("sneaky",))])
    assert_named(out, SR.CLAIM_INVALID, "sneaky", "DRA2030", "namespace default", "admin-access")


def code_case_tainted_claim(tmp_path):
    taint = {"key": "example.com/hw-fault", "value": "ecc", "effect": "NoExecute"}
    inv = [node("n1"), device_class(), rslice("n1-devs", [device("d0", taints=[taint])]),
           allocated(claim("training"), "d0")]
    out = run(tmp_path, inv, [pod(claims=("training",))])
    assert_named(out, SR.TAINTED_CLAIM, "training", "example.com/hw-fault", f"{DRIVER}/n1/d0")


def code_case_too_many_pods(tmp_path):
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "huge", "namespace": "default"},
                  "spec": {"replicas": 300000, "selector": {"matchLabels": {"app": "huge"}},
                           "template": {"metadata": {"labels": {"app": "huge"}},
                                        "spec": {"containers": [{"name": "main", "image": "pause"}]}}}}
    out = run(tmp_path, _basic(), [deployment, claim("c"), pod()])
    assert_named(out, SR.TOO_MANY_PODS, "Deployment default/huge")


def code_case_claim_not_owned(tmp_path):
    recorded = template_pod()
    recorded["status"] = {"resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu-abcde"}]}
    out = run(tmp_path, _basic(claim("p-gpu-abcde")), [template("t"), recorded])
    assert_named(out, SR.CLAIM_NOT_OWNED, "default/p-gpu-abcde", "Pod default/p")


def code_case_gate_disabled(tmp_path):
    listed = claim("fa", [{"name": "gpu", "firstAvailable": [{"name": "one", "deviceClassName": DRIVER}]}])
    out = run(tmp_path, _basic(listed), [pod(claims=("fa",))],
              "--kube-version", "1.34", "--feature-gates", "DRAPrioritizedList=false")
    assert_named(out, SR.GATE_DISABLED, "default/fa", "request gpu", "DRAPrioritizedList")


def code_case_pod_invalid(tmp_path):
    broken = pod()
    broken["spec"]["containers"][0]["resources"]["claims"].append({"name": "nope"})
    out = run(tmp_path, _basic(), [claim("c"), broken])
    assert_named(out, SR.POD_INVALID, "Pod p", "dractl: Pod default/p at", "DRA1407")


def code_case_not_enqueued(tmp_path):
    lost = template_pod("lost")
    lost["spec"]["schedulingGroup"] = {"podGroupName": "nowhere"}
    out = run(tmp_path, _basic(), [template("t"), lost], "--feature-gates", WORKLOAD_GATES)
    assert_named(out, SR.NOT_ENQUEUED, '"nowhere"')


def code_case_gang(tmp_path):
    group = {"apiVersion": "scheduling.k8s.io/v1alpha3", "kind": "PodGroup",
             "metadata": {"name": "gang", "namespace": "default"},
             "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}}}
    members = [template_pod(name) for name in ("a", "b")]
    for member in members:
        member["spec"]["schedulingGroup"] = {"podGroupName": "gang"}
    out = run(tmp_path, _basic(), [template("t"), group, *members], "--feature-gates", WORKLOAD_GATES)
    assert_named(out, SR.GANG, "gang default/gang", "default/b broke it")
    # The member that broke it says why, naming the claim that holds the one device.
    assert_named(out, cause_marker(AR.IN_USE), "held by claim default/a-gpu-")


def code_case_claim_source(tmp_path):
    # Validation rejects such a pod (DRA1403) before the dry run: the pod's DRA5017 names it.
    sourceless = pod()
    sourceless["spec"]["resourceClaims"] = [{"name": "r0"}]
    out = run(tmp_path, _basic(), [claim("c"), sourceless])
    assert_named(out, SR.POD_INVALID, "Pod default/p", "DRA1403")


def code_case_unknown_request(tmp_path):
    # Validation finds it first (DRA1004, a warning for inventory claims) and the claim is left out.
    out = run(tmp_path, _basic(claim("odd", [{"name": "gpu"}])), [pod(claims=("odd",))])
    assert_named(out, SR.CLAIM_INVALID, "ResourceClaim default/odd", "DRA1004")


def code_case_admin_namespace(tmp_path):
    # With the Namespace among the inputs, validation (DRA2030) finds it first; the text output
    # names the code, the claim and the namespace under DRA5016 (not only the JSON findings).
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}
    admin = claim("adm", [request(adminAccess=True)])
    out = run(tmp_path, _basic(namespace, admin), [pod(claims=("adm",))], "--quiet")
    assert_named(out, SR.CLAIM_INVALID, "ResourceClaim default/adm", "DRA2030",
                 "namespace default does not carry resource.kubernetes.io/admin-access=true")


def code_case_model(tmp_path):
    # Validation rejects an unparsable quantity (DRA0104) before the models are built; the claim
    # is left out and says so.
    bad = claim("badq", [request(capacity={"requests": {"cores": "lots"}})])
    out = run(tmp_path, _basic(bad), [pod(claims=("badq",))])
    assert_named(out, SR.CLAIM_INVALID, "ResourceClaim default/badq", "DRA0104")


WORKLOAD_GATES = "GenericWorkload=true,DRAWorkloadResourceClaims=true"

CODE_CASES = {
    SR.CLAIM_NOT_OWNED: code_case_claim_not_owned,
    SR.GATE_DISABLED: code_case_gate_disabled,
    SR.POD_INVALID: code_case_pod_invalid,
    SR.NOT_ENQUEUED: code_case_not_enqueued,
    SR.GANG: code_case_gang,
    # Codes the validation stage pre-empts on every input: the case shows what the user sees
    # instead (DRA5016/DRA5017, naming the object and the code that left it out).
    SR.CLAIM_SOURCE: code_case_claim_source,
    SR.UNKNOWN_REQUEST: code_case_unknown_request,
    SR.ADMIN_NAMESPACE: code_case_admin_namespace,
    SR.MODEL: code_case_model,
    SR.NO_NODE_FITS: code_case_no_node_fits,
    SR.CLAIM_NOT_FOUND: code_case_claim_not_found,
    SR.TEMPLATE_NOT_FOUND: code_case_template_not_found,
    SR.CLAIM_DELETING: code_case_claim_deleting,
    SR.CLAIM_NOT_CREATED: code_case_claim_not_created,
    SR.CLASS_NOT_FOUND: code_case_class_not_found,
    SR.ALLOCATOR_ERROR: code_case_allocator_error,
    SR.RESERVED_FOR_FULL: code_case_reserved_for_full,
    SR.NODE_NOT_FOUND: code_case_node_not_found,
    SR.NO_NODES: code_case_no_nodes,
    SR.UNSATISFIABLE: code_case_unsatisfiable,
    SR.CLAIM_INVALID: code_case_claim_invalid,
    SR.TAINTED_CLAIM: code_case_tainted_claim,
    SR.TOO_MANY_PODS: code_case_too_many_pods,
}


def test_every_dry_run_error_code_has_a_case():
    errors = {code for code, doc in CODES.items() if code.startswith("DRA50") and doc.severity == ERROR}
    assert errors == set(CODE_CASES)


@pytest.mark.parametrize("code", sorted(CODE_CASES))
def test_dry_run_code_names_its_cause(code, tmp_path):
    CODE_CASES[code](tmp_path)


def test_nodes_differing_only_in_their_own_slice_and_holders_are_one_group(tmp_path):
    taint = {"key": "example.com/broken", "effect": "NoSchedule"}
    inventory = [device_class()]
    for i in range(1, 5):
        inventory += [node(f"n{i}"), rslice(f"n{i}-devs", [device("d0", taints=[taint]), device("d1")],
                                            node_name=f"n{i}", pool=f"n{i}"),
                      allocated(claim(f"holder-{i}"), "d1", pool=f"n{i}")]
    out = run(tmp_path, inventory, [claim("c"), pod()])
    assert "4 node(s) (n1, n2, n3 and 1 more):" in out
    assert_named(out, cause_marker(AR.TAINTED), "from ResourceSlices n1-devs at ", ", n2-devs at :",
                 "and 1 more")
    assert_named(out, cause_marker(AR.IN_USE), "held by claims default/holder-1, default/holder-2, "
                                               "default/holder-3 and 1 more")


def test_a_pool_left_incomplete_by_a_left_out_slice_names_that_slice(tmp_path):
    counters = rslice("n1-counters", [], node_name=None, count=2,
                      sharedCounters=[{"name": "gpu-0", "counters": {"mem": {"value": "10Gi"}}}])
    counters["spec"].update(nodeName="n1", devices=[])     # both fields: invalid (DRA1210), left out
    parts = rslice("n1-parts", [device("part-0", consumesCounters=[
        {"counterSet": "gpu-0", "counters": {"mem": {"value": "1Gi"}}}])], count=2)
    out = run(tmp_path, [node("n1"), device_class(), counters, parts], [claim("c"), pod()])
    assert_named(out, cause_marker(AR.POOL_INCOMPLETE), "1 of 2 ResourceSlice(s)",
                 "left out of the dry run: ResourceSlice n1-counters at ", "DRA1210")
