"""`validate -i` and dractl's inventory lints (DRA71xx selectors, DRA72xx
pools), located inside the CEL expression, with suggestions drawn from the inventory."""

from __future__ import annotations

import json
from pathlib import Path

from realworld_corpus import REALWORLD, require_realworld
from typer.testing import CliRunner

from dractl.cli.app import app

REPO = Path(__file__).resolve().parents[2]
DUMP = str(REPO / "tests" / "golden" / "inventories" / "eks-a100-like.yaml")

DRANET = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-dra.net}
spec:
  driver: dra.net
  nodeName: n1
  pool: {name: n1, resourceSliceCount: 1, generation: 1}
  devices:
  - name: eth1
    attributes:
      dra.net/rdma: {bool: true}
      dra.net/ifName: {string: eth1}
      dra.net/numaNode: {int: 0}
  - name: eth2
    attributes:
      dra.net/rdma: {bool: false}
      dra.net/ifName: {string: eth2}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: dranet}
spec:
  selectors:
  - cel: {expression: "device.driver == 'dra.net'"}
"""

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: nic}
spec:
  devices:
    requests:
    - name: nic
      exactly:
        deviceClassName: dranet
        selectors:
        - cel:
            expression: EXPRESSION
"""


def validate(tmp_path: Path, inventory: list[str], manifest: str):
    path = tmp_path / "manifest.yaml"
    path.write_text(manifest)
    args = ["validate", "--no-config", "-o", "json"]
    for inv in inventory:
        args += ["-i", inv]
    result = CliRunner().invoke(app, args + [str(path)])
    return result.exit_code, [f for f in json.loads(result.stdout)["findings"]
                              if f["code"].startswith("DRA7")]


def dranet(tmp_path: Path) -> str:
    path = tmp_path / "dranet.yaml"
    path.write_text(DRANET)
    return str(path)


def claim(expression: str) -> str:
    return CLAIM.replace("EXPRESSION", json.dumps(expression))


def test_gpu_test6_index_is_not_published_by_the_a100_dump():
    test6 = require_realworld(REALWORLD / "dra-driver-nvidia-gpu/demo/specs/quickstart/v1/gpu-test6.yaml")
    result = CliRunner().invoke(app, ["validate", "--no-config", "-o", "json", "-i", DUMP, str(test6)])
    found = [f for f in json.loads(result.stdout)["findings"] if f["code"] == "DRA7101"]
    assert len(found) == 1  # four reads of .index, one finding, at the first
    f = found[0]
    # line 29 is `(device.attributes['gpu.nvidia.com'].index == 0 ||`; `index` starts at column 54
    assert (f["line"], f["column"]) == (29, 54)
    assert "no gpu.nvidia.com device in the inventory publishes attribute gpu.nvidia.com/index" \
        in f["message"]
    assert "published: addressingMode, architecture, brand" in f["message"]
    assert f["severity"] == "warning" and result.exit_code == 0


def test_without_inventory_validate_is_unchanged(tmp_path):
    code, found = validate(tmp_path, [], claim("device.attributes['dra.net'].nosuch"))
    assert found == [] and code == 0


def test_domain_addressed_wrong(tmp_path):
    manifest = claim('device.attributes["dra.net/rdma"].bool == true')
    _, found = validate(tmp_path, [dranet(tmp_path)], manifest)
    assert [f["code"] for f in found] == ["DRA7102"]
    assert 'did you mean device.attributes["dra.net"].rdma?' in found[0]["message"]
    # the expression is a quoted scalar on line 12; the domain literal follows `device.attributes[`
    line = manifest.splitlines()[11]
    assert (found[0]["line"], found[0]["column"]) == (12, line.index('\\"dra.net/rdma') + 1)


def test_did_you_mean_for_a_misspelt_attribute(tmp_path):
    _, found = validate(tmp_path, [dranet(tmp_path)], claim("device.attributes['dra.net'].ifname == 'eth1'"))
    assert [f["code"] for f in found] == ["DRA7101"]
    assert "did you mean ifName?" in found[0]["message"]


