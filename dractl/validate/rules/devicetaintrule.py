"""DeviceTaintRule (docs/spec/api-and-scheduling.md#devicetaintrule-checklist). Codes 13xx."""

from __future__ import annotations

from dractl.api.limits import (
    TAINT_RULE_STATUS_CONDITIONS_MAX,
)
from dractl.api.versions import gate_specs
from dractl.findings import ERROR, WARNING, register

from . import common
from ._base import BAD, Emitter, get_list, get_obj, get_opt_str
from ._formats import check_dns_label, check_dns_subdomain, check_driver_name, check_pool_name

C_SELECTOR = register("DRA1301", ERROR, "deviceSelector driver, pool or device name is invalid")
C_TAINT = register("DRA1302", ERROR, "invalid taint (key, value, effect)")
C_CONDITIONS = register("DRA1303", ERROR, "status.conditions: more than 8 or malformed")
C_SELECTOR_134 = register("DRA1304", ERROR,
                          "1.34 deviceSelector deviceClassName invalid or more than 32 selectors")
C_EMPTY_SELECTOR = register("DRA1310", WARNING,
                            "DeviceTaintRule without deviceSelector taints every device in the "
                            "cluster", "dractl")
C_NO_SELECTOR_138 = register("DRA1311", WARNING,
                             "DeviceTaintRule without deviceSelector matches no device (1.38+)",
                             "dractl")



def check_device_taint_rule(em: Emitter, doc: dict) -> None:
    gate = "DRADeviceTaintRules" if "DRADeviceTaintRules" in gate_specs(em.ctx.kube_version) else "DRADeviceTaints"
    if not common.gate_enabled(em, gate):
        em.add(common.C_GATE_KIND, f"DeviceTaintRule is only served when feature gate {gate} is "
                                   f"enabled; it is disabled for Kubernetes {em.ctx.kube_version} "
                                   "with the selected --feature-gates", ("kind",))
    common.check_object_name(em, doc)
    spec = get_obj(doc, "spec")
    if isinstance(spec, dict):
        _check_spec(em, spec)
    status = get_obj(doc, "status")
    if isinstance(status, dict):
        conditions = get_list(status, "conditions")
        if conditions is not BAD:
            common.check_conditions(em, C_CONDITIONS, conditions, ("status", "conditions"),
                                    TAINT_RULE_STATUS_CONDITIONS_MAX)


def _check_spec(em: Emitter, spec: dict) -> None:
    path = ("spec", "deviceSelector")
    selector = get_obj(spec, "deviceSelector")
    empty = isinstance(selector, dict) and all(selector.get(k) in (None, [], "") for k in selector)
    if selector is None and em.in_force("taint_rule_needs_selector"):
        # 1.38 (#141648) matches no device without a selector, as documented; 1.34-1.37 have
        # the bug that such a rule matches every device.
        em.add(C_NO_SELECTOR_138, "the rule has no deviceSelector, so from Kubernetes 1.38 on "
                                  "its taint applies to no device (use `deviceSelector: {}` to "
                                  "taint every device)", ("spec",))
    elif selector is None or empty:
        em.add(C_EMPTY_SELECTOR, "the rule has no deviceSelector (or an empty one), so its taint "
                                 "applies to every device of every driver in the cluster",
               path if selector is not None else ("spec",))
    if isinstance(selector, dict):
        driver = get_opt_str(selector, "driver")
        if isinstance(driver, str):
            check_driver_name(em, C_SELECTOR, driver, path + ("driver",))
        pool = get_opt_str(selector, "pool")
        if isinstance(pool, str):
            check_pool_name(em, C_SELECTOR, pool, path + ("pool",))
        device = get_opt_str(selector, "device")
        if isinstance(device, str):
            check_dns_label(em, C_SELECTOR, device, path + ("device",))
        if not em.in_force("device_taints_135"):
            class_name = get_opt_str(selector, "deviceClassName")
            if isinstance(class_name, str):
                check_dns_subdomain(em, C_SELECTOR_134, class_name, path + ("deviceClassName",))
            selectors = get_list(selector, "selectors")
            if selectors is not BAD:
                common.check_selectors(em, selectors, path + ("selectors",), C_SELECTOR_134)
    taint = get_obj(spec, "taint")
    if taint is not BAD:
        common.check_taint(em, C_TAINT, taint or {}, ("spec", "taint"))



