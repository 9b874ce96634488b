"""Kubernetes semver library (k8s.io/apiserver/pkg/cel/library/semverlib.go)."""

from __future__ import annotations

from ..k8stypes import Semver, SemverError
from ..values import EvalError, no_such_overload
from . import Library
from ._args import as_str
from .quantity import m_compare_to, m_is_greater_than, m_is_less_than


def v_semver(s, normalize=False):
    s = as_str(s)
    if type(normalize) is not bool:
        raise no_such_overload()
    try:
        return Semver.parse_normalized(s) if normalize else Semver.parse(s)
    except SemverError as e:
        raise EvalError(str(e)) from None


def v_is_semver(s, normalize=False):
    try:
        v_semver(s, normalize)
        return True
    except EvalError:
        if type(s) is not str:
            raise
        return False


def _sv(v) -> Semver:
    if type(v) is not Semver:
        raise no_such_overload()
    return v


def v_major(v):
    return _sv(v).major


def v_minor(v):
    return _sv(v).minor


def v_patch(v):
    return _sv(v).patch


LIBRARY = Library(
    "semver",
    ("semver(string) -> V", "semver(string,bool) -> V", "isSemver(string) -> bool",
     "isSemver(string,bool) -> bool", "V.isGreaterThan(V) -> bool", "V.isLessThan(V) -> bool",
     "V.compareTo(V) -> int", "V.major() -> int", "V.minor() -> int", "V.patch() -> int"),
    functions={
        "semver": v_semver, "isSemver": v_is_semver, "major": v_major, "minor": v_minor,
        "patch": v_patch, "isGreaterThan": m_is_greater_than, "isLessThan": m_is_less_than,
        "compareTo": m_compare_to,
    },
)
