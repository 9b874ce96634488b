"""`capacity --what-if RULE.yaml` (dractl's own what-if, not a Kubernetes feature): what a
DeviceTaintRule would do before it is applied, per node: the devices it selects, the allocated
claims and the pods on them, which running pods its NoExecute taint would evict, and which
pending pods the dry run would no longer place where it placed them without the rule.

Two upstream components act on a rule, and they match devices differently:

* scheduling (the ResourceSlice tracker, `staging/src/k8s.io/dynamic-resource-allocation/
  resourceslice/tracker/tracker.go` `applyPatches`): the rule's taint is added to every device
  the selector matches; the allocator then refuses a NoSchedule or NoExecute taint the request
  does not tolerate. A rule without `deviceSelector` matches every device until
  kubernetes/kubernetes#141648 makes it match none, as the API documents (the release table's
  `taint_rule_needs_selector`). `deviceSelector: {}` matches every device in every release.
* eviction (`pkg/controller/devicetainteviction/device_taint_eviction.go`, `ruleMatchesDevice`
  and `claimEvictionTime`): a rule without a selector never matched a device; a pod that is
  scheduled and uses an allocated claim with a matching NoExecute device is deleted unless every
  such taint is tolerated by a toleration with effect NoExecute (a toleration without an effect
  does not count there), after `tolerationSeconds` when given.

The dry run itself is run twice, without and with the rule (dractl.pipeline.capacity); this
module compares the two plans and reads the rule's selection and evictions."""

from __future__ import annotations

from dataclasses import dataclass, field

from dractl.allocator.taints import tolerates
from dractl.api.releases import change, in_force
from dractl.api.resource import (
    TAINT_EFFECT_NO_EXECUTE,
    TAINT_EFFECT_NO_SCHEDULE,
    TAINT_EFFECT_NONE,
    DeviceTaint,
    DeviceTaintRule,
)

SCHEDULED = "Scheduled"
NOT_NODE_LOCAL = "(not node-local)"
_SHOWN_DEVICES = 8


@dataclass
class RuleInput:
    model: DeviceTaintRule
    file: str
    line: int
    invalid: bool = False          # rejected by validation: the with-rule run leaves it out
    v1alpha3_class_fields: bool = False   # 1.34's deviceClassName/selectors were set


@dataclass
class _Node:
    devices: list[str] = field(default_factory=list)
    claims: dict[str, dict] = field(default_factory=dict)
    evicted: list[dict] = field(default_factory=list)
    changed: list[dict] = field(default_factory=list)   # pods placed differently with the rule


def scheduling_selects(rule: DeviceTaintRule, version: str):
    """The tracker's match (see the module text) as f(driver, pool, device) -> bool."""
    selector = rule.selector
    if selector is None:
        every = not in_force("taint_rule_needs_selector", version)
        return lambda driver, pool, device: every
    return _matcher(selector)


def eviction_selects(rule: DeviceTaintRule):
    """The eviction controller's ruleMatchesDevice: no selector, no device."""
    if rule.selector is None:
        return lambda driver, pool, device: False
    return _matcher(rule.selector)


def _matcher(selector):
    def match(driver: str, pool: str, device: str) -> bool:
        return not (selector.driver and selector.driver != driver or selector.pool and selector.pool != pool
                    or selector.device and selector.device != device)
    return match


def selector_note(rule: RuleInput, version: str) -> str:
    """How the release treats the rule's selector, when that is not plain (empty or missing)."""
    selector = rule.model.selector
    if selector is None:
        fix = change("taint_rule_needs_selector")
        picks = "".join(f", cherry-picked to release-{c.release} by {c.pr}" for c in fix.cherry_picks)
        source = f"{fix.upstream} in {fix.since}{picks}"
        if not fix.in_force(version):
            return (f"deviceSelector is missing: Kubernetes {version} taints every device of every driver for "
                    "scheduling (the ResourceSlice tracker treats a missing selector as matching all), while the "
                    "eviction controller matches no device: nothing is evicted, but no device can be allocated "
                    f"without a toleration. Fixed by {source}: the rule then matches no device, as the API "
                    "documents.")
        return (f"deviceSelector is missing: in Kubernetes {version} the rule matches no device, as the API "
                f"documents ({source}); deviceSelector: {{}} selects every device.")
    if not (selector.driver or selector.pool or selector.device):
        return ("deviceSelector is empty: it selects every device of every driver in the cluster (as the API "
                "documents), for scheduling and for eviction.")
    return ""


