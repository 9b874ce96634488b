"""dractl's extension `podgroup-constraints` in the dry run (not in Kubernetes;
docs/decisions/0001-podgroup-constraints-extension.md).

A PodGroup's `resourceClaims` entry (or its Workload podGroupTemplate's entry of the same name)
may carry `constraints` (matchAttribute, distinctAttribute). With the extension on, such an entry
is not a claim the group shares: each member pod keeps its own claim from the template (the
KEP-5729 review's proposal), and every device allocated to any member's claim from the entry must
satisfy each constraint together with all the others, across pods and nodes.

The search (`schedule_constrained_group`):
* matchAttribute: one candidate value at a time (every value the inventory's devices have, in
  sorted order; several matchAttribute constraints: their combinations). Under a value the members
  are scheduled as usual inside a journal transaction, with an extra claim-level constraint
  "attribute == value" the DynamicResources plugin hands the allocator; the transaction is rolled
  back and the next value tried, until one places every member (or, failing that, the value that
  placed the most members, if that reaches minCount).
* distinctAttribute: an exclusion set; each member's devices must avoid the values earlier members
  got (and each other's). Under one candidate value the members are placed by a backtracking
  search across the pods (dractl/simulate/groupbacktrack.py): a member that cannot get a value
  not yet used makes the search undo earlier members' placements and try their alternatives;
  the first placement it finds is the greedy one (member order, the scheduler's picks) whenever
  that one works.
* The whole group's search is bounded by --timeout (each allocator call keeps its own).
The result is reported with codes DRA80xx (dractl/extensions/podgroup_constraints.py; texts in
dractl/simulate/groupconstraint_report.py), each reason marked as dractl's extension
(`extension: true` in JSON)."""

from __future__ import annotations

import itertools
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dractl.allocator.constraints import _MISSING, Constraint, lookup_attribute
from dractl.extensions.podgroup_constraints import (
    C_PLACED,
    EXTENSION_LABEL,
    group_constraint_entries,
)
from dractl.models.devices import DeviceIndex
from dractl.simulate.gangs import schedule_gang
from dractl.simulate.state import SCHEDULED

# The search and its report are imported where a group with constraints is placed: every dry run
# imports this module, few use the extension (~3 ms of an allocate start-up).
if TYPE_CHECKING:
    from dractl.simulate.groupbacktrack import Outcome, ReachableValues

# -- constraints handed to the allocator (extra claim-level constraints) ---------------------------

def _value_key(attr) -> tuple | None:
    if attr is None or attr is _MISSING:
        return None
    value = attr.value
    return (attr.type, tuple(value) if isinstance(value, (list, tuple)) else value)


class FixedValueConstraint(Constraint):
    """matchAttribute across the group, under one candidate value: each device has that value."""

    def __init__(self, attribute: str, value_key: tuple):
        super().__init__((), attribute)
        self.value_key = value_key

    def add(self, base, sub, device, derived=None) -> bool:
        return _value_key(lookup_attribute(device, self.attribute)) == self.value_key

    def remove(self, base, sub, device) -> None:
        return None


class ExcludedValuesConstraint(Constraint):
    """distinctAttribute across the group: no value earlier members got, none twice here."""

    def __init__(self, attribute: str, used: frozenset):
        super().__init__((), attribute)
        self.used = used
        self.here: dict[tuple, int] = {}

    def add(self, base, sub, device, derived=None) -> bool:
        key = _value_key(lookup_attribute(device, self.attribute))
        if key is None or key in self.used or self.here.get(key):
            return False
        self.here[key] = 1
        return True

    def remove(self, base, sub, device) -> None:
        self.here.pop(_value_key(lookup_attribute(device, self.attribute)), None)


# -- what the group asks for ---------------------------------------------------------------------

@dataclass
class GroupConstraint:
    entry: dict                 # the resourceClaims entry (name, resourceClaimTemplateName)
    kind: str                   # matchAttribute | distinctAttribute
    attribute: str

    @property
    def text(self) -> str:
        return f"{self.kind} {self.attribute}"


