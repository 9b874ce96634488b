"""DeviceClass (docs/spec/api-and-scheduling.md#deviceclass-checklist). Codes 11xx."""

from __future__ import annotations

from dractl.api.limits import CONFIG_MAX
from dractl.findings import ERROR, register

from . import common
from ._base import BAD, Emitter, get_list, get_obj, get_opt_str, invalid, too_many
from ._formats import is_extended_resource_name

C_SELECTORS_MAX = register("DRA1101", ERROR, "a DeviceClass has more than 32 selectors")
C_CONFIG_MAX = register("DRA1102", ERROR, "a DeviceClass has more than 32 config entries")
C_EXTENDED_RESOURCE = register("DRA1103", ERROR,
                               "extendedResourceName is not a valid extended resource name")


def check_device_class(em: Emitter, doc: dict) -> None:
    common.check_object_name(em, doc)
    spec = get_obj(doc, "spec")
    if not isinstance(spec, dict):
        return
    extended = get_opt_str(spec, "extendedResourceName")
    if extended is not None and extended is not BAD and \
            not common.gate_enabled(em, "DRAExtendedResource"):
        del spec["extendedResourceName"]
        common.gate_dropped(em, "DRAExtendedResource", "extendedResourceName",
                            ("spec", "extendedResourceName"),
                            "pods cannot request this class as an extended resource")
        extended = None
    selectors = get_list(spec, "selectors")
    if selectors is not BAD:
        common.check_selectors(em, selectors, ("spec", "selectors"), C_SELECTORS_MAX)
    configs = get_list(spec, "config")
    if configs is not BAD:
        if len(configs) > CONFIG_MAX:
            em.add(C_CONFIG_MAX, too_many(len(configs), CONFIG_MAX), ("spec", "config"))
        else:
            for i, config in enumerate(configs):
                if isinstance(config, dict):
                    common.check_device_configuration(em, config, ("spec", "config", i))
    if isinstance(extended, str) and not is_extended_resource_name(extended):
        em.add(C_EXTENDED_RESOURCE, invalid(extended, "must be a valid extended resource name"),
               ("spec", "extendedResourceName"))
