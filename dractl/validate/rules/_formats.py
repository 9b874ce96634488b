"""Name and value formats of apimachinery / the resource API, with the API server's detail texts.

`is_*` functions return a list of detail messages (empty = valid), like apimachinery's
`validation.IsXxx`. `check_*` functions turn them into findings with the right error type.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from dractl.api.limits import (
    C_IDENTIFIER_MAX,
    DNS1123_LABEL_MAX,
    DNS1123_SUBDOMAIN_MAX,
    DRIVER_NAME_MAX,
    LABEL_VALUE_MAX,
    POOL_NAME_MAX,
    QUALIFIED_NAME_MAX,
    RAW_JSON_MAX,
)
from dractl.findings import WARNING, register

from ._base import Emitter, go_quote, invalid, required, too_long

# Upstream's validateQualifiedName (1.37 and older) has a TODO: names like "a/b/c" "are not
# handled and are implicitly accepted"; 1.38 rejects them on create and update (#141644).
C_MULTI_SLASH = register("DRA1920", WARNING,
                         "qualified name with more than one slash: accepted up to Kubernetes "
                         "1.37, rejected from 1.38", "dractl")


_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_RE = re.compile(f"^{_DNS1123_LABEL_FMT}\\Z")
_DNS1123_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric "
                      "characters or '-', and must start and end with an alphanumeric character")
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_RE = re.compile(f"^{_DNS1123_SUBDOMAIN_FMT}\\Z")
_DNS1123_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                          "characters, '-' or '.', and must start and end with an alphanumeric "
                          "character")
_C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*"
_C_IDENTIFIER_RE = re.compile(f"^{_C_IDENTIFIER_FMT}\\Z")
_C_IDENTIFIER_MSG = ("a valid C identifier must start with alphabetic character or '_', followed "
                     "by a string of alphanumeric characters or '_'")
_QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QUALIFIED_NAME_RE = re.compile(f"^{_QUALIFIED_NAME_FMT}\\Z")
_QUALIFIED_NAME_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start "
                       "and end with an alphanumeric character")
_LABEL_VALUE_FMT = f"({_QUALIFIED_NAME_FMT})?"
_LABEL_VALUE_RE = re.compile(f"^{_LABEL_VALUE_FMT}\\Z")
_LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, "
                    "'-', '_' or '.', and must start and end with an alphanumeric character")

# Semver 2.0.0 exactly as the resource API checks version attributes.
_NUMERIC = r"(0|[1-9]\d*)"
_PRERELEASE = r"(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD = r"[0-9a-zA-Z-]+"
SEMVER_RE = re.compile(
    rf"^{_NUMERIC}\.{_NUMERIC}\.{_NUMERIC}(-{_PRERELEASE}(\.{_PRERELEASE})*)?"
    rf"(\+{_BUILD}(\.{_BUILD})*)?\Z")
SEMVER_MSG = "must be a string compatible with semver.org spec 2.0.0"


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """apimachinery's RegexError (including its double space after each example's comma)."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    out = msg + " (e.g. "
    for i, example in enumerate(examples):
        if i > 0:
            out += " or "
        out += f"'{example}', "
    return out + f"regex used for validation is '{fmt}')"


def max_len_error(n: int) -> str:
    return f"must be no more than {n} characters"


def is_dns1123_label(value: str) -> list[str]:
    errs = []
    if len(value) > DNS1123_LABEL_MAX:
        errs.append(max_len_error(DNS1123_LABEL_MAX))
    if not _DNS1123_LABEL_RE.match(value):
        errs.append(regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errs


def is_dns1123_subdomain(value: str) -> list[str]:
    errs = []
    if len(value) > DNS1123_SUBDOMAIN_MAX:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX))
    if not _DNS1123_SUBDOMAIN_RE.match(value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def is_c_identifier(value: str) -> list[str]:
    if _C_IDENTIFIER_RE.match(value):
        return []
    return [regex_error(_C_IDENTIFIER_MSG, _C_IDENTIFIER_FMT, "my_name", "MY_NAME", "MyName")]


def is_qualified_name(value: str) -> list[str]:
    """apimachinery IsQualifiedName (label keys, taint keys, condition types)."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return ["a qualified name " + regex_error(_QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT,
                                                  "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > QUALIFIED_NAME_MAX:
        errs.append("name part " + max_len_error(QUALIFIED_NAME_MAX))
    if not _QUALIFIED_NAME_RE.match(name):
        errs.append("name part " + regex_error(_QUALIFIED_NAME_MSG, _QUALIFIED_NAME_FMT,
                                               "MyName", "my.name", "123-abc"))
    return errs


def is_label_value(value: str) -> list[str]:
    errs = []
    if len(value) > LABEL_VALUE_MAX:
        errs.append(max_len_error(LABEL_VALUE_MAX))
    if not _LABEL_VALUE_RE.match(value):
        errs.append(regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


# -- emitters --------------------------------------------------------------------------------

# Device names, request names and namespaces repeat across a corpus ("dev-0", "gpu"); a valid
# label stays valid, so each is checked once per process (like _VALID_QUALIFIED below).
_VALID_LABELS: set[str] = set()


def check_dns_label(em: Emitter, code: str, value: str, path: tuple) -> bool:
    """ValidateDNS1123Label: Invalid per message (an empty value is Invalid, not Required)."""
    if value in _VALID_LABELS:
        return True
    msgs = is_dns1123_label(value)
    for msg in msgs:
        em.add(code, invalid(value, msg), path)
    if not msgs and len(_VALID_LABELS) < 100_000:
        _VALID_LABELS.add(value)
    return not msgs


def check_dns_subdomain(em: Emitter, code: str, value: str, path: tuple) -> bool:
    msgs = is_dns1123_subdomain(value)
    for msg in msgs:
        em.add(code, invalid(value, msg), path)
    return not msgs


def check_label_name(em: Emitter, code: str, value: str, path: tuple) -> bool:
    """metav1validation.ValidateLabelName (also used for taint keys and condition names)."""
    msgs = is_qualified_name(value)
    for msg in msgs:
        em.add(code, invalid(value, msg), path)
    return not msgs


def check_label_value(em: Emitter, code: str, value: str, path: tuple) -> bool:
    msgs = is_label_value(value)
    for msg in msgs:
        em.add(code, invalid(value, msg), path)
    return not msgs


def check_driver_name(em: Emitter, code: str, value: str, path: tuple) -> None:
    """ValidateCSIDriverName: Required, Too long and the subdomain check can all fire at once."""
    if value == "":
        em.add(code, required(), path)
    if len(value) > DRIVER_NAME_MAX:
        em.add(code, too_long(DRIVER_NAME_MAX), path)
    for msg in is_dns1123_subdomain(value.lower()):
        em.add(code, invalid(value, msg), path)


def check_pool_name(em: Emitter, code: str, value: str, path: tuple) -> None:
    if value == "":
        em.add(code, required(), path)
        return
    if len(value) > POOL_NAME_MAX:
        em.add(code, too_long(POOL_NAME_MAX), path)
    for part in value.split("/"):
        for msg in is_dns1123_subdomain(part):
            em.add(code, invalid(part, msg), path)


def check_c_identifier(em: Emitter, code: str, value: str, path: tuple) -> None:
    if len(value) > C_IDENTIFIER_MAX:
        em.add(code, too_long(C_IDENTIFIER_MAX), path)
    for msg in is_c_identifier(value):
        em.add(code, invalid(value, msg), path)


# Attribute and capacity keys repeat on every device of an inventory; a valid key stays valid
# (the checks do not depend on the version or gates), so each is checked once per process.
_VALID_QUALIFIED: set[str] = set()


def check_qualified_name(em: Emitter, code: str, value: str, path: tuple,
                         strict_slashes: bool = False) -> None:
    """The resource API's QualifiedName (attribute and capacity keys): `id` or `domain/id`.

    Errors are reported on the map itself (upstream validates keys at the map's path). A name
    with more than one slash is an error from 1.38 on (or with `strict_slashes`, for dractl's
    own lints), and a DRA1920 warning before.
    """
    if value in _VALID_QUALIFIED:
        return
    before = len(em.findings)
    _check_qualified_name(em, code, value, path, strict_slashes)
    if len(em.findings) == before and len(_VALID_QUALIFIED) < 100_000:
        _VALID_QUALIFIED.add(value)


def _check_qualified_name(em: Emitter, code: str, value: str, path: tuple,
                          strict_slashes: bool) -> None:
    parts = value.split("/")
    if len(parts) == 1:
        check_c_identifier(em, code, parts[0], path)
    elif len(parts) == 2:
        domain, name = parts
        if not domain:
            em.add(code, invalid("", "the domain must not be empty"), path)
        else:
            check_driver_name(em, code, domain, path)
        if not name:
            em.add(code, invalid("", "the name must not be empty"), path)
        else:
            check_c_identifier(em, code, name, path)
    elif strict_slashes or em.in_force("qualified_name_single_slash"):
        # 1.38's text (#141644) was not read: UNCONFIRMED wording.
        em.add(code, invalid(value, "must not contain more than one slash"), path)
    else:
        em.add(C_MULTI_SLASH, f"{go_quote(value)} contains more than one slash: Kubernetes "
                              f"{em.ctx.kube_version} accepts it (upstream does not check such "
                              "names before 1.38), 1.38 rejects it on create and update", path)


def check_fully_qualified_name(em: Emitter, code: str, value: str, path: tuple) -> None:
    check_qualified_name(em, code, value, path)
    if "/" not in value:
        em.add(code, invalid(value, "a fully qualified name must be a domain and a name "
                                    "separated by a slash"), path)


def check_uid(em: Emitter, code: str, value: str, path: tuple) -> None:
    try:
        uuid.UUID(value)
    except ValueError:
        detail = (f"invalid UUID length: {len(value)}" if len(value) not in (32, 36, 38, 45)
                  else "invalid UUID format")
        em.add(code, invalid(value, f"error validating uid: {detail}"), path)
        return
    if len(value) != 36 or value != value.lower():
        em.add(code, invalid(value, "uid must be in RFC 4122 normalized form, "
                                    "`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase "
                                    "hexadecimal characters"), path)


def check_raw_json(em: Emitter, code: str, value: Any, path: tuple, present: bool) -> None:
    """RawExtension rules for opaque parameters and device status data.

    In a YAML/JSON manifest the value is already parsed: absent or null means "no raw bytes"
    (Required); anything but a mapping is valid JSON that is not an object.
    """
    if not present or value is None:
        em.add(code, required(), path)
        return
    try:
        raw = json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return
    if len(raw.encode()) > RAW_JSON_MAX:
        em.add(code, too_long(RAW_JSON_MAX), path)
    elif not isinstance(value, dict):
        em.add(code, invalid("<value omitted>", "must be a valid JSON object"), path)


def is_extended_resource_name(name: str) -> bool:
    """v1helper.IsExtendedResourceName."""
    if "/" not in name or "kubernetes.io/" in name or name.startswith("requests."):
        return False
    return not is_qualified_name("requests." + name)

