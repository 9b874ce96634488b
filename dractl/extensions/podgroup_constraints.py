"""dractl's extension `podgroup-constraints`
(docs/decisions/0001-podgroup-constraints-extension.md): device constraints on a PodGroup's (or a
Workload podGroupTemplate's) `resourceClaims` entries, as proposed in the KEP-5729 review and not
merged upstream. Every device allocated to any member pod's claim generated from such an entry must
satisfy the constraint together with all the others, across pods and nodes.

This module owns the acceptance side: the schema overlay (a `constraints` list on the
PodGroupResourceClaim definitions, only when the extension is on; otherwise the field stays the
API server's unknown-field error) and the rules on it, and registers the extension's codes
(DRA80xx; the dry run's are used by dractl/simulate/groupconstraints.py)."""

from __future__ import annotations

import copy
import json

from dractl.findings import ERROR, INFO, Finding, register
from dractl.validate.schema import SchemaSet, _Compiler

_X = "dractl"
EXTENSION_LABEL = "dractl extension podgroup-constraints"
MAX_GROUP_CONSTRAINTS = 32     # like a claim's constraints (resource.k8s.io DeviceClaim)

C_ATTRIBUTE = register("DRA8001", ERROR, "PodGroup constraint (dractl extension): needs exactly one "
                       "of matchAttribute or distinctAttribute", _X)
C_NAME = register("DRA8002", ERROR, "PodGroup constraint (dractl extension): the attribute is not a "
                  "fully qualified name (domain/name)", _X)
C_SOURCE = register("DRA8003", ERROR, "PodGroup constraint (dractl extension): set on an entry without "
                    "resourceClaimTemplateName (constraints span per-pod claims from a template)", _X)
C_TOO_MANY = register("DRA8004", ERROR, "PodGroup constraint (dractl extension): more than 32 "
                      "constraints on one entry", _X)
# The dry run (dractl/simulate/groupconstraints.py)
C_UNSATISFIED = register("DRA8010", ERROR, "PodGroup constraint (dractl extension): no placement of "
                         "the group satisfies its constraints", _X)
C_PLACED = register("DRA8011", INFO, "PodGroup constraint (dractl extension): the group was placed "
                    "under its constraints (which value, which devices)", _X)
C_TIMEOUT = register("DRA8012", ERROR, "PodGroup constraint (dractl extension): the search for a "
                     "placement ran out of --timeout", _X)
C_BACKTRACK_TIMEOUT = register("DRA8013", ERROR, "PodGroup constraint (dractl extension): the "
                               "backtracking search across the group's pods (distinctAttribute) ran out "
                               "of --timeout", _X)

_CONSTRAINT_DEF = "dractl.extension.PodGroupDeviceConstraint"
_CONSTRAINT_SCHEMA = {
    "additionalProperties": False,
    "properties": {"matchAttribute": {"type": ["string", "null"]},
                   "distinctAttribute": {"type": ["string", "null"]}},
    "type": ["object", "null"],
}


def overlay(document: dict) -> dict:
    """A copy of a version's schema document whose PodGroupResourceClaim definitions (PodGroup
    and Workload templates, every scheduling.k8s.io version) accept `constraints`."""
    out = copy.copy(document)
    defs = out["$defs"] = dict(document["$defs"])
    defs[_CONSTRAINT_DEF] = _CONSTRAINT_SCHEMA
    for name, node in document["$defs"].items():
        if name.startswith("io.k8s.api.scheduling.") and name.endswith("PodGroupResourceClaim"):
            node = defs[name] = copy.deepcopy(node)
            node["properties"]["constraints"] = {"type": ["array", "null"],
                                                 "items": {"$ref": f"#/$defs/{_CONSTRAINT_DEF}"}}
    return out


