"""The dry run: kube-scheduler's scheduling cycle over the whole input, one pod at a time.

For each pod, in input order: PreFilter (the pod's claims, created from templates by the simulated
resourceclaim controller, and the checks no node can change), then per candidate node the Filter
plugins (node filters, resources, the structured allocator), then Score among the passing nodes,
then Reserve and PreBind on the chosen one, inside a journal transaction that is rolled back if a
phase fails. Later pods see the committed devices as in use (the scheduler's assume cache).
docs/spec/api-and-scheduling.md#scheduler; docs/architecture.md, "Scheduler framework".

This module keeps only the cycle; the plugins (plugins/, registered in registry.py) decide, and
every memo and shortcut lives in shortcuts.py.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Iterable

from dractl.api.versions import FeatureGates
from dractl.extensions import PODGROUP_CONSTRAINTS
from dractl.load.document import Document
from dractl.simulate import reasons as R
from dractl.simulate.explain import validation_details
from dractl.simulate.fiterror import fit_error
from dractl.simulate.framework import Code, CycleState, Framework, unresolvable
from dractl.simulate.gangs import not_enqueued, schedule_gang
from dractl.simulate.groupconstraints import prepare_groups, schedule_constrained_group
from dractl.simulate.inventory import build_cluster
from dractl.simulate.nodes import pod_fits_node
from dractl.simulate.plugins.dynamicresources import (
    assumed_resources,
    pending_claims,
    pending_models,
)
from dractl.simulate.pods import (
    MAX_PODS,
    PodInput,
    TooManyPods,
    expand_controller,
    pod_from_document,
)
from dractl.simulate.registry import plugins_for
from dractl.simulate.shortcuts import NodeVerdicts, Shortcuts, shortcuts_wanted
from dractl.simulate.state import INVALID, SCHEDULED, UNSCHEDULABLE, Plan, PodResult, Reason
from dractl.simulate.unreferenced import allocate_unreferenced

NODE_ORDERS = ("first", "least-allocated", "most-allocated")


@dataclass
class Options:
    only_node: str | None = None
    node_order: str = "first"
    timeout: float | None = 10.0          # per node and pod, like the scheduler's filterTimeout
    simulate_controllers: bool = True
    lenient_env: bool = False             # env refs: skip devices lacking the attribute
    # dractl's memos and scan shortcuts (shortcuts.py); False computes everything for every pod
    # (same plan). DRACTL_NO_SHORTCUTS=1 in the environment also turns them off.
    shortcuts: bool = True
    progress: Any = None                  # progress(done, total) as pods are placed (a UI hook)


class Simulation:
    def __init__(self, documents: Iterable[Document], gates: FeatureGates,
                 options: Options | None = None, invalid: set[int] | None = None,
                 plugins=None):
        self.gates = gates
        self.options = options or Options()
        self.invalid = invalid or set()
        self.plan = Plan()
        self.cluster = build_cluster(documents, gates, self.options, self.invalid, self.plan)
        self.shortcuts = Shortcuts(shortcuts_wanted(self.options.shortcuts), self.cluster.node_index)
        self.cluster.shortcuts = self.shortcuts
        self.framework = Framework(self.cluster, plugins if plugins is not None else plugins_for(gates.version))
        self.shortcuts.declare(self.framework.pod_fields)

    @property
    def allocator(self):
        return self.cluster.allocator

    # ------------------------------------------------------------------ run ---------------------
    def run(self) -> Plan:
        if not self.cluster.nodes:
            self.plan.reasons.append(Reason(R.NO_NODES, "no nodes: give Node objects or ResourceSlices "
                                            "with spec.nodeName (e.g. --inventory builtin:example-gpu)"))
        self._expand_pods()
        if self.gates.enabled("GenericWorkload"):
            for result in self.plan.pods:
                group, problem = self.cluster.groups.group_of(result.pod.spec, result.namespace)
                result.group, result.group_problem = group, problem
                if group is not None and result.status != INVALID:
                    group.members.append(result)
        if self.gates.extension(PODGROUP_CONSTRAINTS):
            prepare_groups(self.cluster)
        done: set[int] = set()
        report = self.options.progress
        total = len(self.plan.pods)
        for n, result in enumerate(self.plan.pods):
            if report is not None:
                report(n, total)
            if id(result) in done or result.status == INVALID:
                continue
            waiting = not_enqueued(result)
            if waiting is not None:
                result.reasons.append(waiting)
                continue
            group = result.group
            if group is not None and id(group) in self.cluster.group_constraints:
                schedule_constrained_group(self.cluster, group, self.schedule)  # dractl's extension
                done.update(id(m) for m in group.members)
                continue
            if group is not None and group.policy == "gang":
                schedule_gang(self.cluster, group, self.schedule)
                done.update(id(m) for m in group.members)
                continue
            self.schedule(result)
        if report is not None:
            report(total, total)
        allocate_unreferenced(self.cluster)
        seen: set[int] = set()
        for result in self.plan.pods:
            if result.group is not None and id(result.group) not in seen:
                seen.add(id(result.group))
                self.plan.groups.append(result.group)
        return self.plan

    def _expand_pods(self) -> None:
        budget = MAX_PODS
        for doc in self.cluster.pod_docs:
            try:
                if doc.kind == "Pod":
                    if budget <= 0:
                        raise TooManyPods(1)
                    pods = [pod_from_document(doc)]
                elif doc.kind == "DaemonSet":
                    pods = self._daemonset_pods(doc)
                else:
                    pods = expand_controller(doc, budget=budget)
            except TooManyPods as exc:
                self.plan.reasons.append(Reason(
                    R.TOO_MANY_PODS, f"{doc.kind} {doc.namespace or 'default'}/{doc.name} would create "
                    f"{exc.count} pod(s); a dry run expands at most {MAX_PODS} pods in all "
                    f"({budget} left); its pods are not simulated"))
                continue
            budget -= len(pods)
            for pod in pods:
                result = PodResult(pod)
                self.plan.pods.append(result)
                if id(doc) in self.invalid:
                    result.status = INVALID
                    result.reasons.append(Reason(R.POD_INVALID, f"{doc.kind} {doc.name} has validation "
                                                 "errors; not scheduled",
                                                 details=validation_details(self.cluster, doc)))

    def _daemonset_pods(self, doc: Document) -> list[PodInput]:
        # One pod per node the template may run on (nodeSelector, affinity, taints).
        probe = expand_controller(doc, ["__probe__"])
        if not probe:
            return []
        spec = dict(probe[0].spec)
        spec.pop("affinity", None)
        tmpl = (doc.data.get("spec") or {}).get("template") or {}
        tmpl_spec = tmpl.get("spec") if isinstance(tmpl.get("spec"), dict) else {}
        if tmpl_spec.get("affinity"):
            spec["affinity"] = tmpl_spec["affinity"]
        eligible = [n.name for n in self.cluster.nodes if pod_fits_node(spec, n) is None]
        return expand_controller(doc, eligible)

    # ------------------------------------------------------------------ one pod -----------------
    def schedule(self, result: PodResult) -> None:
        """One scheduling cycle: PreFilter, Filter per candidate, PostFilter or Score, then the
        assume step, Reserve and PreBind on the chosen node."""
        fw, shortcuts = self.framework, self.shortcuts
        state = CycleState(result)
        status, named, restricting = fw.run_pre_filter(state)
        if status is not None:
            return self._pre_filter_failed(state, status)
        candidates = self._candidates(state)
        if not candidates:
            return
        absent = None
        if named is not None:
            candidates, absent = self._named(candidates, named, restricting)
        all_nodes = candidates is self.cluster.nodes
        if shortcuts.enabled:
            state.key = shortcuts.key(state.pod, fw.cycle_keys(state))
            if all_nodes and shortcuts.repeat_failure(state.key, result, pending_models(state)):
                result.status = UNSCHEDULABLE
                return
        scorers = fw.scoring(state)
        error, scan, statuses, feasible = self._filter_nodes(state, candidates, scorers, all_nodes)
        if error is not None:  # a Filter error aborts the attempt (nodes tried so far kept)
            result.node_failures = {name: s.reason for name, s in statuses.items()}
            return _reject(result, _filter_error(error))
        skipped = shortcuts.skipped(state.key, scan)
        if not feasible:
            statuses = {**dict(skipped[:scan.start]), **statuses}
            return self._no_fit(state, candidates, statuses, all_nodes, absent)
        score = lambda node: self._score(state, scorers, node)  # noqa: E731
        chosen = max(feasible, key=score) if scorers else feasible[0]
        statuses = shortcuts.reported(state, statuses, chosen, candidates, scorers, score)
        reasons = {name: s.reason for name, s in statuses.items()}
        if absent is not None:
            reasons.update((name, s.reason) for name, s in absent.items())
        result.node_failures = NodeVerdicts(skipped, scan.start, reasons) if scan.start else reasons
        self._place(state, chosen)

    def _pre_filter_failed(self, state: CycleState, status) -> None:
        """A PreFilter rejection. Upstream's (status.event) become kube-scheduler's FitError with
        the PreFilter message, every node carrying that status for the PostFilter plugins; the
        others are dractl's findings as they are."""
        result = state.result
        if status.report is not None and not status.event:
            return _reject(result, status.report)
        nodes = self._scope()
        if not nodes:
            return
        statuses = {n.name: status for n in nodes}
        post = self.framework.run_post_filter(state, statuses, len(nodes))
        message = fit_error(len(nodes), {}, pre_filter=status.reason, post_filter=post)
        report = status.report or Reason(R.NO_NODE_FITS, "")
        _reject(result, dataclasses.replace(report, message=message))

    def _scope(self) -> list:
        """The nodes a pod is scheduled among: all, or --node's."""
        only = self.options.only_node
        if only:
            node = self.cluster.node_by_name.get(only)
            return [node] if node is not None else []
        return self.cluster.nodes

    def _named(self, candidates: list, named: frozenset, restricting: list) -> tuple[list, dict]:
        """PreFilterResult: only the named nodes are filtered; the others carry the absent-nodes
        status, "node(s) didn't satisfy plugin(s) [<plugins>]" (findNodesThatFitPod)."""
        absent = unresolvable(f"node(s) didn't satisfy plugin(s) [{' '.join(sorted(restricting))}]", "")
        kept = [n for n in candidates if n.name in named]
        return kept, {n.name: absent for n in candidates if n.name not in named}

    def _candidates(self, state: CycleState) -> list | None:
        result, pod, cluster = state.result, state.pod, self.cluster
        node_name = pod.node_name()
        if node_name:
            result.reasons.append(Reason(
                R.NODE_NAME_BYPASS, f"spec.nodeName is set to {node_name}: such pods bypass "
                "kube-scheduler, so nothing would allocate their claims (dractl places the pod on "
                "that node only)" if pending_claims(state) else f"spec.nodeName is set to {node_name}: "
                "placed on that node only", severity="warning"))
            if node_name not in cluster.node_by_name:
                _reject(result, Reason(R.NODE_NOT_FOUND, f"node {node_name} not found"))
                return None
        candidates = cluster.nodes
        only = self.options.only_node
        if only:
            node = cluster.node_by_name.get(only)
            if node is None:
                _reject(result, Reason(R.NODE_NOT_FOUND, f"node {only} (--node) not found"))
                return None
            candidates = [node]
        if not candidates:
            _reject(result, Reason(R.NO_NODES, "0/0 nodes are available: no nodes in the inventory"))
            return None
        return candidates

    def _filter_nodes(self, state: CycleState, candidates: list, scorers: list, all_nodes: bool):
        """(Error status or None, the scan, node name -> rejection for the nodes it tried,
        feasible nodes in scan order)."""
        shortcuts, run_filter = self.shortcuts, self.framework.filter_runner(state)
        key = state.key
        scan = shortcuts.plan_scan(state, candidates, scorers, all_nodes)
        statuses: dict = {}
        feasible: list = []
        frontier = scan.start
        for index in scan.order:
            node = candidates[index]
            status = shortcuts.cached(node.name, key)
            if status is None:
                status = run_filter(node)
                if status is not None:
                    if status.code == Code.ERROR:
                        return status, scan, statuses, feasible
                    shortcuts.remember(node.name, key, status)
            if status is not None:
                statuses[node.name] = status
                if frontier == index:
                    frontier = index + 1
                continue
            feasible.append(node)
            if scan.first_fit:
                break
            if scan.bound is not None and self._score(state, scorers, node) == scan.bound:
                break  # no node can score higher; the first such node wins anyway
        if scan.use_frontier:
            shortcuts.set_frontier(key, scan, frontier, candidates, statuses)
        if not isinstance(scan.order, range) and len(statuses) > 1:  # tried out of inventory order
            order = self.cluster.node_index
            statuses = {name: statuses[name] for name in sorted(statuses, key=lambda n: order.get(n, 0))}
        return None, scan, statuses, feasible

    @staticmethod
    def _score(state: CycleState, scorers: list, node) -> tuple:
        return tuple(p.score(state, node) for p in scorers)

    def _no_fit(self, state: CycleState, candidates: list, statuses: dict, all_nodes: bool,
                absent: dict | None) -> None:
        """kube-scheduler's FitError (fiterror.py) with the PostFilter plugins' message, and
        dractl's explanation lines."""
        result = state.result
        scope = candidates
        if absent:
            statuses = {**statuses, **absent}
            scope = self._scope()
        statuses = {n.name: statuses[n.name] for n in scope if n.name in statuses}
        result.node_failures = {name: s.reason for name, s in statuses.items()}
        total = len(scope)
        post = self.framework.run_post_filter(state, statuses, total)
        self.framework.explain_rejections(state, statuses)
        reason = Reason(R.NO_NODE_FITS, fit_error(total, statuses, post_filter=post),
                        details=tuple(state.explanation))
        _reject(result, reason)
        if all_nodes:
            self.shortcuts.remember_failure(state.key, result, reason, pending_models(state))

    def _place(self, state: CycleState, node) -> None:
        """The assume step, Reserve and PreBind in a transaction: a failing phase undoes
        everything (the journal is dractl's Unreserve, framework.py)."""
        fw, journal, result = self.framework, self.cluster.journal, state.result
        journal.begin()
        self._assume(state, node)
        status = fw.run_reserve(state, node)
        if status is not None:
            status = _wrapped(status, f"running Reserve plugin \"{status.plugin}\"")
        else:
            status = fw.run_pre_bind(state, node)
            if status is not None:
                status = _wrapped(status, f"running PreBind plugin \"{status.plugin}\"")
        if status is not None:
            if journal.rollback():
                self.cluster.touch_shared()
            return _reject(result, status.report)
        journal.set_attrs(result, status=SCHEDULED, node=node.name)  # undone by a gang
        journal.commit()

    def _assume(self, state: CycleState, node) -> None:
        """The scheduler cache's AssumePod before Reserve: the pod's requests (less the extended
        resources DRA serves on the node, plus the devices' node-allocatable amounts), the pod
        count and its host ports count on the node from now on."""
        through_dra, native = assumed_resources(state, node.name)
        charge = state.pod.requests()  # read-only: copied below before any change
        if through_dra or native or "pods" in charge:
            charge = {k: v for k, v in charge.items() if k not in through_dra and k != "pods"}
            for k, v in native.items():
                charge[k] = charge.get(k, 0) + v
        self.cluster.assume_pod(node.name, charge, state.pod.host_ports())


def _filter_error(status) -> Reason:
    """RunFilterPlugins wraps a Filter error: that text is the FailedScheduling message."""
    report = status.report or Reason(R.ALLOCATOR_ERROR, status.reason)
    return dataclasses.replace(report, message=f"running \"{status.plugin}\" filter plugin: {report.message}")


def _wrapped(status, prefix: str):
    """A Reserve or PreBind error as RunReservePluginsReserve and RunPreBindPlugins report it
    (the FailedScheduling message of the failed binding)."""
    if status.report is not None and status.code == Code.ERROR:
        status.report = dataclasses.replace(status.report, message=f"{prefix}: {status.report.message}")
    return status


def _reject(result: PodResult, reason: Reason) -> None:
    result.status = UNSCHEDULABLE
    result.reasons.append(reason)


def simulate(documents: Iterable[Document], gates: FeatureGates, options: Options | None = None,
             invalid: set[int] | None = None) -> Plan:
    """The dry run's plan. Env references (dractl.downward.resolve_plan) are the caller's next
    stage: `plan.slices` holds the slices they resolve against."""
    sim = Simulation(documents, gates, options, invalid)
    plan = sim.run()
    plan.slices = sim.allocator.inventory.slices
    return plan
