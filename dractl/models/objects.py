"""One model per input object: the object in v1 shape, converted once, with the mapping of v1
paths back to what the user wrote, and (claims and templates) the API server's defaults applied
once.

`model_of(document)` builds the model on first use and keeps it with the document, so every
later stage of the same process (per-document rules, cross-document references, env lints, the
dry run) reads the same conversion. Documents sent to worker processes carry their model back.
"""

from __future__ import annotations

from typing import Any

from dractl.api.convert import GROUP as RESOURCE_GROUP
from dractl.api.convert import Converted, convert
from dractl.api.defaults import defaulted_claim_spec
from dractl.load.document import Document

CLAIM_KINDS = ("ResourceClaim", "ResourceClaimTemplate")


class ObjectModel:
    """A thin, read-only view of one manifest. `data` is what the user wrote (never changed);
    `v1` is the v1-shaped object (the same dict when it already was v1: treat both as read-only,
    deep-copy before mutating)."""

    __slots__ = ("data", "_converted", "_defaulted")

    def __init__(self, data: Any):
        self.data = data
        self._converted: Converted | None = None
        self._defaulted: tuple | None = None   # (spec,) once computed

    def __getstate__(self):
        return (self.data, self._converted, self._defaulted)

    def __setstate__(self, state) -> None:
        self.data, self._converted, self._defaulted = state

    @property
    def converted(self) -> Converted:
        if self._converted is None:
            self._converted = convert(self.data)
        return self._converted

    @property
    def v1(self) -> Any:
        return self.converted.doc

    def original_path(self, path: tuple) -> tuple:
        """A path in the v1 object as a path in what the user wrote."""
        return self.converted.original_path(path)

    @property
    def kind(self) -> str:
        v = self.data.get("kind") if isinstance(self.data, dict) else None
        return v if isinstance(v, str) else ""

    @property
    def group(self) -> str:
        v = self.data.get("apiVersion") if isinstance(self.data, dict) else None
        return v.rpartition("/")[0] if isinstance(v, str) else ""

    def claim_spec(self) -> dict | None:
        """The ResourceClaimSpec (v1 shape) of a ResourceClaim or ResourceClaimTemplate."""
        if self.group != RESOURCE_GROUP or self.kind not in CLAIM_KINDS:
            return None
        v1 = self.v1
        spec = v1.get("spec") if isinstance(v1, dict) else None
        if isinstance(spec, dict) and self.kind == "ResourceClaimTemplate":
            spec = spec.get("spec")
        return spec if isinstance(spec, dict) else None

    def defaulted_claim_spec(self) -> dict | None:
        """claim_spec() with the API server's defaults (allocationMode, count, toleration
        operator), computed once; a private copy: the model's data stays as written."""
        if self._defaulted is None:
            spec = self.claim_spec()
            self._defaulted = (defaulted_claim_spec(spec) if spec is not None else None,)
        return self._defaulted[0]


def model_of(document: Document) -> ObjectModel:
    """The document's model, built once and kept with it."""
    found = document.__dict__.get("_model")
    if found is None:
        found = document.__dict__["_model"] = ObjectModel(document.data)
    return found


def as_model(item: Any) -> ObjectModel:
    """A model for a Document, an ObjectModel (itself) or a bare parsed object (a new model:
    library callers and tests that pass dicts)."""
    if isinstance(item, ObjectModel):
        return item
    if isinstance(item, Document):
        return model_of(item)
    return ObjectModel(item)


def as_models(items) -> list[ObjectModel]:
    return [as_model(item) for item in items]
