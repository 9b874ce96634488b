"""Errors the allocator reports instead of a result."""

from __future__ import annotations

INVALID_POOLS_MESSAGE = "invalid resource pools were encountered"


class AllocationError(Exception):
    """A hard error: upstream returns it from Allocate and the scheduler aborts the attempt."""

    def __init__(self, message: str, *, node_failure: bool = False, timed_out: bool = False,
                 cause: object = None):
        super().__init__(message)
        self.message = message
        # For explanations only (e.g. celglue.CelFailure: the device and the CEL error).
        self.cause = cause
        # "invalid resource pools were encountered": only this node is unsuitable
        # (docs/spec/allocator.md#invalid-pools-node-failure).
        self.node_failure = node_failure
        # The deadline expired (docs/spec/allocator.md#cancellation); the scheduler reports "timed
        # out trying to allocate devices".
        self.timed_out = timed_out

    def __str__(self) -> str:
        return self.message


class MaxSizeExceeded(Exception):
    """Internal signal: the current branch would put a claim above 32 devices
    (docs/spec/allocator.md#search-order-and-limit)."""


class SearchTimeout(Exception):
    """Internal signal: the deadline passed."""


class SearchHopeless(Exception):
    """Internal signal: a later claim cannot be allocated whatever the search takes before it
    (hopeless.claim_alone_unsatisfiable); the search ends "unsatisfiable"."""
