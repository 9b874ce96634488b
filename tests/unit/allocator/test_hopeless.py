"""dractl's pruning of searches that cannot succeed (dractl/allocator/hopeless.py): an All request
whose set holds a device rejected for the whole call. Every test compares with the unpruned search
(`Search.prune = False`, the walk upstream does): outcome, error and results must be the same,
only the work differs; and each rule that keeps the pruning out of the way is pinned by a case
where pruning anyway would change the outcome."""

from __future__ import annotations

import re

import pytest
from alloc_testkit import (
    NODE,
    FakeEngine,
    claim,
    device,
    device_class,
    features,
    in_use,
    picked,
    request,
    slice_,
)

from dractl.allocator import Allocator, Compat
from dractl.allocator import search as search_module

CLASSES = [device_class("class-a", "driver-a"), device_class("class-b", "driver-b")]

DEFAULT_COMPAT = Compat()


def _allocator(slices, allocated=(), compat=DEFAULT_COMPAT, share_id=None) -> Allocator:
    # share_id None: the default generator, whose IDs are drawn when results are built.
    return Allocator(features(), CLASSES, slices, allocated, (), FakeEngine(), compat=compat, share_id=share_id)


def _both(make, claims, **kwargs):
    """(pruned, unpruned) outcomes of the same call on fresh allocators."""
    pruned = make().allocate(NODE, claims, **kwargs)
    search_module.Search.prune = False
    try:
        unpruned = make().allocate(NODE, claims, **kwargs)
    finally:
        search_module.Search.prune = True
    return pruned, unpruned


def _same(pruned, unpruned) -> None:
    assert (pruned.status, pruned.error) == (unpruned.status, unpruned.error)
    assert [r.to_dict() for r in pruned.results] == [r.to_dict() for r in unpruned.results]


def _b_slice(*devices):
    return slice_("b", driver="driver-b", pool="pool-b", devices=list(devices))


def _many_a(n=8, **fields):
    return slice_("a", devices=[device(f"a{i}", **fields) for i in range(n)])


BUSY_B1 = in_use("used", ("driver-b", "pool-b", "b1"))
ALL_B = claim("claim-1", [request("all", cls="class-b", mode="All")])


def test_all_request_with_a_device_in_use_fails_without_walking_every_combination():
    # The random2-01456 shape: claim-0 has C(8,3) = 56 ways to be placed, and the All request
    # of claim-1 fails at b1 (in use) on each of them.
    slices = [_many_a(), _b_slice("b0", "b1", "b2")]
    claims = [claim("claim-0", [request(count=3)]), ALL_B]
    pruned, unpruned = _both(lambda: _allocator(slices, [BUSY_B1]), claims)
    _same(pruned, unpruned)
    assert pruned.unsatisfiable
    assert unpruned.steps > 56 > 10 * pruned.steps


def test_without_the_device_in_use_the_same_claims_are_allocated():
    slices = [_many_a(), _b_slice("b0", "b1", "b2")]
    claims = [claim("claim-0", [request(count=3)]), ALL_B]
    pruned, unpruned = _both(lambda: _allocator(slices), claims)
    _same(pruned, unpruned)
    assert picked(pruned, 1) == ["all:b0", "all:b1", "all:b2"]


@pytest.mark.parametrize("blocking", [
    {"taints": [{"key": "k", "effect": "NoSchedule"}]},            # untolerated taint
    {"consumesCounters": [{"counterSet": "set", "counters": {"c": {"value": "1"}}}]},  # partitionable off
])
def test_other_rejections_fixed_for_the_call_doom_the_set(blocking):
    counters = slice_("counters", driver="driver-b", pool="pool-b", devices=[], count=2,
                      sharedCounters=[{"name": "set", "counters": {"c": {"value": "4"}}}])
    b = slice_("b", driver="driver-b", pool="pool-b", count=2, devices=[device("b0"), device("b1", **blocking)])
    slices = [_many_a(), b, counters]
    claims = [claim("claim-0", [request(count=3)]), ALL_B]
    make = lambda: Allocator(features(partitionable_devices=False), CLASSES, slices, (), (), FakeEngine())  # noqa: E731
    pruned, unpruned = _both(make, claims)
    _same(pruned, unpruned)
    assert pruned.unsatisfiable and unpruned.steps > 10 * pruned.steps


def test_an_empty_all_set_ends_the_search_at_once():
    slices = [_many_a()]
    claims = [claim("claim-0", [request(count=3)]), ALL_B]
    pruned, unpruned = _both(lambda: _allocator(slices), claims)
    _same(pruned, unpruned)
    assert pruned.unsatisfiable and unpruned.steps > 10 * pruned.steps


