"""The one table of objects that carry a pod template, and where the template sits.

Validation checks the pod spec inside every one of them (like the API server validates a
Deployment's template); the dry run creates pods only for the controllers marked so (dractl's
own choice: a ReplicationController is legacy, and a PodTemplate creates nothing), and the env
lints look only where the dry run will create pods.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TemplateOwner:
    kind: str
    group: str              # API group: "apps", "batch", "" for core
    template_path: tuple    # where the pod template sits in the object
    creates_pods: bool      # the dry run expands it into pods (dractl.simulate.pods)

    @property
    def pod_spec_path(self) -> tuple:
        return self.template_path + ("spec",)


TEMPLATE_OWNERS: tuple[TemplateOwner, ...] = (
    TemplateOwner("Deployment", "apps", ("spec", "template"), True),
    TemplateOwner("ReplicaSet", "apps", ("spec", "template"), True),
    TemplateOwner("StatefulSet", "apps", ("spec", "template"), True),
    TemplateOwner("DaemonSet", "apps", ("spec", "template"), True),
    TemplateOwner("Job", "batch", ("spec", "template"), True),
    TemplateOwner("CronJob", "batch", ("spec", "jobTemplate", "spec", "template"), True),
    TemplateOwner("ReplicationController", "", ("spec", "template"), False),
    TemplateOwner("PodTemplate", "", ("template",), False),
)

BY_KIND = {owner.kind: owner for owner in TEMPLATE_OWNERS}
# Kinds whose pod template validation checks.
POD_TEMPLATE_KINDS = frozenset(BY_KIND)
# Controllers whose pods the dry run creates.
CONTROLLER_KINDS = tuple(o.kind for o in TEMPLATE_OWNERS if o.creates_pods)

POD_SPEC_PATH = ("spec",)


def pod_spec_path(kind: Any, *, created_only: bool = False) -> tuple | None:
    """Where the pod spec of a Pod or of an owner's template sits (matched by kind alone, as
    the checks always have); created_only: only where the dry run creates pods."""
    if kind == "Pod":
        return POD_SPEC_PATH
    owner = BY_KIND.get(kind) if isinstance(kind, str) else None
    if owner is None or (created_only and not owner.creates_pods):
        return None
    return owner.pod_spec_path


def pod_spec_location(doc: dict) -> tuple[Any, tuple] | None:
    """(pod spec, its path) of a Pod or of the pod template of an owner, else None. The spec
    is whatever the document holds there (any type: callers check)."""
    path = pod_spec_path(doc.get("kind"))
    if path is None:
        return None
    node: Any = doc
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return node, path
