"""The validate stage: schema -> API-server rules -> cross-object references, over all documents.

Every check runs per document and never raises: a bug in one rule becomes an internal-error
finding for that document, and the other documents are still checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from dractl.api.versions import FeatureGates
from dractl.findings import ERROR, WARNING, Finding, register
from dractl.load.document import Document
from dractl.load.loader import LoadResult
from dractl.models.objects import model_of

C_NOT_SERVED = register("DRA0105", ERROR,
                        "the apiVersion of a kind is not served by the selected Kubernetes version",
                        "schema")
# Errors about dractl's own env extension: the API server would drop the field and accept the
# object, so they must not keep the pod out of the dry run (the env resolution reports them
# per container instead).
NON_BLOCKING = frozenset({"DRA2010", "DRA2011", "DRA2012", "DRA2013"})


def makes_unusable(finding: Finding, *, inventory: bool = False, kind: str = "") -> bool:
    """Whether a finding keeps its document out of the dry run. The one place this is decided:
    the per-document checks here and the cross-document step of dractl.pipeline both ask it.

    inventory: the document describes cluster state (given with -i, or it carries a status as
    dumps do). Such an object exists, so only a finding on a field the allocator reads makes it
    unusable; metadata, status bookkeeping and fields the server drops do not
    (docs/decisions/0003-inventory-is-cluster-state.md)."""
    if finding.severity != ERROR or finding.code in NON_BLOCKING:
        return False
    return not inventory or changes_what_allocator_reads(finding, kind)


# Fields the API server drops rather than stores (strict decoding only): an object in a cluster
# never has them, so an inventory object that shows them is read without them.
DROPPED_BY_SERVER = frozenset({"DRA0101", "DRA1910"})
# What the allocator reads of a claim's status: the allocation. reservedFor and device
# conditions are bookkeeping of the controllers and the driver.
_CLAIM_STATUS_READ = frozenset({"allocation"})


def changes_what_allocator_reads(finding: Finding, kind: str) -> bool:
    """Whether a finding on an inventory object concerns something the dry run uses."""
    if finding.code in DROPPED_BY_SERVER:
        return False
    path = finding.path
    if not path:
        return True
    if path[0] == "metadata":
        return False
    if path[0] == "status":
        return kind == "ResourceClaim" and len(path) > 1 and path[1] in _CLAIM_STATUS_READ
    return True


C_LEFT_OUT = register("DRA7001", WARNING, "inventory objects left out of the dry run because "
                      "they cannot be used (the devices they publish are not counted)", "dractl")


@dataclass(frozen=True)
class InventoryPolicy:
    """Which inputs describe cluster state, and how strictly their findings count.

    sources: file or directory names as shown in findings (builtin:NAME for built-ins, <stdin>
    for -). strict: keep errors on inventory objects errors (--strict-inventory)."""

    sources: tuple = ()
    strict: bool = False

    def covers(self, doc: Document) -> bool:
        status = doc.data.get("status")
        if isinstance(status, dict) and status and doc.kind in STATE_KINDS:
            return True  # as dumped from a cluster: the server (or a controller) wrote it
        return self.from_inventory_file(doc.file)

    def from_inventory_file(self, name: str) -> bool:
        for source in self.sources:
            if name == source or name.startswith(source.rstrip("/") + "/"):
                return True
        return False


NO_INVENTORY = InventoryPolicy()
# Kinds whose objects with a status are cluster state wherever they are given (a Pod or a
# Deployment with a status is still a workload to check).
STATE_KINDS = frozenset({"ResourceSlice", "DeviceClass", "ResourceClaim", "DeviceTaintRule", "Node",
                         "PodGroup", "Workload", "Namespace"})


class Unusable(set):
    """id() of documents the dry run leaves out, with the codes that decided it (for the
    explanations that say which objects were left out and why)."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.codes: dict[int, tuple[str, ...]] = {}

    def mark(self, doc_id: int, code: str) -> None:
        self.add(doc_id)
        known = self.codes.get(doc_id, ())
        if code not in known:
            self.codes[doc_id] = known + (code,)


