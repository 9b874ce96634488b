"""Two small measurements next to the scenario table (docs/decisions/0005-performance-targets.md).

* allocation: one single-device claim on a node with 10 devices, through the library's
  `Allocator.allocate` (the structured allocator only: no loading, no scheduler loop), timed in
  batches in this process; compared with the ~8 µs upstream's Go allocator takes for the same
  (a reference figure, not measured here), with the Python calls one allocation makes (cProfile).
  The same on a 1,000-device node, fresh and while it fills up, and the
  kubernetes/kubernetes#131730-shaped backtracking case (32 devices asked, 31 there).
* start-up: `dractl --version` and `dractl validate` of one small manifest (text and -o json),
  as pre-commit runs them, next to the bare interpreter (`python -c pass`), median of N runs.
* start-up ratios: `dractl validate` of that manifest (it has a CEL selector),
  `dractl allocate -i builtin:example-gpu examples/gpu-pod.yaml`, `dractl --help` and shell
  completion, each against `python -c "import yaml"` run side by side in the same rounds
  (targets: validate and allocate within 4x, --help and completion within 3x). Measured twice:
  "installed", with a warm bytecode cache as `pip install` leaves one (a private
  PYTHONPYCACHEPREFIX, filled by an unmeasured first round), and "as-is", with the caller's
  environment (an editable install under PYTHONDONTWRITEBYTECODE=1 compiles dractl's sources on
  every run).

    python -m benchmarks.micro [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GO_ALLOCATION_US = 8.0  # upstream allocator, one single-device claim, 10-device node (reference)

SMALL_MANIFEST = """apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: one-gpu
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: device.attributes["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0
"""


def _allocation_setup(devices: int = 10, claims: int = 2000, count: int = 1, numa_constraint: bool = False):
    """An Allocator over one node with `devices` devices, the node, and `claims` fresh claims each
    asking for `count` devices of the class (all on one NUMA node, with `numa_constraint`; the
    devices alternate between NUMA nodes 0 and 1)."""
    from dractl.allocator import Allocator
    from dractl.allocator.nodes import NodeInfo
    from dractl.api.resource import model_from_dict
    from dractl.api.versions import parse_feature_gates

    driver = "gpu.example.com"
    device_list = [{"name": f"gpu-{i}", "attributes": {"index": {"int": i}, "numa": {"int": i % 2}}}
                   for i in range(devices)]
    docs = [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": driver},
         "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
         "spec": {"driver": driver, "nodeName": "node-0", "devices": device_list,
                  "pool": {"name": "node-0", "generation": 1, "resourceSliceCount": 1}}},
    ]
    gates = parse_feature_gates("", "1.37")
    cls, slice_ = (model_from_dict(d) for d in docs)
    allocator = Allocator(gates, [cls], [slice_])
    node = NodeInfo("node-0")
    spec: dict = {"requests": [{"name": "gpu", "exactly": {"deviceClassName": driver, "count": count}}]}
    if numa_constraint:
        spec["constraints"] = [{"matchAttribute": f"{driver}/numa"}]
    claim_list = [model_from_dict({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": f"c{i}", "namespace": "default", "uid": f"u{i}"}, "spec": {"devices": spec},
    }) for i in range(claims)]
    return allocator, node, claim_list


def allocation_us(batches: int = 7, per_batch: int = 2000, devices: int = 10) -> dict:
    """Median µs per Allocator.allocate of a fresh single-device claim on a node with `devices`
    devices (nothing committed: every call finds the first device free, like upstream's figure)."""
    allocator, node, claims = _allocation_setup(devices, per_batch)
    outcome = allocator.allocate(node, [claims[0]])  # warm: CEL compiled, pools gathered
    if not outcome.allocated:
        raise RuntimeError(f"the micro-benchmark claim did not allocate: {outcome}")
    samples, cpu = [], []
    for _ in range(batches):
        start, start_cpu = time.perf_counter(), time.thread_time()
        for claim in claims:
            allocator.allocate(node, [claim])
        samples.append((time.perf_counter() - start) / per_batch * 1e6)
        cpu.append((time.thread_time() - start_cpu) / per_batch * 1e6)
    # CPU time next to wall time: on a shared machine the wall figure includes waiting for a core.
    return {"us_median": statistics.median(samples), "us_min": min(samples),
            "us_cpu_median": statistics.median(cpu), "go_reference_us": GO_ALLOCATION_US,
            "allocations": batches * per_batch, "python_calls": allocation_calls(devices)}


def allocation_calls(devices: int = 10, allocations: int = 500) -> float:
    """Python function calls (cProfile ncalls, builtins included) per allocation of the above."""
    import cProfile
    import pstats

    allocator, node, claims = _allocation_setup(devices, allocations)
    allocator.allocate(node, [claims[0]])
    profile = cProfile.Profile()
    profile.enable()
    for claim in claims:
        allocator.allocate(node, [claim])
    profile.disable()
    stats = pstats.Stats(profile)
    return sum(entry[1] for entry in stats.stats.values()) / allocations  # type: ignore[attr-defined]


def filling_us(devices: int = 1000, rounds: int = 5) -> dict:
    """µs per allocation while a node with `devices` devices fills up: one single-device claim
    after another, each committed, so the k-th allocation skips k devices in use; then all are
    released for the next round. Median over the rounds of the mean per allocation."""
    allocator, node, claims = _allocation_setup(devices, devices)
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for claim in claims:
            outcome = allocator.allocate(node, [claim])
            allocator.commit(claim, outcome.results[0])
        samples.append((time.perf_counter() - start) / devices * 1e6)
        if allocator.allocate(node, [claims[0]]).allocated:
            raise RuntimeError("the filled node still had a free device")
        for claim in claims:
            allocator.release(claim)
    return {"us_median": statistics.median(samples), "devices": devices}


def backtracking_ms(runs: int = 5, devices: int = 31, count: int = 32, numa_constraint: bool = False) -> dict:
    """kubernetes/kubernetes#131730, "allocation of devices can be slow in some situations", in
    the shape from PR 130593's review: a claim asking for the per-claim maximum of 32 devices on a
    node that has 31 (unsatisfiable; without pruning the search tries every subset). With
    `numa_constraint` (30 devices, 16 asked, all on one of two NUMA nodes of 15) pruning by count
    cannot help and the search backtracks for real. Median ms per call, and its search steps."""
    allocator, node, claims = _allocation_setup(devices, runs, count=count, numa_constraint=numa_constraint)
    samples, steps = [], 0
    for claim in claims:
        start = time.perf_counter()
        outcome = allocator.allocate(node, [claim], timeout=30)
        samples.append((time.perf_counter() - start) * 1000)
        if not outcome.unsatisfiable:
            raise RuntimeError(f"the 131730 case should be unsatisfiable: {outcome}")
        steps = outcome.steps
    return {"ms_median": statistics.median(samples), "steps": steps}


def startup_ms(dractl: list[str], runs: int = 9) -> dict:
    """Median wall milliseconds of short commands, each started `runs` times."""
    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp) / "claim.yaml"
        manifest.write_text(SMALL_MANIFEST)
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "dractl --version": dractl + ["--version"],
            "dractl validate FILE": dractl + ["validate", str(manifest)],
            "dractl validate FILE -o json": dractl + ["validate", str(manifest), "-o", "json"],
        }
        out = {}
        for name, cmd in commands.items():
            times = []
            for _ in range(runs):
                start = time.perf_counter()
                proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                times.append((time.perf_counter() - start) * 1000)
                if proc.returncode not in (0, 1):
                    raise RuntimeError(f"{name} failed: {proc.stderr.decode(errors='replace')[-300:]}")
            out[name] = statistics.median(times)
    return out