def effect_note(rule: DeviceTaintRule) -> str:
    effect = rule.taint.effect
    if effect == TAINT_EFFECT_NO_EXECUTE:
        return ("NoExecute: selected devices are not allocated to claims that do not tolerate the taint, and "
                "running pods using such devices are evicted")
    if effect == TAINT_EFFECT_NONE:
        return "None: no effect on scheduling or running pods (the rule's status says what NoExecute would do)"
    if effect == TAINT_EFFECT_NO_SCHEDULE:
        return ("NoSchedule: selected devices are not allocated to claims that do not tolerate the taint; running "
                "pods stay")
    return f"{effect}: not an effect of this release; consumers treat it like None (the API's DeviceTaint.effect)"


def analyse(rules: list[RuleInput], base, ruled, gates, features) -> dict:
    """The what-if document: `base` and `ruled` are the plans without and with the rules."""
    version = gates.version
    enabled = bool(features.device_taint_rules)
    nodes: dict[str, _Node] = {}
    selected = _selected_devices(rules, base, version, nodes) if enabled else {}
    running = _running_pods(base, selected, nodes, rules, enabled)
    _changed_pods(base, ruled, running, nodes, {"/".join(k) for k in selected})
    changed = [b for n in nodes.values() for b in n.changed]
    moved = [b for b in changed if b["after"]["status"] == SCHEDULED]
    doc = {"dractl": "what-if of dractl, not a Kubernetes feature", "kubernetesVersion": version,
           "enabled": enabled, "rules": [_rule_document(r, version, enabled, base) for r in rules],
           "selectedDevices": len(selected),
           "evicted": sum(len(n.evicted) for n in nodes.values()),
           "blocked": len(changed) - len(moved), "moved": len(moved),
           "movedFromSelected": sum(1 for b in moved if b["fromSelected"]),
           "nodes": [_node_document(name, nodes[name]) for name in _node_order(base, nodes)]}
    if not enabled:
        doc["disabledNote"] = _disabled_note(version)
    return doc


def _disabled_note(version: str) -> str:
    from dractl.api.versions import gate_specs

    # Before the release that has DRADeviceTaintRules, the rules were part of DRADeviceTaints
    # (as dractl.allocator.features reads them).
    gate = "DRADeviceTaintRules" if "DRADeviceTaintRules" in gate_specs(version) else "DRADeviceTaints"
    return (f"the feature gate {gate} is off (Kubernetes {version}'s default unless --feature-gates says "
            f"otherwise): the API server does not serve DeviceTaintRules and neither the scheduler nor the "
            f"eviction controller reads them, so the rule changes nothing; --feature-gates {gate}=true shows "
            "what it would do")


def _device_node(sl, dev) -> str:
    return sl.node_name or dev.node_name or NOT_NODE_LOCAL


def _selected_devices(rules: list[RuleInput], plan, version: str, nodes: dict[str, _Node]) -> dict:
    """(driver, pool, device) -> node for every device some rule selects for scheduling."""
    matchers = [scheduling_selects(r.model, version) for r in rules if not r.invalid]
    out: dict = {}
    for sl in latest_slices(plan.slices):
        for dev in sl.devices:
            key = (sl.driver, sl.pool.name, dev.name)
            if key not in out and any(m(*key) for m in matchers):
                node = _device_node(sl, dev)
                out[key] = node
                nodes.setdefault(node, _Node()).devices.append("/".join(key))
    return out


def latest_slices(slices) -> list:
    """The slices of each pool's newest generation (what the allocator and the eviction
    controller look at), sorted by driver, pool and slice name."""
    newest: dict = {}
    for sl in slices:
        newest[sl.pool_id] = max(newest.get(sl.pool_id, sl.pool.generation), sl.pool.generation)
    chosen = [sl for sl in slices if sl.pool.generation == newest[sl.pool_id]]
    return sorted(chosen, key=lambda s: (s.driver, s.pool.name, s.name))


def _running_pods(plan, selected: dict, nodes: dict[str, _Node], rules: list[RuleInput], enabled: bool) -> set:
    """Claims on selected devices with the pods on them; evictions of the running ones. Returns
    the pods that were running before the run (reservedFor of claims allocated before it)."""
    users = _claim_users(plan)
    evicting = [(r.model, eviction_selects(r.model)) for r in rules
                if enabled and not r.invalid and r.model.taint.effect == TAINT_EFFECT_NO_EXECUTE]
    running: set = set()
    for claim in plan.claims:
        if claim.allocation is None:
            continue
        holders = _holders(claim, users)
        if claim.pre_allocated:
            running.update(h for h in holders if not h.startswith("PodGroup "))
        on = [r for r in claim.allocation.devices if (r.driver, r.pool, r.device) in selected]
        if not on:
            continue
        node = selected[(on[0].driver, on[0].pool, on[0].device)]
        nodes[node].claims[claim.ref] = {
            "claim": claim.ref, "devices": [f"{r.driver}/{r.pool}/{r.device}" for r in on],
            "allocated": "before this run" if claim.pre_allocated else "by this run", "pods": holders}
        if claim.pre_allocated:
            eviction = _eviction(claim, evicting)
            if eviction is not None:
                nodes[node].evicted.extend({"pod": h, "claim": claim.ref, **eviction} for h in holders)
    return running