class ExtendedSchemaSet(SchemaSet):
    """A version's schemas with the overlays of dractl's extensions, plus their rules."""

    _extended: dict[tuple, "ExtendedSchemaSet"] = {}

    def __init__(self, version: str, extensions: frozenset):
        super().__init__(version)
        self.extensions = frozenset(extensions)

    @classmethod
    def for_extensions(cls, version: str, extensions) -> "ExtendedSchemaSet":
        key = (version, tuple(sorted(extensions)))
        found = cls._extended.get(key)
        if found is None:
            found = cls._extended[key] = cls(version, frozenset(extensions))
        return found

    def _doc(self) -> dict:
        if self._document is None:
            self._document = overlay(SchemaSet.for_version(self.version)._doc())
            self._compiler = _Compiler(self._document["$defs"])
        return self._document

    def validate(self, doc: dict) -> list[Finding]:
        return super().validate(doc) + self._extension_findings(doc)

    def check(self, doc: dict):
        """SchemaSet.check (findings and the values the type-safe view drops) plus the rules."""
        found, drops = super().check(doc)
        return found + self._extension_findings(doc), drops

    def _extension_findings(self, doc: dict) -> list[Finding]:
        if isinstance(doc, dict) and doc.get("kind") in ("PodGroup", "Workload") and \
                str(doc.get("apiVersion", "")).startswith("scheduling.k8s.io/"):
            return check_group_constraints(doc, self.version)
        return []


def _entry_lists(doc: dict):
    """(path, resourceClaims list) of a PodGroup's spec or each of a Workload's podGroupTemplates."""
    spec = doc.get("spec")
    if not isinstance(spec, dict):
        return
    if doc.get("kind") == "PodGroup":
        yield ("spec", "resourceClaims"), spec.get("resourceClaims")
        return
    for t, template in enumerate(spec.get("podGroupTemplates") or ()):
        if isinstance(template, dict):
            yield ("spec", "podGroupTemplates", t, "resourceClaims"), template.get("resourceClaims")


def check_group_constraints(doc: dict, version: str) -> list[Finding]:
    """The rules on `constraints` of group claim entries, like a claim's (DRA1021, DRA1022, DRA1018)
    plus the one the extension adds (a constraint spans claims generated from a template)."""
    from dractl.api.versions import FeatureGates
    from dractl.validate.rules import RuleContext
    from dractl.validate.rules._base import Emitter
    from dractl.validate.rules._formats import check_fully_qualified_name

    em = Emitter(RuleContext(gates=FeatureGates(version), kube_version=version))
    for base, entries in _entry_lists(doc):
        if not isinstance(entries, list):
            continue
        for i, entry in enumerate(entries):
            constraints = entry.get("constraints") if isinstance(entry, dict) else None
            if not isinstance(constraints, list) or not constraints:
                continue
            path = base + (i, "constraints")
            if not entry.get("resourceClaimTemplateName"):
                em.add(C_SOURCE, f"[{EXTENSION_LABEL}] constraints apply to the claims each pod gets "
                       "from resourceClaimTemplateName; a named claim is one claim (put the "
                       "constraint in its spec.devices.constraints)", path)
            if len(constraints) > MAX_GROUP_CONSTRAINTS:
                em.add(C_TOO_MANY, f"[{EXTENSION_LABEL}] Too many: {len(constraints)}: must have at "
                       f"most {MAX_GROUP_CONSTRAINTS} items", path)
                continue
            for j, constraint in enumerate(constraints):
                if isinstance(constraint, dict):
                    _check_one(em, constraint, path + (j,), check_fully_qualified_name)
    return [Finding(f.severity, f.code, f.message, f.path) for f in em.findings]


def _check_one(em, constraint: dict, path: tuple, check_name) -> None:
    names = [k for k in ("matchAttribute", "distinctAttribute")
             if isinstance(constraint.get(k), str) and constraint.get(k)]
    if len(names) != 1:
        what = "both are set" if len(names) == 2 else "neither is set"
        em.add(C_ATTRIBUTE, f"[{EXTENSION_LABEL}] exactly one of \"matchAttribute\" or "
               f"\"distinctAttribute\" is required ({what})", path)
        return
    before = len(em.findings)
    check_name(em, C_NAME, constraint[names[0]], path + (names[0],))
    em.findings[before:] = [Finding(f.severity, f.code, f"[{EXTENSION_LABEL}] {f.message}", f.path)
                            for f in em.findings[before:]]


def group_constraint_entries(spec: dict) -> list[dict]:
    """The resourceClaims entries of a PodGroup (or template) spec that carry constraints."""
    return [e for e in (spec.get("resourceClaims") or ()) if isinstance(e, dict)
            and isinstance(e.get("constraints"), list) and e["constraints"]]


def describe(constraint: dict) -> str:
    for key in ("matchAttribute", "distinctAttribute"):
        if constraint.get(key):
            return f"{key} {constraint[key]}"
    return json.dumps(constraint, sort_keys=True)
