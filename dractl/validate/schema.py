"""Schema validation: the kinds dractl reads, checked like the API server decodes them.

The schemas are generated (scripts/gen_schemas.py) from upstream Kubernetes definitions, one
self-contained JSON Schema 2020-12 document per Kubernetes version (dractl/schemas/). They are
plain JSON Schema, so any validator can use them (`SchemaSet.schema_for`); dractl itself compiles
each kind's schema once into small Python closures, because a generic validator resolving `$ref`s
per value is an order of magnitude too slow for thousands of manifests, and because the checks
must mirror the API server's decoder rather than generic JSON Schema wording:

* Unknown fields are errors, like `kubectl apply --validate=strict` (`unknown field "spec.foo"`).
* `null` means "unset", as in Go's decoder: accepted for optional fields, and for a required
  field it is reported exactly like the field being absent.
* Integer fields accept whole numbers only. A float with an integral value (YAML `2.0`) is
  accepted: kubectl converts YAML to JSON through float64, and Go prints float64(2) as `2`, so the
  API server receives `2`. `2.5` or `"2"` is rejected ("must be of type integer"), and the value
  must fit the field's Go type (int32 or int64).
* Quantities accept any JSON number and strings that parse as resource.Quantity;
  int-or-string fields accept strings and int32 integers; `date-time` fields need RFC 3339.
* Required fields missing are errors ("Required value"), except plain integer/boolean fields,
  which the decoder silently sets to 0/false (e.g. ResourcePool.generation): those are warnings
  (DRA0106), and any "must be greater than zero" is for the API-server rules to say.
* YAML timestamps and dates that a YAML 1.2 loader may have turned into datetime objects count as
  strings: kubectl's YAML 1.1 conversion keeps them as strings too.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import re
from functools import lru_cache
from typing import Any, Callable

from dractl.findings import ERROR, WARNING, Finding, MapKey, register, render_path

C_UNKNOWN_FIELD = register("DRA0101", ERROR, "unknown field (strict decoding, as kubectl "
                           "--validate=strict)", "schema")
C_TYPE = register("DRA0102", ERROR, "value has the wrong type for its field", "schema")
C_REQUIRED = register("DRA0103", ERROR, "required field missing", "schema")
C_INVALID = register("DRA0104", ERROR, "value violates the schema (format, range, enum)",
                     "schema")
C_NOT_SERVED = register("DRA0105", ERROR,
                        "the apiVersion of a kind is not served by the selected Kubernetes version",
                        "schema")
C_REQUIRED_SCALAR = register("DRA0106", WARNING, "required integer/boolean field omitted (the "
                             "API server decodes it as 0/false)", "schema")

SERVED, NOT_SERVED, UNKNOWN = "served", "not-served", "unknown"

_QUANTITY_MESSAGE = ("quantities must match the regular expression "
                     "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})\Z")
_INT_RANGES = {"int32": (-(2 ** 31), 2 ** 31 - 1), "int64": (-(2 ** 63), 2 ** 63 - 1)}
_STRINGS = (str, _dt.date)  # datetime is a subclass of date
# Keywords the compiler understands; anything else in a schema is a generator change to review.
_ANNOTATIONS = frozenset({"description", "title", "default", "examples", "$schema", "$comment",
                          "x-dractl", "$defs"})


# ---------------------------------------------------------------------------------------------
# Package data


def _package_text(name: str) -> str:
    """A file of dractl/schemas. Read from the package's directory (every install but a zipped
    one): importlib.resources costs ~14 ms of CPU to import and resolve, at every start-up."""
    import dractl.schemas

    path = os.path.join(os.path.dirname(dractl.schemas.__file__), name)
    if os.path.isfile(path):
        with open(path, encoding="ascii") as handle:
            return handle.read()
    from importlib import resources

    return resources.files("dractl.schemas").joinpath(name).read_text("ascii")


@lru_cache(maxsize=None)
def _index() -> dict:
    return json.loads(_package_text("index.json"))


def kube_versions() -> tuple[str, ...]:
    return tuple(_index()["kubeVersions"])


def _normalize_version(version: str) -> str:
    text = str(version).strip()
    m = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.\d+)?", text)
    if m:
        text = f"{int(m.group(1))}.{int(m.group(2))}"
    if text not in kube_versions():
        raise ValueError(f"unsupported Kubernetes version {version!r}; dractl has schemas for "
                         f"{', '.join(kube_versions())}")
    return text


# ---------------------------------------------------------------------------------------------
# Messages


def _show(value: Any) -> str:
    """A value as the API server prints it in `Invalid value: ...`."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(int(value)) if isinstance(value, int) else repr(float(value))
    if isinstance(value, dict):
        return '"object"'
    if isinstance(value, (list, tuple)):
        return '"array"'
    text = value.isoformat() if isinstance(value, _dt.date) else str(value)
    if len(text) > 200:
        text = text[:200] + "..."
    return json.dumps(text, ensure_ascii=False)


