"""`dractl capacity --what-if RULE.yaml` (alias --add-taint-rule), dractl's own what-if for a
DeviceTaintRule: the devices it selects per node, the claims and pods on them, the running pods
NoExecute evicts (the eviction controller's rules: tolerations with effect NoExecute only,
tolerationSeconds), the pending pods it blocks or moves, the rule status the controller would
write, and an empty or missing deviceSelector as each release treats it (#141648)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
RUNNING = Path(__file__).resolve().parent / "data" / "whatif" / "running-claims.yaml"
WORKER, WORKER2 = "dra-example-driver-cluster-worker", "dra-example-driver-cluster-worker2"


def rule(tmp_path: Path, selector: str | None, effect: str = "NoExecute", api: str = "resource.k8s.io/v1",
         name: str = "maintenance") -> Path:
    spec = f"  deviceSelector: {selector}\n" if selector is not None else ""
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"apiVersion: {api}\nkind: DeviceTaintRule\nmetadata:\n  name: {name}\nspec:\n{spec}"
                    f"  taint:\n    key: maintenance\n    effect: {effect}\n")
    return path


def what_if(path: Path, *extra: str, option: str = "--what-if", code: int = 0) -> dict:
    r = run("capacity", "--no-config", "-o", "json", "-i", "builtin:example-gpu", "-i", str(RUNNING),
            str(EXAMPLES / "gpu-pod.yaml"), option, str(path), *extra)
    assert r.code == code, r.err
    return json.loads(r.out)["whatIf"]


def node(doc: dict, name: str) -> dict:
    return next(n for n in doc["nodes"] if n["node"] == name)


def test_no_execute_on_one_pool_evicts_running_pods_and_moves_planned_ones(tmp_path):
    doc = what_if(rule(tmp_path, f"{{driver: gpu.example.com, pool: {WORKER}}}"))
    assert doc["dractl"] == "what-if of dractl, not a Kubernetes feature" and doc["enabled"]
    assert doc["selectedDevices"] == 8 and [n["node"] for n in doc["nodes"]] == [WORKER]
    worker = node(doc, WORKER)
    assert {c["claim"]: c["allocated"] for c in worker["claims"]}["default/running-a"] == "before this run"
    evicted = {e["pod"]: e for e in worker["evicted"]}
    # running-c tolerates NoExecute forever; running-b for 300 s; running-d's toleration has no
    # effect, which the eviction controller does not honour.
    assert sorted(evicted) == ["default/running-a", "default/running-b", "default/running-d"]
    assert evicted["default/running-a"]["afterSeconds"] == 0 and evicted["default/running-b"]["afterSeconds"] == 300
    assert "only honours tolerations with effect NoExecute" in evicted["default/running-d"]["notes"][0]
    # The Deployment's two pods were planned on gpu-0 and gpu-1 of the worker: they go to worker2.
    assert [(c["before"]["node"], c["after"]["status"], c["after"]["node"], c["fromSelected"])
            for c in worker["changed"]] == [(WORKER, "Scheduled", WORKER2, True)] * 2
    assert (doc["evicted"], doc["blocked"], doc["moved"]) == (3, 0, 2)
    [status] = [r["status"] for r in doc["rules"]]
    assert status == {"type": "EvictionInProgress", "status": "True", "reason": "PodsPendingEviction",
                      "message": "3 pods need to be evicted in 1 namespace."}


def test_no_schedule_on_every_gpu_blocks_planned_pods_and_evicts_nobody(tmp_path):
    doc = what_if(rule(tmp_path, "{driver: gpu.example.com}", "NoSchedule"))
    assert doc["selectedDevices"] == 16 and doc["evicted"] == 0
    changed = node(doc, WORKER)["changed"]
    assert [c["after"]["status"] for c in changed] == ["Unschedulable", "Unschedulable"]
    assert "cannot allocate all claims" in changed[0]["after"]["message"]
    assert any("tainted, not tolerated" in line for line in changed[0]["after"]["details"])
    assert doc["rules"][0]["status"]["reason"] == "OtherEffect"
    assert (doc["blocked"], doc["moved"]) == (2, 0)


def test_effect_none_changes_nothing_and_reports_the_status_upstream_writes(tmp_path):
    doc = what_if(rule(tmp_path, f"{{driver: gpu.example.com, pool: {WORKER}}}", "None"))
    assert (doc["evicted"], doc["blocked"], doc["moved"]) == (0, 0, 0)
    assert doc["rules"][0]["status"]["message"] == (
        "8 published devices selected. 4 allocated devices selected. 3 pods would be evicted in 1 namespace "
        "if the effect was NoExecute. This information will not be updated again. Recreate the DeviceTaintRule "
        "to trigger an update.")


def test_missing_selector_in_137_blocks_every_allocation_but_evicts_nothing(tmp_path):
    doc = what_if(rule(tmp_path, None), "--kube-version", "1.37")
    [r] = doc["rules"]
    assert r["selector"] is None
    assert "taints every device of every driver for scheduling" in r["selectorNote"]
    assert "eviction controller matches no device" in r["selectorNote"] and "#141648" in r["selectorNote"]
    assert doc["selectedDevices"] == 16 and doc["evicted"] == 0 and doc["blocked"] == 2
    assert r["status"]["reason"] == "NotStarted"


def test_missing_selector_in_138_matches_no_device(tmp_path):
    doc = what_if(rule(tmp_path, None), "--kube-version", "1.38")
    assert "matches no device, as the API documents" in doc["rules"][0]["selectorNote"]
    assert (doc["selectedDevices"], doc["evicted"], doc["blocked"], doc["moved"]) == (0, 0, 0, 0)
    assert doc["nodes"] == []


@pytest.mark.parametrize("version", ["1.37", "1.38"])
def test_empty_selector_selects_every_device_and_evicts(tmp_path, version):
    doc = what_if(rule(tmp_path, "{}"), "--kube-version", version)
    assert "selects every device of every driver" in doc["rules"][0]["selectorNote"]
    assert doc["selectedDevices"] == 16 and doc["evicted"] == 3 and doc["blocked"] == 2


def test_rules_are_off_by_default_in_136(tmp_path):
    path = rule(tmp_path, "{driver: gpu.example.com}", api="resource.k8s.io/v1beta2")
    # The API server of 1.36 does not serve the kind with default gates (a validation error,
    # exit status 1), and the scheduler would not read the rule.
    off = what_if(path, "--kube-version", "1.36", code=1)
    assert not off["enabled"] and "DRADeviceTaintRules is off" in off["disabledNote"]
    assert (off["selectedDevices"], off["evicted"], off["blocked"]) == (0, 0, 0)
    on = what_if(path, "--kube-version", "1.36", "--feature-gates", "DRADeviceTaintRules=true")
    assert on["enabled"] and on["selectedDevices"] == 16 and on["evicted"] == 3


def test_alias_add_taint_rule(tmp_path):
    path = rule(tmp_path, "{driver: gpu.example.com}")
    assert what_if(path, option="--add-taint-rule") == what_if(path)


def test_text_is_labelled_and_per_node(tmp_path):
    path = rule(tmp_path, f"{{driver: gpu.example.com, pool: {WORKER}}}")
    r = run("capacity", "--no-config", "-i", "builtin:example-gpu", "-i", str(RUNNING), str(EXAMPLES / "gpu-pod.yaml"),
            "--what-if", str(path))
    assert r.code == 0, r.err
    lines = r.out.splitlines()
    assert lines[0] == "before --what-if (the inputs placed without the rule):"
    assert "after --what-if (the inputs placed with the rule in force):" in lines
    assert (f"what-if DeviceTaintRule maintenance ({path}:1): taint maintenance:NoExecute "
            "[dractl what-if, not a Kubernetes feature]") in lines
    assert any(line.startswith(f"node {WORKER}: 8 device(s) selected: gpu.example.com/{WORKER}: gpu-0, gpu-1")
               for line in lines)
    assert f"├── evicted after 300 s (tolerationSeconds): pod default/running-b (claim default/running-b, " \
           f"gpu.example.com/{WORKER}/gpu-7)" in lines
    assert lines[-1] == ("what-if: 8 device(s) selected; 3 pod(s) evicted, 0 pending pod(s) blocked, 2 placed "
                         "elsewhere [dractl what-if, not a Kubernetes feature]")


def test_an_invalid_rule_changes_nothing(tmp_path):
    path = rule(tmp_path, "{driver: gpu.example.com}", effect="Sometimes")
    r = run("capacity", "--no-config", "-o", "json", "-i", "builtin:example-gpu", str(EXAMPLES / "gpu-pod.yaml"),
            "--what-if", str(path))
    doc = json.loads(r.out)
    assert r.code == 1 and any(f["file"] == str(path) for f in doc["findings"])
    assert doc["whatIf"]["rules"][0]["invalid"] and doc["whatIf"]["selectedDevices"] == 0


def test_134_class_fields_are_called_out(tmp_path):
    path = tmp_path / "rule.yaml"
    path.write_text("apiVersion: resource.k8s.io/v1alpha3\nkind: DeviceTaintRule\nmetadata: {name: r}\nspec:\n"
                    "  deviceSelector: {deviceClassName: gpu.example.com}\n  taint: {key: k, effect: NoSchedule}\n")
    doc = what_if(path, "--kube-version", "1.34", "--feature-gates", "DRADeviceTaints=true")
    assert "are not evaluated by dractl" in doc["rules"][0]["caveat"]


@pytest.mark.parametrize("args, message", [
    (["--what-if", "no-such-rule.yaml"], "no such file"),
    (["--what-if", str(EXAMPLES / "nine-gpus.yaml")], "only DeviceTaintRules are read"),
    (["--what-if", str(EXAMPLES / "gpu-pod.yaml")], "the file is also an input"),
    (["--what-if", "RULE", "--fit", "inference"], "give --fit, --add-nodes and --need in a run of their own"),
])
def test_usage_errors(tmp_path, args, message):
    args = [str(rule(tmp_path, "{}")) if a == "RULE" else a for a in args]
    r = run("capacity", "--no-config", "-i", "builtin:example-gpu", str(EXAMPLES / "gpu-pod.yaml"), *args)
    assert r.code == 2 and message in r.err, r.err


def test_quiet_output_starts_with_the_answer(tmp_path):
    # The rule draws a warning (DRA1310, no selector); -q hides warnings and leaves no blank line.
    r = run("capacity", "--no-config", "-q", "-i", "builtin:example-gpu", str(EXAMPLES / "gpu-pod.yaml"),
            "--what-if", str(rule(tmp_path, None)))
    assert r.code == 0 and r.out.startswith("what-if DeviceTaintRule maintenance"), r.out[:300]


def test_pods_that_only_move_because_others_moved_are_counted_not_listed(tmp_path):
    # 12 replicas fill the worker's 8 GPUs, then 4 of worker2's. Tainting the worker's gpu-0
    # moves its pod to gpu-1, whose pod moves on, and so on (first fit, input order).
    many = tmp_path / "many.yaml"
    many.write_text((EXAMPLES / "gpu-pod.yaml").read_text().replace("replicas: 2", "replicas: 12"))
    path = rule(tmp_path, f"{{driver: gpu.example.com, pool: {WORKER}, device: gpu-0}}", "NoSchedule")
    r = run("capacity", "--no-config", "-o", "json", "-i", "builtin:example-gpu", str(many), "--what-if", str(path))
    doc = json.loads(r.out)["whatIf"]
    assert (doc["moved"], doc["movedFromSelected"], doc["blocked"]) == (12, 1, 0)
    [direct] = [c for n in doc["nodes"] for c in n["changed"] if c["fromSelected"]]
    assert direct["before"]["devices"] == [f"gpu.example.com/{WORKER}/gpu-0"]
    text = run("capacity", "--no-config", "-q", "-i", "builtin:example-gpu", str(many), "--what-if", str(path)).out
    assert text.count("├── moves: ") + text.count("└── moves: ") == 1
    assert ("11 more pending pod(s) placed elsewhere, not planned on a selected device: pods placed before them "
            "(input order, first fit) took other devices (-o json lists them)") in text
    assert text.rstrip().endswith("12 placed elsewhere (1 of them planned on selected devices) "
                                  "[dractl what-if, not a Kubernetes feature]")
