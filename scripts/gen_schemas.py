#!/usr/bin/env python3
"""Generate dractl's JSON Schemas (dractl/schemas/) from upstream Kubernetes definitions.

Never edit the generated files by hand: change this script and run it again.

Source
    The `kubernetes-validate` package from PyPI, version SOURCE_VERSION (a dev-only tool, not a
    runtime dependency: `pip install kubernetes-validate==1.37.0`). For every Kubernetes minor
    version it ships `kubernetes-json-schema/v1.NN.0-local-strict/_definitions.json`: the
    `definitions` of that release's OpenAPI document (api/openapi-spec/swagger.json of
    kubernetes/kubernetes at tag v1.NN.0) converted to JSON Schema 2020-12, every field nullable,
    and `additionalProperties: false` on every object that declares properties ("strict", like
    `kubectl apply --validate=strict`). Every kind and apiVersion dractl reads is in there for
    1.34 - 1.37, so no definition comes from anywhere else.

Two stages, so the output can be rebuilt without the source package:

1. extract (needs kubernetes-validate): for each Kubernetes version, take the definitions that
   carry an `x-kubernetes-group-version-kind` of a kind dractl reads (KINDS), plus everything
   they reference, drop the `description` texts (documentation only) and write them otherwise
   verbatim to `dractl/schemas/upstream-k8s-<version>.json.gz`, together with the source's name,
   version, path and sha256. This is the committed snapshot of the upstream input.

2. build (pure function of the snapshot): apply the documented TRANSFORMS and write
   `dractl/schemas/k8s-<version>.json` (one self-contained JSON Schema 2020-12 document per
   Kubernetes version: a local `$defs` section, every `$ref` local; the kinds it serves are listed
   under `x-dractl.kinds` as apiVersion -> kind -> definition name) and `dractl/schemas/index.json`
   (which apiVersion serves which kind per version, the sources, the transforms). One file per
   version rather than per kind because PodSpec and its ~200 definitions are shared by eight
   kinds; dractl compiles a validator per kind lazily on first use.

Usage
    python scripts/gen_schemas.py                  # extract + build (falls back to the snapshot,
                                                   # with a notice, if kubernetes-validate is missing)
    python scripts/gen_schemas.py --from-snapshot  # build only, from the committed snapshot
    python scripts/gen_schemas.py --out DIR        # write somewhere else (tests compare trees)
    python scripts/gen_schemas.py --check          # regenerate into a temp dir, compare, exit 1 on diff

Output is deterministic: sorted keys, fixed separators, gzip with mtime 0 and no file name.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import hashlib
import io
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "dractl" / "schemas"

KUBE_VERSIONS = ("1.34", "1.35", "1.36", "1.37")
# Releases not yet published: their schema is a documented derivation of a released one (no
# upstream definitions exist to extract), built from what the release's changelog says changed.
PREVIEWS: dict[str, dict] = {
    "1.38": {
        "base": "1.37",
        "withdrawn": ["resource.k8s.io/v1beta1"],
        "source": "CHANGELOG-1.38.md (v1.38.0-alpha.1, alpha.2): resource.k8s.io/v1beta1 is no longer "
                  "served; otherwise the 1.37 definitions (preview)",
    },
}
SOURCE_PACKAGE = "kubernetes-validate"
SOURCE_MODULE = "kubernetes_validate"
SOURCE_VERSION = "1.37.0"
SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

# Kinds dractl reads, by API group. Every served version of each is taken.
KINDS: dict[str, tuple[str, ...]] = {
    "": ("Namespace", "Node", "Pod"),
    "apps": ("DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"),
    "batch": ("CronJob", "Job"),
    "resource.k8s.io": ("DeviceClass", "DeviceTaintRule", "ResourceClaim",
                        "ResourceClaimTemplate", "ResourceSlice"),
    "scheduling.k8s.io": ("PodGroup", "Workload"),
}

QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"
ENV_VAR_SOURCE = "io.k8s.api.core.v1.EnvVarSource"
EXT_ATTRIBUTE_REF = "dev.dractl.v1.ResourceSliceAttributeRef"

# dractl's own extension (docs/decisions/0002-env-references-extension.md):
# the only schema text in this file that does not come from upstream.
EXTENSION_DEFS = {
    EXT_ATTRIBUTE_REF: {
        "properties": {
            "attribute": {"type": "string"},
            "claimName": {"type": "string"},
            "deviceIndex": {"format": "int32", "minimum": 0, "type": ["integer", "null"]},
            "requestName": {"type": "string"},
        },
        "required": ["attribute", "claimName", "requestName"],
        "type": ["object", "null"],
        "additionalProperties": False,
    },
}

TRANSFORMS = [
    "Quantity: the upstream oneOf(string, number) becomes type [string, number, null] with "
    "format 'quantity' (a string must parse as a resource.Quantity; any JSON number is accepted, "
    "as resource.Quantity.UnmarshalJSON does).",
    "IntOrString: the upstream oneOf(string, integer) becomes type [string, integer, null] with "
    "format 'int-or-string' (integers must fit in int32, as intstr.IntOrString stores them).",
    "required: properties whose schema is a plain integer or boolean move from 'required' to "
    "'x-dractl-required-scalars'. The API server decodes a missing number as 0 and a missing "
    "boolean as false (e.g. ResourcePool.generation) and leaves any complaint to its validation "
    "code, so dractl reports these as warnings, not errors.",
    "x-kubernetes-* annotations are dropped (documentation and merge hints, not validation).",
    "EnvVarSource gains dractl's extension 'resourceSliceAttributeRef' (definition "
    f"{EXT_ATTRIBUTE_REF}): claimName, requestName, attribute (strings, required), "
    "deviceIndex (integer >= 0, optional). It reaches containers, initContainers and "
    "ephemeralContainers of Pods and of every pod template.",
]


# --------------------------------------------------------------------------------------------
# Deterministic writing


def dumps(obj) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def gzip_bytes(data: bytes) -> bytes:
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as f:
        f.write(data)
    return buf.getvalue()


def write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def snapshot_name(version: str) -> str:
    return f"upstream-k8s-{version}.json.gz"


def schema_name(version: str) -> str:
    return f"k8s-{version}.json"


# --------------------------------------------------------------------------------------------
# Stage 1: extract


def _refs(node, out: set) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                out.add(value.rsplit("/", 1)[-1])
            else:
                _refs(value, out)
    elif isinstance(node, list):
        for value in node:
            _refs(value, out)


def _strip_descriptions(schema):
    """Drop `description` keywords; keep property maps (whose keys are field names) intact."""
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "description":
            continue
        if key in ("properties", "patternProperties", "$defs"):
            out[key] = {name: _strip_descriptions(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "not") and isinstance(value, dict):
            out[key] = _strip_descriptions(value)
        elif key in ("oneOf", "anyOf", "allOf", "prefixItems"):
            out[key] = [_strip_descriptions(sub) for sub in value]
        else:
            out[key] = value
    return out


def api_version_of(gvk: dict) -> str:
    return f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]


def source_dir():
    """The kubernetes-validate schema directory, or None when the package is not installed."""
    try:
        import importlib.metadata as md

        import kubernetes_validate  # noqa: F401
    except ImportError:
        return None, None
    version = md.version(SOURCE_PACKAGE)
    base = Path(sys.modules[SOURCE_MODULE].__file__).resolve().parent / "kubernetes-json-schema"
    return base, version


def extract(version: str, base: Path, package_version: str) -> dict:
    rel = f"kubernetes-json-schema/v{version}.0-local-strict/_definitions.json"
    raw = (base / f"v{version}.0-local-strict" / "_definitions.json").read_bytes()
    defs = json.loads(raw)["$defs"]
    roots: dict[str, dict[str, str]] = {}
    for name in sorted(defs):
        for gvk in defs[name].get("x-kubernetes-group-version-kind", ()):
            if gvk["kind"] in KINDS.get(gvk["group"], ()):
                roots.setdefault(api_version_of(gvk), {})[gvk["kind"]] = name
    closure: set[str] = set()
    todo = [n for kinds in roots.values() for n in kinds.values()]
    while todo:
        name = todo.pop()
        if name in closure:
            continue
        closure.add(name)
        found: set[str] = set()
        _refs(defs[name], found)
        todo.extend(sorted(found - closure))
    return {
        "kubeVersion": version,
        "source": {
            "package": SOURCE_PACKAGE,
            "version": package_version,
            "file": f"{SOURCE_MODULE}/{rel}",
            "sha256": hashlib.sha256(raw).hexdigest(),
            "upstream": f"kubernetes/kubernetes v{version}.0 api/openapi-spec/swagger.json "
                        "(definitions), as converted by kubernetes-validate",
            "note": "definitions reachable from the kinds below, verbatim except that "
                    "'description' texts are removed",
        },
        "kinds": {av: dict(sorted(kinds.items())) for av, kinds in sorted(roots.items())},
        "$defs": {name: _strip_descriptions(defs[name]) for name in sorted(closure)},
    }


def write_snapshot(out: Path, snap: dict) -> None:
    write_bytes(out / snapshot_name(snap["kubeVersion"]),
                gzip_bytes((dumps(snap) + "\n").encode("ascii")))


def read_snapshot(path: Path) -> dict:
    return json.loads(gzip.decompress(path.read_bytes()))


# --------------------------------------------------------------------------------------------
# Stage 2: build


def _transform(schema):
    if isinstance(schema, list):
        return [_transform(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key.startswith("x-kubernetes-"):
            continue
        if key in ("properties", "patternProperties", "$defs"):
            out[key] = {name: _transform(sub) for name, sub in value.items()}
        elif key == "enum":
            out[key] = value
        else:
            out[key] = _transform(value)
    required = out.get("required")
    if required:
        props = out.get("properties", {})
        scalars = [r for r in required if _is_plain_scalar(props.get(r))]
        if scalars:
            kept = [r for r in required if r not in scalars]
            if kept:
                out["required"] = kept
            else:
                del out["required"]
            out["x-dractl-required-scalars"] = scalars
    return out


def _is_plain_scalar(prop) -> bool:
    if not isinstance(prop, dict) or "$ref" in prop:
        return False
    types = prop.get("type")
    types = [types] if isinstance(types, str) else (types or [])
    return any(t in ("integer", "boolean") for t in types) and not any(
        t in ("string", "object", "array") for t in types)


def build(snap: dict) -> dict:
    defs = {name: _transform(copy.deepcopy(s)) for name, s in snap["$defs"].items()}
    for name, expect in ((QUANTITY, {"number", "string"}), (INT_OR_STRING, {"integer", "string"})):
        if name not in defs:
            continue
        branches = {t for b in defs[name].get("oneOf", ()) for t in b.get("type", ()) if t != "null"}
        if branches != expect:
            raise SystemExit(f"{name}: unexpected upstream shape {defs[name]!r}")
        defs[name] = {"format": "quantity" if name == QUANTITY else "int-or-string",
                      "type": sorted(expect) + ["null"]}
    if ENV_VAR_SOURCE not in defs:
        raise SystemExit(f"{ENV_VAR_SOURCE} missing from the {snap['kubeVersion']} snapshot")
    props = defs[ENV_VAR_SOURCE]["properties"]
    if "resourceSliceAttributeRef" in props:
        raise SystemExit("upstream EnvVarSource now has resourceSliceAttributeRef: revisit the extension")
    props["resourceSliceAttributeRef"] = {"$ref": f"#/$defs/{EXT_ATTRIBUTE_REF}"}
    defs.update(copy.deepcopy(EXTENSION_DEFS))
    return {
        "$schema": SCHEMA_DIALECT,
        "x-dractl": {"kubeVersion": snap["kubeVersion"], "kinds": snap["kinds"]},
        "$defs": defs,
    }


def render_schema(doc: dict) -> bytes:
    """One definition per line, so a regeneration diff shows which definitions changed."""
    lines = ["{", f'"$schema":{dumps(doc["$schema"])},', f'"x-dractl":{dumps(doc["x-dractl"])},',
             '"$defs":{']
    names = sorted(doc["$defs"])
    for i, name in enumerate(names):
        lines.append(f"{dumps(name)}:{dumps(doc['$defs'][name])}" + ("," if i < len(names) - 1 else ""))
    lines += ["}", "}", ""]
    return "\n".join(lines).encode("ascii")


def preview_snapshots(snaps: list[dict]) -> list[dict]:
    """The PREVIEWS releases, each derived from its base release's snapshot."""
    by_version = {s["kubeVersion"]: s for s in snaps}
    out = []
    for version, spec in PREVIEWS.items():
        snap = copy.deepcopy(by_version[spec["base"]])
        snap["kubeVersion"] = version
        snap["kinds"] = {av: kinds for av, kinds in snap["kinds"].items() if av not in spec["withdrawn"]}
        snap["source"] = {"preview": True, "base": spec["base"], "withdrawn": spec["withdrawn"],
                          "changes": spec["source"]}
        out.append(snap)
    return out


