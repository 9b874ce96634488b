"""The node-allocatable plugin reads ResourceSlices in the v1 shape the models stage made: no
conversion of its own (leftover of the models stage: one conversion per object)."""

from __future__ import annotations

from dractl.api.versions import parse_feature_gates
from dractl.load.loader import load_paths
from dractl.models import model_of
from dractl.simulate.plugins.nodeallocatable import NodeResource, slice_node_resources
from dractl.simulate.scheduler import Options, simulate
from dractl.validate.pipeline import validate_documents
from tests.simulate.test_node_allocatable_137 import CLASS, MAPPED, TEMPLATE, node, pod, slice_

# A v1beta2 slice (v1-shaped, but its model is a converted copy) and a v1 one.
BETA2_SLICE = slice_("n2", MAPPED).replace("resource.k8s.io/v1\n", "resource.k8s.io/v1beta2\n")


def _loaded(tmp_path):
    path = tmp_path / "in.yaml"
    path.write_text("---\n".join([node("n1"), node("n2"), CLASS, slice_("n1", MAPPED), BETA2_SLICE,
                                  TEMPLATE, pod("p1"), pod("p2"), pod("p3")]))
    return load_paths([str(path)])


def test_mappings_come_from_the_models_v1_objects(tmp_path):
    docs = _loaded(tmp_path).documents
    slices = [d for d in docs if d.kind == "ResourceSlice"]
    assert slices[1].data["apiVersion"] == "resource.k8s.io/v1beta2"
    assert all(model_of(d)._converted is None for d in slices)  # nothing converted yet
    mappings = slice_node_resources(docs, "1.37")
    four = NodeResource("cpu", device_multiplier=4)
    assert mappings == {("dra.cpu", n, f"core-{i}"): (four,) for n in ("n1", "n2") for i in (0, 1)}
    # the plugin read the models' conversions (now kept with the documents for every later stage)
    assert all(model_of(d)._converted is not None for d in slices)


def test_the_dry_run_converts_no_slice_again(tmp_path, monkeypatch):
    import dractl.api.convert as convert_module

    gates = parse_feature_gates("DRANodeAllocatableResources=true", "1.37")
    validated = validate_documents(_loaded(tmp_path), gates)
    assert not [f for f in validated.findings if f.severity == "error"]
    # The models stage converted every object during validation; a conversion after that
    # (dractl.api.convert.convert / to_v1) would be a second one.
    converted_kinds = []
    real = convert_module.convert

    def counting(doc):
        converted_kinds.append(doc.get("kind") if isinstance(doc, dict) else None)
        return real(doc)

    monkeypatch.setattr(convert_module, "convert", counting)
    plan = simulate(validated.documents, gates, Options(), validated.invalid)
    assert "ResourceSlice" not in converted_kinds
    # outputs as before: 1 requested + 4 mapped = 5 of 8 cpu per pod, one pod per node
    assert [p.status for p in plan.pods] == ["Scheduled", "Scheduled", "Unschedulable"]