C_INTERNAL = register("DRA0999", ERROR, "internal error in a dractl check (please report it)",
                      "dractl")
C_REJECTED_KIND = register("DRA0015", ERROR, "a document of a kind rejected with --reject-kinds",
                           "dractl")


@dataclass(frozen=True)
class KindFilter:
    """kubeconform's -skip / -reject: kinds (`Service`) or apiVersion/kind
    (`networking.k8s.io/v1/Ingress`) to skip (counted as skipped) or to reject (an error)."""

    skip: frozenset = frozenset()
    reject: frozenset = frozenset()

    @staticmethod
    def _matches(names: frozenset, api_version, kind) -> bool:
        return kind in names or f"{api_version}/{kind}" in names

    def skips(self, api_version, kind) -> bool:
        return self._matches(self.skip, api_version, kind)

    def rejects(self, api_version, kind) -> bool:
        return self._matches(self.reject, api_version, kind)


@dataclass
class Validated:
    """Documents that passed loading, with their findings, ready for the next stages."""

    documents: list[Document] = field(default_factory=list)   # known kinds, served, in input order
    findings: list[Finding] = field(default_factory=list)
    invalid: Unusable = field(default_factory=Unusable)        # id() of unusable documents
    files: int = 0
    documents_read: int = 0
    skipped: dict[str, int] = field(default_factory=dict)      # kind -> documents not DRA-related
    skipped_docs: dict[int, str] = field(default_factory=dict)  # id() of skipped documents -> why
    suppressions: object = None    # dractl.validate.suppress.Suppressions of the inputs, or None

    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == ERROR)

    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == WARNING)


def validate_documents(load: LoadResult, gates: FeatureGates, *,
                       ignore: Iterable[str] = (), refs: bool = True,
                       kinds: KindFilter | None = None,
                       inventory: "InventoryPolicy | None" = None,
                       suppressions=None) -> Validated:
    """suppressions: the inputs' inline suppressions (dractl.validate.suppress), which drop the
    findings they cover."""
    from dractl.extensions import schemas_for  # heavy: schemas load lazily per kind
    from dractl.validate.rules import RuleContext, check_document

    schemas = schemas_for(gates)  # with dractl's opted-in extensions' overlays
    ctx = RuleContext(gates=gates, kube_version=gates.version)
    out = Validated(files=load.files, documents_read=load.documents_read, suppressions=suppressions)
    ignored = set(ignore)
    policy = inventory or NO_INVENTORY
    out.findings.extend(f for f in load.findings if f.code not in ignored
                        and not (suppressions is not None and suppressions.covers(f)))

    for doc in load.documents:
        found: list[Finding] = []
        api_version, kind = doc.data.get("apiVersion"), doc.data.get("kind")
        if not isinstance(api_version, str) or not api_version or not isinstance(kind, str) or not kind:
            missing = [n for n, v in (("apiVersion", api_version), ("kind", kind))
                       if not isinstance(v, str) or not v]
            found.append(Finding(ERROR, "DRA0003", f"{' and '.join(missing)} not set; document "
                                 "skipped", (missing[0],)))
            _emit(out, doc, found, ignored, policy)
            continue
        if kinds is not None and kinds.rejects(api_version, kind):
            _emit(out, doc, [Finding(ERROR, C_REJECTED_KIND, f"kind {kind} ({api_version}) is "
                                     "rejected by --reject-kinds", ("kind",))], ignored)
            continue
        if kinds is not None and kinds.skips(api_version, kind):
            out.skipped[kind] = out.skipped.get(kind, 0) + 1
            out.skipped_docs[id(doc)] = "--skip-kinds"
            continue
        status = schemas.lookup(api_version, kind)
        if status != "served":
            found = _not_read(out, schemas, api_version, kind, gates.version)
            if found:
                _emit(out, doc, found, ignored, policy)
            else:
                out.skipped_docs[id(doc)] = f"dractl does not read {kind} ({api_version})"
            continue
        checked = _guarded("schema", doc, lambda: [schemas.check(doc.data)])  # noqa: B023 (called at once)
        if len(checked) != 1 or not isinstance(checked[0], tuple):
            # The schema check itself failed: nothing is known about the document's types, so
            # no later stage may read it (it is reported, counted invalid, and goes no further).
            _emit(out, doc, checked, ignored, policy, force_invalid=True)
            continue
        schema_findings, drops = checked[0]
        checked_doc = doc
        if any(f.code == "DRA0101" for f in schema_findings):  # rare: hints cost nothing otherwise
            checked_doc, schema_findings, drops = _unknown_fields(doc, schemas, schema_findings,
                                                                  drops, gates.version)
        view = _view(checked_doc, drops)
        found.extend(schema_findings)
        found.extend(_guarded("rules", view, lambda: check_document(model_of(view), ctx)))  # noqa: B023
        out.documents.append(view)
        _emit(out, view, found, ignored, policy, identity=doc)

    if refs:
        by_doc: dict[int, list[Finding]] = {}
        for index, finding in cross_document_findings(out.documents, gates):
            by_doc.setdefault(index, []).append(finding)
        for index, found in by_doc.items():
            _emit(out, out.documents[index], found, ignored, policy)
    out.findings.sort(key=Finding.sort_key)
    return out


