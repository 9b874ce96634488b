"""Every memo and shortcut of the dry run, in one place (dractl's own; kube-scheduler has none of
them, and each gives exactly the plan of computing everything):

* failure reuse: a pod that would be tried on all nodes with the same key as the last pod that
  fitted nowhere, with no node changed since, fails alike (a full cluster: every further pod
  with the same template);
* verdict cache: a node's Filter verdict for a key, until that node (or a shared pool) changes;
* first-fit frontier: with the "first" node order and nothing to score, the nodes before the
  first one not known to fail are skipped (their verdicts are cached);
* scan by usage: when the only score depends on the node alone (least-/most-allocated), nodes
  are tried best first and the first feasible one is the choice;
* early stop at the best possible score: when every scoring plugin knows the highest score a
  node could get, the scan stops at the first node reaching it;
* explanations kept per node, key and node state (the diagnostic search is the costly part of
  an unschedulable pod).

The key of a pod is built from the pod fields the enabled plugins declare (Plugin.pod_fields)
plus each plugin's cycle_key: a plugin that reads a new field declares it and the caches follow.
`Options.shortcuts = False` (or DRACTL_NO_SHORTCUTS=1 in the environment) turns them all off.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections import Counter
from collections.abc import Mapping
from typing import Any, Iterable

# Explanations kept for reuse: bounded, cleared when full (stale node versions).
_EXPLAINED_CACHE_MAX = 20_000


def shortcuts_wanted(option: bool) -> bool:
    return option and os.environ.get("DRACTL_NO_SHORTCUTS", "") not in ("1", "true", "yes")


class ScanPlan:
    """Which candidate indexes to try, in which order, and when to stop."""

    __slots__ = ("order", "start", "first_fit", "bound", "use_frontier")

    def __init__(self, order: Iterable[int], start: int = 0, use_frontier: bool = False,
                 first_fit: bool = True, bound: tuple | None = None) -> None:
        self.order = order
        self.start = start                # nodes before it are known (cached) to fail
        self.use_frontier = use_frontier
        self.first_fit = first_fit        # the first feasible node is the choice
        self.bound = bound                # stop at the first node whose score tuple equals this


class Shortcuts:
    def __init__(self, enabled: bool, node_index: Mapping[str, int]) -> None:
        self.enabled = enabled
        self.node_index = node_index
        self.stats: Counter = Counter()       # shortcut name -> times taken (for tests)
        self.stamp = 0                        # bumped whenever any node's state changes
        self.node_version: Counter = Counter()
        self.shared_version = 0
        self._json: dict[int, str] = {}
        self._plain: tuple = ()
        self._each: tuple = ()
        self._meta: tuple = ()
        # key -> (node name, verdict) of the nodes before the frontier, in inventory order. Only
        # ever appended to, or replaced by a shorter copy: pods' NodeVerdicts share it.
        self._frontier: dict[tuple, list] = {}
        self._verdicts: dict[tuple, tuple] = {}
        self._explained: dict[tuple, tuple] = {}
        self._last_failure: dict[tuple, tuple] = {}

    # -- keys ----------------------------------------------------------------------------------
    def declare(self, fields: tuple[str, ...]) -> None:
        """The pod fields the enabled plugins read: "spec.X", "spec.X[].Y" (Y of every item of
        the list spec.X), "metadata.labels" or "metadata.X"."""
        plain, each, meta = [], {}, []
        for field in fields:
            head, _, rest = field.partition(".")
            name, per_item, sub = rest.partition("[].")
            if head == "spec" and per_item:
                each.setdefault(name, []).append(sub)
            elif head == "spec":
                plain.append(name)
            elif head == "metadata":
                meta.append(rest)
            else:
                raise ValueError(f"pod field {field!r}: expected spec.X, spec.X[].Y or metadata.X")
        self._plain, self._meta = tuple(plain), tuple(meta)
        self._each = tuple((name, tuple(subs)) for name, subs in each.items())

    def key(self, pod, cycle_keys: list) -> tuple | None:
        """The pod's declared fields (their repr: equal text means equal plain YAML data) and
        the plugins' cycle keys."""
        if not self.enabled:
            return None
        get = pod.spec.get
        parts: list = [get(name) for name in self._plain]
        for name, subs in self._each:
            items = get(name)
            if isinstance(items, list):
                items = [[item.get(s) for s in subs] if isinstance(item, dict) else item for item in items]
            parts.append(items)
        for name in self._meta:
            parts.append(pod.labels if name == "labels" else (pod.manifest.get("metadata") or {}).get(name))
        encode = self._encode
        return (repr(parts), tuple([None if k is None else tuple([encode(v) for v in k])
                                    for k in cycle_keys]))

    def _encode(self, value: Any) -> Any:
        """A hashable stand-in for one item of a cycle key. Dicts and lists (claim specs) become
        their JSON text, kept by object identity: specs are read-only and live as long as the
        run, and claims from one template share the template's."""
        if isinstance(value, (dict, list)):
            text = self._json.get(id(value))
            if text is None:
                text = self._json[id(value)] = json.dumps(value, sort_keys=True, default=str)
            return text
        return value

    # -- state changes -------------------------------------------------------------------------
    def node_changed(self, node_name: str) -> None:
        """The node's state changed: its cached verdicts are stale."""
        self.stamp += 1
        self.node_version[node_name] += 1
        index = self.node_index.get(node_name)
        if index is not None and self._frontier:
            frontier = self._frontier
            for key, prefix in frontier.items():
                if len(prefix) > index:
                    frontier[key] = prefix[:index]

    def shared_changed(self) -> None:
        self.stamp += 1
        self.shared_version += 1
        self._frontier.clear()

    # -- the node scan -------------------------------------------------------------------------
    def plan_scan(self, state, candidates: list, scorers: list, all_nodes: bool) -> ScanPlan:
        n = len(candidates)
        if not scorers:
            if not (self.enabled and all_nodes):
                return ScanPlan(range(n))
            start = len(self._frontier.get(state.key) or ())
            if start:
                self.stats["frontier"] += 1
            return ScanPlan(range(start, n), start, use_frontier=True)
        if not self.enabled:
            return ScanPlan(range(n), first_fit=False)
        if len(scorers) == 1:
            order = scorers[0].scan_order(state, candidates)
            if order is not None:
                self.stats["scan_by_usage"] += 1
                return ScanPlan(order)
        bounds = [p.score_bound(state) for p in scorers]
        bound = None if None in bounds else tuple(bounds)
        if bound is not None:
            self.stats["score_bound"] += 1
        return ScanPlan(range(n), first_fit=False, bound=bound)

    def reported(self, state, statuses: dict, chosen, candidates: list, scorers: list,
                 score_of) -> dict:
        """The verdicts reported for a scheduled pod: the nodes the scan tried before its choice.
        With the shortcuts on, the scan stops at the choice when the ranking allows (scan by
        usage, the best possible score reached); computing everything reports the same nodes."""
        if self.enabled or not scorers:
            return statuses  # first fit stops at the choice in both modes
        rank = None
        if len(scorers) == 1:
            order = scorers[0].scan_order(state, candidates)
            if order is not None:
                rank = {candidates[i].name: r for r, i in enumerate(order)}
        if rank is None:
            bounds = [p.score_bound(state) for p in scorers]
            if None in bounds or score_of(chosen) != tuple(bounds):
                return statuses
            rank = self.node_index
        limit = rank[chosen.name]
        return {name: s for name, s in statuses.items() if rank[name] < limit}

    def set_frontier(self, key: tuple, scan: ScanPlan, frontier: int, candidates: list,
                     statuses: dict) -> None:
        """The nodes [scan.start, frontier) failed in this scan: the frontier moves past them."""
        prefix = self._frontier.setdefault(key, [])
        for node in candidates[scan.start:frontier]:
            prefix.append((node.name, statuses[node.name]))

    def cached(self, node_name: str, key: tuple | None):
        hit = self._verdicts.get((node_name, key))  # key None: never stored
        if hit is not None and hit[0] == self.node_version[node_name] and hit[1] == self.shared_version:
            return hit[2]
        return None

    def remember(self, node_name: str, key: tuple | None, status) -> None:
        if key is not None:
            self._verdicts[(node_name, key)] = (self.node_version[node_name], self.shared_version,
                                                status)

    def skipped(self, key: tuple, scan: ScanPlan) -> list:
        """(node name, verdict) of the nodes the frontier skipped (a shared list: read the first
        scan.start entries only)."""
        return self._frontier[key] if scan.start else []

    # -- failure reuse -------------------------------------------------------------------------
    def repeat_failure(self, key: tuple | None, result, pending_models: list) -> bool:
        """Fill `result` from the last pod with this key that fitted nowhere, if nothing changed."""
        last = self._last_failure.get(key) if key is not None else None
        if last is None or last[0] != self.stamp:
            return False
        self.stats["repeat_failure"] += 1
        _, failures, reason, refs, explanations, devices = last
        rename = {old: model.ref for old, model in zip(refs, pending_models, strict=False) if old != model.ref}
        # Shared with the earlier pod, read-only: per-node reasons and device lines name no claim.
        result.node_failures = failures
        result.node_devices = devices
        result.node_explanations = RenamedLines(explanations, rename)
        result.reasons.append(dataclasses.replace(
            reason, details=tuple(rename_claims(line, rename) for line in reason.details)))
        return True

    def remember_failure(self, key: tuple | None, result, reason, pending_models: list) -> None:
        if key is not None:
            self._last_failure[key] = (self.stamp, result.node_failures, reason,
                                       tuple(m.ref for m in pending_models), result.node_explanations,
                                       result.node_devices)

    # -- explanations --------------------------------------------------------------------------
    def explanation(self, node_name: str, key: tuple | None):
        if key is None:
            return None
        hit = self._explained.get(self._explained_key(node_name, key))
        if hit is not None:
            self.stats["explanation"] += 1
        return hit

    def remember_explanation(self, node_name: str, key: tuple | None, value: tuple) -> None:
        if key is None:
            return
        if len(self._explained) >= _EXPLAINED_CACHE_MAX:
            self._explained.clear()  # stale node versions: start over rather than grow
        self._explained[self._explained_key(node_name, key)] = value

    def _explained_key(self, node_name: str, key: tuple) -> tuple:
        return (node_name, key, self.node_version[node_name], self.shared_version)


