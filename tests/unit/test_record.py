"""FrozenRecord models behave exactly as the @dataclass(frozen=True) classes they replaced.

For every FrozenRecord in dractl.api.resource, dractl.models.workloads, dractl.config,
dractl.pipeline.result and dractl.api.versions, a reference dataclass is built from the same
__init__ signature; both get the same arguments and must agree on repr, ==, hash, frozenness,
__match_args__, copy and pickle.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle

import pytest

from dractl import config
from dractl.api import resource, versions
from dractl.api.record import FrozenRecord
from dractl.models import workloads
from dractl.pipeline import result

RECORDS = sorted({obj for module in (resource, workloads, config, result, versions) for obj in vars(module).values()
                  if isinstance(obj, type) and issubclass(obj, FrozenRecord) and obj is not FrozenRecord},
                 key=lambda cls: cls.__name__)


def _reference(cls):
    params = list(inspect.signature(cls.__init__).parameters.values())[1:]
    spec = [(p.name, object) if p.default is p.empty else (p.name, object, _default(p.default))
            for p in params]
    ref = dataclasses.make_dataclass(cls.__name__, spec, frozen=True)
    ref.__qualname__ = cls.__qualname__
    return ref, [p.name for p in params]


def _default(value):
    if type(value).__hash__ is None:  # a mapping proxy: the dataclass used default_factory
        return dataclasses.field(default_factory=lambda: value)
    return dataclasses.field(default=value)


def _values(names, seed):
    return {name: (f"{name}-{seed}" if i % 2 else (i, seed)) for i, name in enumerate(names)}


def test_every_model_class_is_covered():
    assert len(RECORDS) >= 32


def test_mapping_defaults_are_fresh_per_object():
    one, two = workloads.Node("a", {}), workloads.Node("b", {})
    assert one.allocatable == {} and one.allocatable is not two.allocatable
    tpl = workloads.ClaimTemplate(None, "default", "t", None)  # (model, namespace, name, spec)
    assert tpl.labels == {} == tpl.annotations and tpl.labels is not tpl.annotations


@pytest.mark.parametrize("cls", RECORDS, ids=lambda c: c.__name__)
def test_record_matches_frozen_dataclass(cls):
    ref, names = _reference(cls)
    assert list(cls._fields) == names, "__slots__ must list the __init__ fields in order"
    a, b = _values(names, 1), _values(names, 2)
    mine, theirs = cls(**a), ref(**a)
    assert repr(mine) == repr(theirs)
    assert cls.__match_args__ == ref.__match_args__
    assert mine == cls(**a) and not (mine != cls(**a))
    assert hash(mine) == hash(cls(**a)) == hash(theirs)
    assert (mine == cls(**b)) == (theirs == ref(**b))
    assert mine.__eq__(theirs) is NotImplemented  # another class never compares equal
    assert (mine == theirs) is False
    for attempt in (lambda o: setattr(o, names[0], 1), lambda o: delattr(o, names[0]),
                    lambda o: setattr(o, "not_a_field", 1)):
        with pytest.raises(dataclasses.FrozenInstanceError) as mine_err:
            attempt(mine)
        with pytest.raises(dataclasses.FrozenInstanceError) as ref_err:
            attempt(theirs)
        assert str(mine_err.value) == str(ref_err.value)
    for clone in (copy.copy(mine), copy.deepcopy(mine), pickle.loads(pickle.dumps(mine))):
        assert clone == mine and repr(clone) == repr(mine) and clone is not mine


def test_defaults_and_positional_arguments_match():
    assert resource.DeviceToleration() == resource.DeviceToleration("", "Equal", "", "", None)
    assert resource.CapacityRequirements().requests == {}
    assert resource.NodeSelector(()).terms == ()
    with pytest.raises(TypeError):
        resource.DeviceSelector()  # a required field, as in the dataclass


def test_equal_models_deduplicate_in_sets_and_dicts():
    one = resource.DeviceSelector('device.driver == "a"')
    assert len({one, resource.DeviceSelector('device.driver == "a"')}) == 1
    assert {one: 1}[resource.DeviceSelector('device.driver == "a"')] == 1


def test_recursive_repr_does_not_overflow():
    holder = []
    rec = resource.DeviceSelector(holder)
    holder.append(rec)
    assert repr(rec) == "DeviceSelector(cel_expression=[...])"
