"""Builtin sample inventories (dractl/inventories) and the bundled examples (examples/).

Structural checks only: the inventories must be well-formed, self-consistent clusters that the
API server would accept, and every example must parse and fit the inventory it names. The
end-to-end `dractl validate` / `dractl allocate` runs live elsewhere.
"""

from __future__ import annotations

import pathlib
import re
from collections import Counter, defaultdict

import pytest
from ruamel.yaml import YAML

from dractl.inventories import inventory_path, list_inventories

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
INVENTORY_DIR = REPO / "dractl" / "inventories"

NAMES = sorted(p.stem for p in INVENTORY_DIR.glob("*.yaml"))
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.yaml"))

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
C_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                    r"(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$")
SOURCE_CITATION = re.compile(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}")
VALUE_TYPES = ("int", "bool", "string", "version")


def load_docs(path: pathlib.Path, version=None) -> list:
    yaml = YAML(typ="safe", pure=True)
    if version is not None:
        yaml.version = version
    with path.open(encoding="utf-8") as handle:
        return [doc for doc in yaml.load_all(handle) if doc is not None]


def by_kind(docs: list, kind: str) -> list:
    return [d for d in docs if d.get("kind") == kind]


def qualified_ok(name: str) -> bool:
    domain, _, ident = name.rpartition("/")
    if domain and (len(domain) > 63 or not DNS_SUBDOMAIN.match(domain)):
        return False
    return bool(C_IDENTIFIER.match(ident)) and len(ident) <= 32


@pytest.fixture(scope="module", params=NAMES)
def inventory(request):
    return request.param, load_docs(INVENTORY_DIR / f"{request.param}.yaml")


# ---------------------------------------------------------------------------------------------
# Package API


def test_there_are_builtin_inventories():
    assert {"example-gpu", "nvidia-gpu", "nvidia-mig", "mixed"} <= set(NAMES)


def test_list_inventories_matches_the_files_and_has_descriptions():
    listed = list_inventories()
    assert [name for name, _ in listed] == NAMES
    for name, description in listed:
        assert description.strip(), name
        assert "\n" not in description


def test_inventory_path_points_at_the_packaged_file():
    for name in NAMES:
        path = inventory_path(name)
        assert isinstance(path, pathlib.Path)
        assert path.is_file()
        assert path.read_bytes() == (INVENTORY_DIR / f"{name}.yaml").read_bytes()


@pytest.mark.parametrize("name", ["", "no-such-inventory", "../cli/app", "example-gpu.yaml",
                                  "EXAMPLE-GPU", "__init__", "/etc/passwd"])
def test_inventory_path_rejects_unknown_names(name):
    with pytest.raises(KeyError):
        inventory_path(name)


# ---------------------------------------------------------------------------------------------
# Every inventory file


def test_header_names_the_inventory_and_cites_its_sources(inventory):
    name, _ = inventory
    text = (INVENTORY_DIR / f"{name}.yaml").read_text(encoding="utf-8")
    header = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        header.append(line)
    assert header[0].startswith(f"# dractl builtin inventory {name}: ")
    assert SOURCE_CITATION.search("\n".join(header)), "cite repository@commit of the source"


def test_documents_have_identity(inventory):
    name, docs = inventory
    assert docs, name
    seen = Counter()
    for doc in docs:
        assert isinstance(doc, dict)
        assert isinstance(doc.get("apiVersion"), str) and doc["apiVersion"]
        assert isinstance(doc.get("kind"), str) and doc["kind"]
        assert isinstance(doc.get("metadata", {}).get("name"), str) and doc["metadata"]["name"]
        seen[(doc["kind"], doc["metadata"]["name"])] += 1
    assert not [key for key, n in seen.items() if n > 1], "duplicate objects"
    assert {"Node", "DeviceClass", "ResourceSlice"} <= {doc["kind"] for doc in docs}
    assert {doc["kind"] for doc in docs} <= {"Node", "DeviceClass", "ResourceSlice"}


