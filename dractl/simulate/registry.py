"""The dry run's plugins, in kube-scheduler's default order where upstream has the plugin.

Each phase runs the plugins that implement it in this order: the first Filter that rejects a
node gives its verdict, and scores compare in this order. Adding a plugin is one module under
dractl/simulate/plugins/ and one line here (docs/architecture.md, "Scheduler framework")."""

from __future__ import annotations

from importlib import import_module

_ORDER = (
    "nodeunschedulable:NodeUnschedulable",
    "nodename:NodeName",
    "tainttoleration:TaintToleration",
    "nodeaffinity:NodeAffinity",
    "nodeports:NodePorts",
    "dynamicresources:ClaimsAvailableOnNode",    # DynamicResources' check of allocated claims
    "extendedresources:ExtendedResources",       # KEP-5004
    "noderesources:NodeResourcesFit",
    "dynamicresources:DynamicResources",         # claims, the allocator, DRA score, reservedFor
    "nodeallocatable:NodeAllocatableResources",  # KEP-5517, needs the allocation
    "nodeorder:NodeOrder",                       # dractl's --node-order, scored after DRA's score
    "defaultpreemption:DefaultPreemption",
)


def _load(entry: str):
    module, _, name = entry.partition(":")
    return getattr(import_module(f"dractl.simulate.plugins.{module}"), name)


PLUGINS = tuple(_load(entry) for entry in _ORDER)