def test_a_selector_error_the_walk_would_reach_is_still_reported():
    # a1 has no `ok`: the walk evaluates it after the first placement with a0 fails.
    devs = [device("a0", attributes={"ok": {"bool": True}}), device("a1"), device("a2", attributes={"ok": {"bool": True}})]
    slices = [slice_("a", devices=devs), _b_slice("b0", "b1")]
    claims = [claim("claim-0", [request(selectors=['attr("ok") or RUNTIME'])]), ALL_B]
    pruned, unpruned = _both(lambda: _allocator(slices, [BUSY_B1]), claims)
    _same(pruned, unpruned)
    assert pruned.is_error and "a1" in pruned.error


def test_a_constraint_error_in_must_mode_before_the_set_is_still_reported():
    devs = [device("a0", attributes={"numa": {"int": 0}}), device("a1", attributes={"numa": {"int": 1}})]
    slices = [slice_("a", devices=devs), _b_slice("b0", "b1")]
    first = claim("claim-0", [request("all-a", mode="All")], constraints=[{"matchAttribute": "driver-a/numa"}])
    pruned, unpruned = _both(lambda: _allocator(slices, [BUSY_B1]), [first, ALL_B])
    _same(pruned, unpruned)
    assert pruned.is_error and "claim constraint would not be satisfied" in pruned.error


def test_counters_a_walked_set_leaks_are_still_leaked():
    # Snapshot: a multi-allocatable device never gives its counters back on backtracking
    # (docs/spec/allocator.md#counter-leaks). Walking the All alternative takes m's counter, so
    # "one" cannot get x afterwards; with the fix (#140431) it can. Skipping the walk would allocate
    # x in both.
    counters = slice_("counters", devices=[], count=2, sharedCounters=[{"name": "set", "counters": {"c": {"value": "2"}}}])
    consumes = lambda n: [{"counterSet": "set", "counters": {"c": {"value": str(n)}}}]  # noqa: E731
    devs = slice_("devices", count=2, devices=[
        device("m", allowMultipleAllocations=True, consumesCounters=consumes(1), attributes={"kind": {"string": "m"}}),
        device("u", attributes={"kind": {"string": "m"}}),
        device("x", consumesCounters=consumes(2), attributes={"kind": {"string": "x"}})])
    subs = [{"name": "all", "deviceClassName": "class-a", "allocationMode": "All",
             "selectors": [{"cel": {"expression": 'attr("kind") == "m"'}}]},
            {"name": "one", "deviceClassName": "class-a", "count": 1,
             "selectors": [{"cel": {"expression": 'attr("kind") == "x"'}}]}]
    c = claim(requests=[{"name": "r", "firstAvailable": subs}])
    used = in_use("used", ("driver-a", "pool-1", "u"))
    leaked, unpruned = _both(lambda: _allocator([counters, devs], [used]), [c])
    _same(leaked, unpruned)
    assert leaked.unsatisfiable
    fixed, unpruned = _both(lambda: _allocator([counters, devs], [used], Compat(release_reserved_state=True)), [c])
    _same(fixed, unpruned)
    assert picked(fixed) == ["r/one:x"]


def _shared_a(n=4):
    return slice_("a", devices=[device(f"a{i}", allowMultipleAllocations=True) for i in range(n)])


def test_a_callers_share_ids_advance_as_without_pruning():
    # The dry run numbers its share IDs: every tentative pick of a shared device draws one, so a
    # search that would pick some is walked.
    drawn = []

    def make():
        drawn.append(0)

        def next_id():
            drawn[-1] += 1
            return f"share-{drawn[-1]}"
        return _allocator([_shared_a(), _b_slice("b0", "b1")], [BUSY_B1], share_id=next_id)

    pruned, unpruned = _both(make, [claim("claim-0", [request(count=2)]), ALL_B])
    _same(pruned, unpruned)
    assert pruned.unsatisfiable and drawn[0] == drawn[1] > 0


def test_default_share_ids_are_fresh_uuids_drawn_for_results():
    out = _allocator([_shared_a(2)]).allocate(NODE, [claim("claim-0", [request(count=2)]),
                                                     claim("claim-1", [request()])])
    ids = [r.share_id for result in out.results for r in result.devices]
    assert len(ids) == 3 and len(set(ids)) == 3
    assert all(re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}", i) for i in ids)