def _claim_users(plan) -> dict[str, list[str]]:
    users: dict[str, list[str]] = {}
    for p in plan.pods:
        if p.status != SCHEDULED:
            continue
        for ref in p.claims:
            if ref.claim is not None:
                users.setdefault(ref.claim.ref, []).append(p.pod.key)
    return users


def _holders(claim, users: dict[str, list[str]]) -> list[str]:
    """The pods (or PodGroups) a claim is reserved for; for a claim this run allocated, the pods
    that got it."""
    if not claim.pre_allocated:
        return list(users.get(claim.ref, ()))
    out = []
    for entry in claim.reserved_for:
        name = entry.get("name")
        if not isinstance(name, str):
            continue
        out.append(f"PodGroup {claim.namespace}/{name}" if entry.get("resource") == "podgroups"
                   else f"{claim.namespace}/{name}")
    return out


def _eviction(claim, evicting) -> dict | None:
    """When the eviction controller would evict the claim's pods (claimEvictionTime): the
    earliest of its untolerated matching NoExecute taints, None when every one is tolerated."""
    after: int | None = None
    reasons = []
    for result in claim.allocation.devices:
        for rule, selects in evicting:
            if not selects(result.driver, result.pool, result.device):
                continue
            tolerated = [t for t in result.tolerations or () if t.effect == TAINT_EFFECT_NO_EXECUTE
                         and tolerates(t, rule.taint)]
            if any(t.toleration_seconds is None for t in tolerated):
                continue
            seconds = max(0, min(t.toleration_seconds for t in tolerated)) if tolerated else 0
            after = seconds if after is None else min(after, seconds)
            reasons.append(_eviction_reason(rule, result, tolerated))
    if after is None:
        return None
    return {"afterSeconds": after, "devices": sorted(set(r["device"] for r in reasons)),
            "rules": sorted(set(r["rule"] for r in reasons)),
            "notes": sorted(set(r["note"] for r in reasons if r["note"]))}


def _eviction_reason(rule, result, tolerated) -> dict:
    note = ""
    if not tolerated and any(not t.effect and tolerates(t, rule.taint) for t in result.tolerations or ()):
        note = ("the claim tolerates the taint with a toleration without effect: the scheduler accepts it, the "
                "eviction controller only honours tolerations with effect NoExecute")
    return {"device": f"{result.driver}/{result.pool}/{result.device}", "rule": rule.name, "note": note}


def _pod_devices(result) -> list[str]:
    out = []
    for ref in result.claims:
        allocation = ref.claim.allocation if ref.claim is not None else None
        for r in allocation.devices if allocation is not None else ():
            out.append(f"{r.driver}/{r.pool}/{r.device}")
    return sorted(out)


def _changed_pods(base, ruled, running: set, nodes: dict[str, _Node], selected: set[str]) -> None:
    """Pods of the inputs that the dry run places differently with the rule (or not at all),
    under the node the run without the rule chose. `fromSelected`: the pod was planned on a device
    the rule selects; the others move because pods placed before them (input order, first fit)
    took other devices."""
    after = {p.pod.key: p for p in ruled.pods}
    for p in base.pods:
        key = p.pod.key
        if key in running or key not in after or p.status != SCHEDULED:
            continue
        q = after[key]
        before_devices, after_devices = _pod_devices(p), _pod_devices(q)
        if q.status == SCHEDULED and q.node == p.node and after_devices == before_devices:
            continue
        entry = {"pod": key, "fromSelected": any(d in selected for d in before_devices),
                 "before": {"node": p.node, "devices": before_devices},
                 "after": {"status": q.status, "node": q.node, "devices": after_devices if q.status == SCHEDULED else []}}
        if q.status != SCHEDULED and q.reasons:
            first = q.reasons[0]
            entry["after"].update(code=first.code, message=first.message, details=list(first.details or ()))
        nodes.setdefault(p.node, _Node()).changed.append(entry)


