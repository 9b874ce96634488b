"""dractl's own diagnosis of "cannot allocate all claims": the allocator's explanation search on
a node, rendered as one line per request, the causes under it (which taint and where it comes
from, which capacity, counter, selector or pool, which claims hold the devices), and
device-level verdicts.

Lines are plain strings; a line indented by two spaces more than the one before belongs under
it (the text report draws them as a tree, JSON keeps them as they are)."""

from __future__ import annotations

import re

from dractl.allocator.causes import absent_key_text, cel_failure_text
from dractl.allocator.reasons import DESCRIPTIONS
from dractl.api.resource import ResourceClaim

# Allocator explanations are a second, diagnostic search per failing node; cap the work spent on
# one unschedulable pod (the rest are summarised by their scheduler reason).
MAX_EXPLAINED_NODES = 64
# Distinct causes shown per reason and request (--explain POD lists every device).
MAX_CAUSES = 4
MAX_USERS = 3


def explain_node(cluster, node, pending_models: list[ResourceClaim], shortcuts=None,
                 key: tuple | None = None, extra_constraints=None) -> tuple[list[str], list[str]]:
    """(lines per request, device-level verdict lines) of why the claims do not fit `node`.

    In a full cluster every further pod with the same claims fails on the same nodes for the
    same reasons: the shortcuts keep the explanation per node, key and node state, and only the
    claim names are filled in again. Device lines name no claim and are shared between pods
    (read-only)."""
    hit = shortcuts.explanation(node.name, key) if shortcuts is not None else None
    if hit is not None:
        explanation, refs, devices = hit
        rename = dict(zip(refs, (m.ref for m in pending_models), strict=False))
        return explanation_lines(explanation, pending_models, rename, cluster), devices
    try:
        explanation = cluster.allocator.explain(node.info, pending_models, timeout=cluster.options.timeout,
                                                extra_constraints=extra_constraints)
    except Exception as exc:  # noqa: BLE001 - an explanation must never break the run
        return [f"(no explanation: {type(exc).__name__}: {exc})"], []
    sources = Sources(cluster)
    devices = []
    for req in explanation.requests:
        for verdict in req.devices:
            why = DESCRIPTIONS.get(verdict.reason, verdict.reason) if verdict.reason else "usable"
            cause = verdict.cause
            if cause is not None:
                detail = (cause.text + sources.where(cause) + (sources.users([verdict.device]) if cause.users else ""))
                if detail:
                    why += f" ({detail.lstrip('; ')})"
            devices.append(f"request {req.request}: {verdict.device}: {why}")
    if shortcuts is not None:
        shortcuts.remember_explanation(node.name, key, (explanation, tuple(m.ref for m in pending_models),
                                                        devices))
    return explanation_lines(explanation, pending_models, {}, cluster), devices


def explanation_lines(explanation, pending_models: list[ResourceClaim],
                      rename: dict[str, str], cluster=None) -> list[str]:
    classes = _request_classes(pending_models)
    sources = Sources(cluster)
    lines = []
    for req in explanation.requests:
        claim = rename.get(req.claim, req.claim)
        ordered = sorted(req.rejected.items(), key=lambda kv: (-kv[1], kv[0]))
        rejected = ", ".join(f"{_devices(n)}: {DESCRIPTIONS.get(code, code)}" for code, n in ordered)
        cls = classes.get((claim, req.request))
        lines.append(f"claim {claim}, request {req.request}"
                     + (f" (class {cls})" if cls else "")
                     + f": needs {req.needed} device(s), {req.eligible} of {req.considered} usable"
                     + (f"; {rejected}" if rejected else ""))
        for code, _ in ordered:
            lines.extend(_cause_lines(req, code, sources))
    if explanation.partial:
        lines.append("(explanation partial: the diagnostic search was cut short)")
    return lines


def _devices(n: int) -> str:
    return f"{n} device{'s' * (n != 1)}"


