"""Every search of the allocator conformance corpus timed (none above 50 ms of CPU,
docs/decisions/0005-performance-targets.md), and the two pathological shapes as their own
benchmarks: random2-01456 (an All request whose set holds a device in use, after claims with
241,536 placements) and
random2-00737 (a last claim that no placement of the earlier ones leaves room for). Both end
"unsatisfiable"; upstream walks them to the end, dractl's pruning (dractl/allocator/hopeless.py)
stops early with the same outcome.

    python -m benchmarks.searches            # the slowest cases and the two shapes, as JSON

The cases are read and run as tests/conformance/test_allocator_conformance.py does (in their
home release); each is timed in CPU, the least of `runs` runs.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1] / "tests" / "conformance"
SHAPES = ("random2/random2-00737", "random2/random2-01456")
TARGET_MS = 50.0


def _conformance():
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    import test_allocator_conformance as conformance  # noqa: PLC0415 - reads the corpus at import

    return conformance


def _time_case(conformance, path: Path, runs: int) -> tuple[float, int, str | None]:
    from conformance_releases import contexts  # noqa: PLC0415

    case = conformance._LOADED[path]
    parsed = conformance.parse_objects(case)
    ctx = contexts(case)[0]
    best, steps, wrong = float("inf"), 0, None
    for _ in range(runs):
        start = time.process_time()
        outcome = conformance.run_case(case, ctx, parsed)
        best = min(best, time.process_time() - start)
        steps = outcome.steps
        wrong = conformance.mismatch(case, outcome)
    return best * 1000, steps, wrong


def corpus_searches(runs: int = 3, show: int = 5) -> dict:
    """CPU ms of every corpus case (one run each, the slowest `show` again, least of `runs`)."""
    conformance = _conformance()
    timed = []
    for path in conformance.CASES:
        ms, steps, wrong = _time_case(conformance, path, 1)
        timed.append((ms, f"{path.parent.name}/{path.stem}", path, steps, wrong))
    timed.sort(key=lambda t: t[0], reverse=True)
    by_name = {name: path for _, name, path, _, _ in timed}
    again = [name for _, name, *_ in timed[:show]] + [s for s in SHAPES if s in by_name]
    best = {}
    for name in dict.fromkeys(again):
        ms, steps, wrong = _time_case(conformance, by_name[name], runs)
        best[name] = {"cpu_ms": round(ms, 2), "steps": steps, "matches_expectation": wrong is None}
    slowest = max(best.items(), key=lambda item: item[1]["cpu_ms"])
    wrong = [name for _, name, _, _, bad in timed if bad is not None]
    return {"cases": len(timed), "target_ms": TARGET_MS, "slowest": slowest[0],
            "slowest_cpu_ms": slowest[1]["cpu_ms"], "timed": best,
            "shapes": {name: best[name] for name in SHAPES if name in best}, "mismatches": wrong}


def describe(result: dict) -> list[str]:
    ok = result["slowest_cpu_ms"] <= result["target_ms"] and not result["mismatches"]
    lines = [f"  every allocator search of the conformance corpus <= {result['target_ms']:.0f} ms CPU: "
             f"slowest {result['slowest']} {result['slowest_cpu_ms']:.1f} ms of {result['cases']} "
             f"cases (least of 3){'; outcomes differ: ' + ', '.join(result['mismatches']) if result['mismatches'] else ''}"
             f" -> {'MET' if ok else 'NOT MET'}"]
    for name, row in result["shapes"].items():
        lines.append(f"  search shape {name}: {row['cpu_ms']:.1f} ms CPU, {row['steps']:,} steps "
                     f"(upstream walks it to the end; reported, target above)")
    return lines


def main() -> int:
    print(json.dumps(corpus_searches(), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
