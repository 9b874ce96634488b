"""Errors of a run as a whole (not findings): unusable options or inputs, exit status 2."""


class UsageError(Exception):
    """Bad options or unusable input paths: exit status 2."""