def _node_order(plan, nodes: dict[str, _Node]) -> list[str]:
    order = {name: i for i, name in enumerate(plan.nodes)}
    return sorted(nodes, key=lambda n: (n == NOT_NODE_LOCAL, order.get(n, len(order)), n))


def _node_document(name: str, node: _Node) -> dict:
    return {"node": name, "devices": node.devices, "claims": list(node.claims.values()),
            "evicted": node.evicted, "changed": node.changed}


def _rule_document(rule: RuleInput, version: str, enabled: bool, plan) -> dict:
    model = rule.model
    sel = model.selector
    doc = {"name": model.name, "file": rule.file, "line": rule.line,
           "selector": None if sel is None else {k: v for k, v in (("driver", sel.driver), ("pool", sel.pool),
                                                                  ("device", sel.device)) if v},
           "taint": {"key": model.taint.key, **({"value": model.taint.value} if model.taint.value else {}),
                     "effect": model.taint.effect},
           "effect": effect_note(model), "invalid": rule.invalid}
    note = selector_note(rule, version)
    if note:
        doc["selectorNote"] = note
    if rule.v1alpha3_class_fields:
        doc["caveat"] = ("deviceSelector.deviceClassName and .selectors (Kubernetes 1.34's v1alpha3) are not "
                         "evaluated by dractl: the rule is read as matching by driver, pool and device only")
    # The status conditions came with KEP-5055's 1.35 changes (effect None among them).
    if enabled and not rule.invalid and in_force("device_taints_135", version):
        doc["status"] = rule_status(model, plan)
    return doc


def rule_status(rule: DeviceTaintRule, plan) -> dict:
    """The EvictionInProgress condition the eviction controller would write into the rule's
    status (maybeUpdateRuleStatus, 1.35+), for the cluster as given: pods running on claims that
    were allocated before this run."""
    selects = eviction_selects(rule)
    effect = rule.taint.effect
    condition = {"type": "EvictionInProgress", "status": "False", "reason": f"Effect{effect}", "message": ""}
    if effect not in (TAINT_EFFECT_NO_EXECUTE, TAINT_EFFECT_NONE):
        condition.update(reason="OtherEffect", message="Eviction only happens for the NoExecute effect.")
        return condition
    taint = rule.taint
    as_no_execute = DeviceTaintRule(rule.name, rule.selector,
                                    DeviceTaint(taint.key, taint.value, TAINT_EFFECT_NO_EXECUTE, taint.time_added))
    pods, namespaces = _pending_evictions(plan, as_no_execute, selects)
    if effect == TAINT_EFFECT_NO_EXECUTE:
        if pods:
            condition.update(status="True", reason="PodsPendingEviction",
                             message=f"{_count(pods, 'pod needs', 'pods need')} to be evicted in "
                                     f"{_count(namespaces, 'namespace', 'different namespaces')}.")
        else:
            condition.update(reason="NotStarted")
        return condition
    published = sum(1 for sl in latest_slices(plan.slices) for dev in sl.devices
                    if selects(sl.driver, sl.pool.name, dev.name))
    allocated = sum(1 for c in plan.claims if c.pre_allocated and c.allocation is not None
                    for r in c.allocation.devices if selects(r.driver, r.pool, r.device))
    condition.update(reason="NoEffect", message=(
        f"{_count(published, 'published device', 'published devices')} selected. "
        f"{_count(allocated, 'allocated device', 'allocated devices')} selected. "
        f"{_count(pods, 'pod would', 'pods would')} be evicted in "
        f"{_count(namespaces, 'namespace', 'different namespaces')} if the effect was NoExecute. "
        "This information will not be updated again. Recreate the DeviceTaintRule to trigger an update."))
    return condition


def _pending_evictions(plan, rule: DeviceTaintRule, selects) -> tuple[int, int]:
    pods: set = set()
    for claim in plan.claims:
        if not claim.pre_allocated or claim.allocation is None:
            continue
        if _eviction(claim, [(rule, selects)]) is None:
            continue
        pods.update((claim.namespace, h) for h in _holders(claim, {}) if not h.startswith("PodGroup "))
    return len(pods), len({ns for ns, _ in pods})


def _count(n: int, one: str, many: str) -> str:
    return f"1 {one}" if n == 1 else f"{n} {many}"


def shown_devices(devices: list[str]) -> str:
    head = ", ".join(devices[:_SHOWN_DEVICES])
    return head + (f", ... ({len(devices)} devices)" if len(devices) > _SHOWN_DEVICES else "")