@dataclass
class ActiveConstraints:
    """The constraints in force while one member is scheduled under one candidate assignment."""

    constraints: list[GroupConstraint]
    fixed: dict[int, tuple]                               # constraint index -> value key
    used: dict[int, set] = field(default_factory=dict)    # distinct: index -> value keys taken
    # distinct: (index, value key) pairs the member being scheduled must also avoid (an
    # alternative of the backtracking search, dractl/simulate/groupbacktrack.py)
    forbidden: frozenset = frozenset()

    def key(self) -> tuple:
        return (tuple(sorted(self.fixed.items())),
                tuple((i, frozenset(v)) for i, v in sorted(self.used.items())), self.forbidden)

    def excluded(self, i: int) -> frozenset:
        """The values constraint `i`'s devices must avoid for the member being scheduled."""
        extra = {key for j, key in self.forbidden if j == i}
        return frozenset(self.used.get(i, ())) | extra

    def for_pod(self, pod, refs):
        """(claim model) -> extra constraints, for the pod's claims (`refs`, PodClaimRef) from a
        constrained entry."""
        by_model: dict[int, list[int]] = {}
        entries = {e.get("name"): e for e in pod.pod_claims() if isinstance(e, dict)}
        for ref in refs:
            entry = entries.get(ref.name)
            if ref.claim is None or ref.claim.model is None or entry is None:
                continue
            wanted = [i for i, gc in enumerate(self.constraints) if _same_entry(gc.entry, entry)]
            if wanted:
                by_model[id(ref.claim.model)] = wanted
        if not by_model:
            return None

        def extra(claim) -> list[Constraint]:
            out: list[Constraint] = []
            for i in by_model.get(id(claim), ()):
                gc = self.constraints[i]
                if gc.kind == "matchAttribute":
                    out.append(FixedValueConstraint(gc.attribute, self.fixed[i]))
                else:
                    out.append(ExcludedValuesConstraint(gc.attribute, self.excluded(i)))
            return out
        return extra


def _same_entry(group_entry: dict, pod_entry: dict) -> bool:
    return all((group_entry.get(k) or None) == (pod_entry.get(k) or None)
               for k in ("name", "resourceClaimName", "resourceClaimTemplateName"))


def _template_entries(groups, group) -> dict[str, dict]:
    """The group's Workload podGroupTemplate entries, by name (a PodGroup made from a template)."""
    spec = (group.source.data.get("spec") if group.source is not None else None) or {}
    ref = spec.get("podGroupTemplateRef") or spec.get("workloadRef") or {}
    if isinstance(ref, dict) and isinstance(ref.get("workload"), dict):
        ref = ref["workload"]
    if not isinstance(ref, dict):
        return {}
    workload = groups.workloads.get((group.namespace, ref.get("workloadName") or ""))
    name = ref.get("podGroupTemplateName") or ref.get("templateName")
    for t in (workload or {}).get("spec", {}).get("podGroupTemplates") or ():
        if isinstance(t, dict) and t.get("name") == name:
            return {e["name"]: e for e in group_constraint_entries(t) if isinstance(e.get("name"), str)}
    return {}


def prepare_groups(cluster) -> None:
    """Find the groups with constrained entries; take those entries out of the claims the group
    shares (each member gets its own claim from the template). Sets cluster.group_constraints."""
    found: dict[int, list[GroupConstraint]] = {}
    groups = cluster.groups
    for group in list(groups.pod_groups.values()) if groups is not None else ():
        from_template = _template_entries(groups, group)
        constrained = []
        for entry in group.resource_claims:
            source = entry if entry.get("constraints") else from_template.get(entry.get("name"))
            if not source or not isinstance(source.get("constraints"), list):
                continue
            for c in source["constraints"]:
                kind = next((k for k in ("matchAttribute", "distinctAttribute")
                             if isinstance(c, dict) and c.get(k)), None)
                if kind is not None and entry.get("resourceClaimTemplateName"):
                    constrained.append(GroupConstraint(entry, kind, c[kind]))
        if constrained:
            taken = {id(gc.entry) for gc in constrained}
            group.resource_claims = [e for e in group.resource_claims if id(e) not in taken]
            found[id(group)] = constrained
    cluster.group_constraints = found


# -- the search --------------------------------------------------------------------------------

@dataclass
class Trial:
    assignment: dict[int, tuple]
    placed: int
    failure: str = ""           # the first member's error that broke it
    pruned: bool = False        # skipped by the device-count bound, not scheduled
    used: dict[int, set] = field(default_factory=dict)
    # distinctAttribute: the backtracking search across the pods (dractl/simulate/groupbacktrack.py)
    plan: list | None = None    # per member: the values it must avoid besides the others' (replayed)
    search: Outcome | None = None

    @property
    def timed_out(self) -> bool:
        return self.search is not None and self.search.timed_out

    def admissible(self, required: int) -> bool:
        """Whether placing the group this way admits it (a backtracking search: only its plan)."""
        return self.placed >= required and (self.search is None or self.plan is not None)


