"""Node-allocatable resources through DRA (KEP-5517, DRANodeAllocatableResources): devices whose
slice maps them to node resources (e.g. memory of a CPU device) add those amounts to the pod's
demand on the node. Runs after DynamicResources' allocation, whose result it needs."""

from __future__ import annotations

from dractl.simulate.framework import Plugin, unresolvable, unschedulable
from dractl.simulate.resources import insufficient

NAME = "DynamicResources"


class NodeAllocatableResources(Plugin):
    name = "NodeAllocatableResources"

    def enabled(self) -> bool:
        return bool(self.cluster.native_mappings)

    # Filter: the mapped amounts of the allocated devices must fit the node's free resources;
    # a claim with a mapped device cannot be shared across pods (alpha rule).
    def filter(self, state, attempt):
        if attempt.outcome is None:
            return None
        amounts: dict = {}
        for claim in state.allocated:
            extra = self._mapped_amounts(claim.allocation)
            if extra and claim.reserved_for:
                return unresolvable(f"node allocatable resource claim {claim.name} has a mapped "
                                    "device and cannot be shared across pods", NAME)
            for k, v in extra.items():
                amounts[k] = amounts.get(k, 0) + v
        for allocation in attempt.outcome.results[:len(state.pending)]:
            for k, v in self._mapped_amounts(allocation).items():
                amounts[k] = amounts.get(k, 0) + v
        attempt.native = amounts
        alloc = self.cluster.node_alloc[attempt.node.name]
        if not amounts or not alloc:
            return None
        total = dict(state.demand)
        for k, v in amounts.items():
            total[k] = total.get(k, 0) + v
        fit = insufficient(total, self.cluster.free(attempt.node.name), alloc)
        return unschedulable(", ".join(fit), NAME) if fit else None

    def _mapped_amounts(self, allocation) -> dict:
        out: dict = {}
        if allocation is None:
            return out
        mappings = self.cluster.native_mappings
        for r in allocation.devices:
            for resource, mapping in mappings.get((r.driver, r.pool, r.device), {}).items():
                multiplier = mapping.get("multiplier", 1)
                key = mapping.get("capacityKey")
                if key:
                    consumed = (r.consumed_capacity or {}).get(key)
                    if consumed is None:
                        continue
                    amount = consumed.value * multiplier
                else:
                    amount = multiplier
                out[resource] = out.get(resource, 0) + amount
        return out
