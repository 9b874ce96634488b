"""Micro-benchmark of dractl's CEL layer: ``python -m dractl.cel.bench``.

Measures compile time per expression, evaluation time per (expression, device) and the total CEL
time of a dry run with 5,000 claims from one template against 500 nodes x 10 devices.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Hashable

from dractl.api.quantity import Quantity
from dractl.api.values import AttributeValue
from dractl.api.versions import FeatureGates

from .engine import SelectorEngine, _compile_cache, compile_cached

SELECTORS = {
    "S0 driver": 'device.driver == "gpu.example.com"',
    "S1 driver+model+quantity": 'device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "A100" && device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0',
    "S2 semver+bool": 'device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.2.0")) && device.attributes["gpu.example.com"].migCapable',
    "S3 in/has/strings/list": '"gpu.example.com" in device.attributes && has(device.attributes["gpu.example.com"].productName) && device.attributes["gpu.example.com"].productName.lowerAscii().matches("^nvidia a100.*") && device.attributes["gpu.example.com"].index in [0, 2, 4, 6]',
}


@dataclass
class _Dev:
    key: Hashable
    driver: str
    attributes: dict = field(default_factory=dict)
    capacity: dict = field(default_factory=dict)
    allow_multiple_allocations: bool = False


def make_device(i: int) -> _Dev:
    return _Dev(("gpu.example.com", f"node-{i // 10}", f"gpu-{i}"), "gpu.example.com", {
        "model": AttributeValue("string", "A100" if i % 4 == 0 else "H100"),
        "productName": AttributeValue("string", "NVIDIA A100-SXM4-80GB"),
        "driverVersion": AttributeValue("version", f"1.{i % 5}.0"),
        "index": AttributeValue("int", i % 8),
        "migCapable": AttributeValue("bool", i % 2 == 0),
        "resource.kubernetes.io/pcieRoot": AttributeValue("string", f"pci{i % 4}"),
        "resource.kubernetes.io/numaNode": AttributeValue("int", i % 2),
    }, {"memory": Quantity.parse("80Gi" if i % 3 else "40Gi"), "cores": Quantity.parse("108")})


def _best(fn, n: int, rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t) / n)
    return best


def main() -> None:
    gates = FeatureGates()
    print("compile (uncached, parse+check+estimate+closure build), eval per (expression, device):")
    devices = [make_device(i) for i in range(100)]
    for name, expr in SELECTORS.items():
        def comp(expr=expr):
            _compile_cache.clear()
            c = compile_cached(expr)
            c.program(False)
        t_compile = _best(comp, 20)
        eng = SelectorEngine(gates)
        c = eng.compile(expr)
        acts = [eng.activation(d) for d in devices]
        def ev(acts=acts, c=c):
            for a in acts:
                c.evaluate(a)
        t_eval = _best(ev, 20) / len(acts)
        print(f"  {name:28s} compile {t_compile * 1e6:8.0f} us   eval {t_eval * 1e6:6.1f} us")
    t_act = _best(lambda: SelectorEngine(gates).activation(devices[0]), 2000)
    print(f"  activation per device {t_act * 1e6:.1f} us")

    # 5,000 claims from one template (class selector S0 + request selector S1) against
    # 500 nodes x 10 devices: every claim checks the 10 devices of its node.
    _compile_cache.clear()
    all_devs = [make_device(i) for i in range(5000)]
    eng = SelectorEngine(gates)
    t = time.perf_counter()
    lookups = 0
    for claim in range(5000):
        node = claim % 500
        for d in all_devs[node * 10:(node + 1) * 10]:
            lookups += 1
            if eng.matches(SELECTORS["S0 driver"], d):
                lookups += 1
                eng.matches(SELECTORS["S1 driver+model+quantity"], d)
    total = time.perf_counter() - t
    print(f"5,000 claims x 500 nodes x 10 devices: {lookups} matches() calls, "
          f"{eng.evaluations} real evaluations, total CEL time {total:.3f} s")


if __name__ == "__main__":
    main()
