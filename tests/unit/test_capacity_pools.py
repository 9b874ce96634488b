"""Pool status in KEP-5677's shape (dractl.capacity.pool_status), on the KEP's own examples."""

from __future__ import annotations

from dractl.allocator.features import AllocatorFeatures
from dractl.api.resource import AllocationResult, ResourceSlice
from dractl.capacity.pool_status import cluster_pools, pool_status
from dractl.capacity.usage import device_usage


def _slice(name, devices, *, pool="p", count=1, generation=1, node="node-1", counters=None, partition_attr=None):
    spec = {"driver": "gpu.example.com", "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
            "devices": devices}
    if node:
        spec["nodeName"] = node
    if counters:
        spec["sharedCounters"] = counters
    if partition_attr:
        spec["partitionTypeAttribute"] = partition_attr
    return ResourceSlice.from_dict({"kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec})


def _alloc(*devices, admin=False, consumed=None, pool="p"):
    results = []
    for d in devices:
        r = {"request": "r", "driver": "gpu.example.com", "pool": pool, "device": d}
        if admin:
            r["adminAccess"] = True
        if consumed:
            r["consumedCapacity"] = consumed
        results.append(r)
    return AllocationResult.from_dict({"devices": {"results": results}})


def _status(slices, allocations=(), **kw):
    usage = device_usage([(f"default/c{i}", a) for i, a in enumerate(allocations)])
    return [pool_status(p, usage, **kw) for p in cluster_pools(slices, AllocatorFeatures())]


def test_plain_pool_counts_each_device_once_and_skips_admin_access():
    sl = _slice("s", [{"name": "gpu-0"}, {"name": "gpu-1"}, {"name": "gpu-2"},
                      {"name": "gpu-3", "taints": [{"key": "broken", "effect": "NoSchedule"}]},
                      {"name": "gpu-4", "taints": [{"key": "soon", "effect": "None"}]}])
    [st] = _status([sl], [_alloc("gpu-0"), _alloc("gpu-0"), _alloc("gpu-1", admin=True)])
    assert (st["totalDevices"], st["allocatedDevices"], st["unavailableDevices"], st["availableDevices"]) == (5, 1, 1, 3)
    assert st["unavailable"] == [{"device": "gpu-3", "reason": "Tainted",
                                  "taints": [{"key": "broken", "effect": "NoSchedule"}]}]
    assert st["nodeName"] == "node-1" and st["resourceSliceCount"] == 1


def test_incomplete_pool_has_validation_error_and_no_counts():
    slices = [_slice("a", [{"name": "d0"}], count=2, generation=3),
              _slice("old", [{"name": "d9"}], count=1, generation=2)]
    [st] = _status(slices)
    assert st["generation"] == 3
    assert st["validationError"].startswith("PoolIncomplete:")
    assert "totalDevices" not in st and "availableDevices" not in st
    assert st["unavailable"] == [{"device": "d0", "reason": "PoolIncomplete"}]


def test_partition_summary_nets_out_shared_counters():
    # KEP-5677: one 80Gi device offered as a full partition or two halves; allocating the full
    # one leaves neither type allocatable.
    counters = [{"name": "gpu-0", "counters": {"memory": {"value": "80Gi"}}}]
    def part(name, kind, mem):
        return {"name": name, "attributes": {"profile": {"string": kind}},
                "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": mem}}}]}
    devices = [part("full", "Full", "80Gi"), part("half-0", "Half", "40Gi"), part("half-1", "Half", "40Gi")]
    sl = _slice("s", devices, counters=counters, partition_attr="gpu.example.com/profile")
    [free] = _status([sl])
    assert free["partitionSummary"] == [
        {"attribute": "gpu.example.com/profile", "type": "Full", "total": 1, "allocatable": 1},
        {"attribute": "gpu.example.com/profile", "type": "Half", "total": 2, "allocatable": 2}]
    [used] = _status([sl], [_alloc("full")])
    assert [e["allocatable"] for e in used["partitionSummary"]] == [0, 0]
    [half] = _status([sl], [_alloc("half-0")])
    assert [e["allocatable"] for e in half["partitionSummary"]] == [0, 1]
    assert "counterSets" not in half


def test_counter_sets_view_without_partition_type_attribute():
    counters = [{"name": "gpu-0", "counters": {"memory": {"value": "80Gi"}}}]
    devices = [{"name": "half-0", "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": "40Gi"}}}]}]
    [st] = _status([_slice("s", devices, counters=counters)], [_alloc("half-0")])
    assert st["counterSets"] == [{"name": "gpu-0", "counters": [
        {"name": "memory", "total": "80Gi", "consumed": "40Gi", "available": "40Gi"}]}]
    assert "partitionSummary" not in st


def test_missing_partition_type_and_cost_mismatch_are_validation_errors():
    counters = [{"name": "cs", "counters": {"m": {"value": "8"}}}]
    def dev(name, kind, m):
        d = {"name": name, "consumesCounters": [{"counterSet": "cs", "counters": {"m": {"value": m}}}]}
        if kind:
            d["attributes"] = {"profile": {"string": kind}}
        return d
    [missing] = _status([_slice("s", [dev("a", "A", "1"), dev("b", None, "1")], counters=counters,
                                partition_attr="gpu.example.com/profile")])
    assert missing["validationError"].startswith("PartitionTypeMissing:") and "partitionSummary" not in missing
    [mismatch] = _status([_slice("s", [dev("a", "A", "1"), dev("b", "A", "2")], counters=counters,
                                 partition_attr="gpu.example.com/profile")])
    assert mismatch["validationError"].startswith("PartitionCostMismatch:")
    # The basic counts stay valid (only partially-built views are dropped).
    assert mismatch["totalDevices"] == 2


def test_shareable_summary():
    dev = {"name": "nic-0", "allowMultipleAllocations": True, "capacity": {"bandwidth": {"value": "100G"}}}
    dev2 = {"name": "nic-1", "allowMultipleAllocations": True, "capacity": {"bandwidth": {"value": "100G"}}}
    [st] = _status([_slice("s", [dev, dev2])],
                   [_alloc("nic-0", consumed={"bandwidth": "30G"}), _alloc("nic-0", consumed={"bandwidth": "20G"})])
    assert st["shareableSummary"] == {"fullyAvailableDevices": 1, "partiallyAvailableDevices": 1, "capacity": [
        {"name": "bandwidth", "total": "200G", "consumed": "50G", "available": "150G"}]}
    assert st["allocatedDevices"] == 1


def test_invalid_pool_devices_are_unavailable_with_the_reason():
    sl = _slice("s", [{"name": "d"}, {"name": "d"}])
    [st] = _status([sl])
    assert st["invalidReason"] == "duplicate device name d"
    assert st["unavailableDevices"] == 2 and st["availableDevices"] == 0
    assert {e["reason"] for e in st["unavailable"]} == {"PoolInvalid"}


def test_pools_sorted_by_driver_then_name_and_network_pools_have_no_node():
    a = _slice("a", [{"name": "x"}], pool="zeta", node="node-2")
    b = _slice("b", [{"name": "y"}], pool="alpha", node=None)
    statuses = _status([a, b])
    assert [s["poolName"] for s in statuses] == ["alpha", "zeta"]
    assert "nodeName" not in statuses[0]
