"""dractl's own inventory lints (DRA7xxx, `validate -i`): manifests checked against what the
inventory's drivers actually publish, and the inventory's pools checked for the defects the
allocator would trip over. None of these is an API-server rule; they are all warnings.

Selector lints read the CEL tree (dractl.cel.parser) for `device.attributes[domain].name`,
`device.attributes[domain][name]`, `device.capacity[domain].name` and their `has()` / `in`
guards, and compare them with the devices a request can get: those its DeviceClass admits (or,
for a class not among the inputs, the devices of the driver the class is named after).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from dractl.api.resource import ModelError, ResourceSlice
from dractl.cel.device import split_name
from dractl.findings import WARNING, Finding, register
from dractl.load.document import Document
from dractl.models import model_of
from dractl.validate.celpositions import expression_position
from dractl.validate.poollints import pool_findings

C_NO_ATTRIBUTE = register("DRA7101", WARNING, "inventory lint: a selector reads an attribute that "
                          "no device it can match publishes (CEL runtime error)", "dractl")
C_DOMAIN = register("DRA7102", WARNING, "inventory lint: a selector addresses an attribute as "
                    "device.attributes[\"domain/name\"] instead of device.attributes[\"domain\"].name",
                    "dractl")
C_UNGUARDED = register("DRA7103", WARNING, "inventory lint: an attribute published by only some "
                       "devices is read without a has() guard", "dractl")
C_NO_VALUE = register("DRA7104", WARNING, "inventory lint: a selector compares an attribute with "
                      "a value no device has", "dractl")
C_CLASS_EMPTY = register("DRA7105", WARNING, "inventory lint: no device in the inventory satisfies "
                         "a DeviceClass", "dractl")
C_NO_CAPACITY = register("DRA7106", WARNING, "inventory lint: a selector reads a capacity that no "
                         "device it can match publishes", "dractl")

_SELECTOR_KINDS = ("DeviceClass", "ResourceClaim", "ResourceClaimTemplate")
_SHAPED_LIKE_V1 = ("resource.k8s.io/v1", "resource.k8s.io/v1beta2")


@dataclass
class _Inventory:
    devices: list = field(default_factory=list)          # dractl.api.resource.Device
    class_devices: dict = field(default_factory=dict)    # class name -> admitted devices


def add_inventory_lints(result, sources: tuple, options) -> None:
    """Append the DRA7xxx findings of a `validate -i` run to `result`, located and sorted."""
    validated = result.validated
    pairs = inventory_findings(validated.documents, validated.invalid, options.gates)
    ignored = set(options.ignore)
    suppressions = validated.suppressions
    for doc, finding, offset in pairs:
        if finding.code in ignored:
            continue
        if offset is not None:
            line, column = expression_position(doc, finding.path, offset)
        else:
            line, column = doc.locate(finding.path)
        located = finding.located(file=doc.file, line=line, column=column,
                                  api_version=doc.api_version, kind=doc.kind,
                                  namespace=doc.namespace, name=doc.name)
        if suppressions is None or not suppressions.covers(located):
            result.findings.append(located)
    result.findings.sort(key=Finding.sort_key)


def inventory_findings(all_documents: list[Document], invalid,
                       gates) -> list[tuple[Document, Finding, int | None]]:
    """(document, finding, offset inside the CEL expression or None) for every lint.

    Pool lints read every slice, usable or not (they explain why a pool is invalid); selector
    lints compare with the devices the dry run would use: those of usable slices."""
    from dractl.cel.engine import SelectorEngine

    engine = SelectorEngine(gates)
    inventory = _Inventory()
    slice_docs = [d for d in all_documents if d.kind == "ResourceSlice" and d.group == "resource.k8s.io"]
    documents = [d for d in all_documents if id(d) not in invalid]
    for doc in slice_docs:
        if id(doc) in invalid:
            continue
        try:
            inventory.devices.extend(ResourceSlice.from_dict(model_of(doc).v1).devices)
        except (ModelError, ValueError, TypeError):
            continue
    out: list = [(doc, f, None) for doc, f in pool_findings(slice_docs)]
    classes = [d for d in documents if d.kind == "DeviceClass" and d.api_version in _SHAPED_LIKE_V1]
    for doc in classes:
        admitted, findings = _check_class(doc, inventory, engine)
        inventory.class_devices[doc.name] = admitted
        out.extend(findings)
    for doc in documents:
        if doc.kind in ("ResourceClaim", "ResourceClaimTemplate") and doc.api_version in _SHAPED_LIKE_V1:
            out.extend(_check_claim(doc, inventory))
    return out


def _check_class(doc: Document, inventory: _Inventory, engine) -> tuple[list, list]:
    spec = doc.data.get("spec") if isinstance(doc.data.get("spec"), dict) else {}
    selectors = _expressions(spec.get("selectors"), ("spec", "selectors"))
    admitted = []
    for device in inventory.devices:
        if all(_matches(engine, text, device) for text, _ in selectors):
            admitted.append(device)
    out = []
    if inventory.devices and not admitted:
        out.append((doc, Finding(WARNING, C_CLASS_EMPTY, f"DeviceClass {doc.name}: none of the "
                                 f"{len(inventory.devices)} device(s) in the inventory satisfies "
                                 "its selectors", ("spec", "selectors") if selectors else ("spec",)),
                    None))
    for text, path in selectors:
        candidates = _by_driver_literal(text, inventory.devices)
        out.extend((doc, f, off) for f, off in _check_expression(text, path, candidates, f"DeviceClass {doc.name}"))
    return admitted, out


def _check_claim(doc: Document, inventory: _Inventory) -> list:
    spec = doc.data.get("spec") if isinstance(doc.data.get("spec"), dict) else {}
    base: tuple = ("spec",)
    if doc.kind == "ResourceClaimTemplate":
        spec = spec.get("spec") if isinstance(spec.get("spec"), dict) else {}
        base = ("spec", "spec")
    devices = spec.get("devices") if isinstance(spec.get("devices"), dict) else {}
    requests = devices.get("requests") if isinstance(devices.get("requests"), list) else []
    out = []
    for i, request in enumerate(requests):
        if not isinstance(request, dict):
            continue
        path = base + ("devices", "requests", i)
        subs = [(request.get("exactly"), path + ("exactly",))]
        alternatives = request.get("firstAvailable")
        if isinstance(alternatives, list):
            subs += [(s, path + ("firstAvailable", j)) for j, s in enumerate(alternatives)]
        for sub, sub_path in subs:
            if not isinstance(sub, dict):
                continue
            candidates = _candidates(sub.get("deviceClassName"), inventory)
            for text, expr_path in _expressions(sub.get("selectors"), sub_path + ("selectors",)):
                owner = f"request {request.get('name')}"
                out.extend((doc, f, off) for f, off in
                           _check_expression(text, expr_path, candidates, owner))
    return out


def _candidates(class_name, inventory: _Inventory) -> list:
    if not isinstance(class_name, str):
        return []
    if class_name in inventory.class_devices:
        return inventory.class_devices[class_name]
    # A class not among the inputs: drivers name their class after themselves (gpu.nvidia.com).
    return [d for d in inventory.devices if d.driver == class_name]


def _matches(engine, text: str, device) -> bool:
    try:
        return engine.matches(text, device)
    except Exception:  # noqa: BLE001 - a CEL error admits nothing, like the allocator
        return False


def _expressions(selectors, path: tuple) -> list[tuple[str, tuple]]:
    out = []
    if isinstance(selectors, list):
        for i, s in enumerate(selectors):
            cel = s.get("cel") if isinstance(s, dict) else None
            text = cel.get("expression") if isinstance(cel, dict) else None
            if isinstance(text, str):
                out.append((text, path + (i, "cel", "expression")))
    return out


def _by_driver_literal(text: str, devices: list) -> list:
    """A class selector's devices: those of the drivers it compares device.driver with."""
    from dractl.validate.celrefs import driver_literals

    drivers = driver_literals(text)
    return [d for d in devices if d.driver in drivers] if drivers else devices