def test_reads_the_same_as_yaml_1_1_and_1_2(inventory):
    name, docs = inventory
    assert load_docs(INVENTORY_DIR / f"{name}.yaml", version=(1, 1)) == docs, \
        "quote scalars that YAML 1.1 reads differently (yes/on/Y, 08, 1:20 ...)"


def test_nodes(inventory):
    _, docs = inventory
    for node in by_kind(docs, "Node"):
        assert node["apiVersion"] == "v1"
        md = node["metadata"]
        assert DNS_SUBDOMAIN.match(md["name"])
        assert md["labels"]["kubernetes.io/hostname"] == md["name"]
        assert all(isinstance(v, str) for v in md["labels"].values())
        assert {"cpu", "memory", "pods"} <= set(node["status"]["allocatable"])


def test_device_classes(inventory):
    _, docs = inventory
    for dc in by_kind(docs, "DeviceClass"):
        assert dc["apiVersion"] == "resource.k8s.io/v1"
        assert DNS_SUBDOMAIN.match(dc["metadata"]["name"])
        selectors = dc["spec"]["selectors"]
        assert selectors and all(s["cel"]["expression"].strip() for s in selectors)


def test_slices_form_complete_node_local_pools(inventory):
    _, docs = inventory
    nodes = {n["metadata"]["name"] for n in by_kind(docs, "Node")}
    pools = defaultdict(list)
    for rs in by_kind(docs, "ResourceSlice"):
        assert rs["apiVersion"] == "resource.k8s.io/v1"
        spec = rs["spec"]
        selection = [k for k in ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection")
                     if spec.get(k) not in (None, False, "")]
        assert selection == ["nodeName"], rs["metadata"]["name"]
        assert spec["nodeName"] in nodes, f"slice {rs['metadata']['name']} names an unknown node"
        assert len(spec["driver"]) <= 63 and DNS_SUBDOMAIN.match(spec["driver"])
        # One pool per node per driver, named after the node.
        assert spec["pool"]["name"] == spec["nodeName"]
        assert spec["pool"]["generation"] == 1
        assert ("devices" in spec) != ("sharedCounters" in spec), "devices XOR sharedCounters"
        pools[(spec["driver"], spec["pool"]["name"])].append(rs)
    assert pools
    for key, slices in pools.items():
        counts = {rs["spec"]["pool"]["resourceSliceCount"] for rs in slices}
        assert counts == {len(slices)}, f"pool {key}: resourceSliceCount {counts} vs {len(slices)} slices"
        assert len({rs["spec"]["nodeName"] for rs in slices}) == 1


def test_devices_follow_the_api_limits(inventory):
    _, docs = inventory
    for rs in by_kind(docs, "ResourceSlice"):
        devices = rs["spec"].get("devices", [])
        advanced = any(d.get("consumesCounters") or d.get("taints") for d in devices)
        assert len(devices) <= (64 if advanced else 128)
        for dev in devices:
            assert DNS_LABEL.match(dev["name"]) and len(dev["name"]) <= 63, dev["name"]
            attrs, caps = dev.get("attributes", {}), dev.get("capacity", {})
            assert len(attrs) + len(caps) <= 32, dev["name"]
            for key, value in attrs.items():
                assert qualified_ok(key), key
                assert len([t for t in VALUE_TYPES if t in value]) == 1 and len(value) == 1, key
                if "string" in value:
                    assert isinstance(value["string"], str) and len(value["string"]) <= 64
                if "version" in value:
                    assert SEMVER.match(value["version"]), value
                if "int" in value:
                    assert isinstance(value["int"], int) and not isinstance(value["int"], bool)
                if "bool" in value:
                    assert isinstance(value["bool"], bool)
            for key, value in caps.items():
                assert qualified_ok(key), key
                assert isinstance(value["value"], str), f"{key}: quantities are strings"