def build_index(snaps: list[dict]) -> dict:
    return {
        "generator": "scripts/gen_schemas.py",
        "note": "Generated; do not edit. Regenerate with: python scripts/gen_schemas.py",
        "kubeVersions": [s["kubeVersion"] for s in snaps],
        "files": {s["kubeVersion"]: schema_name(s["kubeVersion"]) for s in snaps},
        "snapshots": {s["kubeVersion"]: snapshot_name(PREVIEWS.get(s["kubeVersion"], {}).get("base", s["kubeVersion"]))
                      for s in snaps},
        "previews": sorted(PREVIEWS),
        "sources": {s["kubeVersion"]: s["source"] for s in snaps},
        "served": {s["kubeVersion"]: {av: sorted(kinds) for av, kinds in s["kinds"].items()}
                   for s in snaps},
        "kinds": {group or "core": list(kinds) for group, kinds in sorted(KINDS.items())},
        "extensions": {"EnvVarSource.resourceSliceAttributeRef": EXT_ATTRIBUTE_REF},
        "transforms": TRANSFORMS,
    }


def build_all(snaps: list[dict], out: Path) -> list[Path]:
    written = []
    for snap in snaps:
        path = out / schema_name(snap["kubeVersion"])
        write_bytes(path, render_schema(build(snap)))
        written.append(path)
    index = out / "index.json"
    write_bytes(index, (json.dumps(build_index(snaps), sort_keys=True, indent=1,
                                   ensure_ascii=True) + "\n").encode("ascii"))
    written.append(index)
    return written


