"""The dry run's plugins: kube-scheduler's default profile per release, as far as dractl runs it.

kube-scheduler builds its default profile in pkg/scheduler/apis/config/v1/default_plugins.go:
getDefaultPlugins lists the plugins once, under MultiPoint, and applyFeatureGates inserts
DynamicResources just before DefaultPreemption (so that PostFilter first tries deallocating an
idle claim, then preemption) and appends the gated plugins at the end (NodeDeclaredFeatures,
GangScheduling, TopologyPlacementGenerator, PodGroupPodsCount). The framework gives every
extension point the MultiPoint plugins that implement it, in MultiPoint order
(runtime/framework.go, expandMultiPointPlugins); only a profile that also lists a plugin under
a specific extension point puts it first there, and the default profile lists none, so the
per-extension-point order is the MultiPoint order. Sources read and what the releases change:
docs/scheduler.md.

`PROFILE` holds the default profile's MultiPoint plugins in order; `_MODULES` maps those dractl
implements to their module (the others, volumes, pod affinity, spreading, scoring by resources
and images, binding and the queue, decide nothing in the dry run's inputs). Adding a plugin: one module
under dractl/simulate/plugins/ and its name in these lists (docs/architecture.md, "Scheduler
framework"). `DRACTL_PLUGINS` are dractl's own and run after the profile's.
"""

from __future__ import annotations

from importlib import import_module

# The plugins dractl implements, by upstream name.
_MODULES = {
    "NodeUnschedulable": "nodeunschedulable:NodeUnschedulable",
    "NodeName": "nodename:NodeName",
    "TaintToleration": "tainttoleration:TaintToleration",
    "NodeAffinity": "nodeaffinity:NodeAffinity",
    "NodePorts": "nodeports:NodePorts",
    "NodeResourcesFit": "noderesources:NodeResourcesFit",
    "DynamicResources": "dynamicresources:DynamicResources",
    "DefaultPreemption": "defaultpreemption:DefaultPreemption",
}

# getDefaultPlugins' MultiPoint list with applyFeatureGates' DynamicResources, the same in every
# release dractl models (read at the v1.34 to v1.38 tags; DRA is GA from 1.34, its gate locked from
# 1.35 and removed in 1.38, #141946: the plugin is always there). What does differ by release is
# behaviour inside plugins, which the release table decides (dractl/api/releases.py: e.g.
# `prioritized_list_score`, DynamicResources' Score with weight 2 from 1.35). From 1.35
# applyFeatureGates also appends NodeDeclaredFeatures, GangScheduling and, from 1.36, the workload
# placement plugins after DefaultBinder, each only with its gate on; none of them decides what
# dractl simulates (dractl's PodGroup cycle is gangs.py). A release whose profile differs gets a
# switch in the release table and a branch in `profile`.
PROFILE = (
    "SchedulingGates", "PrioritySort", "NodeUnschedulable", "NodeName", "TaintToleration",
    "NodeAffinity", "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "NodeVolumeLimits",
    "VolumeBinding", "VolumeZone", "PodTopologySpread", "InterPodAffinity", "DynamicResources",
    "DefaultPreemption", "NodeResourcesBalancedAllocation", "ImageLocality", "DefaultBinder",
)

# dractl's own: --node-order's score, compared after the profile's scores.
DRACTL_PLUGINS = ("nodeorder:NodeOrder",)


def _load(entry: str):
    module, _, name = entry.partition(":")
    return getattr(import_module(f"dractl.simulate.plugins.{module}"), name)


def profile(version: str) -> tuple[str, ...]:
    """The default profile's MultiPoint plugin names for a release."""
    return PROFILE


_CACHE: dict[str, tuple] = {}


def plugins_for(version: str) -> tuple:
    """The plugin classes dractl runs for a release, in the profile's order, then its own."""
    found = _CACHE.get(version)
    if found is None:
        names = [_MODULES[n] for n in profile(version) if n in _MODULES]
        found = _CACHE[version] = tuple(_load(entry) for entry in names + list(DRACTL_PLUGINS))
    return found