def rename_claims(line: str, rename: dict[str, str]) -> str:
    """An explanation line of an earlier pod, with this pod's claim names."""
    for old, new in rename.items():
        line = line.replace(f"claim {old}, ", f"claim {new}, ")
    return line


class NodeVerdicts(Mapping):
    """node name -> reason of a scheduled pod: the first `count` verdicts of a frontier list
    (shared between pods, never changed in that range), then the nodes this pod's scan tried."""

    __slots__ = ("_prefix", "_count", "_rest", "_index")

    def __init__(self, prefix: list, count: int, rest: dict[str, str]):
        self._prefix, self._count, self._rest = prefix, count, rest
        self._index: dict[str, str] | None = None

    def _all(self) -> dict[str, str]:
        if self._index is None:
            self._index = {name: status.reason for name, status in self._prefix[:self._count]}
            self._index.update(self._rest)
        return self._index

    def __getitem__(self, node: str) -> str:
        return self._all()[node]

    def __iter__(self):
        return iter(self._all())

    def __len__(self) -> int:
        return self._count + len(self._rest)


class RenamedLines(Mapping):
    """node name -> explanation lines of an earlier pod, renamed on access (read-only)."""

    def __init__(self, lines: Mapping[str, list[str]], rename: dict[str, str]):
        self._lines, self._rename = lines, rename

    def __getitem__(self, node: str) -> list[str]:
        return [rename_claims(line, self._rename) for line in self._lines[node]]

    def __iter__(self):
        return iter(self._lines)

    def __len__(self) -> int:
        return len(self._lines)
