"""allocationMode / count defaulting has one implementation (dractl.api.defaults): the typed
claim model (dractl.api.resource) reads a request as the defaulted object says."""

from __future__ import annotations

import pytest

from dractl.api import defaults
from dractl.api.resource import DeviceSubRequest, ExactDeviceRequest


@pytest.mark.parametrize("request_in", [
    {}, {"count": 0}, {"count": 3}, {"allocationMode": ""}, {"allocationMode": "All"},
    {"allocationMode": "All", "count": 2}, {"allocationMode": "ExactCount", "count": 0},
    {"allocationMode": "ExactCount", "count": None},
])
def test_typed_request_reads_what_defaulting_stores(request_in):
    stored = dict(request_in, deviceClassName="c")
    defaults.default_allocation(stored)
    for parsed in (ExactDeviceRequest.from_dict(dict(request_in, deviceClassName="c"), "r"),
                   DeviceSubRequest.from_dict(dict(request_in, name="s", deviceClassName="c"), "r")):
        assert parsed.allocation_mode == stored["allocationMode"]
        # an All request's count is unset in the object (0 in the typed model, like Go's int64)
        assert parsed.count == (stored.get("count") or 0)


def test_wrong_typed_values_stay_for_validation_and_read_as_unset():
    stored = {"count": "2"}
    defaults.default_allocation(stored)
    assert stored == {"allocationMode": "ExactCount", "count": "2"}  # validation reports it
    assert ExactDeviceRequest.from_dict({"count": "2"}, "r").count == 1  # typed: unset, defaulted
    assert defaults.allocation_defaults(None, False) == ("ExactCount", False)
    assert defaults.allocation_defaults("All", None) == ("All", None)
