"""The simulated cluster: nodes, claims, what each node has given out, and the journal through
which every change goes (so that a gang, or a pod whose PreBind fails, can be undone).

Built once from the input documents (inventory.py); the plugins read and change it; the
shortcuts hear of every node whose state changed (`touch`), since cached verdicts about that
node are stale from then on.
"""

from __future__ import annotations

import uuid
from collections import Counter
from typing import TYPE_CHECKING, Any

from dractl.allocator.taints import untolerated_taint
from dractl.api.resource import AllocationResult
from dractl.models.devices import DeviceIndex
from dractl.simulate.journal import Journal
from dractl.simulate.shortcuts import Shortcuts
from dractl.simulate.state import ALLOCATED, DELETE_PROTECTION_FINALIZER, ClaimState, Plan

if TYPE_CHECKING:
    from dractl.allocator import Allocator
    from dractl.api.versions import FeatureGates
    from dractl.simulate.nodes import SimNode

_SHARE_NS = uuid.UUID("0d3f3c52-3a8e-4f57-9a0e-8f1c6b7d2e10")


class ClusterState:
    def __init__(self, gates: "FeatureGates", options, invalid: set[int], plan: Plan) -> None:
        self.gates = gates
        self.options = options
        self.invalid = invalid
        self.plan = plan
        self.journal = Journal()
        # The shortcuts hear of every change (the scheduling loop attaches its own).
        self.shortcuts = Shortcuts(False, {})
        # Filled by inventory.build_cluster:
        self.nodes: list[SimNode] = []
        self.node_by_name: dict[str, SimNode] = {}
        self.node_index: dict[str, int] = {}
        self.node_alloc: dict[str, dict] = {}          # node -> allocatable quantities
        self.node_requested: dict[str, dict] = {}      # node -> requested by placed pods
        self.node_pods: Counter = Counter()
        self.node_ports: dict[str, set] = {}           # node -> host ports of the pods placed there
        self.node_devices_used: Counter = Counter()    # devices of node-local pools in use
        self.pool_node: dict[tuple[str, str], str] = {}  # node-local pool -> its node
        self.claims: dict[tuple[str, str], ClaimState] = {}
        self.templates: dict[tuple[str, str], dict] = {}
        self.namespaces: dict[str, dict] = {}
        self.class_names: set[str] = set()
        self.extended_classes: dict[str, str] = {}
        self.native_mappings: dict = {}
        self.groups: Any = None
        self.pod_docs: list = []
        self.allocator: Allocator | None = None
        self._share_seq = 0
        # dractl's podgroup-constraints extension (groupconstraints.py): id(group) -> its
        # constraints, and the ones in force during the current member's cycle.
        self.group_constraints: dict = {}
        self.active_group_constraint = None
        self._devices: DeviceIndex | None = None
        # For explanations (simulate/explain.py): (kind, name) -> Document of the slices and
        # taint rules, and which claims hold each device (state version, index).
        self.source_docs: dict[tuple[str, str], Any] = {}
        self.device_holders: tuple | None = None
        # (driver, pool) -> the pool's slices the dry run left out (leftout.slices_by_pool).
        self.left_out_slices: dict[tuple[str, str], list[str]] = {}

    # -- change notification -------------------------------------------------------------------
    def touch(self, node_name: str) -> None:
        """The node's state changed: verdicts about it are stale."""
        self.shortcuts.node_changed(node_name)

    def touch_shared(self) -> None:
        """Something every node can see changed (a pool several nodes share, a rollback)."""
        self.shortcuts.shared_changed()

    # -- node resources ------------------------------------------------------------------------
    def free(self, node_name: str) -> dict:
        alloc, used = self.node_alloc[node_name], self.node_requested[node_name]
        return {k: v - used.get(k, 0) for k, v in alloc.items()}

    def assume_pod(self, node_name: str, charge: dict, ports: tuple) -> None:
        """The scheduler cache's AssumePod: the pod counts on its node from now on (its
        requests, the pod count, its host ports: NodeInfo.AddPod), journaled so that a failing
        Reserve or PreBind, or a gang that does not fit, takes it back. Nodes without
        status.allocatable keep no resource books (nothing is checked there)."""
        journal = self.journal
        books = bool(self.node_alloc[node_name])
        if books:
            journal.add_all(self.node_requested[node_name], charge)
            journal.add(self.node_pods, node_name, 1)
        if ports:
            if node_name not in self.node_ports:
                journal.set_item(self.node_ports, node_name, set())
            used = self.node_ports[node_name]
            for port in ports:
                if port not in used:
                    journal.on_rollback(used.discard, port)
                    used.add(port)
        if books or ports:
            self.touch(node_name)  # verdicts about this node are stale

    # -- devices -------------------------------------------------------------------------------
    def next_share_id(self) -> str:
        self._share_seq += 1
        return str(uuid.uuid5(_SHARE_NS, f"share/{self._share_seq}"))

    def count_devices(self, allocation: AllocationResult, sign: int) -> None:
        """Devices of node-local pools in use (for --node-order), journaled."""
        self._count(allocation, sign)
        self.journal.on_rollback(self._count, allocation, -sign)

    def no_execute_taints(self, claim: ClaimState):
        """(device id text, taint) of the claim's devices with a NoExecute taint that the
        allocation does not tolerate."""
        if self._devices is None:
            self._devices = DeviceIndex(self.allocator.inventory.slices)
        for r in claim.allocation.devices:
            device = self._devices.get(r.driver, r.pool, r.device)
            if device is None:
                continue
            taint = untolerated_taint([t for t in device.taints if t.effect == "NoExecute"], r.tolerations)
            if taint is not None:
                yield f"{r.driver}/{r.pool}/{r.device}", taint

    # -- claims --------------------------------------------------------------------------------
    def add_claim(self, state: ClaimState) -> None:
        """A claim the run creates (from a template, or KEP-5004's extended-resource claim)."""
        self.journal.set_item(self.claims, state.key, state)
        self.journal.append(self.plan.claims, state)

    def commit_allocation(self, claim: ClaimState, allocation: AllocationResult, node_name: str) -> None:
        """The claim is allocated (the assume cache): the allocator sees its devices in use."""
        finalizers = claim.manifest.setdefault("metadata", {}).setdefault("finalizers", [])
        added = DELETE_PROTECTION_FINALIZER not in finalizers
        # One journal entry undoes all of it (see _undo_allocation).
        self.journal.on_rollback(self._undo_allocation, claim, allocation, finalizers if added else None,
                                 (claim.allocation, claim.status, claim.node, claim.touched))
        self.allocator.commit(claim.model, allocation)
        claim.allocation, claim.status, claim.node, claim.touched = allocation, ALLOCATED, node_name, True
        self._count(allocation, +1)
        self._invalidate(allocation, node_name)
        if added:
            finalizers.append(DELETE_PROTECTION_FINALIZER)

    def _undo_allocation(self, claim: ClaimState, allocation: AllocationResult, finalizers: list | None,
                         saved: tuple) -> None:
        if finalizers is not None:
            finalizers.remove(DELETE_PROTECTION_FINALIZER)
        self._count(allocation, -1)
        claim.allocation, claim.status, claim.node, claim.touched = saved
        self.allocator.release(claim.model)

    def _count(self, allocation: AllocationResult, sign: int) -> None:
        used = self.node_devices_used
        for r in allocation.devices:
            node = self.pool_node.get((r.driver, r.pool))
            if node:
                used[node] += sign

    def _invalidate(self, allocation: AllocationResult, node_name: str) -> None:
        self.touch(node_name)
        for r in allocation.devices:
            owner = self.pool_node.get((r.driver, r.pool))
            if owner is None:
                self.touch_shared()  # a pool several nodes can see
            elif owner != node_name:
                self.touch(owner)

    def reserve_claim(self, claim: ClaimState, consumer: dict) -> None:
        self.journal.append(claim.reserved_for, consumer)
        self.journal.set_attr(claim, "touched", True)