def _type_phrase(types: tuple[str, ...]) -> str:
    names = [t for t in types if t != "null"]
    return "must be of type " + " or ".join(names)


# ---------------------------------------------------------------------------------------------
# Type predicates (JSON types over what a YAML/JSON loader produces)


def _is_integer(v) -> bool:
    if isinstance(v, int):
        return not isinstance(v, bool)
    return isinstance(v, float) and math.isfinite(v) and v.is_integer()


def _is_number(v) -> bool:
    if isinstance(v, int):
        return not isinstance(v, bool)
    return isinstance(v, float) and math.isfinite(v)


_PREDICATES: dict[str, Callable[[Any], bool]] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, _STRINGS),
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
}

Check = Callable[[Any, Any, list], None]  # (value, path, error sink)


# A check's path is a chain of (parent path, key) pairs ending in None at the document: a
# nested value extends it with one small tuple instead of pushing and popping a shared list
# around every call, and it becomes a tuple of keys only for a finding (_keys).
ROOT = None


def _keys(path) -> tuple:
    """The path as a tuple of keys, from the document down."""
    keys = []
    while path is not None:
        path, key = path
        keys.append(key)
    keys.reverse()
    return tuple(keys)


def _ok(_v, _path, _errs) -> None:
    return None


def _accepted_type(check: Check) -> type | None:
    """The one type whose every value `check` accepts without a finding (set by the compiler
    on a plain string field's check: str; on a boolean field's without format or enum: bool).
    Callers skip the check for a value of exactly that type -- about half the values of a
    manifest, for a dict lookup instead of a call and the path bookkeeping. Exact types only:
    anything else (None, another type, a subclass) still goes through the check."""
    return getattr(check, "accepted_type", None)


def _any_of(preds: tuple) -> Callable[[Any], bool] | None:
    """One predicate for "any of these types" (None: no type restriction)."""
    if not preds:
        return None
    if len(preds) == 1:
        return preds[0]

    def any_type(v) -> bool:
        for p in preds:
            if p(v):
                return True
        return False
    return any_type


# ---------------------------------------------------------------------------------------------
# Compiler: JSON Schema subset used by the generated files -> closures


