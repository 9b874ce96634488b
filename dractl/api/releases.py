"""Behaviour by release: the one table of every decision that depends on the Kubernetes release.

Each `Change` is a switch: a name, the upstream change behind it (a pull request, or a KEP stage
where the behaviour came with a feature as a whole), the first minor release that ships it, the
release branches it was cherry-picked into, and one line saying what it changes. Code never
compares release numbers itself; it asks `in_force(name, version)` (or `Emitter.in_force` in the
API-server rules). dractl models each minor release as its latest patch, so a change cherry-picked
into release-1.36 is in force for `--kube-version 1.36`.

`release_key` is the one parser of Kubernetes versions: `1.37`, `v1.37`, `1.37.2` and
`1.37.0-rc.1` are all (1, 37).

The table is rendered into docs/releases.md (`python -m dractl.api.releases`; a test keeps the file
current) and every switch is tested on both sides of its release (tests/unit/test_releases.py).
Feature gates stay in gates.json (dractl.api.versions): a gate says what a cluster's operator
switched on; a change here says what the release's code does.
"""

from __future__ import annotations

import re
from functools import lru_cache

from dractl.api.record import FrozenRecord

_VERSION_FORMS = re.compile(r"^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+][0-9A-Za-z.+-]*)?$")

# Who reads a switch (the `area` of a change).
ALLOCATOR = "allocator"          # dractl/allocator (the Compat switches)
SCHEDULER = "scheduler"          # dractl/simulate/plugins
CONTROLLER = "controller"        # dractl/simulate/claimcontroller.py (resourceclaim controller)
INVENTORY = "inventory"          # dractl/simulate/inventory.py (what the scheduler's informers see)
CEL = "cel"                      # dractl/cel
VALIDATION = "validation"        # dractl/validate/rules (the API server)
POOL_STATUS = "pool-status"      # dractl/capacity/pool_status.py (resourcepoolstatusrequest controller)
KUBELET_PLUGIN = "kubelet-plugin"  # dractl/metadata.py (the DRA kubelet plugin helper)
COMPONENT_BASE = "component-base"  # dractl/api/versions.py (feature-gate handling)
AREAS = (ALLOCATOR, SCHEDULER, CONTROLLER, INVENTORY, CEL, VALIDATION, POOL_STATUS, KUBELET_PLUGIN,
         COMPONENT_BASE)


class UnknownChangeError(KeyError):
    """Code asked for a switch that is not in CHANGES (a typo would otherwise read as False)."""


class CherryPick(FrozenRecord):
    """A change merged into an older release branch: that minor's latest patch has it."""

    __slots__ = ("release", "pr")

    def __init__(self, release: str, pr: str) -> None:
        object.__setattr__(self, "release", release)
        object.__setattr__(self, "pr", pr)


class Change(FrozenRecord):
    """One release-dependent behaviour.

    upstream: `kubernetes/kubernetes#NNN` (the PR), or `KEP-NNNN ...` when the behaviour is a
    feature's stage rather than one PR; `confirmed` is False when the only source is a preview
    (a changelog of an unreleased version or an open PR), which `dractl gates` and the docs say.
    """

    __slots__ = ("name", "since", "upstream", "area", "meaning", "cherry_picks", "confirmed")

    def __init__(self, name: str, since: str, upstream: str, area: str, meaning: str,
                 cherry_picks: tuple[CherryPick, ...] = (), confirmed: bool = True) -> None:
        for field_name, value in zip(self.__slots__, (name, since, upstream, area, meaning,
                                                      tuple(cherry_picks), confirmed), strict=True):
            object.__setattr__(self, field_name, value)

    def in_force(self, version: str) -> bool:
        key = release_key(version)
        return key >= release_key(self.since) or any(release_key(c.release) == key for c in self.cherry_picks)


def _k(pr: int) -> str:
    return f"kubernetes/kubernetes#{pr}"


def _picks(*pairs: tuple[str, int]) -> tuple[CherryPick, ...]:
    return tuple(CherryPick(release, _k(pr)) for release, pr in pairs)


