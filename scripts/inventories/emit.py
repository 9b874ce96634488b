"""YAML emission helpers: kubectl-like output (sorted keys, block style, double-quoted
strings whenever a YAML 1.1 *or* 1.2 reader could read them as something else)."""
import hashlib
import re
import uuid as uuidlib

import yaml


_AMBIGUOUS = [
    re.compile(r"^[-+]?[0-9_]+$"),                      # ints (1.1 octal, 1.2 core incl. 08)
    re.compile(r"^[-+]?0[xXoObB][0-9a-fA-F_]+$"),        # hex/octal/binary
    re.compile(r"^[-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+]?[0-9]+)?$"),
    re.compile(r"^[-+]?[0-9][0-9_]*([eE][-+]?[0-9]+)$"),
    re.compile(r"^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$"),
    re.compile(r"^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$"),
    re.compile(r"^(~|null|Null|NULL)$"),
    re.compile(r"^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$"),  # 1.1 sexagesimal
]


class Dumper(yaml.SafeDumper):
    def increase_indent(self, flow=False, indentless=False):
        # kubectl style: sequences are not indented under their key.
        return super().increase_indent(flow, indentless)


def _str(dumper, value):
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    if value == "" or any(p.match(value) for p in _AMBIGUOUS) or ": " in value or value.endswith(":") \
            or (":" in value and value[:1].isdigit()) or "#" in value \
            or value != value.strip() or value[:1] in "!&*{}[],|>@`'\"%?-":
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style='"')
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


Dumper.add_representer(str, _str)
Dumper.ignore_aliases = lambda self, data: True


def dump(obj):
    return yaml.dump(obj, Dumper=Dumper, sort_keys=True, default_flow_style=False,
                     width=4096, allow_unicode=True)


def document_stream(header_lines, docs):
    """docs: list of (comment_lines, obj)."""
    out = []
    for line in header_lines:
        out.append(("# " + line).rstrip() + "\n")
    for comments, obj in docs:
        out.append("---\n")
        for line in comments:
            out.append(("# " + line).rstrip() + "\n")
        out.append(dump(obj))
    return "".join(out)


_K8S_ALNUM = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery rand.String alphabet


def k8s_suffix(seed, n=5):
    h = hashlib.sha256(seed.encode()).digest()
    return "".join(_K8S_ALNUM[b % len(_K8S_ALNUM)] for b in h[:n])


_NS = uuidlib.UUID("6f1a3c9e-2b7d-4e51-9a0c-7d3e5b2f8a14")


def det_uuid(seed):
    return str(uuidlib.uuid5(_NS, seed))


def det_hex(seed, n):
    return hashlib.sha256(seed.encode()).hexdigest()[:n]


# ---------------------------------------------------------------------------------------
# Object builders


def node(name, labels, capacity, allocatable=None, taints=None, provider_id=None):
    labels = dict(labels)
    labels.setdefault("kubernetes.io/hostname", name)
    labels.setdefault("kubernetes.io/os", "linux")
    labels.setdefault("kubernetes.io/arch", "amd64")
    labels.setdefault("beta.kubernetes.io/os", labels["kubernetes.io/os"])
    labels.setdefault("beta.kubernetes.io/arch", labels["kubernetes.io/arch"])
    spec = {}
    if provider_id:
        spec["providerID"] = provider_id
    if taints:
        spec["taints"] = taints
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels, "uid": det_uuid("node-uid/" + name)},
        "spec": spec,
        "status": {"capacity": capacity, "allocatable": allocatable or capacity},
    }


def device_class(name, expression, extended_resource_name=None, config=None):
    spec = {"selectors": [{"cel": {"expression": expression}}]}
    if config:
        spec["config"] = config
    if extended_resource_name:
        spec["extendedResourceName"] = extended_resource_name
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": name}, "spec": spec}


def resource_slice(name, driver, node_name, pool, slice_count, devices=None,
                   shared_counters=None, generation=1, generate_name=None):
    spec = {"driver": driver, "nodeName": node_name,
            "pool": {"name": pool, "generation": generation, "resourceSliceCount": slice_count}}
    if devices is not None:
        spec["devices"] = devices
    if shared_counters is not None:
        spec["sharedCounters"] = shared_counters
    md = {"name": name}
    if generate_name:
        md["generateName"] = generate_name
    md["ownerReferences"] = [{"apiVersion": "v1", "controller": True, "kind": "Node",
                              "name": node_name, "uid": det_uuid("node-uid/" + node_name)}]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": md, "spec": spec}


def s(v):
    return {"string": v}


def i(v):
    return {"int": v}


def b(v):
    return {"bool": v}


def ver(v):
    return {"version": v}


def q(v):
    return {"value": v}
