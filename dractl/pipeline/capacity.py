"""`dractl capacity`: check the inputs, run the dry run (the given workload, if any), then report
what is left per pool and node; optionally how many more replicas of one pod fit (`--fit`), on
the cluster as it is or with nodes added like an existing one (`--add-nodes N --like NODE`), and
how many such nodes M replicas need (`--need M`).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from dractl.capacity.document import Filters, build_state, node_views, summary
from dractl.capacity.fit import (
    DEFAULT_MAX,
    FitOutcome,
    count_declared,
    fit_replicas,
    gang_outcome,
    outcome_document,
    placed_pods,
)
from dractl.capacity.whatif import WhatIfError, add_nodes
from dractl.models import CONTROLLER_KINDS, model_of
from dractl.pipeline.errors import UsageError
from dractl.pipeline.result import Result
from dractl.pipeline.run import CheckOptions, DryRunOptions, check, simulation_options

CAPACITY = "capacity"
NEED_MAX_NODES = 10_000   # --need gives up beyond this many added nodes


@dataclass
class CapacityOptions:
    filters: Filters = field(default_factory=Filters)
    fit: str | None = None               # a pod or controller (name, kind/name, ns/name) or a file
    max_replicas: int = DEFAULT_MAX
    add_nodes: int = 0
    like: str | None = None
    need: int | None = None
    partition_attribute: str | None = None   # KEP-5677 spec.defaultPartitionTypeAttribute
    what_if: str | None = None           # a file of DeviceTaintRules (dractl's what-if)


def capacity(paths: list[str], options: CheckOptions, dry: DryRunOptions, cap: CapacityOptions) -> Result:
    from dractl.pipeline.sources import resolve_inventory

    aliases: dict[str, str] = {}
    inventory = resolve_inventory(list(dry.inventory), aliases)
    fit_file = cap.fit if cap.fit and os.path.exists(cap.fit) else None
    extra = [fit_file] if fit_file and fit_file not in paths else []
    if cap.what_if:
        _check_what_if_options(cap, paths)
        extra.append(cap.what_if)
    result = check(inventory + list(paths) + extra, options, aliases=aliases)
    result.command = CAPACITY
    validated = result.validated
    documents = list(validated.documents)
    if cap.what_if:
        return _taint_what_if(result, documents, options, dry, cap)
    target = _target(documents, cap.fit, fit_file) if cap.fit else None
    run = _Run(documents, validated.invalid, options.gates, dry, target)
    if (cap.add_nodes or cap.need is not None) and not cap.like:
        raise UsageError("--add-nodes and --need need --like NODE")
    if cap.need is not None and target is None:
        raise UsageError("--need M needs --fit (the pod whose M replicas are wanted)")
    need = _need(run, cap) if cap.need is not None else None
    outcome = run.execute(cap.add_nodes, cap.like, cap.max_replicas, state_of=_state_builder(documents, options, cap))
    result.plan = outcome.plan
    result.capacity_state = outcome.after if outcome.after is not None else outcome.before
    result.capacity = _document(outcome, cap, need)
    return result


def _check_what_if_options(cap: CapacityOptions, paths: list[str]) -> None:
    if cap.fit or cap.add_nodes or cap.need is not None:
        raise UsageError("--what-if answers for the cluster as it is: give --fit, --add-nodes and --need "
                         "in a run of their own")
    if not os.path.isfile(cap.what_if):
        raise UsageError(f"--what-if {cap.what_if}: no such file (a file of DeviceTaintRules)")
    real = os.path.realpath(cap.what_if)
    if any(os.path.realpath(p) == real for p in paths):
        raise UsageError(f"--what-if {cap.what_if}: the file is also an input; give it only to --what-if")


def _taint_what_if(result: Result, documents, options: CheckOptions, dry: DryRunOptions, cap: CapacityOptions):
    """The inputs dry-run without and with the rules of --what-if's file, compared
    (dractl.capacity.taintrule)."""
    from dractl.capacity.taintrule import analyse

    real = os.path.realpath(cap.what_if)
    rules = [d for d in documents if d.file and os.path.realpath(d.file) == real]
    others = sorted({f"{d.kind} {d.name}" for d in rules if d.kind != "DeviceTaintRule"})
    if others or not rules:
        raise UsageError(f"--what-if {cap.what_if}: " + (f"holds {', '.join(others[:5])}; only DeviceTaintRules "
                         "are read" if others else "holds no DeviceTaintRule"))
    invalid = result.validated.invalid
    rule_ids = {id(d) for d in rules}
    base_docs = [d for d in documents if id(d) not in rule_ids]
    state_of = _state_builder(documents, options, cap)
    base = _Run(base_docs, invalid, options.gates, dry, None).execute(0, None, 0, state_of=state_of)
    ruled = _Run(documents, invalid, options.gates, dry, None).execute(0, None, 0, state_of=state_of)
    result.plan, result.capacity_state = base.plan, base.before
    result.capacity = _document(base, cap, None)
    inputs = [_rule_input(d, invalid, options.gates) for d in rules]
    what_if = analyse(inputs, base.plan, ruled.plan, options.gates, _features(options.gates))
    what_if["after"] = _state_document(ruled.before)
    result.capacity["whatIf"] = what_if
    return result


def _rule_input(doc, invalid: set, gates):
    from dractl.api.resource import DeviceTaintRule
    from dractl.capacity.taintrule import RuleInput

    selector = (doc.data.get("spec") or {}).get("deviceSelector") if isinstance(doc.data.get("spec"), dict) else None
    class_fields = isinstance(selector, dict) and bool(selector.get("deviceClassName") or selector.get("selectors"))
    return RuleInput(DeviceTaintRule.from_dict(model_of(doc).v1), doc.file, doc.line,
                     invalid=id(doc) in invalid, v1alpha3_class_fields=class_fields)


def _state_builder(documents, options: CheckOptions, cap: CapacityOptions):
    """state_of(plan, earlier=None): the capacity state of a plan; `earlier`, a state of the same
    run, lends the classes' device sets."""
    classes, features, engine = _classes(documents), _features(options.gates), _engine(options.gates)

    def state_of(plan, earlier=None):
        return build_state(plan, classes, features, engine, cap.filters, cap.partition_attribute,
                           class_members=earlier.class_members if earlier is not None else None)

    return state_of