def test_device_names_and_counters_are_consistent_per_pool(inventory):
    _, docs = inventory
    pools = defaultdict(list)
    for rs in by_kind(docs, "ResourceSlice"):
        pools[(rs["spec"]["driver"], rs["spec"]["pool"]["name"])].append(rs["spec"])
    for key, specs in pools.items():
        names = [d["name"] for s in specs for d in s.get("devices", [])]
        assert len(names) == len(set(names)), f"pool {key}: duplicate device names"
        counter_sets = {}
        for s in specs:
            for cs in s.get("sharedCounters", []):
                assert DNS_LABEL.match(cs["name"]) and cs["name"] not in counter_sets
                assert cs["counters"] and all(DNS_LABEL.match(c) for c in cs["counters"])
                counter_sets[cs["name"]] = cs["counters"]
        for s in specs:
            for dev in s.get("devices", []):
                for use in dev.get("consumesCounters", []):
                    assert use["counterSet"] in counter_sets, f"{dev['name']}: {use['counterSet']}"
                    assert set(use["counters"]) <= set(counter_sets[use["counterSet"]])


def test_attribute_types_agree_within_a_driver(inventory):
    _, docs = inventory
    seen = {}
    for rs in by_kind(docs, "ResourceSlice"):
        driver = rs["spec"]["driver"]
        for dev in rs["spec"].get("devices", []):
            for key, value in dev.get("attributes", {}).items():
                (value_type,) = value
                assert seen.setdefault((driver, key), value_type) == value_type, (driver, key)


# ---------------------------------------------------------------------------------------------
# Examples


def example_inventory(path: pathlib.Path) -> str:
    match = re.match(r"# Inventory: builtin:([a-z0-9-]+)", path.read_text(encoding="utf-8"))
    assert match, f"{path.name}: first line must name the inventory (# Inventory: builtin:NAME)"
    return match.group(1)


def test_there_are_examples():
    assert {"gpu-pod.yaml", "shared-claim.yaml", "gpu-nic-aligned.yaml", "mig.yaml",
            "broken.yaml"} <= {p.name for p in EXAMPLE_FILES}


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_example_parses_and_names_an_inventory(path):
    docs = load_docs(path)
    assert docs
    for doc in docs:
        assert isinstance(doc.get("apiVersion"), str)
        assert isinstance(doc.get("kind"), str)
        assert isinstance(doc.get("metadata", {}).get("name"), str)
    assert example_inventory(path) in NAMES
    assert load_docs(path, version=(1, 1)) == docs


def _class_names(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "deviceClassName" and isinstance(value, str):
                yield value
            else:
                yield from _class_names(value)
    elif isinstance(node, list):
        for item in node:
            yield from _class_names(item)


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=lambda p: p.name)
def test_example_device_classes_exist_in_its_inventory(path):
    inventory_docs = load_docs(INVENTORY_DIR / f"{example_inventory(path)}.yaml")
    classes = {dc["metadata"]["name"] for dc in by_kind(inventory_docs, "DeviceClass")}
    used = set(_class_names(load_docs(path)))
    assert used and used <= classes


@pytest.mark.parametrize("path", [p for p in EXAMPLE_FILES if p.name != "broken.yaml"],
                         ids=lambda p: p.name)
def test_example_env_refs_name_declared_claims(path):
    for doc in load_docs(path):
        spec = doc.get("spec", {})
        pod_spec = spec.get("template", {}).get("spec") if doc["kind"] != "Pod" else spec
        if not pod_spec:
            continue
        declared = {c["name"] for c in pod_spec.get("resourceClaims", [])}
        for container in pod_spec.get("containers", []):
            for var in container.get("env", []):
                ref = var.get("valueFrom", {}).get("resourceSliceAttributeRef")
                if ref:
                    assert ref["claimName"] in declared
                    assert {"claimName", "requestName", "attribute"} <= set(ref)
                    assert "/" in ref["attribute"] and qualified_ok(ref["attribute"])


def test_examples_readme_covers_every_example():
    readme = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    for path in EXAMPLE_FILES:
        assert path.name in readme, path.name
    for name in NAMES:
        assert f"builtin:{name}" in readme or name in readme, name
