"""dractl's own opt-in extensions: what-ifs beyond upstream Kubernetes, off unless asked for with
`--extension NAME` (allocate, capacity) or `extensions: [NAME]` in .dractl.yaml.

Without the opt-in, their fields are what the API server says they are: unknown fields. With it,
a schema overlay accepts them (`schemas_for`), their rules run with the schema, and the dry run
applies them; every finding and reason they add says it is dractl's extension."""

from __future__ import annotations

PODGROUP_CONSTRAINTS = "podgroup-constraints"

# name -> one line for --help and the error message
KNOWN: dict[str, str] = {
    PODGROUP_CONSTRAINTS: "device constraints across a PodGroup's pods (the KEP-5729 review's "
                          "alternative; not in Kubernetes)",
}


class UnknownExtension(ValueError):
    pass


def parse_extensions(names) -> frozenset:
    """The extension names given (repeatable option or comma-separated). Raises UnknownExtension."""
    out = set()
    for raw in names or ():
        for name in (n.strip() for n in str(raw).split(",")):
            if not name:
                continue
            if name not in KNOWN:
                raise UnknownExtension(f"unknown extension {name!r}; dractl knows: {', '.join(sorted(KNOWN))}")
            out.add(name)
    return frozenset(out)


def schemas_for(gates):
    """The SchemaSet for the gates' version, with the overlays of the enabled extensions."""
    from dractl.validate.schema import SchemaSet

    if not getattr(gates, "extensions", None):
        return SchemaSet.for_version(gates.version)
    from dractl.extensions.podgroup_constraints import ExtendedSchemaSet

    return ExtendedSchemaSet.for_extensions(gates.version, gates.extensions)
