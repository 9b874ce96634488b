"""Allocator changes of Kubernetes 1.38 (#140798, #142202) and #141307, beyond what the conformance
cases of testdata/conformance/v138 pin down: the switches per release, the paths the cases do not
reach (admin access, devices that still allow sharing, All mode, the search-time limit), and the
capacity-name resolution on its own."""

from __future__ import annotations

import pytest
from alloc_testkit import (
    NODE,
    allocator,
    claim,
    device,
    device_class,
    in_use,
    picked,
    request,
    slice_,
)

from dractl.allocator import Compat
from dractl.allocator.capacity import qualified, requests_for_device
from dractl.allocator.prepass import go_int
from dractl.api.quantity import Quantity
from dractl.api.resource import DeviceCapacity

SHARE = "4b8e2c1a-0f3d-4e5b-9a7c-1d2e3f4a5b6c"
FIXED_138 = Compat(shared_device_not_exclusive=True, qualified_capacity_names=True)


@pytest.mark.parametrize("version, overflow_safe, shared, qualified_names", [
    ("1.34", True, False, False), ("1.36", True, False, False), ("1.37", True, False, False),
    ("1.38", True, True, True), ("garbage", False, False, False), (None, False, False, False)])
def test_switches_follow_the_release(version, overflow_safe, shared, qualified_names):
    compat = Compat.for_release(version)
    assert (compat.claim_limit_overflow_safe, compat.shared_device_not_exclusive,
            compat.qualified_capacity_names) == (overflow_safe, shared, qualified_names)


# -- #140798 ---------------------------------------------------------------------------------
def _shared(*names, **dev_fields):
    return slice_(devices=[device(n, **dev_fields) for n in names])


def test_live_share_blocks_exclusive_allocation_only_with_the_fix():
    share = in_use("old", ("driver-a", "pool-1", "d1"), share_id=SHARE)
    before = allocator([device_class()], [_shared("d1")], [share]).allocate(NODE, [claim()])
    after = allocator([device_class()], [_shared("d1")], [share], compat=FIXED_138).allocate(NODE, [claim()])
    assert picked(before) == ["req-0:d1"]
    assert after.status == "unsatisfiable"


def test_device_that_still_allows_sharing_takes_another_share():
    share = in_use("old", ("driver-a", "pool-1", "d1"), share_id=SHARE)
    out = allocator([device_class()], [_shared("d1", allowMultipleAllocations=True)], [share],
                    compat=FIXED_138).allocate(NODE, [claim()])
    assert picked(out) == ["req-0:d1"]


def test_admin_access_is_not_blocked_by_a_share():
    share = in_use("old", ("driver-a", "pool-1", "d1"), share_id=SHARE)
    out = allocator([device_class()], [_shared("d1")], [share], compat=FIXED_138).allocate(
        NODE, [claim(requests=[request(adminAccess=True)])])
    assert picked(out) == ["req-0:d1"]


def test_all_mode_fails_on_a_shared_device_with_the_fix():
    share = in_use("old", ("driver-a", "pool-1", "d1"), share_id=SHARE)
    all_claim = claim(requests=[request(mode="All")])
    before = allocator([device_class()], [_shared("d1", "d2")], [share]).allocate(NODE, [all_claim])
    after = allocator([device_class()], [_shared("d1", "d2")], [share], compat=FIXED_138).allocate(NODE, [all_claim])
    assert picked(before) == ["req-0:d1", "req-0:d2"]
    assert after.status == "unsatisfiable"


def test_share_is_ignored_without_consumable_capacity():
    """With DRAConsumableCapacity off a shareID makes the device exclusively allocated anyway."""
    share = in_use("old", ("driver-a", "pool-1", "d1"), share_id=SHARE)
    out = allocator([device_class()], [_shared("d1", "d2")], [share], compat=FIXED_138,
                    consumable_capacity=False, device_binding_and_status=False).allocate(NODE, [claim()])
    assert picked(out) == ["req-0:d2"]


# -- #142202 ---------------------------------------------------------------------------------
def _caps(**values):
    return {name.replace("__", "/"): DeviceCapacity(Quantity.parse(v)) for name, v in values.items()}


def test_qualified_adds_the_driver_domain_only_to_unqualified_names():
    assert qualified("memory", "driver-a") == "driver-a/memory"
    assert qualified("other.example.com/memory", "driver-a") == "other.example.com/memory"