def test_attribute_of_some_devices_needs_has(tmp_path):
    inventory = [dranet(tmp_path)]
    _, found = validate(tmp_path, inventory, claim("device.attributes['dra.net'].numaNode == 0"))
    assert [f["code"] for f in found] == ["DRA7103"]
    assert "published by 1 of 2 device(s) (not by n1/eth2)" in found[0]["message"]
    guarded = "has(device.attributes['dra.net'].numaNode) && device.attributes['dra.net'].numaNode == 0"
    assert validate(tmp_path, inventory, claim(guarded))[1] == []
    in_guard = "'numaNode' in device.attributes['dra.net'] && device.attributes['dra.net'].numaNode == 0"
    assert validate(tmp_path, inventory, claim(in_guard))[1] == []


def test_value_no_device_has(tmp_path):
    _, found = validate(tmp_path, [dranet(tmp_path)], claim("device.attributes['dra.net'].ifName == 'eth-1'"))
    assert [f["code"] for f in found] == ["DRA7104"]
    assert "== 'eth-1'; did you mean 'eth1'?" in found[0]["message"]
    assert validate(tmp_path, [dranet(tmp_path)],
                    claim("device.attributes['dra.net'].ifName == 'eth2'"))[1] == []


def test_capacity_not_published(tmp_path):
    manifest = claim("device.capacity['gpu.nvidia.com'].memroy.compareTo(quantity('1Gi')) >= 0")
    manifest = manifest.replace("deviceClassName: dranet", "deviceClassName: gpu.nvidia.com")
    _, found = validate(tmp_path, [DUMP], manifest)
    assert [f["code"] for f in found] == ["DRA7106"]
    assert "did you mean memory?" in found[0]["message"]


def test_device_class_no_device_satisfies(tmp_path):
    manifest = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: rdma-only}
spec:
  selectors:
  - cel: {expression: "device.driver == 'dra.net' && device.attributes['dra.net'].ifName == 'ib0'"}
"""
    _, found = validate(tmp_path, [dranet(tmp_path)], manifest)
    assert sorted(f["code"] for f in found) == ["DRA7104", "DRA7105"]
    assert "DeviceClass rdma-only: none of the 2 device(s)" in \
        next(f for f in found if f["code"] == "DRA7105")["message"]


POOL = """\
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: counters}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 3}
  sharedCounters:
  - name: gpu-0-counter-set
    counters:
      memory: {value: 40Gi}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: devices}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 3}
  devices:
  - name: gpu-0
    attributes:
      resource.kubernetes.io/pciBusID: {string: "0000:01:00.0"}
    consumesCounters:
    - counterSet: gpu-0-counters
      counters:
        memory: {value: 40Gi}
  - name: gpu-0-partition-0
    consumesCounters:
    - counterSet: gpu-0-counter-set
      counters:
        memory: {value: 10Gi}
        sm: {value: "1"}
  - name: gpu-0
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: vfio}
spec:
  driver: vfio.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      resource.kubernetes.io/pciBusID: {string: "0000:01:00.0"}
"""


def test_pool_lints(tmp_path):
    inventory = tmp_path / "pool.yaml"
    inventory.write_text(POOL)
    _, found = validate(tmp_path, [str(inventory)], "")
    by_code = {}
    for f in found:
        by_code.setdefault(f["code"], []).append(f)
    assert sorted(by_code) == ["DRA7201", "DRA7202", "DRA7204", "DRA7205"]
    dangling, missing_counter = sorted(by_code["DRA7201"], key=lambda f: f["line"])
    assert "consumes counter set gpu-0-counters, which no slice of the pool defines " \
           "(defined: gpu-0-counter-set)" in dangling["message"]
    assert dangling["field"] == "spec.devices[0].consumesCounters[0].counterSet"
    assert "counter(s) sm that counter set gpu-0-counter-set does not define" in missing_counter["message"]
    assert "device name gpu-0 is used twice" in by_code["DRA7202"][0]["message"]
    assert "resourceSliceCount is 3 but the inputs hold 2 slice(s)" in by_code["DRA7204"][0]["message"]
    assert "like gpu.example.com/n1/gpu-0" in by_code["DRA7205"][0]["message"]


def test_duplicate_slice_names(tmp_path):
    first = POOL.split("---\n")[0]
    twice = first + "---\n" + first
    inventory = tmp_path / "pool.yaml"
    inventory.write_text(twice)
    _, found = validate(tmp_path, [str(inventory)], "")
    assert [f["code"] for f in found if f["code"] == "DRA7203"] == ["DRA7203"]
