"""Bounds that keep hostile input from exhausting time or memory."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int = 64 * 1024 * 1024
    # Real manifests nest about 20 levels deep; anything near this is an attack or an accident,
    # and deep structures would exhaust the recursion of every later stage.
    max_depth: int = 100
    # Expanded size of a document with aliases counted at every use (billion-laughs guard).
    max_expanded_nodes: int = 1_000_000
    max_files: int = 1_000_000


DEFAULT_LIMITS = Limits()