CHANGES: tuple[Change, ...] = (
    # -- the structured allocator (dractl.allocator.Compat: one field per row) ------------------
    Change("release_reserved_state", "1.37", _k(140431), ALLOCATOR,
           "counters and constraint state are released on every rejection and backtracking path "
           "of allocateDevice instead of leaking for the rest of the call",
           _picks(("1.36", 140663))),
    Change("distinct_all_devices", "1.37", _k(140600), ALLOCATOR,
           "distinctAttribute compares a candidate with every device the request already took, "
           "not only the latest one per request name"),
    Change("claim_limit_overflow_safe", "1.38", _k(141307), ALLOCATOR,
           "the per-claim device limit is checked against the room left in the claim, so request "
           "counts that add up past the int range are rejected by name and an oversized "
           "firstAvailable alternative falls through",
           _picks(("1.37", 141922), ("1.36", 141923), ("1.35", 141924), ("1.34", 141925))),
    Change("shared_device_not_exclusive", "1.38", _k(140798), ALLOCATOR,
           "a device with a live shared allocation cannot also be allocated exclusively after its "
           "slice stopped allowing multiple allocations"),
    Change("qualified_capacity_names", "1.38", _k(142202), ALLOCATOR,
           "capacity requests and a device's capacities are compared by fully-qualified name "
           "(`<driver>/memory` and `memory` are the same capacity)"),
    # -- kube-scheduler's DynamicResources and NodeAllocatableResources plugins -----------------
    Change("prioritized_list_score", "1.35", _k(134711), SCHEDULER,
           "DynamicResources scores nodes by the rank of the firstAvailable subrequests chosen; "
           "1.34 has no DRA score"),
    Change("filter_timeout_is_error", "1.36", _k(137607), SCHEDULER,
           "a DRASchedulerFilterTimeout timeout is an Error (the attempt is retried after "
           "back-off); before, the node was UnschedulableAndUnresolvable and other nodes were tried"),
    Change("all_request_bad_pool_node_only", "1.38", _k(141898), SCHEDULER,
           "an `All` request meeting an incomplete or invalid pool makes only that node unsuitable; "
           "before, the allocator error failed the scheduling attempt"),
    Change("node_allocatable_second_alpha", "1.37", _k(140009), SCHEDULER,
           "KEP-5517 second alpha: devices carry nodeAllocatableResources{mapping, overhead} "
           "instead of 1.36's nodeAllocatableResourceMappings; only mapped devices block sharing, "
           "overhead is charged per pod and per container, nodes must declare the feature"),
    # -- what the scheduler's informers see ------------------------------------------------------
    Change("taint_rule_needs_selector", "1.38", _k(141648), INVENTORY,
           "a DeviceTaintRule without spec.deviceSelector taints no device (`deviceSelector: {}` "
           "taints all); up to 1.37 it tainted every device"),
    # -- the resourceclaim controller --------------------------------------------------------------
    Change("podgroup_claims_withheld", "1.37", _k(138363), CONTROLLER,
           "with DRAWorkloadResourceClaims off, a pod claim matching its PodGroup's claim gets no "
           "per-pod claim (the pod waits) instead of being treated as ungrouped"),
    # -- CEL ---------------------------------------------------------------------------------------
    Change("list_attribute_values", "1.36", _k(137190), CEL,
           "list-typed attribute values (ints, strings, bools, versions) exist and reach CEL when "
           "DRAListTypeAttributes is on; older releases reject them as unsupported values"),
    Change("list_attributes_ungated_in_cel", "1.37", "kubernetes/kubernetes@3d03671 snapshot "
           "(dynamic-resource-allocation/cel compile_test.go runs the list cases with the gate on "
           "and off; the PR was not identified)", CEL,
           "list-typed values reach CEL whatever DRAListTypeAttributes says (the compiler always "
           "converts them)"),
    # -- the API server's validation -----------------------------------------------------------------
    Change("shared_counters_split", "1.35", _k(134189), VALIDATION,
           "KEP-4815 1.35: sharedCounters and devices in separate slices of a pool, at most 8 "
           "counter sets of 32 counters, 2 consumesCounters per device, 64 devices in a slice "
           "using taints or counters; 1.34 limited counters summed over the slice"),
    Change("device_taints_135", "1.35", _k(134152), VALIDATION,
           "KEP-5055 1.35: taint effect None, 16 taints per device (4 before), DeviceTaintRule "
           "selectors lose deviceClassName"),
    Change("attribute_values_limit", "1.36", _k(137190), VALIDATION,
           "at most 48 attribute values per device (scalars and list items); a device with list "
           "attributes counts toward the 64-device limit of advanced slices"),
    Change("qualified_name_single_slash", "1.38", _k(141644), VALIDATION,
           "qualified names (attribute keys, capacity names) with more than one slash are rejected"),
    Change("pod_workload_ref", "1.35", "KEP-4671 alpha (GenericWorkload)", VALIDATION,
           "Pod spec.workloadRef exists (replaced by schedulingGroup in 1.36)"),
    Change("pod_scheduling_group", "1.36", _k(136976), VALIDATION,
           "Pod spec.schedulingGroup replaces workloadRef; Workload spec.podGroupTemplates "
           "replaces podGroups (scheduling.k8s.io v1alpha2)"),
    Change("podgroup_workload_ref", "1.37", _k(140080), VALIDATION,
           "PodGroup spec.workloadRef{workloadName, templateName} replaces "
           "podGroupTemplateRef.workload"),
    # -- the kubelet plugin helper (KEP-5304 device metadata) ----------------------------------------
    Change("metadata_files_alpha", "1.36", "KEP-5304 alpha", KUBELET_PLUGIN,
           "the DRA kubelet plugin helper writes device metadata files "
           "(metadata.resource.k8s.io/v1alpha1); unknown configured versions are skipped"),
    Change("metadata_files_beta", "1.37", "KEP-5304 beta", KUBELET_PLUGIN,
           "metadata files in v1beta1 (required) and v1alpha1; unknown configured versions are "
           "fatal"),
    # -- component-base ------------------------------------------------------------------------------
    Change("gate_dependencies", "1.37", "kubernetes/kubernetes pkg/features "
           "defaultKubernetesFeatureGateDependencies", COMPONENT_BASE,
           "--feature-gates refuses a gate enabled while a gate it depends on is disabled"),
)

