"""Device compatibility groups (Kubernetes 1.37, KEP-5963, gate DRADeviceCompatibilityGroups).

`consumesCounters[].compatibilityGroups` restricts which devices may be allocated together on one
counter set (docs/spec/allocator.md#compatibility-groups; released API doc; upstream's
`structured/internal/*/compatibility_groups.go`):

* gate on: per counter set, a candidate is admitted iff no device on that set is allocated or
  picked yet; or the candidate and every member have no groups; or the candidate and every member
  have groups and the running intersection of the members' groups meets the candidate's. The
  intersection narrows as devices are picked and is restored when the search backtracks. Members
  that are already allocated are read from the pool's current slices. Different counter sets are
  never compared.
* gate off: a slice in which some device has a non-empty list is ignored when pools are gathered
  (`ignored_slice`), so its pool is incomplete and none of the pool's devices is allocatable,
  whatever is allocated already.

"No groups" = unset, null or an empty list.
"""

from __future__ import annotations

from dractl.api.resource import ResourceSlice

# The state of one counter set: (members, kind, intersection). kind: "none" = every member has no
# groups, "groups" = every member has groups (intersection = their common groups), "mixed" = the
# allocated state already mixes both (possible only through objects written without the gate):
# nothing more is admitted on that set.
_EMPTY_SET_STATE = (0, "", frozenset())


def ignored_slice(sl: ResourceSlice) -> bool:
    """With the gate off: the slice declares compatibility groups somewhere (upstream's
    `sliceUsesCompatibilityGroups`: only a non-empty list counts)."""
    return any(cc.compatibility_groups for dev in sl.devices for cc in dev.consumes_counters)


def _joined(state: tuple, groups: tuple) -> tuple:
    members, kind, common = state
    mine = frozenset(groups)
    if members == 0:
        return (1, "groups" if mine else "none", mine)
    if kind == "mixed" or (kind == "groups") != bool(mine):
        return (members + 1, "mixed", frozenset())
    return (members + 1, kind, common & mine if mine else common)


def _admits(state: tuple, groups: tuple) -> bool:
    members, kind, common = state
    if members == 0:
        return True
    if not groups:
        return kind == "none"
    return kind == "groups" and not common.isdisjoint(groups)


class GroupBook:
    """The compatibility-group state of one allocation attempt, per (pool, counter set)."""

    __slots__ = ("state", "sets", "_pools")

    def __init__(self, state):
        self.state = state                       # the AllocatedState
        self.sets: dict[tuple, tuple] = {}       # (pool id, counter set) -> set state
        self._pools: set = set()                 # pool ids whose allocated members were read

    def _baseline(self, pool) -> None:
        if pool.id in self._pools:
            return
        self._pools.add(pool.id)
        counts = self.state.counts_for_counters
        for dev in pool.counter_consumers():
            if not counts(dev.id):
                continue
            for cc in dev.consumes_counters:
                key = (pool.id, cc.counter_set)
                self.sets[key] = _joined(self.sets.get(key, _EMPTY_SET_STATE), cc.compatibility_groups)

    def admits_alone(self, cand) -> bool:
        """Against the allocated state only (for explanations)."""
        book = GroupBook(self.state)
        return book.take(cand) is not None

    def take(self, cand):
        """Admit `cand` on every counter set it consumes from: returns the undo token, or None
        (nothing changed) when some set rejects it."""
        pool = cand.pool
        self._baseline(pool)
        sets = self.sets
        entries = cand.device.consumes_counters
        for cc in entries:
            if not _admits(sets.get((pool.id, cc.counter_set), _EMPTY_SET_STATE), cc.compatibility_groups):
                return None
        token = []
        for cc in entries:
            key = (pool.id, cc.counter_set)
            before = sets.get(key, _EMPTY_SET_STATE)
            token.append((key, before))
            sets[key] = _joined(before, cc.compatibility_groups)
        return token

    def restore(self, token) -> None:
        """Undo a `take` (last in, first out, as the search backtracks)."""
        sets = self.sets
        for key, before in reversed(token):
            sets[key] = before