def _cause_lines(req, code: str, sources: "Sources") -> list[str]:
    """Under a request: per distinct cause of `code`, how many devices and what causes it."""
    groups: dict = {}
    for verdict in req.devices:
        cause = verdict.cause
        if verdict.reason == code and cause is not None:
            # Equal causes on different devices differ only in what they point at (`item`).
            group = groups.setdefault((cause.text, cause.source, cause.fix, cause.users), (cause, []))
            group[1].append(verdict.device)
    out = []
    for cause, devices in list(groups.values())[:MAX_CAUSES]:
        detail = cause.text + sources.where(cause) + (sources.users(devices) if cause.users else "") \
            + sources.left_out(cause)
        detail = detail.lstrip("; ")
        out.append(f"  {_devices(len(devices))}: {DESCRIPTIONS.get(code, code)}" + (f": {detail}" if detail else ""))
        out.extend(f"    {line}" for line in cause.fix)
    if len(groups) > MAX_CAUSES:
        out.append(f"  and {len(groups) - MAX_CAUSES} more cause(s) of \"{DESCRIPTIONS.get(code, code)}\"; "
                   "--explain POD lists every device")
    return out


class Sources:
    """Where the objects that causes name are in the input (file:line), and which claims hold a
    device; both looked up only when an explanation is rendered."""

    def __init__(self, cluster) -> None:
        self.cluster = cluster

    def where(self, cause) -> str:
        if cause.source is None:
            return ""
        kind, name = cause.source
        doc = self.cluster.source_docs.get((kind, name)) if self.cluster is not None else None
        location = f" at {doc.file}:{_line_of(doc, cause.item)}" if doc is not None and doc.file else ""
        return f" from {kind} {name}{location}"

    def left_out(self, cause) -> str:
        """For a pool's cause: its slices that the dry run left out (why the pool looks incomplete
        or lacks a counter set)."""
        if self.cluster is None or not cause.item or cause.item[0] != "pool":
            return ""
        slices = self.cluster.left_out_slices.get(cause.item[1:])
        return f"; left out of the dry run: {', '.join(slices)}" if slices else ""

    def users(self, devices: list[str]) -> str:
        if self.cluster is None:
            return ""
        holders = device_holders(self.cluster)
        names = sorted({ref for d in devices for ref in holders.get(d, ())})
        if not names:
            return ""
        shown = ", ".join(names[:MAX_USERS]) + (f" and {len(names) - MAX_USERS} more" if len(names) > MAX_USERS else "")
        return f"; held by claim{'s' if len(names) > 1 else ''} {shown}"


def device_holders(cluster) -> dict[str, tuple[str, ...]]:
    """driver/pool/device -> refs of the allocated claims that hold it (admin access does not
    hold a device), rebuilt when the allocated state changed."""
    version = cluster.allocator.inventory.version
    cached = cluster.device_holders
    if cached is not None and cached[0] == version:
        return cached[1]
    found: dict[str, list[str]] = {}
    for claim in cluster.claims.values():
        if claim.allocation is None:
            continue
        for r in claim.allocation.devices:
            if not r.admin_access:
                refs = found.setdefault(f"{r.driver}/{r.pool}/{r.device}", [])
                if claim.ref not in refs:
                    refs.append(claim.ref)
    holders = {d: tuple(sorted(refs)) for d, refs in found.items()}
    cluster.device_holders = (version, holders)
    return holders


def _line_of(doc, item: tuple) -> int:
    """The line of a device's taint inside a slice document, else of the object."""
    if item and item[0] == "taint":
        _, device_name, taint = item
        spec = doc.data.get("spec") if isinstance(doc.data.get("spec"), dict) else {}
        for i, raw in enumerate(spec.get("devices") or []):
            if not isinstance(raw, dict) or raw.get("name") != device_name:
                continue
            prefix = ("spec", "devices", i) + (("basic",) if isinstance(raw.get("basic"), dict) else ())
            holder = raw.get("basic") if isinstance(raw.get("basic"), dict) else raw
            for j, t in enumerate(holder.get("taints") or []):
                if isinstance(t, dict) and (t.get("key"), t.get("value") or "", t.get("effect")) == \
                        (taint.key, taint.value, taint.effect):
                    return doc.locate(prefix + ("taints", j))[0]
            return doc.locate(prefix)[0]
    return doc.locate(())[0]


# How explanation lines name a node's own objects: its slices, the claims holding its devices.
# Nodes whose explanations differ only in these are reported together, naming them all.
_SLICE_MENTION = re.compile(r" from ResourceSlice (\S+)(?: at (\S+?):(\d+))?(?=[;,)]|$)")
_HOLDERS = re.compile(r"(: |; )held by claims? (.+)$")
MAX_SLICES = 3


def _group_key(line: str) -> str:
    if "held by claim" not in line and " from ResourceSlice " not in line:
        return line
    return _HOLDERS.sub(r"\1held by", _SLICE_MENTION.sub(" from ResourceSlice", line))


