"""dractl's extension podgroup-constraints (not in Kubernetes;
docs/decisions/0001-podgroup-constraints-extension.md): the backtracking search
across a group's pods for distinctAttribute constraints.

Under one matchAttribute assignment (dractl/simulate/groupconstraints.py) the members are placed
one after the other, each by the scheduler's own cycle, with the values earlier members got
excluded. When a member cannot be placed, the search undoes the latest placement (journal
rollback) and tries that member's next alternative, and so on back to the first member:

* A member's first alternative is the scheduler's own pick (no extra exclusion), so the first
  complete placement found is the greedy one whenever greedy succeeds.
* Its next alternatives exclude, in addition, one value the member took in an alternative
  already explored (first value first): the scheduler then picks another device of the same node
  or another node, in its own order. Alternatives that end in a placement explored before (same
  node, same devices) are skipped. Two placements that only differ in devices with the same
  values are one alternative: the constraint sees values only.
* A member that does not fit at all is left pending (as the gang cycle leaves it) only while the
  group can still reach its target; otherwise the branch is dead.
* The values-available bound prunes a branch before it is scheduled: the pods still to place
  need k distinct values, so the branch is hopeless when fewer than k values not yet taken are
  free on the nodes those pods may run on (node filters: nodeSelector, affinity, taints,
  cordons), when a pod has fewer than it needs itself, or when the pods whose nodes lie inside
  one pod's nodes need more values than are free there (Hall's condition on those sets). Free
  means not allocated when the group's turn came; the device class and selectors are not
  consulted, so the count is an upper bound and never cuts a branch that could succeed.
* The whole search is bounded by --timeout (the group's time budget); when it runs out the search
  stops and says so (DRA8013).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from dractl.allocator.constraints import lookup_attribute
from dractl.simulate.nodes import pod_fits_node
from dractl.simulate.state import SCHEDULED


@dataclass
class Frame:
    """One member's place in the search: the alternative in force and those still to try."""

    member: object
    snapshot: dict
    pending: list = field(default_factory=lambda: [frozenset()])   # forbidden sets, next on top
    seen: set = field(default_factory=set)                           # forbidden sets tried
    placements: set = field(default_factory=set)                     # (node, devices) explored
    current: frozenset | None = None   # forbidden set in force; None: the member is left pending
    open: bool = False                 # a journal transaction holds the alternative
    placed: bool = False
    values: dict = field(default_factory=dict)   # constraint index -> value keys the member took


@dataclass
class Outcome:
    """What one backtracking search found."""

    plan: list | None = None     # per member: its forbidden set, or None when left pending
    placed: int = 0              # members placed by the plan (or the most placed together)
    steps: int = 0               # member placements scheduled
    undone: int = 0              # placements undone to try another alternative
    pruned: int = 0              # branches cut by the values-available bound
    timed_out: bool = False
    failure: str = ""            # the first member error on the greedy path
    bound: "BoundVerdict | None" = None   # the values-available bound at the start, if it fails there
    cut: tuple | None = None     # (members placed, BoundVerdict) of the first branch the bound cut


@dataclass(frozen=True)
class BoundVerdict:
    """Why the values-available bound says the pods still to place cannot reach the target."""

    constraint: int
    kind: str              # union: all the pods; pods: pods short themselves; group: pods sharing nodes
    needed: int            # distinct values the pods concerned need
    available: int         # distinct values free on the nodes they may run on
    pods: int              # pods that must still be placed
    remaining: int         # pods still to place (a gang with a lower minCount may leave some out)
    per_pod: int           # devices each pod's claim needs
    short: tuple = ()      # (pod, values it can reach) of the pods concerned (pods, group)
    possible: int = 0      # at most this many of the pods still to place can be placed


