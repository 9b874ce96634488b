"""Time dractl's stages in-process: load, validate, simulate, report.

    python -m benchmarks.stages allocate PATH... [--profile FILE]
    python -m benchmarks.stages validate PATH... [--profile FILE]

Prints one JSON object: seconds per stage, import time, counts. The runner starts this in a
fresh interpreter for every run, so caches (CEL compilation, schemas) start cold exactly as
they do for `dractl allocate`. It calls the same library functions in the same order as
dractl/cli/allocate_cmd.py and validate_cmd.py (default options, `-o json`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.stages")
    parser.add_argument("command", choices=("allocate", "validate"))
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--profile", metavar="FILE", help="write cProfile stats of the stages to FILE")
    args = parser.parse_args(argv)

    t0 = time.perf_counter()
    from dractl.api.versions import parse_feature_gates
    from dractl.load.loader import load_paths
    from dractl.report import findings_json
    from dractl.validate.pipeline import validate_documents
    if args.command == "allocate":
        from dractl.report import plan_json
        from dractl.simulate.scheduler import Options, simulate
    imported = time.perf_counter() - t0

    profiler = None
    if args.profile:
        import cProfile
        profiler = cProfile.Profile()
        profiler.enable()

    gates = parse_feature_gates("")
    times: dict[str, float] = {}
    t = time.perf_counter()
    loaded = load_paths(list(args.paths))
    times["load"] = time.perf_counter() - t

    t = time.perf_counter()
    validated = validate_documents(loaded, gates)
    times["validate"] = time.perf_counter() - t

    counts: dict[str, int] = {"documents": loaded.documents_read, "errors": validated.errors()}
    if args.command == "allocate":
        t = time.perf_counter()
        plan = simulate(validated.documents, gates, Options(), validated.invalid)
        times["simulate"] = time.perf_counter() - t
        t = time.perf_counter()
        text = findings_json.dumps(plan_json.plan_document(plan, validated.findings))
        times["report"] = time.perf_counter() - t
        counts["pods"] = len(plan.pods)
        counts["scheduled"] = sum(1 for p in plan.pods if p.status == "Scheduled")
    else:
        times["simulate"] = 0.0
        t = time.perf_counter()
        text = findings_json.dumps(findings_json.findings_document(
            validated.findings, validated.files, validated.documents_read))
        times["report"] = time.perf_counter() - t
    counts["output_bytes"] = len(text)

    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    json.dump({"import": imported, "stages": times, "counts": counts}, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
