"""The scheduling framework (dractl/simulate/framework.py, journal.py): status codes, the
journal's transactions, which plugins a phase calls, and shortcuts keyed from declared fields."""

from __future__ import annotations

import json

from dractl.api.versions import parse_feature_gates
from dractl.load.loader import load_paths
from dractl.simulate.framework import Code, Framework, Plugin, Status, unschedulable
from dractl.simulate.journal import Journal
from dractl.simulate.registry import plugins_for
from dractl.simulate.scheduler import Options, Simulation
from dractl.validate.pipeline import validate_documents


def test_codes_are_upstreams():
    assert (Code.SUCCESS, Code.ERROR, Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
            Code.SKIP) == (0, 1, 2, 3, 5)
    assert Status(Code.UNSCHEDULABLE, "x").preemption_might_help()
    assert not Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "x").preemption_might_help()
    assert Status(Code.SUCCESS).is_success() and not Status(Code.ERROR).is_rejection()


class _Thing:
    def __init__(self):
        self.a, self.b = 1, 2


def test_journal_nested_transactions():
    j = Journal()
    thing, items, counts = _Thing(), [], {}
    j.set_attr(thing, "a", 10)            # outside a transaction: kept, not recorded
    j.begin()
    j.append(items, "x")
    j.begin()
    j.set_attrs(thing, a=20, b=30)
    j.add(counts, "n", 5)
    j.set_item(counts, "k", "v")
    assert j.rollback() == 3               # the inner transaction only
    assert (thing.a, thing.b, counts) == (10, 2, {"n": 0})
    j.begin()
    j.add_all(counts, {"n": 2, "m": 1})
    j.commit()                             # inner commit: the outer can still undo it
    assert counts == {"n": 2, "m": 1}
    j.rollback()
    assert (items, counts) == ([], {"n": 0, "m": 0}) and not j.active
    j.begin()
    j.pop_item(counts, "m")
    j.on_rollback(items.append, "undone")
    j.rollback()
    assert counts == {"n": 0, "m": 0} and items == ["undone"]


class _Reads(Plugin):
    name = "Reads"
    pod_fields = ("spec.tolerations", "metadata.labels")

    def filter(self, state, node):
        return None


def test_framework_calls_only_overriding_plugins(tmp_path):
    sim = _simulation(tmp_path, [_node("a")], [], plugins_for("1.37") + (_Reads,))
    fw = sim.framework
    assert [p.name for p in fw.post_filter_plugins] == ["DynamicResources", "DefaultPreemption"]
    assert "Reads" in [p.name for p in fw.filter_plugins]
    assert "Reads" not in [p.name for p in fw.pre_filter_plugins + fw.reserve_plugins]
    assert fw.pod_fields.count("spec.tolerations") == 1 and "metadata.labels" in fw.pod_fields
    assert isinstance(Framework(sim.cluster, ()).plugins, list)


class _NeedsLabel(Plugin):
    """Fits only pods labelled ok=yes."""

    name = "NeedsLabel"
    pod_fields = ("metadata.labels",)

    def filter(self, state, node):
        if state.pod.labels.get("ok") != "yes":
            return unschedulable("pod is not ok", self.name)
        return None


class _NeedsLabelUndeclared(_NeedsLabel):
    pod_fields = ()


def _node(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}}


def _pod(name: str, ok: str) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default", "labels": {"ok": ok}},
            "spec": {"containers": [{"name": "c", "image": "pause"}]}}


def _simulation(tmp_path, nodes, pods, plugins, shortcuts=True) -> Simulation:
    path = tmp_path / "input.yaml"
    path.write_text("".join(f"---\n{json.dumps(o)}\n" for o in nodes + pods))
    gates = parse_feature_gates("", "1.37")
    validated = validate_documents(load_paths([str(path)]), gates)
    return Simulation(validated.documents, gates, Options(shortcuts=shortcuts), validated.invalid, plugins)


def _placed(tmp_path, plugin, shortcuts=True) -> list:
    sim = _simulation(tmp_path, [_node("a"), _node("b")], [_pod("no", "no"), _pod("yes", "yes")],
                      plugins_for("1.37") + (plugin,), shortcuts)
    return [(p.pod.name, p.status) for p in sim.run().pods]


def test_shortcuts_key_on_declared_fields(tmp_path):
    right = [("no", "Unschedulable"), ("yes", "Scheduled")]
    assert _placed(tmp_path, _NeedsLabel) == right
    assert _placed(tmp_path, _NeedsLabelUndeclared, shortcuts=False) == right
    # Undeclared, the second pod reuses the first one's failure: why pod_fields exist.
    assert _placed(tmp_path, _NeedsLabelUndeclared) == [("no", "Unschedulable"), ("yes", "Unschedulable")]
