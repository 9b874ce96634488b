"""The dry run's plugins, in kube-scheduler's default order where upstream has the plugin.

Each phase runs the plugins that implement it in this order: the first Filter that rejects a
node gives its verdict, and scores compare in this order. Adding a plugin is one module under
plugins/ and one line here (docs/architecture.md, "Scheduler framework")."""

from __future__ import annotations

from dractl.simulate.plugins.defaultpreemption import DefaultPreemption
from dractl.simulate.plugins.dynamicresources import ClaimsAvailableOnNode, DynamicResources
from dractl.simulate.plugins.extendedresources import ExtendedResources
from dractl.simulate.plugins.nodeaffinity import NodeAffinity
from dractl.simulate.plugins.nodeallocatable import NodeAllocatableResources
from dractl.simulate.plugins.nodename import NodeName
from dractl.simulate.plugins.nodeorder import NodeOrder
from dractl.simulate.plugins.noderesources import NodeResourcesFit
from dractl.simulate.plugins.nodeunschedulable import NodeUnschedulable
from dractl.simulate.plugins.tainttoleration import TaintToleration

PLUGINS = (
    NodeUnschedulable,
    NodeName,
    TaintToleration,
    NodeAffinity,
    ClaimsAvailableOnNode,       # DynamicResources' check of allocated claims
    ExtendedResources,           # KEP-5004
    NodeResourcesFit,
    DynamicResources,            # claims, the allocator, DRA score, reservedFor
    NodeAllocatableResources,    # KEP-5517, needs the allocation
    NodeOrder,                   # dractl's --node-order, scored after DynamicResources
    DefaultPreemption,
)