def _check_expression(text: str, path: tuple, candidates: list, owner: str) -> list:
    from dractl.validate.celrefs import references

    if not candidates:
        return []
    refs, guarded, comparisons = references(text)
    out = []
    reported = set()
    for ref in refs:
        if (ref.map, ref.domain, ref.name) in reported:
            continue
        reported.add((ref.map, ref.domain, ref.name))
        found = _check_reference(ref, path, candidates, guarded, owner)
        if found is not None:
            out.append(found)
    for ref, value in comparisons:
        found = _check_value(ref, value, path, candidates, owner)
        if found is not None:
            out.append(found)
    return out


def _published(devices: list, map_name: str) -> dict[tuple[str, str], list]:
    """(domain, name) -> devices publishing it, for attributes or capacity."""
    out: dict[tuple[str, str], list] = {}
    for device in devices:
        names = device.attributes if map_name == "attributes" else device.capacity
        for key in names:
            out.setdefault(split_name(key, device.driver), []).append(device)
    return out


def _drivers(devices: list) -> str:
    return ", ".join(sorted({d.driver for d in devices}))


def _check_reference(ref, path: tuple, candidates: list, guarded: set, owner: str):
    published = _published(candidates, ref.map)
    publishers = published.get((ref.domain, ref.name), [])
    shown = f"device.{ref.map}[\"{ref.domain}\"].{ref.name}"
    if not publishers:
        domain, sep, name = ref.domain.partition("/")
        if sep and (domain, name) in published and ref.map == "attributes":
            return Finding(WARNING, C_DOMAIN, f"{owner}: device.attributes[\"{ref.domain}\"] names "
                           f"no domain: attributes are indexed by domain, then name; did you mean "
                           f"device.attributes[\"{domain}\"].{name}?", path), ref.domain_offset
        code = C_NO_ATTRIBUTE if ref.map == "attributes" else C_NO_CAPACITY
        what = "attribute" if ref.map == "attributes" else "capacity"
        names = sorted(f"{d}/{n}" if d != candidates[0].driver else n for d, n in published)
        wanted = ref.name if ref.domain == candidates[0].driver else f"{ref.domain}/{ref.name}"
        close = difflib.get_close_matches(wanted, names, n=1, cutoff=0.6)
        hint = f"; did you mean {close[0]}?" if close else ""
        listing = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "") or "none"
        return Finding(WARNING, code, f"{owner}: {shown}: no {_drivers(candidates)} device in the "
                       f"inventory publishes {what} {ref.domain}/{ref.name} (a CEL runtime error "
                       f"on every device){hint}; published: {listing}", path), ref.name_offset
    if len(publishers) < len(candidates) and (ref.map, ref.domain, ref.name) not in guarded:
        missing = [d for d in candidates if d not in publishers]
        return Finding(WARNING, C_UNGUARDED, f"{owner}: {shown} is published by {len(publishers)} "
                       f"of {len(candidates)} device(s) (not by {_device_names(missing)}); guard it "
                       f"with has({shown}) or the selector fails with a CEL runtime error on the "
                       "others", path), ref.name_offset
    return None


def _device_names(devices: list) -> str:
    names = [f"{d.pool}/{d.name}" for d in devices[:3]]
    return ", ".join(names) + (", ..." if len(devices) > 3 else "")


def _check_value(ref, value, path: tuple, candidates: list, owner: str):
    if ref.map != "attributes":
        return None
    values = []
    for device in candidates:
        for key, av in device.attributes.items():
            if av is not None and split_name(key, device.driver) == (ref.domain, ref.name):
                values.append(av.value)
    if not values or any(_same(v, value) for v in values):
        return None
    shown = sorted({str(v) for v in values})
    close = difflib.get_close_matches(str(value), shown, n=1, cutoff=0.6) \
        if isinstance(value, str) else []
    hint = f"; did you mean {close[0]!r}?" if close else ""
    listing = ", ".join(shown[:12]) + (", ..." if len(shown) > 12 else "")
    return Finding(WARNING, C_NO_VALUE, f"{owner}: no device in the inventory has "
                   f"{ref.domain}/{ref.name} == {value!r}{hint}; values: {listing}", path), \
        ref.value_offset


def _same(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return a == b