def _not_read(out: Validated, schemas, api_version: str, kind: str, release: str) -> list[Finding]:
    """The findings of a document dractl's schemas do not serve (empty: skipped and counted as
    a kind that is not DRA's business; dractl.validate.apiversions decides which)."""
    from dractl.validate import apiversions

    if schemas.lookup(api_version, kind) == "unknown":
        unknown = apiversions.unknown_kind_finding(C_UNKNOWN_KIND, api_version, kind,
                                                   schemas.known_kinds, release)
    elif apiversions.is_custom_resource(api_version):
        unknown = None  # a custom resource named like a kind dractl reads (a CRD's PodGroup)
    else:
        message = apiversions.not_served_message(api_version, kind, release,
                                                 schemas.versions_serving(api_version, kind),
                                                 schemas.api_versions_for(kind))
        return [Finding(ERROR, C_NOT_SERVED, message, ("apiVersion",))]
    if unknown is None:
        out.skipped[kind] = out.skipped.get(kind, 0) + 1
        return []
    return [unknown]


def _unknown_fields(doc: Document, schemas, findings: list[Finding], drops: list, release: str):
    """(document to check, schema findings, drops) for a document with unknown fields: checked
    as the apiVersion whose shape it has when one fits (a v1 claim under v1beta1), with DRA0107
    saying so; else its own findings with hints (dractl.validate.fieldhints)."""
    from dractl.validate import fieldhints

    candidate = fieldhints.other_shape(doc.data, schemas, doc.api_version, doc.kind)
    if candidate is None:
        return doc, fieldhints.explain_unknown_fields(findings, doc, schemas, release), drops
    unknown = [f for f in findings if f.code == "DRA0101"]
    data = dict(doc.data, apiVersion=candidate)
    other = Document(data, doc.file, doc.index, doc.line, doc.column, doc.prefix, doc.positions)
    found, drops = schemas.check(data)
    shape = fieldhints.other_shape_finding(doc.api_version, candidate, doc.kind, unknown)
    return other, [shape] + found, drops


C_UNKNOWN_KIND = "DRA0004"  # registered by dractl.load.parse with the loader's codes


