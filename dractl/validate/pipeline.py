"""The validate stage: schema -> API-server rules -> cross-object references, over all documents.

Every check runs per document and never raises: a bug in one rule becomes an internal-error
finding for that document, and the other documents are still checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from dractl.api.versions import FeatureGates
from dractl.load.document import Document
from dractl.load.loader import LoadResult
from dractl.findings import ERROR, WARNING, Finding, register
from dractl.models.objects import model_of

C_NOT_SERVED = register("DRA0105", ERROR,
                        "the apiVersion of a kind is not served by the selected Kubernetes version",
                        "schema")
# Errors about dractl's own env extension: the API server would drop the field and accept the
# object, so they must not keep the pod out of the dry run (the env resolution reports them
# per container instead).
NON_BLOCKING = frozenset({"DRA2010", "DRA2011", "DRA2012", "DRA2013"})



def makes_unusable(finding: Finding) -> bool:
    """Whether a finding keeps its document out of the dry run. The one place this is decided:
    the per-document checks here and the cross-document step of dractl.pipeline both ask it."""
    return finding.severity == ERROR and finding.code not in NON_BLOCKING


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
    invalid: set[int] = field(default_factory=set)             # id() of documents with errors
    files: int = 0
    documents_read: int = 0
    skipped: dict[str, int] = field(default_factory=dict)      # kind -> documents not DRA-related

    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == ERROR)

    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == WARNING)


def validate_documents(load: LoadResult, gates: FeatureGates, *,
                       ignore: Iterable[str] = (), refs: bool = True,
                       kinds: KindFilter | None = None) -> Validated:
    from dractl.extensions import schemas_for  # heavy: schemas load lazily per kind
    from dractl.validate.rules import RuleContext, check_document

    schemas = schemas_for(gates)  # with dractl's opted-in extensions' overlays
    ctx = RuleContext(gates=gates, kube_version=gates.version)
    out = Validated(files=load.files, documents_read=load.documents_read)
    ignored = set(ignore)
    out.findings.extend(f for f in load.findings if f.code not in ignored)

    for doc in load.documents:
        found: list[Finding] = []
        api_version, kind = doc.data.get("apiVersion"), doc.data.get("kind")
        if not isinstance(api_version, str) or not api_version or not isinstance(kind, str) or not kind:
            missing = [n for n, v in (("apiVersion", api_version), ("kind", kind))
                       if not isinstance(v, str) or not v]
            found.append(Finding(ERROR, "DRA0003", f"{' and '.join(missing)} not set; document "
                                 "skipped", (missing[0],)))
            _emit(out, doc, found, ignored)
            continue
        if kinds is not None and kinds.rejects(api_version, kind):
            _emit(out, doc, [Finding(ERROR, C_REJECTED_KIND, f"kind {kind} ({api_version}) is "
                                     "rejected by --reject-kinds", ("kind",))], ignored)
            continue
        if kinds is not None and kinds.skips(api_version, kind):
            out.skipped[kind] = out.skipped.get(kind, 0) + 1
            continue
        status = schemas.lookup(api_version, kind)
        if status == "unknown":
            unknown = unknown_kind_finding(api_version, kind, schemas.known_kinds)
            if unknown is None:  # a Service, an Ingress, a custom resource: not DRA's business
                out.skipped[kind] = out.skipped.get(kind, 0) + 1
                continue
            _emit(out, doc, [unknown], ignored)
            continue
        if status == "not-served":
            serving = schemas.versions_serving(api_version, kind)
            where = (f"served by Kubernetes {', '.join(serving)}" if serving
                     else "not served by any Kubernetes version dractl knows")
            found.append(Finding(ERROR, C_NOT_SERVED, f"{api_version} {kind} is not served by "
                                 f"Kubernetes {gates.version} ({where}); use --kube-version "
                                 "or convert the manifest", ("apiVersion",)))
            _emit(out, doc, found, ignored)
            continue
        found.extend(_guarded("schema", doc, lambda: schemas.validate(doc.data)))
        found.extend(_guarded("rules", doc, lambda: check_document(model_of(doc), ctx)))
        out.documents.append(doc)
        _emit(out, doc, found, ignored)

    if refs:
        by_doc: dict[int, list[Finding]] = {}
        for index, finding in cross_document_findings(out.documents, gates):
            by_doc.setdefault(index, []).append(finding)
        for index, found in by_doc.items():
            _emit(out, out.documents[index], found, ignored)
    out.findings.sort(key=Finding.sort_key)
    return out


# API groups whose kinds are all DRA's: a kind there that dractl does not read is a typo or a
# kind newer than dractl, worth a warning. Everything else a GitOps repository holds (Services,
# Ingresses, ConfigMaps, custom resources) is skipped and only counted.
DRA_GROUPS = ("resource.k8s.io", "scheduling.k8s.io")


def unknown_kind_finding(api_version, kind: str, known_kinds) -> Finding | None:
    """DRA0004 for a kind dractl does not read in a DRA API group, or for a near miss of a kind
    it reads (`Deploymnet`); None for other kinds, which are skipped silently."""
    from dractl.suggest import closest_match

    group = api_version.rpartition("/")[0] if isinstance(api_version, str) else ""
    guess = closest_match(kind, sorted(known_kinds), cutoff=0.8)
    if group not in DRA_GROUPS and guess is None:
        return None
    hint = f"; did you mean {guess}?" if guess else ""
    return Finding(WARNING, "DRA0004", f"dractl does not read kind {kind} ({api_version}); "
                   f"skipped{hint}", ("kind",))


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
    return pairs


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


def _emit(out: Validated, doc: Document, found: list[Finding], ignored: set[str]) -> None:
    for f in found:
        if f.code in ignored:
            continue
        line, column = doc.locate(f.path)
        out.findings.append(f.located(
            file=doc.file, line=line, column=column, api_version=doc.api_version, kind=doc.kind,
            namespace=doc.namespace, name=doc.name))
        if makes_unusable(f):
            out.invalid.add(id(doc))
