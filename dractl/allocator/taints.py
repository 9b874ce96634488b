"""Device taints, tolerations (docs/spec/allocator.md#taints) and DeviceTaintRules
(docs/spec/allocator.md#device-taint-rules)."""

from __future__ import annotations

import dataclasses
from typing import Iterable, Sequence

from dractl.api.resource import (
    TAINT_EFFECT_NO_EXECUTE,
    TAINT_EFFECT_NO_SCHEDULE,
    DeviceTaint,
    DeviceTaintRule,
    DeviceToleration,
    ResourceSlice,
)

_BLOCKING = (TAINT_EFFECT_NO_SCHEDULE, TAINT_EFFECT_NO_EXECUTE)


def tolerates(toleration: DeviceToleration, taint: DeviceTaint) -> bool:
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    op = toleration.operator
    if op in ("", "Equal"):
        return toleration.value == taint.value
    return op == "Exists"


def untolerated_taint(taints: Sequence[DeviceTaint], tolerations: Sequence[DeviceToleration]) -> DeviceTaint | None:
    """The first NoSchedule/NoExecute taint no toleration covers (other effects never block)."""
    for taint in taints:
        if taint.effect in _BLOCKING and not any(tolerates(t, taint) for t in tolerations):
            return taint
    return None


def apply_taint_rules(slices: Iterable[ResourceSlice], rules: Sequence[DeviceTaintRule]) -> list[ResourceSlice]:
    """Slices with every matching rule's taint appended to the matching devices.

    A rule without a selector (or with an empty one) taints every device, as the scheduler's
    tracker does. Untouched slices are returned as they are (same objects)."""
    out = []
    for sl in slices:
        if not rules:
            out.append(sl)
            continue
        extra: dict[int, list[DeviceTaint]] = {}
        for rule in rules:
            sel = rule.selector
            if sel is not None:
                if sel.driver and sel.driver != sl.driver:
                    continue
                if sel.pool and sel.pool != sl.pool.name:
                    continue
            for i, dev in enumerate(sl.devices):
                if sel is not None and sel.device and sel.device != dev.name:
                    continue
                extra.setdefault(i, []).append(rule.taint)
        if not extra:
            out.append(sl)
            continue
        devices = tuple(
            dataclasses.replace(dev, taints=dev.taints + tuple(extra[i])) if i in extra else dev
            for i, dev in enumerate(sl.devices))
        out.append(dataclasses.replace(sl, devices=devices))
    return out