class _Compiler:
    def __init__(self, defs: dict):
        self.defs = defs
        self.compiled: dict[str, Check] = {}

    def ref(self, target: str) -> Check:
        if not target.startswith("#/$defs/"):
            raise ValueError(f"non-local $ref {target!r}")
        name = target[len("#/$defs/"):]
        fn = self.compiled.get(name)
        if fn is not None:
            return fn
        holder: list[Check] = []

        def forward(v, path, errs):  # only reached through a reference cycle
            holder[0](v, path, errs)

        self.compiled[name] = forward
        real = self.compile(self.defs[name])
        holder.append(real)
        self.compiled[name] = real
        return real

    def compile(self, node: dict) -> Check:
        if node is True or node == {}:
            return _ok
        unknown = set(node) - _KEYWORDS - _ANNOTATIONS
        if unknown:
            raise ValueError(f"schema keyword(s) {sorted(unknown)} not supported by dractl's "
                             "schema compiler")
        checks: list[Check] = []
        if "$ref" in node:
            checks.append(self.ref(node["$ref"]))
        if set(node) & _TYPED:
            checks.append(self._typed(node))
        if not checks:
            return _ok
        if len(checks) == 1:
            return checks[0]

        def all_of(v, path, errs):
            for c in checks:
                c(v, path, errs)
        return all_of

    def _typed(self, node: dict) -> Check:
        raw = node.get("type", ())
        types = (raw,) if isinstance(raw, str) else tuple(raw)
        nullable = "null" in types or not types
        real = tuple(t for t in types if t != "null")
        preds = tuple(_PREDICATES[t] for t in real)
        phrase = _type_phrase(real)
        value_check = self._value_check(node, real)
        null_err = _null_error(real)

        if real == ("object",) or (not real and ("properties" in node
                                                 or "additionalProperties" in node)):
            return self._object(node, nullable, _type_phrase(("object",)))
        if real == ("array",):
            items = self.compile(node["items"]) if "items" in node else _ok

            item_type = _accepted_type(items)

            def check_array(v, path, errs):
                if isinstance(v, list):
                    if items is not _ok:
                        for i, item in enumerate(v):
                            if item.__class__ is not item_type:  # see _accepted_type
                                items(item, (path, i), errs)
                elif v is None:
                    errs.append(null_err(path) if not nullable else _unset(path))
                else:
                    errs.append((_keys(path), C_TYPE, ERROR, f"Invalid value: {_show(v)}: {phrase}"))
            return check_array
        if real == ("string",) and value_check is None:
            def check_string(v, path, errs):
                if not isinstance(v, _STRINGS):
                    if v is None:
                        errs.append(null_err(path) if not nullable else _unset(path))
                    else:
                        errs.append((_keys(path), C_TYPE, ERROR,
                                     f"Invalid value: {_show(v)}: {phrase}"))
            check_string.accepted_type = str  # type: ignore[attr-defined]
            return check_string

        type_ok = _any_of(preds)

        def check_scalar(v, path, errs):
            if v is None:
                errs.append(null_err(path) if not nullable else _unset(path))
                return
            if type_ok is not None and not type_ok(v):
                errs.append((_keys(path), C_TYPE, ERROR, f"Invalid value: {_show(v)}: {phrase}"))
                return
            if value_check is not None:
                msg = value_check(v)
                if msg:
                    errs.append((_keys(path), C_INVALID, ERROR, f"Invalid value: {_show(v)}: {msg}"
                                 if not msg.startswith("Unsupported") else msg))
        if real == ("boolean",) and value_check is None:
            check_scalar.accepted_type = bool  # type: ignore[attr-defined]
        return check_scalar

    def _value_check(self, node: dict, types: tuple[str, ...]):
        """A function value -> error message (or None), for format / minimum / enum."""
        parts: list[Callable[[Any], str | None]] = []
        fmt = node.get("format")
        if fmt in _INT_RANGES:
            lo, hi = _INT_RANGES[fmt]
            parts.append(lambda v: None if not _is_integer(v) or lo <= v <= hi
                         else f"must fit in {fmt} ({lo} to {hi})")
        elif fmt == "int-or-string":
            lo, hi = _INT_RANGES["int32"]
            parts.append(lambda v: None if not _is_integer(v) or lo <= v <= hi
                         else f"must fit in int32 ({lo} to {hi})")
        elif fmt == "quantity":
            from dractl.api.quantity import Quantity

            def quantity(v):
                if isinstance(v, str) and not Quantity.is_valid_manifest_value(v):
                    return _QUANTITY_MESSAGE
                return None
            parts.append(quantity)
        elif fmt == "date-time":
            def date_time(v):
                if isinstance(v, _dt.datetime):
                    return None
                text = v.isoformat() if isinstance(v, _dt.date) else v
                if isinstance(text, str) and not _DATE_TIME.match(text):
                    return 'must be an RFC 3339 date-time, e.g. "2006-01-02T15:04:05Z"'
                return None
            parts.append(date_time)
        elif fmt is not None:
            raise ValueError(f"format {fmt!r} not supported by dractl's schema compiler")
        if "minimum" in node:
            minimum = node["minimum"]
            parts.append(lambda v: None if not _is_number(v) or v >= minimum
                         else f"must be greater than or equal to {minimum}")
        if "enum" in node:
            allowed = tuple(node["enum"])
            listed = ", ".join(json.dumps(a, ensure_ascii=False) for a in allowed)
            parts.append(lambda v: None if v in allowed
                         else f"Unsupported value: {_show(v)}: supported values: {listed}")
        if not parts:
            return None
        if len(parts) == 1:
            return parts[0]

        def combined(v):
            for p in parts:
                msg = p(v)
                if msg:
                    return msg
            return None
        return combined

    def _object(self, node: dict, nullable: bool, phrase: str) -> Check:
        props = {name: self.compile(sub) for name, sub in node.get("properties", {}).items()}
        addl_raw = node.get("additionalProperties", True)
        if addl_raw is False:
            addl = False
        elif addl_raw is True or addl_raw == {}:
            addl = None  # anything goes (e.g. RawExtension)
        else:
            addl = self.compile(addl_raw)
        required = tuple(node.get("required", ()))
        scalars = tuple(node.get("x-dractl-required-scalars", ()))
        scalar_zero = {}
        for name in scalars:
            t = node["properties"][name].get("type", ())
            scalar_zero[name] = "false" if "boolean" in t else "0"

        # field -> (the type its check accepts outright, or None; the check). Most values of a
        # manifest are strings and booleans of the right type: the loop recognises them by
        # their type alone, without calling their check (see _accepted_type).
        fields = {name: (_accepted_type(c), c) for name, c in props.items()}
        addl_type = _accepted_type(addl) if addl else None  # maps of strings (labels, ...)

        def check_object(v, path, errs):
            if not isinstance(v, dict):
                if v is None:
                    errs.append((_keys(path), C_REQUIRED, ERROR, "Required value") if not nullable
                                else _unset(path))
                else:
                    errs.append((_keys(path), C_TYPE, ERROR, f"Invalid value: {_show(v)}: {phrase}"))
                return
            for key, value in v.items():
                field = fields.get(key)
                if field is not None:
                    if field[0] is not value.__class__ and field[1] is not _ok:
                        field[1](value, (path, key), errs)
                elif addl is False:
                    where = _keys(path) + (str(key),)
                    shown = json.dumps(render_path(where), ensure_ascii=False)
                    errs.append((where, C_UNKNOWN_FIELD, ERROR, f"unknown field {shown}"
                                 + _did_you_mean(str(key), props)))
                elif addl is not None and value.__class__ is not addl_type:
                    addl(value, (path, MapKey(str(key))), errs)
            for name in required:
                if name not in v:
                    errs.append((_keys(path) + (name,), C_REQUIRED, ERROR, "Required value"))
            for name in scalars:
                if name not in v:
                    errs.append((_keys(path) + (name,), C_REQUIRED_SCALAR, WARNING,
                                 f"Required value: omitted; the API server decodes it as "
                                 f"{scalar_zero[name]}"))
        return check_object