STARTUP_BASELINE = "python -c 'import yaml'"
STARTUP_TARGETS = {"dractl validate FILE": 4.0, "dractl allocate -i builtin:example-gpu EXAMPLE": 4.0,
                   "dractl --help": 3.0, "completion (dractl val<TAB>)": 3.0}
_EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "gpu-pod.yaml"


def _startup_commands(dractl: list[str], manifest: Path) -> dict[str, tuple[list[str], dict]]:
    completion = {"_DRACTL_COMPLETE": "complete_bash", "COMP_WORDS": "dractl val", "COMP_CWORD": "1"}
    return {
        STARTUP_BASELINE: ([sys.executable, "-c", "import yaml"], {}),
        "dractl validate FILE": (dractl + ["validate", str(manifest)], {}),
        "dractl allocate -i builtin:example-gpu EXAMPLE":
            (dractl + ["allocate", "-i", "builtin:example-gpu", str(_EXAMPLE)], {}),
        "dractl --help": (dractl + ["--help"], {}),
        "completion (dractl val<TAB>)": (dractl, completion),
    }


def _side_by_side(commands: dict, env: dict, runs: int) -> dict[str, tuple[float, float]]:
    """Median wall and CPU ms per command; every round runs each command once, in turn, so a
    change of load on the machine weighs on all of them alike. The first round is not measured
    (it fills the bytecode cache where there is one)."""
    wall: dict[str, list[float]] = {name: [] for name in commands}
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for round_ in range(runs + 1):
        for name, (cmd, extra) in commands.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                  env={**env, **extra})
            elapsed = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if proc.returncode not in (0, 1):
                raise RuntimeError(f"{name} failed: {proc.stderr.decode(errors='replace')[-300:]}")
            if round_:
                wall[name].append(elapsed * 1000)
                cpu[name].append((after.ru_utime + after.ru_stime - before.ru_utime
                                  - before.ru_stime) * 1000)
    return {name: (statistics.median(wall[name]), statistics.median(cpu[name])) for name in commands}


def startup_ratios(dractl: list[str], runs: int = 7) -> dict:
    """Start-up of validate / allocate / --help / completion over `python -c "import yaml"`."""
    out: dict = {"baseline": STARTUP_BASELINE, "runs": runs, "targets": STARTUP_TARGETS}
    with tempfile.TemporaryDirectory() as tmp:
        manifest = Path(tmp) / "claim.yaml"
        manifest.write_text(SMALL_MANIFEST)
        commands = _startup_commands(dractl, manifest)
        installed = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        installed["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pycache")
        for mode, env in (("installed", installed), ("as-is", dict(os.environ))):
            medians = _side_by_side(commands, env, runs)
            base_wall, base_cpu = medians[STARTUP_BASELINE]
            out[mode] = {name: {"wall_ms": round(w, 1), "cpu_ms": round(c, 1),
                                "x_wall": round(w / base_wall, 2), "x_cpu": round(c / base_cpu, 2)}
                         for name, (w, c) in medians.items()}
    return out


def main(argv: list[str] | None = None) -> int:
    from benchmarks.runner import dractl_command

    parser = argparse.ArgumentParser(prog="python -m benchmarks.micro")
    parser.add_argument("--runs", type=int, default=9, help="start-up runs per command")
    args = parser.parse_args(argv)
    dractl, _ = dractl_command()
    print(json.dumps({"allocation": allocation_us(),
                      "allocation_1000_devices": allocation_us(devices=1000),
                      "filling_1000_devices": filling_us(),
                      "backtracking_131730": backtracking_ms(),
                      "backtracking_131730_numa": backtracking_ms(3, 30, 16, numa_constraint=True),
                      "startup_ms": startup_ms(dractl, args.runs),
                      "startup_ratios": startup_ratios(dractl, args.runs)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
