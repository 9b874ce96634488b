"""A small validator for the XSD subset junit-10.xsd uses, for machines without `xmlschema`.

It reads the schema itself (global elements, complex types with sequence/choice of element
references, attributes with `use="required"`, simple types restricted by a pattern, mixed
content) and checks a document against it. Order inside sequences is not checked: every
sequence in junit-10.xsd wraps a single unbounded choice.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

XS = "{http://www.w3.org/2001/XMLSchema}"


class _Decl:
    def __init__(self, name):
        self.name = name
        self.attributes: dict[str, tuple[bool, str]] = {}  # name -> (required, type)
        self.children: set[str] = set()
        self.mixed = False
        self.simple = False  # xs:string content, no children


def load(path) -> tuple[dict[str, _Decl], dict[str, re.Pattern]]:
    root = ET.parse(path).getroot()
    patterns = {}
    for st in root.findall(f"{XS}simpleType"):
        pat = st.find(f"{XS}restriction/{XS}pattern")
        if pat is not None:
            patterns[st.get("name")] = re.compile(f"^(?:{pat.get('value')})$")
    types = {ct.get("name"): ct for ct in root.findall(f"{XS}complexType")}
    decls = {}
    for el in root.findall(f"{XS}element"):
        d = _Decl(el.get("name"))
        ct = el.find(f"{XS}complexType")
        if ct is None and el.get("type") in types:
            ct = types[el.get("type")]
        if ct is None:
            d.simple = True
        else:
            d.mixed = ct.get("mixed") == "true"
            for ref in ct.iter(f"{XS}element"):
                d.children.add(ref.get("ref") or ref.get("name"))
            for attr in ct.findall(f"{XS}attribute"):
                d.attributes[attr.get("name")] = (attr.get("use") == "required", attr.get("type"))
        decls[d.name] = d
    return decls, patterns


def validate(document_path, schema_path) -> list[str]:
    decls, patterns = load(schema_path)
    errors: list[str] = []

    def check(el, where):
        d = decls.get(el.tag)
        if d is None:
            errors.append(f"{where}: element <{el.tag}> is not declared")
            return
        for name, value in el.attrib.items():
            if name not in d.attributes:
                errors.append(f"{where}: attribute {name!r} not allowed on <{el.tag}>")
                continue
            typ = d.attributes[name][1]
            if typ in patterns and not patterns[typ].match(value):
                errors.append(f"{where}: {name}={value!r} does not match {typ}")
        for name, (required, _) in d.attributes.items():
            if required and name not in el.attrib:
                errors.append(f"{where}: <{el.tag}> lacks required attribute {name!r}")
        if d.simple and len(el):
            errors.append(f"{where}: <{el.tag}> must hold text only")
        if not d.simple and not d.mixed and (el.text or "").strip():
            errors.append(f"{where}: <{el.tag}> must not hold text")
        for i, child in enumerate(el):
            if child.tag not in d.children:
                errors.append(f"{where}: <{child.tag}> not allowed inside <{el.tag}>")
            if not d.mixed and (child.tail or "").strip():
                errors.append(f"{where}: text after <{child.tag}> inside <{el.tag}>")
            check(child, f"{where}/{child.tag}[{i}]")

    root = ET.parse(document_path).getroot()
    check(root, root.tag)
    return errors
