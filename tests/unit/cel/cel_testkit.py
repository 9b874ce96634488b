"""Shared helpers for dractl.cel tests: a minimal device satisfying dractl.cel.CelDevice."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Hashable

from dractl.api.quantity import Quantity
from dractl.api.values import AttributeValue


@dataclass
class Dev:
    key: Hashable
    driver: str
    attributes: dict = field(default_factory=dict)
    capacity: dict = field(default_factory=dict)
    allow_multiple_allocations: bool = False


def A(kind: str, value) -> AttributeValue:
    return AttributeValue(kind, tuple(value) if isinstance(value, list) else value)


def Q(text: str) -> Quantity:
    return Quantity.parse(text)
