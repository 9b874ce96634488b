"""Devices of the inventory by id, for the stages that look up an allocated device: the dry
run's NoExecute checks and env/metadata resolution (dractl.downward imports it from here)."""

from __future__ import annotations

from typing import Iterable

from dractl.api.resource import Device


class DeviceIndex:
    """Devices by (driver, pool, name) from the inventory's slices (first slice wins)."""

    def __init__(self, slices: Iterable) -> None:
        self.devices: dict[tuple[str, str, str], Device] = {}
        for sl in slices:
            for device in sl.devices:
                self.devices.setdefault(device.id, device)

    def get(self, driver: str, pool: str, name: str) -> Device | None:
        return self.devices.get((driver, pool, name))