def cross_document_findings(documents: list[Document], gates: FeatureGates) -> list[tuple[int, Finding]]:
    """The checks that need every document at once: references between objects, then dractl's
    env-ref lints. (index into documents, finding); each check guarded on its own."""
    from dractl.validate.envlints import check_env_refs
    from dractl.validate.refs import check_references
    from dractl.validate.rules import RuleContext

    if not documents:
        return []
    ctx = RuleContext(gates=gates, kube_version=gates.version)
    models = [model_of(d) for d in documents]
    pairs: list[tuple[int, Finding]] = []
    for stage, check in (("references", lambda: check_references(models, ctx)),
                         ("env lints", lambda: check_env_refs(models))):
        try:
            pairs.extend(check())
        except RecursionError:
            pairs.append((0, Finding(ERROR, "DRA0011", "a document nests too deeply to check")))
        except Exception as exc:  # noqa: BLE001 - one broken check must not hide the others
            pairs.append((0, _internal(stage, exc)))
    return collapse_pairs(pairs)


# dractl's own bound on the finding stream: one object can repeat a finding a million times (a
# claim with 1,000,000 requests naming a missing class). Each (object, code) keeps its first
# REPEATS_SHOWN findings, then one more that counts the rest, so memory, positions and every
# report stay proportional to what a person can read.
REPEATS_SHOWN = 100


def collapse(found: list[Finding]) -> list[Finding]:
    """`found` (one object's findings, in order) with each code cut after REPEATS_SHOWN."""
    if len(found) <= REPEATS_SHOWN:
        return found
    counts: dict[str, int] = {}
    for f in found:
        counts[f.code] = counts.get(f.code, 0) + 1
    if max(counts.values()) <= REPEATS_SHOWN:
        return found
    kept: list[Finding] = []
    seen: dict[str, int] = {}
    for f in found:
        n = seen[f.code] = seen.get(f.code, 0) + 1
        if n <= REPEATS_SHOWN:
            kept.append(f)
        elif n == REPEATS_SHOWN + 1:
            more = counts[f.code] - REPEATS_SHOWN
            kept.append(Finding(f.severity, f.code, f"... and {more} more {f.code} finding(s) "
                                f"like the ones above on this object (dractl shows the first "
                                f"{REPEATS_SHOWN} of each code)", f.path))
    return kept


def collapse_pairs(pairs: list[tuple[int, Finding]]) -> list[tuple[int, Finding]]:
    """collapse() per document over (document index, finding) pairs, order kept."""
    if len(pairs) <= REPEATS_SHOWN:
        return pairs
    by_doc: dict[int, list[Finding]] = {}
    for index, f in pairs:
        by_doc.setdefault(index, []).append(f)
    if all(len(v) <= REPEATS_SHOWN for v in by_doc.values()):
        return pairs
    out: list[tuple[int, Finding]] = []
    for index, found in by_doc.items():
        out.extend((index, f) for f in collapse(found))
    return out


def _guarded(stage: str, doc: Document, check) -> list[Finding]:
    try:
        return list(check())
    except RecursionError:
        return [Finding(ERROR, "DRA0011", "document nests too deeply to check")]
    except Exception as exc:  # noqa: BLE001
        return [_internal(stage, exc)]


def _internal(stage: str, exc: BaseException) -> Finding:
    return Finding(ERROR, C_INTERNAL, f"internal error in the {stage} check: "
                   f"{type(exc).__name__}: {exc}")


def _view(doc: Document, drops: list[tuple]) -> Document:
    """The document every later stage reads: its type-safe view (dractl.validate.typesafe)."""
    if not drops:
        return doc
    from dractl.validate.typesafe import type_safe_view

    data = type_safe_view(doc.data, drops)
    if data is doc.data:
        return doc
    return Document(data, doc.file, doc.index, doc.line, doc.column, doc.prefix, doc.positions)


