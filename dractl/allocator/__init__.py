"""Structured-parameters device allocation, as kube-scheduler's DRA plugin does it.

Pure library: no printing, no file access. Entry point: `Allocator`.
"""

from dractl.allocator import reasons
from dractl.allocator.allocator import Allocator
from dractl.allocator.checks import DEVICE_CHECKS, FactCache
from dractl.allocator.errors import INVALID_POOLS_MESSAGE, AllocationError
from dractl.allocator.features import EXPERIMENTAL, INCUBATING, STABLE, AllocatorFeatures, Compat
from dractl.allocator.inventory import Inventory
from dractl.allocator.nodes import NodeInfo
from dractl.allocator.results import (
                                      ALLOCATED,
                                      ERROR,
                                      UNSATISFIABLE,
                                      AllocationOutcome,
                                      DeviceVerdict,
                                      Explanation,
                                      RequestExplanation,
)

__all__ = [
    "Allocator", "AllocationError", "DEVICE_CHECKS", "FactCache", "AllocationOutcome", "AllocatorFeatures", "Compat", "DeviceVerdict",
    "Explanation", "Inventory", "NodeInfo", "RequestExplanation", "reasons",
    "ALLOCATED", "UNSATISFIABLE", "ERROR", "INVALID_POOLS_MESSAGE", "STABLE", "INCUBATING", "EXPERIMENTAL",
]
