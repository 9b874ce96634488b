"""The models stage: every input object read once into a typed, read-only view.

* ObjectModel (objects.py): the object in v1 shape (converted once, dractl.api.convert), the
  mapping of v1 paths back to what the user wrote, a claim's spec with the API server's defaults
  (defaulted once, dractl.api.defaults). `model_of(document)` keeps it with the document.
* Pod, Node, ClaimTemplate, PodGroup (workloads.py): thin typed models of what validation, the
  env lints and the dry run read.
* The one table of pod-template owners and their template paths (controllers.py).
"""

from dractl.models.controllers import (
    CONTROLLER_KINDS,
    POD_TEMPLATE_KINDS,
    TEMPLATE_OWNERS,
    pod_spec_location,
    pod_spec_path,
)
from dractl.models.objects import ObjectModel, as_model, as_models, model_of
from dractl.models.workloads import ClaimTemplate, Node, Pod, PodGroup


def build(documents) -> list[ObjectModel]:
    """The models of `documents` (Documents, models or parsed objects), each built once."""
    return as_models(documents)


__all__ = ["CONTROLLER_KINDS", "POD_TEMPLATE_KINDS", "TEMPLATE_OWNERS", "ClaimTemplate", "Node",
           "ObjectModel", "Pod", "PodGroup", "as_model", "as_models", "build", "model_of",
           "pod_spec_location", "pod_spec_path"]