def state_for_plan(result: Result):
    """The capacity state of an `allocate` result's plan (for its -o html picture)."""
    gates = result.gates
    return build_state(result.plan, _classes(result.validated.documents), _features(gates), _engine(gates))


@dataclass
class _Outcome:
    """One run: the plan, the capacity state after the inputs (`before` the fit), after the
    fitted replicas (None without --fit), the fit's answer and the input pods' placement."""

    plan: object
    before: object = None
    after: object = None
    fit: FitOutcome | None = None
    pods: dict = field(default_factory=dict)


class _Run:
    """One input set, run fresh for every number of added nodes."""

    def __init__(self, documents, invalid, gates, dry: DryRunOptions, target):
        self.documents, self.invalid, self.gates, self.dry, self.target = documents, invalid, gates, dry, target

    def execute(self, added: int, like: str | None, limit: int, state_of=None) -> _Outcome:
        """The inputs placed (the fitted workload's own pods among them), then, with --fit,
        replicas until one does not fit; `limit` bounds the replicas beyond the declared pods.
        state_of(plan): the capacity state, taken before and after the replicas."""
        from dractl.downward import resolve_plan
        from dractl.simulate.scheduler import Simulation

        docs, target = self.documents, self.target
        if added:
            try:
                docs = add_nodes(docs, like, added)
            except WhatIfError as exc:
                raise UsageError(str(exc)) from None
        simulation = Simulation(docs, self.gates, simulation_options(self.dry), self.invalid)
        plan = simulation.run()
        plan.slices = simulation.allocator.inventory.slices
        out = _Outcome(plan, pods=placed_pods(plan.pods))
        if state_of is not None:
            out.before = state_of(plan)
        if target is not None:
            declared = [p for p in plan.pods if p.pod.source is target.document]
            if _is_gang_member(target, self.documents, self.gates):
                out.fit = gang_outcome(declared, target.label)
            else:
                out.fit = fit_replicas(simulation, target.template(), target.document.name, target.label, limit)
                count_declared(out.fit, declared)
            if state_of is not None:
                out.after = state_of(plan, out.before)
        resolve_plan(plan, plan.slices, lenient=self.dry.lenient_env)
        return out