def test_explanations_walk_the_search_as_before():
    # The walk sees b0 taken by claim-0 (one of the dynamic rejections an explanation reports).
    slices = [_b_slice("b0", "b1", "b2")]
    claims = [claim("claim-0", [request(cls="class-b")]), ALL_B]
    pruned, unpruned = _both(lambda: _allocator(slices, [BUSY_B1]), claims, explain=True)
    _same(pruned, unpruned)
    assert pruned.explanation == unpruned.explanation and pruned.explanation.requests


def test_a_doomed_alternative_is_skipped_where_it_is_reached():
    # Inside firstAvailable the All alternative is not the end of the search: the walk is
    # skipped each time it is reached, and the next alternative is tried as before.
    subs = [{"name": "all", "deviceClassName": "class-b", "allocationMode": "All"},
            {"name": "b2", "deviceClassName": "class-b", "count": 1,
             "selectors": [{"cel": {"expression": 'device.name == "b2"'}}]}]
    slices = [_many_a(), _b_slice("b0", "b1", "b2")]
    claims = [claim("claim-0", [request(count=3)]), claim("claim-1", [{"name": "r", "firstAvailable": subs}])]
    pruned, unpruned = _both(lambda: _allocator(slices, [BUSY_B1]), claims)
    _same(pruned, unpruned)
    assert picked(pruned, 1) == ["r/b2:b2"]
    blocked = in_use("used-2", ("driver-b", "pool-b", "b2"))
    pruned, unpruned = _both(lambda: _allocator(slices, [BUSY_B1, blocked]), claims)
    _same(pruned, unpruned)
    assert pruned.unsatisfiable and unpruned.steps >= pruned.steps + 56   # b0 is not picked per placement


# ---- a later claim that cannot be allocated even alone (hopeless.claim_alone_unsatisfiable) ----
def _numa_a(n=16):
    return slice_("a", devices=[device(f"a{i}", attributes={"numa": {"int": i % 2}}) for i in range(n)])


# Two requests whose devices must agree on an attribute no device of class-b has.
NO_MATCH_B = claim("claim-1", [request("x", cls="class-b"), request("y", cls="class-b")],
                   constraints=[{"matchAttribute": "driver-b/model", "requests": ["x", "y"]}])


def test_a_claim_hopeless_alone_ends_the_search_after_a_few_steps():
    # The random2-00737 shape: claim-0 has C(16,3) = 560 placements, and claim-1 fails on each
    # of them for a reason that does not depend on them.
    slices = [_numa_a(), _b_slice("b0", "b1", "b2")]
    claims = [claim("claim-0", [request(count=3)]), NO_MATCH_B]
    pruned, unpruned = _both(lambda: _allocator(slices), claims)
    _same(pruned, unpruned)
    assert pruned.unsatisfiable
    assert unpruned.steps > 560 and unpruned.steps > 3 * pruned.steps


def test_a_claim_that_fails_only_after_earlier_picks_is_walked():
    # claim-1 alone fits (b0, b1 agree on model); with claim-0 taking b0 it does not, and the walk
    # finds the placement of claim-0 that leaves it room.
    model = {"model": {"string": "m"}}
    slices = [slice_("b", driver="driver-b", pool="pool-b",
                     devices=[device("b0", attributes=model), device("b1", attributes=model),
                              device("b2")])]
    first = claim("claim-0", [request("any", cls="class-b")])
    pruned, unpruned = _both(lambda: _allocator(slices), [first, NO_MATCH_B])
    _same(pruned, unpruned)
    assert picked(pruned, 0) == ["any:b2"]


def test_a_selector_error_before_the_hopeless_claim_is_still_reported():
    devs = [device(f"a{i}", attributes={"ok": {"bool": True}}) for i in range(15)] + [device("a15")]
    slices = [slice_("a", devices=devs), _b_slice("b0", "b1")]
    claims = [claim("claim-0", [request(count=3, selectors=['attr("ok") or RUNTIME'])]), NO_MATCH_B]
    pruned, unpruned = _both(lambda: _allocator(slices), claims)
    _same(pruned, unpruned)
    assert pruned.is_error and "a15" in pruned.error


def test_share_ids_drawn_on_the_walk_keep_the_walk():
    drawn = []

    def make():
        drawn.append(0)

        def next_id():
            drawn[-1] += 1
            return f"share-{drawn[-1]}"
        return _allocator([_shared_a(16), _b_slice("b0", "b1")], share_id=next_id)

    pruned, unpruned = _both(make, [claim("claim-0", [request(count=3)]), NO_MATCH_B])
    _same(pruned, unpruned)
    assert pruned.unsatisfiable and drawn[0] == drawn[1] > 560
