"""Kubernetes CEL ``format`` library: ``format.dns1123Label().validate(s)`` and friends.

``validate`` returns ``optional.none()`` when the string is valid, else an optional list of
messages (apimachinery validation wording, abridged).
"""

from __future__ import annotations

import re
import uuid as _uuid

from .values import EvalError, Optional

_DNS1123_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL = r"[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1123_SUB = _DNS1123_LABEL + r"(\." + _DNS1123_LABEL + r")*"
_QNAME_PART = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_VALUE = r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"


def _regex_check(value: str, pattern: str, max_len: int, what: str, example: str) -> list[str]:
    errs = []
    if len(value) > max_len:
        errs.append(f"must be no more than {max_len} characters")
    if not re.fullmatch(pattern, value):
        errs.append(f"a {what} must consist of {example}")
    return errs


def _prefix(fn):
    def check(v: str) -> list[str]:
        # a prefix may end with '-' (a generateName prefix); validate with a trailing 'a'
        return fn(v + "a") if v.endswith("-") else fn(v)
    return check


def _dns1123_label(v):
    return _regex_check(v, _DNS1123_LABEL, 63, "lowercase RFC 1123 label",
                        "lower case alphanumeric characters or '-', and must start and end with an alphanumeric character")


def _dns1123_sub(v):
    return _regex_check(v, _DNS1123_SUB, 253, "lowercase RFC 1123 subdomain",
                        "lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character")


def _dns1035_label(v):
    return _regex_check(v, _DNS1035_LABEL, 63, "DNS-1035 label",
                        "lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character")


def _qualified_name(v):
    prefix, slash, name = v.rpartition("/")
    errs = []
    if slash:
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs += ["prefix part " + e for e in _dns1123_sub(prefix)]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > 63:
        errs.append("name part must be no more than 63 characters")
    if name and not re.fullmatch(_QNAME_PART, name):
        errs.append("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character")
    return errs


def _label_value(v):
    return _regex_check(v, _LABEL_VALUE, 63, "valid label",
                        "alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character")


def _uri(v):
    from urllib.parse import urlsplit
    try:
        p = urlsplit(v)
    except ValueError:
        return ["must be a valid URI"]
    return [] if (p.scheme or v.startswith("/")) else ["must be a valid URI"]


def _uuid_check(v):
    try:
        _uuid.UUID(v)
        return [] if re.fullmatch(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", v) else ["does not match the UUID format"]
    except ValueError:
        return ["does not match the UUID format"]


def _byte(v):
    import base64
    try:
        base64.b64decode(v, validate=True)
        return []
    except Exception:
        return ["invalid base64"]


def _date(v):
    import datetime
    try:
        datetime.date.fromisoformat(v)
        return [] if re.fullmatch(r"\d{4}-\d{2}-\d{2}", v) else ["invalid date"]
    except ValueError:
        return ["invalid date"]


def _datetime(v):
    from .timevalues import f_timestamp
    try:
        f_timestamp(v)
        return []
    except EvalError:
        return ["invalid datetime"]


_VALIDATORS = {
    "dns1123Label": _dns1123_label, "dns1123Subdomain": _dns1123_sub,
    "dns1035Label": _dns1035_label, "qualifiedName": _qualified_name,
    "dns1123LabelPrefix": _prefix(_dns1123_label), "dns1123SubdomainPrefix": _prefix(_dns1123_sub),
    "dns1035LabelPrefix": _prefix(_dns1035_label), "labelValue": _label_value, "uri": _uri,
    "uuid": _uuid_check, "byte": _byte, "date": _date, "datetime": _datetime,
}


class Format:
    __slots__ = ("name",)
    CEL_TYPE = "kubernetes.NamedFormat"

    def __init__(self, name: str):
        self.name = name

    def __eq__(self, o):
        return type(o) is Format and o.name == self.name

    def __hash__(self):
        return hash(("format", self.name))


def format_named(name):
    if type(name) is not str:
        raise EvalError("no such overload")
    return Optional(Format(name)) if name in _VALIDATORS else Optional.NONE


def format_validate(fmt, value):
    if type(fmt) is not Format or type(value) is not str:
        raise EvalError("no such overload")
    errs = _VALIDATORS[fmt.name](value)
    return Optional(errs) if errs else Optional.NONE


FORMAT_FUNCTIONS = {f"format.{n}": (lambda n=n: Format(n)) for n in _VALIDATORS}