def _did_you_mean(key: str, known) -> str:
    """`; did you mean "allocationMode"?` for a misspelled field (dractl's addition to the
    API server's `unknown field` message)."""
    from dractl.suggest import closest_match

    guess = closest_match(key, sorted(known), cutoff=0.75)
    return f'; did you mean "{guess}"?' if guess else ""


# A null the schema accepts: "unset", as Go's decoder reads it. Not a finding; recorded so that
# the type-safe view (SchemaSet.check) drops the key and no later stage meets a None where it
# expects a value of the field's type.
UNSET = "unset"


def _unset(path) -> tuple:
    return (_keys(path), UNSET, None, "")


def _null_error(types: tuple[str, ...]):
    """`null` where upstream does not allow it (a required field): Go's decoder leaves the field
    unset, so the API server sees what it sees for a missing field."""
    if types and all(t in ("integer", "number", "boolean") for t in types):
        zero = "false" if types == ("boolean",) else "0"
        message = f"Required value: null; the API server decodes it as {zero}"
        return lambda path: (_keys(path), C_REQUIRED_SCALAR, WARNING, message)
    return lambda path: (_keys(path), C_REQUIRED, ERROR, "Required value")


_KEYWORDS = frozenset({"$ref", "type", "properties", "additionalProperties", "required",
                       "x-dractl-required-scalars", "items", "format", "minimum", "enum"})


_TYPED = _KEYWORDS - {"$ref"}


def _drops_value(code: str, message: str) -> bool:
    """Whether a schema finding means the value cannot stand in its field. A value out of an
    integer's range or under a minimum has the right type: it stays, for the API-server rules
    to word their own error about it."""
    if code in (C_UNKNOWN_FIELD, C_TYPE, C_REQUIRED, C_REQUIRED_SCALAR):
        return True
    return code == C_INVALID and "must fit in" not in message and "greater than or equal" not in message


def _path_key(path: tuple) -> tuple:
    return tuple((0, e, "") if isinstance(e, int) and not isinstance(e, bool) else (1, 0, str(e))
                 for e in path)


# ---------------------------------------------------------------------------------------------
# Public API