_BY_NAME: dict[str, Change] = {c.name: c for c in CHANGES}
KNOWN_CHANGES: frozenset[str] = frozenset(_BY_NAME)


def release_key(version: str) -> tuple[int, int]:
    """(major, minor) of a Kubernetes version; ValueError when the text is not one."""
    match = _VERSION_FORMS.match(version.strip()) if isinstance(version, str) else None
    if match is None:
        raise ValueError(f"not a Kubernetes version: {version!r}")
    return int(match.group(1)), int(match.group(2))


def normalize(text: str) -> str | None:
    """`1.37`, `v1.37`, `1.37.2`, `1.37.0-rc.1` -> `1.37` (the patch part is ignored: dractl models
    each minor release as its latest patch); None when the text is not a Kubernetes version."""
    try:
        major, minor = release_key(text)
    except ValueError:
        return None
    return f"{major}.{minor}"


def change(name: str) -> Change:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise UnknownChangeError(f"unknown release switch {name!r}: not in dractl/api/releases.py") from None


@lru_cache(maxsize=None)
def changes_in_force(version: str) -> frozenset[str]:
    """The names of every change the release ships."""
    return frozenset(c.name for c in CHANGES if c.in_force(version))


def in_force(name: str, version: str) -> bool:
    """Whether the release `version` (any form release_key reads) ships change `name`."""
    if name not in _BY_NAME:
        change(name)
    return name in changes_in_force(version)


def markdown() -> str:
    """docs/releases.md: the table as a reader sees it."""
    lines = [
        "# Behaviour by release",
        "",
        "Generated from `dractl/api/releases.py` by `python -m dractl.api.releases > docs/releases.md`",
        "(`tests/unit/test_releases.py` checks that this file is current). Every decision dractl makes",
        "differently per Kubernetes release is one row; the code asks `in_force(switch, version)`.",
        "dractl models each minor release as its latest patch: a change cherry-picked into an older",
        "branch is in force for that minor. Feature gates are a separate table (`dractl gates`).",
        "",
    ]
    for area in AREAS:
        rows = [c for c in CHANGES if c.area == area]
        if not rows:
            continue
        lines += [f"## {area}", "", "| switch | first release | cherry-picked into | upstream | what changes |",
                  "|---|---|---|---|---|"]
        for c in rows:
            picks = ", ".join(f"{p.release} ({_short(p.pr)})" for p in c.cherry_picks) or "-"
            since = c.since if c.confirmed else f"{c.since} (unconfirmed)"
            lines.append(f"| `{c.name}` | {since} | {picks} | {_link(c.upstream)} | {c.meaning} |")
        lines.append("")
    return "\n".join(lines)


def _short(ref: str) -> str:
    return ref.replace("kubernetes/kubernetes", "")


def _link(ref: str) -> str:
    match = re.fullmatch(r"kubernetes/kubernetes#(\d+)", ref)
    if match:
        return f"[#{match.group(1)}](https://github.com/kubernetes/kubernetes/pull/{match.group(1)})"
    return ref


if __name__ == "__main__":
    import sys

    sys.stdout.write(markdown())