def group_explanations(per_node: dict[str, list[str]]) -> list[tuple[list[str], list[str]]]:
    """(lines, node names) per group of nodes that failed the same way, largest group first. Lines
    that differ only in the node's own slices or in the claims holding its devices are merged
    into one that names them across the group."""
    groups: dict[tuple, list[str]] = {}
    for name, lines in per_node.items():
        groups.setdefault(tuple(_group_key(line) for line in lines), []).append(name)
    out = []
    for _, names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[1][0])):
        lines = per_node[names[0]]
        if len(names) > 1:
            lines = [_merge_holders(i, _merge_slices(i, line, names, per_node), names, per_node)
                     for i, line in enumerate(lines)]
        out.append((list(lines), names))
    return out


def _merge_slices(index: int, line: str, names: list[str], per_node: dict[str, list[str]]) -> str:
    if not _SLICE_MENTION.search(line):
        return line
    mentions: list[tuple] = []
    for name in names:
        for m in _SLICE_MENTION.finditer(per_node[name][index]):
            if m.groups() not in mentions:
                mentions.append(m.groups())
    if len(mentions) < 2:
        return line
    parts, last_file = [], None
    for slice_name, file, lineno in mentions[:MAX_SLICES]:
        where = "" if file is None else f" at :{lineno}" if file == last_file else f" at {file}:{lineno}"
        parts.append(slice_name + where)
        last_file = file
    more = f" and {len(mentions) - MAX_SLICES} more" if len(mentions) > MAX_SLICES else ""
    first = _SLICE_MENTION.search(line)
    return line[:first.start()] + " from ResourceSlices " + ", ".join(parts) + more + \
        _SLICE_MENTION.sub("", line[first.end():])


def _merge_holders(index: int, line: str, names: list[str], per_node: dict[str, list[str]]) -> str:
    """The claims named across the group: the first few, then how many more (counted exactly
    from the per-node lines, which list at most MAX_USERS each and say how many more)."""
    if not _HOLDERS.search(line):
        return line
    shown: list[str] = []
    total = 0
    for name in names:
        m = _HOLDERS.search(per_node[name][index])
        if m is None:
            continue
        listed, _, more = m.group(2).partition(" and ")
        refs = listed.split(", ")
        total += len(refs) + (int(more.split()[0]) if more else 0)
        shown.extend(r for r in refs if r not in shown and len(shown) < MAX_USERS)
    rest = total - len(shown)
    merged = f"held by claim{'s' if total > 1 else ''} {', '.join(shown)}" + (f" and {rest} more" if rest > 0 else "")
    return _HOLDERS.sub(lambda m: m.group(1) + merged, line)


def cel_error_details(outcome) -> tuple[str, ...]:
    """dractl's detail under an allocator error that is a CEL runtime error: which device, which
    attribute is absent, what the device publishes instead."""
    failure = getattr(outcome, "error_cause", None)
    if failure is None:
        return ()
    message = str(getattr(failure.error, "message", failure.error))
    if message.startswith("no such key: "):
        missing = message[len("no such key: "):].strip()
        return (f"dractl: {absent_key_text(missing, failure.device, f'device {failure.device.id_str}')}",)
    return (f"dractl: {cel_failure_text(failure)}",)


def validation_details(cluster, doc) -> tuple[str, ...]:
    """dractl's detail under "has validation errors": the codes that left the object out, so that
    the text output says why (e.g. DRA2030, admin access in a namespace without the label)."""
    if doc is None:
        return ()
    from dractl.findings import CODES
    codes = getattr(cluster.invalid, "codes", {}).get(id(doc), ())
    where = f" at {doc.file}:{doc.locate(())[0]}" if doc.file else ""
    out = []
    for code in codes:
        summary = CODES[code].summary if code in CODES else "validation error"
        text = f"dractl: {doc.describe()}{where}: {code} {summary}"
        if code == "DRA2030":  # validate/refs.py: the namespace is among the inputs, without the label
            text += f" (namespace {doc.namespace} does not carry resource.kubernetes.io/admin-access=true)"
        out.append(text)
    return tuple(out)


def _request_classes(models: list[ResourceClaim]) -> dict[tuple[str, str], str]:
    out = {}
    for m in models:
        for req in m.requests:
            if req.exactly:
                out[(m.ref, req.name)] = req.exactly.device_class_name
            for sub in req.first_available:
                out[(m.ref, f"{req.name}/{sub.name}")] = sub.device_class_name
    return out