def generated_files() -> list[str]:
    """Every file this script owns under dractl/schemas/ (the rest there is hand-written)."""
    names = ["index.json"]
    for v in KUBE_VERSIONS:
        names += [schema_name(v), snapshot_name(v)]
    names += [schema_name(v) for v in PREVIEWS]
    return sorted(names)


# --------------------------------------------------------------------------------------------
# Driver


def generate(out: Path, from_snapshot: bool = False, snapshot_dir: Path = DEFAULT_OUT,
             log=print) -> list[dict]:
    snaps = []
    base, pkg_version = (None, None) if from_snapshot else source_dir()
    if not from_snapshot and base is None:
        log(f"notice: {SOURCE_PACKAGE} is not installed; rebuilding from the committed snapshots "
            f"({snapshot_dir}). For a full extraction: pip install {SOURCE_PACKAGE}=={SOURCE_VERSION}",
            file=sys.stderr)
    if base is not None:
        if pkg_version != SOURCE_VERSION:
            raise SystemExit(f"{SOURCE_PACKAGE} {pkg_version} is installed, this generator is pinned "
                             f"to {SOURCE_VERSION}; update SOURCE_VERSION deliberately")
        for v in KUBE_VERSIONS:
            snap = extract(v, base, pkg_version)
            write_snapshot(out, snap)
            snaps.append(snap)
    else:
        for v in KUBE_VERSIONS:
            src = snapshot_dir / snapshot_name(v)
            snaps.append(read_snapshot(src))
            if (out / snapshot_name(v)).resolve() != src.resolve():
                write_bytes(out / snapshot_name(v), src.read_bytes())
    build_all(snaps + preview_snapshots(snaps), out)
    return snaps