@dataclass
class _Target:
    document: object
    label: str

    def template(self):
        from dractl.simulate.pods import expand_controller, pod_from_document

        doc = self.document
        if doc.kind == "Pod":
            return pod_from_document(doc)
        pods = expand_controller(doc, budget=10**9)
        if not pods:
            raise UsageError(f"--fit {self.label}: it creates no pods")
        return pods[0]


def _target(documents, wanted: str, fit_file: str | None) -> _Target:
    makers = [d for d in documents if d.kind == "Pod" or d.kind in CONTROLLER_KINDS]
    if fit_file is not None:
        real = os.path.realpath(fit_file)
        chosen = [d for d in makers if d.file and os.path.realpath(d.file) == real]
    else:
        chosen = [d for d in makers if wanted in (d.name, f"{d.kind}/{d.name}",
                                                  f"{d.namespace or 'default'}/{d.name}")]
    if not chosen:
        names = ", ".join(sorted({f"{d.kind}/{d.name}" for d in makers})[:10]) or "none"
        raise UsageError(f"--fit {wanted}: no Pod or pod template of that name among the inputs "
                         f"(pods and controllers: {names})")
    doc = chosen[0]
    if doc.kind == "DaemonSet":
        raise UsageError(f"--fit {wanted}: a DaemonSet runs one pod per node; give a Pod or another controller")
    return _Target(doc, f"{doc.kind}/{doc.namespace or 'default'}/{doc.name}")


def _is_gang_member(target: _Target, documents, gates) -> bool:
    if not gates.enabled("GenericWorkload"):
        return False
    spec = target.template().spec
    return bool(spec.get("schedulingGroup") or spec.get("workloadRef"))


def _need(run: _Run, cap: CapacityOptions) -> dict:
    """The fewest nodes like --like for --need replicas (each count verified by a full run)."""
    wanted = cap.need
    known: dict[int, int] = {}

    def fits(nodes: int) -> int:
        if nodes not in known:
            known[nodes] = run.execute(nodes, cap.like, wanted).fit.total
        return known[nodes]

    base = fits(0)
    if base >= wanted:
        return {"replicas": wanted, "nodes": 0}
    per_node = fits(1) - base
    if per_node <= 0:
        return {"replicas": wanted, "nodes": None, "tried": 1}
    nodes = min(NEED_MAX_NODES, max(1, math.ceil((wanted - base) / per_node)))
    while fits(nodes) < wanted:           # shared devices may make later nodes worth less
        if nodes >= NEED_MAX_NODES:
            return {"replicas": wanted, "nodes": None, "tried": nodes}
        nodes = min(NEED_MAX_NODES, nodes + max(1, math.ceil((wanted - fits(nodes)) / per_node)))
    while nodes > 1 and fits(nodes - 1) >= wanted:
        nodes -= 1
    return {"replicas": wanted, "nodes": nodes}


def _classes(documents):
    from dractl.api.resource import DeviceClass, ModelError

    out = []
    for d in documents:
        if d.kind == "DeviceClass" and d.group == "resource.k8s.io":
            try:
                out.append(DeviceClass.from_dict(model_of(d).v1))
            except ModelError:
                continue
    return out


def _features(gates):
    from dractl.allocator.features import AllocatorFeatures

    return AllocatorFeatures.from_gates(gates)


def _engine(gates):
    from dractl.cel.engine import SelectorEngine

    return SelectorEngine(gates)


def _state_document(state) -> dict:
    return {"pools": state.statuses, "nodes": node_views(state), "summary": summary(state)}


def _document(outcome: _Outcome, cap: CapacityOptions, need: dict | None) -> dict:
    doc = _state_document(outcome.before)
    doc["summary"].update(outcome.pods)
    fit = outcome.fit
    if fit is not None:
        doc["fit"] = outcome_document(fit)
        doc["fit"]["after"] = _state_document(outcome.after)
        if cap.add_nodes:
            doc["fit"]["addedNodes"] = cap.add_nodes
        if cap.like:
            doc["fit"]["like"] = cap.like
        if need is not None:
            doc["fit"]["need"] = need
    return doc