class ReachableValues:
    """For each distinctAttribute constraint and member: the values of the devices free when the
    search starts, on the nodes the member may run on (an upper bound of what it can get)."""

    def __init__(self, search, assignment: dict) -> None:
        self.search = search
        self.by_node = {i: self._values_by_node(i, assignment) for i in search.distinct}
        self._fits: dict[str, frozenset] = {}
        self._reach: dict[tuple, frozenset] = {}

    def _values_by_node(self, i: int, assignment: dict) -> dict[str, set]:
        search = self.search
        gc = search.constraints[i]
        fixed = [(search.constraints[j].attribute, key) for j, key in assignment.items()
                 if search.constraints[j].entry is gc.entry]
        out: dict[str, set] = {}
        for sl in search.cluster.allocator.inventory.slices:
            for dev in sl.devices:
                key = search.value_key(lookup_attribute(dev, gc.attribute))
                if key is None or search.taken_before(sl, dev):
                    continue
                if any(search.value_key(lookup_attribute(dev, attr)) != want for attr, want in fixed):
                    continue
                # "": a device several nodes may reach (node selectors are not read: an upper bound)
                out.setdefault(sl.node_name or dev.node_name or "", set()).add(key)
        return out

    def nodes_of(self, member) -> frozenset:
        spec = member.pod.spec
        fingerprint = json.dumps([spec.get(k) for k in ("nodeName", "nodeSelector", "affinity",
                                                         "tolerations")], sort_keys=True, default=str)
        found = self._fits.get(fingerprint)
        if found is None:
            cluster = self.search.cluster
            only = cluster.options.only_node
            nodes = [n for n in cluster.nodes if not only or n.name == only]
            found = self._fits[fingerprint] = frozenset(n.name for n in nodes if pod_fits_node(spec, n) is None)
        return found

    def of(self, i: int, member) -> frozenset:
        nodes = self.nodes_of(member)
        key = (i, nodes)
        found = self._reach.get(key)
        if found is None:
            by_node = self.by_node[i]
            values = set(by_node.get("", ()))   # devices several nodes can reach
            for name in nodes:
                values |= by_node.get(name, set())
            found = self._reach[key] = frozenset(values)
        return found