def test_requests_resolve_to_the_device_spelling():
    caps = _caps(memory="8Gi")
    one = Quantity.parse("1Gi")
    assert requests_for_device({"driver-a/memory": one}, caps, "driver-a") == {"memory": one}
    assert requests_for_device({"memory": one}, caps, "driver-a") == {"memory": one}
    # another domain's capacity of the same short name is a different capacity
    assert requests_for_device({"other.example.com/memory": one}, caps, "driver-a") is None


def test_fully_qualified_spelling_wins_on_both_sides():
    one, two = Quantity.parse("1Gi"), Quantity.parse("2Gi")
    both_requested = requests_for_device({"driver-a/memory": two, "memory": one}, _caps(memory="8Gi"), "driver-a")
    assert both_requested == {"memory": two}
    both_published = requests_for_device({"memory": one}, _caps(memory="8Gi", driver_a__memory="8Gi"), "driver_a")
    assert both_published == {"driver_a/memory": one}


def test_capacity_names_compared_literally_without_the_fix():
    dev = device("d1", allowMultipleAllocations=True, capacity={"memory": {"value": "8Gi"}})
    req = request(capacity={"requests": {"driver-a/memory": "1Gi"}})
    before = allocator([device_class()], [slice_(devices=[dev])]).allocate(NODE, [claim(requests=[req])])
    after = allocator([device_class()], [slice_(devices=[dev])], compat=FIXED_138).allocate(
        NODE, [claim(requests=[req])])
    assert before.status == "unsatisfiable"
    assert picked(after) == ["req-0:d1"]
    assert {k: v.canonical() for k, v in after.results[0].devices[0].consumed_capacity.items()} == {"memory": "1Gi"}


# -- #141307 ---------------------------------------------------------------------------------
def test_go_int_wraps_like_a_64_bit_int():
    assert go_int(2 ** 63) == -2 ** 63
    assert go_int(2 ** 64) == 0
    assert go_int(2 ** 63 - 1) == 2 ** 63 - 1
    assert go_int(-5) == -5


def test_over_limit_error_names_the_request_with_the_fix():
    reqs = [request("a", count=20), request("b", count=20)]
    before = allocator([device_class()], [slice_(devices=["d1"])]).allocate(NODE, [claim(requests=reqs)])
    after = allocator([device_class()], [slice_(devices=["d1"])], compat=Compat(claim_limit_overflow_safe=True)
                      ).allocate(NODE, [claim(requests=reqs)])
    assert before.error == "claim default/claim-0: number of requested devices 40 exceeds the claim limit of 32"
    assert after.error == ("claim default/claim-0, request b: number of requested devices 40 "
                           "exceeds the claim limit of 32")


def _oversized_behind_a_device(compat):
    subs = [{"name": "huge", "deviceClassName": "class-a", "allocationMode": "ExactCount", "count": 2 ** 63 - 1},
            {"name": "one", "deviceClassName": "class-a", "allocationMode": "ExactCount", "count": 1}]
    reqs = [request("a"), {"name": "b", "firstAvailable": subs}]
    # Counter-consuming devices keep dractl's own pruning of hopeless scans out of the way, so the
    # search does what upstream's does.
    devices = slice_(devices=[device(f"d{i}", consumesCounters=[{"counterSet": "set", "counters": {"c": {"value": "1"}}}])
                              for i in range(6)], count=2)
    counters = slice_("counters", devices=[], count=2, sharedCounters=[{"name": "set", "counters": {"c": {"value": "100"}}}])
    return allocator([device_class()], [devices, counters], compat=compat).allocate(NODE, [claim(requests=reqs)])


def test_oversized_alternative_is_searched_before_the_fix_and_pruned_after():
    before = _oversized_behind_a_device(Compat())
    after = _oversized_behind_a_device(Compat(claim_limit_overflow_safe=True))
    assert picked(before) == picked(after) == ["a:d0", "b/one:d1"]
    # Before: 1 + MaxInt wraps negative, so the search tries every subset of the 5 free devices
    # for "huge" first (exponential: with many devices, the filter timeout); after: pruned at once.
    assert before.steps >= 2 ** 5 > 5 * after.steps