class SchemaSet:
    """The schemas of one Kubernetes version. Get it with `SchemaSet.for_version("1.37")`."""

    _cache: dict[str, "SchemaSet"] = {}

    def __init__(self, version: str):
        self.version = _normalize_version(version)
        index = _index()
        self._served: dict[str, dict[str, list[str]]] = index["served"]
        self._file = index["files"][self.version]
        self._known_kinds = frozenset(k for kinds in index["kinds"].values() for k in kinds)
        self._document: dict | None = None
        self._compiler: _Compiler | None = None
        self._validators: dict[tuple[str, str], Check] = {}

    @classmethod
    def for_version(cls, version: str) -> "SchemaSet":
        key = _normalize_version(version)
        found = cls._cache.get(key)
        if found is None:
            found = cls._cache[key] = cls(key)
        return found

    # -- what is served ---------------------------------------------------------------------

    def lookup(self, api_version: str, kind: str) -> str:
        """"served", "not-served" (a kind dractl reads, but not as this apiVersion in this
        Kubernetes version) or "unknown" (a kind dractl does not read at all)."""
        if not isinstance(kind, str) or kind not in self._known_kinds:
            return UNKNOWN
        if not isinstance(api_version, str):
            return NOT_SERVED
        if kind in self._served[self.version].get(api_version, ()):
            return SERVED
        return NOT_SERVED

    @property
    def known_kinds(self) -> frozenset:
        """Every kind dractl reads (in some apiVersion of some Kubernetes version)."""
        return self._known_kinds

    def versions_serving(self, api_version: str, kind: str) -> list[str]:
        """Kubernetes versions (of those dractl supports) that serve `kind` as `api_version`."""
        if not isinstance(api_version, str) or not isinstance(kind, str):
            return []
        return [v for v in kube_versions() if kind in self._served[v].get(api_version, ())]

    def api_versions_for(self, kind: str) -> list[str]:
        """The apiVersions that serve `kind` in this Kubernetes version."""
        return sorted(av for av, kinds in self._served[self.version].items() if kind in kinds)

    def not_served_message(self, api_version: str, kind: str) -> str:
        """A DRA0105 message naming where `kind` is served instead."""
        msg = f"{api_version} {kind} is not served by Kubernetes {self.version}"
        elsewhere = self.versions_serving(api_version, kind)
        if elsewhere:
            msg += f"; it is served by Kubernetes {', '.join(elsewhere)}"
        else:
            msg += "; no Kubernetes version dractl supports serves it"
        here = self.api_versions_for(kind)
        if here:
            msg += f" ({self.version} serves {kind} as {', '.join(here)})"
        return msg

    # -- schemas --------------------------------------------------------------------------------

    def _doc(self) -> dict:
        if self._document is None:
            text = _package_text(self._file)
            self._document = json.loads(text)
            self._compiler = _Compiler(self._document["$defs"])
        return self._document

    def definition_name(self, api_version: str, kind: str) -> str | None:
        return self._doc()["x-dractl"]["kinds"].get(api_version, {}).get(kind)

    def schema_for(self, api_version: str, kind: str) -> dict | None:
        """A standalone JSON Schema 2020-12 document for one kind (shares the loaded `$defs`;
        do not mutate it). None when the kind is not served as this apiVersion."""
        name = self.definition_name(api_version, kind)
        if name is None:
            return None
        doc = self._doc()
        return {"$schema": doc["$schema"], "$ref": f"#/$defs/{name}", "$defs": doc["$defs"]}

    def _validator(self, api_version: str, kind: str) -> Check | None:
        key = (api_version, kind)
        fn = self._validators.get(key)
        if fn is None:
            name = self.definition_name(api_version, kind)
            if name is None:
                return None
            assert self._compiler is not None
            fn = self._validators[key] = self._compiler.ref(f"#/$defs/{name}")
        return fn

    def validate(self, doc: dict) -> list[Finding]:
        """Every schema finding of one document, sorted by path. Documents whose apiVersion/kind
        is not served (or unknown) yield nothing here: the pipeline reports those (DRA0105)."""
        return self.check(doc)[0]

    def check(self, doc: dict) -> tuple[list[Finding], list[tuple]]:
        """(findings, paths to drop): the findings of `validate`, and the paths of every value
        that is not what its field's Go type can hold (wrong type, unknown field, invalid
        value, null) -- what dractl.validate.typesafe removes to build the type-safe view."""
        if not isinstance(doc, dict):
            return [Finding(ERROR, C_TYPE, f"Invalid value: {_show(doc)}: must be of type object")], []
        api_version, kind = doc.get("apiVersion"), doc.get("kind")
        if not isinstance(api_version, str) or not isinstance(kind, str):
            return [], []
        check = self._validator(api_version, kind)
        if check is None:
            return [], []
        errs: list = []
        check(doc, ROOT, errs)
        if not errs:
            return [], []
        drop = [e[0] for e in errs if e[1] is UNSET or _drops_value(e[1], e[3])]
        errs = [e for e in errs if e[1] is not UNSET]
        errs.sort(key=lambda e: (_path_key(e[0]), e[1], e[3]))
        return [Finding(sev, code, msg, path) for path, code, sev, msg in errs], drop

    def compile_all(self) -> None:
        """Compile every served kind now (tests; a warm-up before timing)."""
        self._doc()
        for api_version, kinds in self._served[self.version].items():
            for kind in kinds:
                self._validator(api_version, kind)