class GroupSearch:
    """The backtracking search of one group over candidate values, through the journal."""

    prune = True       # the device-count bound (tests compare with it off)
    backtrack = True   # distinctAttribute: backtrack across the pods (off: greedy in member order)
    value_key = staticmethod(_value_key)

    def __init__(self, cluster, group, schedule_pod) -> None:
        self.cluster = cluster
        self.group = group
        self.schedule_pod = schedule_pod
        self.constraints: list[GroupConstraint] = cluster.group_constraints[id(group)]
        self.members = group.members
        self.required = group.min_count if group.policy == "gang" else 1
        self.devices = DeviceIndex(cluster.allocator.inventory.slices)
        self.distinct = [i for i, gc in enumerate(self.constraints) if gc.kind == "distinctAttribute"]
        self.timeout = cluster.options.timeout
        self.deadline = time.monotonic() + self.timeout if self.timeout else None
        self.in_use = {(r.driver, r.pool, r.device) for c in cluster.claims.values()
                       if c.allocation is not None for r in c.allocation.devices}
        self.free = self._free_values()
        self._reachable: dict[tuple, ReachableValues] = {}

    def taken_before(self, sl, dev) -> bool:
        """In use when the group's turn comes (a device several claims may share is free)."""
        return (sl.driver, sl.pool.name, dev.name) in self.in_use and not dev.allow_multiple_allocations

    def reachable(self, assignment: dict) -> ReachableValues:
        key = tuple(sorted(assignment.items()))
        found = self._reachable.get(key)
        if found is None:
            from dractl.simulate.groupbacktrack import ReachableValues

            found = self._reachable[key] = ReachableValues(self, assignment)
        return found

    # -- candidate values: every value some free device has, most free devices first ----------
    def _free_values(self) -> dict[int, dict[tuple, list]]:
        out: dict[int, dict[tuple, list]] = {}
        for i, gc in enumerate(self.constraints):
            if gc.kind != "matchAttribute":
                continue
            values: dict[tuple, list] = {}
            for sl in self.cluster.allocator.inventory.slices:
                for dev in sl.devices:
                    key = _value_key(lookup_attribute(dev, gc.attribute))
                    if key is not None and not self.taken_before(sl, dev):
                        values.setdefault(key, []).append(sl.node_name or "")
            out[i] = values
        return out

    def assignments(self):
        domains = []
        for i, gc in enumerate(self.constraints):
            if gc.kind == "matchAttribute":
                values = self.free[i]
                domains.append([(i, v) for v in sorted(values, key=lambda v: (-len(values[v]), repr(v)))])
        for combo in itertools.product(*domains):
            yield dict(combo)

    # -- a bound that skips hopeless values without scheduling anything -----------------------
    def devices_per_claim(self, entry: dict) -> int:
        """The fewest devices one member's claim from `entry` needs (1 when unsure; 0 when the
        free-device count says nothing, i.e. admin access)."""
        found = self.cluster.templates.get((self.group.namespace, entry.get("resourceClaimTemplateName")))
        template = (found or {}).get("template")
        claim_spec = (template.spec if template is not None else None) or {}
        requests = (claim_spec.get("devices") or {}).get("requests")
        if not isinstance(requests, list):
            return 1
        total = 0
        for req in requests:
            if not isinstance(req, dict):
                return 1
            options = [o for o in req.get("firstAvailable") or [req.get("exactly") or req]
                       if isinstance(o, dict)]
            if any(o.get("adminAccess") is True for o in options):
                return 0   # admin access may use devices in use: no bound
            counts = [_count(o) for o in options]
            total += min(counts) if counts else 1
        return max(total, 1)  # 0 only for admin access (above)

    def pods_possible(self, i: int, key: tuple) -> int:
        """At most how many members can get their claim from constraint `i`'s entry under value
        `key`, counting free devices with the value (an upper bound: classes, selectors, counters
        and node resources only lower it). A claim's node-local devices all come from its node."""
        per_claim = self.devices_per_claim(self.constraints[i].entry)
        if per_claim == 0:
            return len(self.members)
        nodes = self.free[i].get(key, [])
        if any(not n for n in nodes):   # devices several nodes can reach: only the total counts
            return len(nodes) // per_claim
        return sum(c // per_claim for c in Counter(nodes).values())

    def hopeless(self, assignment: dict) -> tuple[int, int] | None:
        """(constraint index, pods possible) of the first fixed value that cannot hold minCount."""
        for i, key in sorted(assignment.items()):
            possible = self.pods_possible(i, key)
            if possible < self.required:
                return i, possible
        return None

    # -- one attempt under an assignment -------------------------------------------------------
    def _run(self, assignment: dict | None) -> Trial:
        active = ActiveConstraints(self.constraints, assignment) if assignment is not None else None
        trial = Trial(assignment or {}, 0, used=active.used if active else {})
        total = len(self.members)
        for n, m in enumerate(self.members):
            self.cluster.active_group_constraint = active
            try:
                self.schedule_pod(m)
            finally:
                self.cluster.active_group_constraint = None
            if m.status == SCHEDULED:
                trial.placed += 1
                if active is not None:
                    self._record_used(active, m)
            elif not trial.failure:
                trial.failure = self.first_error(m)
            if trial.placed + (total - n - 1) < self.required:
                break  # like the gang cycle: minCount is out of reach under this assignment
        return trial

    def _record_used(self, active: ActiveConstraints, member) -> None:
        for i, keys in self.member_values(member).items():
            active.used.setdefault(i, set()).update(keys)

    def member_values(self, member) -> dict[int, list]:
        """distinctAttribute: constraint index -> the values of the member's devices from its entry."""
        entries = {e.get("name"): e for e in member.pod.pod_claims() if isinstance(e, dict)}
        out: dict[int, list] = {}
        for i in self.distinct:
            gc = self.constraints[i]
            for ref in member.claims:
                entry = entries.get(ref.name)
                if ref.claim is None or ref.claim.allocation is None or entry is None \
                        or not _same_entry(gc.entry, entry):
                    continue
                for r in ref.claim.allocation.devices:
                    dev = self.devices.get(r.driver, r.pool, r.device)
                    key = _value_key(lookup_attribute(dev, gc.attribute)) if dev is not None else None
                    if key is not None:
                        out.setdefault(i, []).append(key)
        return out

    @staticmethod
    def uses_entry(member, gc: GroupConstraint) -> bool:
        """Whether the member's pod has a claim from the constraint's entry."""
        return any(_same_entry(gc.entry, entry) for entry in member.pod.pod_claims())

    @staticmethod
    def first_error(member) -> str:
        first = next((r for r in member.reasons if r.severity == "error"), None)
        return f"{member.namespace}/{member.name}: {first.message}" if first else f"{member.namespace}/{member.name}"

    snapshot = staticmethod(lambda member: _snapshot_dict(member.__dict__))
    snapshot_copy = staticmethod(lambda snap: _snapshot_dict(snap))

    def trial(self, assignment: dict | None) -> Trial:
        """Schedule the members under `assignment`, then undo everything (journal rollback and
        the members' results restored)."""
        saved = [_snapshot(m) for m in self.members]
        journal = self.cluster.journal
        journal.begin()
        try:
            return self._run(assignment)
        finally:
            journal.rollback()
            self.cluster.touch_shared()   # verdicts cached during the trial saw its state
            for m, snap in zip(self.members, saved, strict=True):
                m.__dict__.update(snap)

    def timed_out(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline

    def explore(self, assignment: dict) -> Trial:
        """The members under `assignment`: in member order (matchAttribute only), or by the
        backtracking search across the pods (distinctAttribute): first for a placement of every
        member, then, for a gang whose minCount is lower, for one of at least minCount."""
        if not self.distinct or not self.backtrack:
            return self.trial(assignment)
        trial = self._backtrack(assignment, len(self.members))
        if trial.timed_out:
            # Out of time before a placement of every member: the scheduler's order still
            # admits the group if it places minCount (one pass, no search).
            greedy = self.trial(assignment)
            if greedy.placed >= self.required:
                greedy.plan, greedy.search = [frozenset()] * len(self.members), trial.search
                return greedy
        if trial.plan is None and not trial.timed_out and self.required < len(self.members):
            fewer = self._backtrack(assignment, self.required)
            for name in ("steps", "undone", "pruned"):
                setattr(fewer.search, name, getattr(fewer.search, name) + getattr(trial.search, name))
            if fewer.plan is not None or fewer.timed_out:
                return fewer
        return trial

    def _backtrack(self, assignment: dict, target: int) -> Trial:
        active = ActiveConstraints(self.constraints, assignment)
        from dractl.simulate.groupbacktrack import Backtracking

        outcome = Backtracking(self, assignment, target, active).run()
        return Trial(assignment, outcome.placed, outcome.failure, plan=outcome.plan, search=outcome)

    def search(self) -> tuple[Trial | None, list[Trial], bool]:
        """(the assignment to place the group under, every trial made, timed out)."""
        best, tried = None, []
        for assignment in self.assignments():
            # Between matchAttribute values; the search across the pods checks the time itself.
            if assignment and self.timed_out():
                return best, tried, True
            skip = self.hopeless(assignment) if self.prune else None
            if skip is not None:
                i, possible = skip
                per_claim = self.devices_per_claim(self.constraints[i].entry)
                tried.append(Trial(assignment, possible, f"not tried: its free devices hold at most "
                                   f"{possible} claim(s) of {per_claim} device(s) on their nodes", pruned=True))
                continue
            trial = self.explore(assignment)
            tried.append(trial)
            if trial.placed == len(self.members) and trial.admissible(self.required):
                return trial, tried, False
            if trial.admissible(self.required) and (best is None or trial.placed > best.placed):
                best = trial
            if trial.timed_out:
                return best, tried, True
        return best, tried, False


def _count(request: dict) -> int:
    if request.get("allocationMode") == "All":
        return 1
    count = request.get("count", 1)
    return count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else 1


def _snapshot(member) -> dict:
    return _snapshot_dict(member.__dict__)


def _snapshot_dict(values: dict) -> dict:
    """A copy whose lists and dicts are copies too (restoring must not hand out the snapshot's)."""
    snap = dict(values)
    for name, value in snap.items():
        if isinstance(value, (list, dict)):
            snap[name] = type(value)(value)
    return snap


# -- the group cycle with constraints ------------------------------------------------------------

def schedule_constrained_group(cluster, group, schedule_pod) -> None:
    """Place a group whose claim entries carry constraints (see the module docstring)."""
    from dractl.simulate.groupconstraint_report import ExtensionReason, failure_reason, placed_note

    search = GroupSearch(cluster, group, schedule_pod)
    if len(group.members) < search.required:
        schedule_gang(cluster, group, schedule_pod)   # the gang's own "waiting for minCount"
        return
    chosen, tried, timed_out = search.search()
    label = _label(group)
    if chosen is None:
        without = search.trial(None)
        scheduled = [t for t in tried if not t.pruned]
        if scheduled:  # place under the best failing value: the members get the gang's own reasons
            _place(cluster, group, search, max(scheduled, key=lambda t: t.placed).assignment)
        # (That placement fails too: it is the scheduler's order, the search's first path.)
        reason = failure_reason(search, tried, without, timed_out, label)
        for m in group.members:
            m.reasons.append(reason)
        return
    final = _place(cluster, group, search, chosen.assignment, chosen.plan)
    if final.placed >= search.required:
        note = placed_note(search, final, chosen, len(tried))
        for m in group.members:
            if m.status == SCHEDULED:
                m.reasons.append(ExtensionReason(C_PLACED, f"[{EXTENSION_LABEL}] {label}: {note}",
                                                 severity="info"))
        return
    reason = failure_reason(search, tried, None, timed_out, label)
    for m in group.members:
        m.reasons.append(reason)


def _place(cluster, group, search: GroupSearch, assignment: dict, plan: list | None = None) -> Trial:
    """The real placement under `assignment`: the gang cycle (all-or-nothing), or the members one
    by one for a basic group; the constraints in force during each member's cycle (with the
    values the backtracking search's `plan` has each member avoid besides the others')."""
    active = ActiveConstraints(search.constraints, assignment)
    final = Trial(assignment, 0, used=active.used)
    avoid = {id(m): forbidden for m, forbidden in zip(group.members, plan, strict=False)} if plan is not None else {}

    def schedule_member(member) -> None:
        active.forbidden = avoid.get(id(member), frozenset())
        cluster.active_group_constraint = active
        try:
            schedule_pod(member)
        finally:
            cluster.active_group_constraint = None
            active.forbidden = frozenset()
        if member.status == SCHEDULED:
            final.placed += 1
            search._record_used(active, member)

    schedule_pod = search.schedule_pod
    if group.policy == "gang":
        schedule_gang(cluster, group, schedule_member)
    else:
        for member in group.members:
            schedule_member(member)
    return final


def _label(group) -> str:
    return f"PodGroup {group.namespace}/{group.name}"