def _emit(out: Validated, doc: Document, found: list[Finding], ignored: set[str],
          policy: "InventoryPolicy" = None, *, identity: Document | None = None,
          force_invalid: bool = False) -> None:
    """Locate and record `found` on `doc`; `identity` is the document as written (its name and
    namespace, which the type-safe view may have dropped)."""
    if force_invalid:
        out.invalid.mark(id(doc), "DRA0999")
    if not found:
        return  # a clean document (nearly all of them): nothing to locate or record
    kept = collapse(deduplicate([f for f in found if f.code not in ignored]))
    places = doc.locate_many([f.path for f in kept]) if kept else []
    for f, (line, column) in zip(kept, places, strict=True):
        record(out, doc, f, line, column, policy or NO_INVENTORY, who=identity or doc)


def record(out: Validated, doc: Document, finding: Finding, line: int, column: int,
           policy: "InventoryPolicy", who: Document | None = None) -> None:
    """Add one located finding of `doc` to `out`, and leave the document out of the dry run if
    the finding makes it unusable. Findings on objects given as inventory are warnings unless
    the policy is strict: they describe what exists, not what the user is about to apply."""
    inventory = policy.covers(doc)
    shown = finding
    # Demoted only for what was given as inventory: an object with a status among the
    # manifests keeps its errors (they are still wrong), but is not dropped for bookkeeping.
    if inventory and finding.severity == ERROR and not policy.strict \
            and finding.code not in NEVER_DEMOTED and policy.from_inventory_file(doc.file):
        shown = finding.located(severity=WARNING)
    who = who or doc  # the document as written: the type-safe view may lack its name
    located = shown.located(file=doc.file, line=line, column=column, api_version=who.api_version,
                            kind=who.kind, namespace=who.namespace, name=who.name)
    if out.suppressions is not None and out.suppressions.covers(located):
        return  # the manifest says to ignore it: not reported, and not held against the object
    out.findings.append(located)
    if makes_unusable(finding, inventory=inventory, kind=doc.kind):
        out.invalid.mark(id(doc), finding.code)


# Errors that are about dractl itself or about reading the file, not about the object.
NEVER_DEMOTED = frozenset({"DRA0999", "DRA1999", "DRA0011"})


def deduplicate(found: list[Finding]) -> list[Finding]:
    """The same field reported once (docs/decisions/0003-inventory-is-cluster-state.md): a `Required
    value` at a path says all there is about that path and everything under it (an empty string is
    not also "invalid", a missing pool has no missing name), and a field dropped for a disabled gate
    is not also reported as missing on the object that held it. Linear in the findings (times the
    path depth)."""
    # A value of the wrong type (DRA0102) is the cause: the type-safe view drops it, so rules
    # that then find the field missing say nothing new. It is never covered by them.
    wrong_type = {f.path for f in found if f.code == "DRA0102"}
    first_required: dict[tuple, Finding] = {}
    for f in found:
        if _bare_required(f) and not any(f.path[:k] in wrong_type for k in range(1, len(f.path) + 1)):
            first_required.setdefault(f.path, f)
    dropped = {f.path[:-1] for f in found if f.code == "DRA1910" and len(f.path) > 1}
    out: list[Finding] = []
    for f in found:
        path = f.path
        covering = next((path[:k] for k in range(1, len(path) + 1) if path[:k] in first_required),
                        None)
        if covering is not None and first_required[covering] is not f and f.code != "DRA0102":
            continue  # a shorter (or earlier) Required value already says it
        if f.code != "DRA0102" and _bare_required(f) and \
                any(path[:k] in wrong_type for k in range(1, len(path) + 1)):
            continue  # missing only because the wrong-typed value was dropped
        if path in dropped and f.code != "DRA1910":
            continue
        out.append(f)
    return out


def _bare_required(f: Finding) -> bool:
    # "spec.pool: Required value" says a field is missing; "spec: Required value: exactly one
    # of ..." is about a choice among fields and covers nothing else.
    return bool(f.path) and f.message.rstrip().endswith("Required value")