def compare_trees(a: Path, b: Path) -> list[str]:
    """Generated files that differ (gzip files compared by content, not by compressed bytes)."""
    diffs = []
    for name in generated_files():
        pa, pb = a / name, b / name
        if not pa.exists() or not pb.exists():
            diffs.append(f"{name}: missing in {'first' if not pa.exists() else 'second'} tree")
            continue
        da, db = pa.read_bytes(), pb.read_bytes()
        if name.endswith(".gz"):
            da, db = gzip.decompress(da), gzip.decompress(db)
        if da != db:
            diffs.append(f"{name}: differs")
    return diffs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    ap.add_argument("--from-snapshot", action="store_true",
                    help="build from the committed upstream snapshots only")
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temporary directory and compare with --out")
    args = ap.parse_args(argv)
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            generate(Path(tmp), from_snapshot=args.from_snapshot, snapshot_dir=args.out)
            diffs = compare_trees(args.out, Path(tmp))
        for d in diffs:
            print(d, file=sys.stderr)
        print("schemas are up to date" if not diffs else "schemas are stale: run scripts/gen_schemas.py")
        return 1 if diffs else 0
    snaps = generate(args.out, from_snapshot=args.from_snapshot, snapshot_dir=args.out)
    for s in snaps:
        n = sum(len(k) for k in s["kinds"].values())
        print(f"{s['kubeVersion']}: {n} kinds, {len(s['$defs'])} upstream definitions "
              f"({s['source']['package']} {s['source']['version']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