class Backtracking:
    """Depth-first search over the members' alternatives, through the cluster's journal."""

    use_bound = True   # the values-available bound (tests compare with it off)

    def __init__(self, search, assignment: dict, target: int, active) -> None:
        self.search = search
        self.cluster = search.cluster
        self.members = search.members
        self.target = target                  # members to place
        self.active = active                  # ActiveConstraints: used values, forbidden set
        self.reach = search.reachable(assignment)
        self.per_pod = {i: search.devices_per_claim(search.constraints[i].entry) for i in search.distinct}
        self.frames: list[Frame] = []
        self.outcome = Outcome()
        self.greedy = True    # still on the first descent: the scheduler's picks in member order
        # Constraint -> per member: whether it has a claim from the constraint's entry at all.
        self.users = {i: [search.uses_entry(m, search.constraints[i]) for m in self.members]
                      for i in search.distinct}
        self._suffix_union = self._suffix_unions()
        self._sets = self._reach_sets()

    def _suffix_unions(self) -> dict[int, list[frozenset]]:
        """Constraint -> for each k, the values some member k.. can reach."""
        out = {}
        for i in self.search.distinct:
            unions, acc = [frozenset()] * (len(self.members) + 1), frozenset()
            for k in range(len(self.members) - 1, -1, -1):
                if self.users[i][k]:
                    acc = acc | self.reach.of(i, self.members[k])
                unions[k] = acc
            out[i] = unions
        return out

    def _reach_sets(self) -> dict[int, tuple[list, list, list]]:
        """Constraint -> (the distinct reachable-value sets, each member's set, for each set the
        sets inside it): pods pinned to a few nodes are counted together against those nodes."""
        out = {}
        for i in self.search.distinct:
            sets: list[frozenset] = []
            of_member = []
            for m in self.members:
                values = self.reach.of(i, m)
                if values not in sets:
                    sets.append(values)
                of_member.append(sets.index(values))
            inside = [[b for b, other in enumerate(sets) if other <= values] for values in sets]
            out[i] = (sets, of_member, inside)
        return out

    # -- the bound --------------------------------------------------------------------------
    def bound(self, k: int, placed: int) -> BoundVerdict | None:
        """Whether members k.. can still bring the placed count to the target (None: maybe)."""
        need = self.target - placed
        if need <= 0 or not self.use_bound:
            return None
        for i in self.search.distinct:
            per_pod = self.per_pod[i]
            if per_pod:
                verdict = self._bound_of(i, k, need, per_pod)
                if verdict is not None:
                    return verdict
        return None

    def _bound_of(self, i: int, k: int, need: int, per_pod: int) -> BoundVerdict | None:
        used = self.active.used.get(i, set())
        index = [j for j in range(k, len(self.members)) if self.users[i][j]]
        need -= len(self.members) - k - len(index)   # members without a claim from the entry
        if need <= 0:
            return None
        rest = [self.members[j] for j in index]
        free = [self._free(self.reach.of(i, m), used) for m in rest]
        remaining = len(rest)
        union = self._free(self._suffix_union[i][k], used)
        if union < need * per_pod:
            return BoundVerdict(i, "union", need * per_pod, union, need, remaining, per_pod,
                                possible=union // per_pod)
        short = tuple((m, n) for m, n in zip(rest, free, strict=False) if n < per_pod)
        if remaining - len(short) < need:
            return BoundVerdict(i, "pods", per_pod, 0, need, remaining, per_pod, short,
                                remaining - len(short))
        # Hall's condition, for the pods whose nodes lie inside another pod's: together they
        # cannot take more values than are free there.
        sets, of_member, inside = self._sets[i]
        for a in sorted({of_member[j] for j in index}):
            within = [n for n, j in enumerate(index) if of_member[j] in inside[a]]
            available = self._free(sets[a], used)
            possible = remaining - len(within) + min(len(within), available // per_pod)
            if possible < need:
                return BoundVerdict(i, "group", len(within) * per_pod, available, need, remaining, per_pod,
                                    tuple((rest[n], free[n]) for n in within), possible)
        return None

    @staticmethod
    def _free(values: frozenset, used: set) -> int:
        return len(values) - sum(1 for v in used if v in values)

    # -- the search ---------------------------------------------------------------------------
    def run(self) -> Outcome:
        outcome, journal = self.outcome, self.cluster.journal
        verdict = self.bound(0, 0)
        if verdict is not None:
            outcome.bound, outcome.pruned = verdict, 1
            return outcome
        journal.begin()   # everything the search does is undone at the end (the caller replays)
        try:
            self._search()
        finally:
            while self.frames:
                self._undo(self.frames.pop())
            journal.rollback()
            self.cluster.touch_shared()
        return outcome

    def _search(self) -> None:
        outcome, n = self.outcome, len(self.members)
        self.frames.append(self._frame(0))
        while self.frames:
            if self.search.timed_out():
                outcome.timed_out = True
                return
            frame = self.frames[-1]
            if frame.open:
                outcome.undone += frame.placed
                self._undo(frame)
                self.greedy = False   # from here on, not the scheduler's own order
            if not self._next(frame):
                self.frames.pop()
                continue
            placed = sum(1 for f in self.frames if f.placed)
            outcome.placed = max(outcome.placed, placed)
            depth = len(self.frames)
            if depth == n:
                if placed >= self.target:
                    outcome.plan, outcome.placed = [f.current for f in self.frames], placed
                    return
                continue
            verdict = self.bound(depth, placed)
            if verdict is not None:
                outcome.pruned += 1
                if outcome.cut is None:
                    outcome.cut = (tuple(f.member for f in self.frames if f.placed), verdict)
                continue
            self.frames.append(self._frame(depth))

    def _frame(self, k: int) -> Frame:
        member = self.members[k]
        return Frame(member, self.search.snapshot(member))

    def _skips_left(self) -> int:
        """How many more members may be left pending (the frame being tried counts as one)."""
        skipped = sum(1 for f in self.frames if f.open and not f.placed)
        return len(self.members) - self.target - skipped

    def _next(self, frame: Frame) -> bool:
        """Put the frame's next alternative in force; False when none is left."""
        while frame.pending:
            forbidden = frame.pending.pop()
            if forbidden in frame.seen:
                continue
            frame.seen.add(forbidden)
            self.outcome.steps += 1
            self._schedule(frame, forbidden)
            member = frame.member
            if member.status == SCHEDULED:
                placement = (member.node, tuple(sorted((r.driver, r.pool, r.device) for ref in member.claims
                                                       if ref.claim is not None and ref.claim.allocation
                                                       for r in ref.claim.allocation.devices)))
                values = self.search.member_values(member)
                # Its alternatives: each also avoids one of its values (pushed even for a
                # placement explored before: the sets differ, and each leads further).
                children = [forbidden | {(i, key)} for i, keys in sorted(values.items()) for key in keys]
                frame.pending.extend(c for c in reversed(children) if c not in frame.seen)
                if placement in frame.placements:
                    self._undo(frame)
                    continue
                frame.placements.add(placement)
                frame.placed, frame.values = True, values
                for i, keys in values.items():
                    self.active.used.setdefault(i, set()).update(keys)
                return True
            if self.greedy and not self.outcome.failure:
                self.outcome.failure = self.search.first_error(member)
            if not forbidden and self._skips_left() >= 0:
                return True   # left pending, as the gang cycle leaves a member that does not fit
            self._undo(frame)
        return False

    def _schedule(self, frame: Frame, forbidden: frozenset) -> None:
        self.cluster.journal.begin()
        frame.open, frame.current, frame.placed = True, forbidden, False
        active = self.active
        active.forbidden = forbidden
        self.cluster.active_group_constraint = active
        try:
            self.search.schedule_pod(frame.member)
        finally:
            self.cluster.active_group_constraint = None
            active.forbidden = frozenset()

    def _undo(self, frame: Frame) -> None:
        if not frame.open:
            return
        self.cluster.journal.rollback()
        self.cluster.touch_shared()   # verdicts cached during the attempt saw its state
        frame.member.__dict__.update(self.search.snapshot_copy(frame.snapshot))
        for i, keys in frame.values.items():
            self.active.used.get(i, set()).difference_update(keys)
        frame.open, frame.placed, frame.values = False, False, {}

