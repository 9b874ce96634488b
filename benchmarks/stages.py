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
    from dractl.cli.app import tune_gc
    tune_gc()  # as `dractl` does at start-up
    from dractl.api.versions import parse_feature_gates
    from dractl.load.loader import load_paths
    from dractl.report import findings_json
    from dractl.validate.pipeline import validate_documents
    if args.command == "allocate":
        from dractl.downward import resolve_plan
        from dractl.report import plan_json
        from dractl.simulate.scheduler import Options, simulate
    # Modules the stages would import on first use (CEL, schemas, rules, references): counted
    # as import time, so that a stage's time is its work and small runs are not charged for it.
    import dractl.allocator  # noqa: F401
    import dractl.cel  # noqa: F401
    import dractl.validate.refs  # noqa: F401
    import dractl.validate.rules  # noqa: F401
    import dractl.validate.schema  # noqa: F401
    imported = time.perf_counter() - t0

    profiler = None
    if args.profile:
        import cProfile
        profiler = cProfile.Profile()
        profiler.enable()

    gates = parse_feature_gates("")
    times: dict[str, float] = {}
    cpu: dict[str, float] = {}
    clock = [time.perf_counter(), time.process_time()]

    def lap(stage: str) -> None:
        # Wall and CPU seconds since the previous lap; on a busy machine CPU is the steadier one.
        now = [time.perf_counter(), time.process_time()]
        times[stage], cpu[stage] = now[0] - clock[0], now[1] - clock[1]
        clock[:] = now

    loaded = load_paths(list(args.paths))
    lap("load")
    validated = validate_documents(loaded, gates)
    lap("validate")

    counts: dict[str, int] = {"documents": loaded.documents_read, "errors": validated.errors()}
    if args.command == "allocate":
        plan = simulate(validated.documents, gates, Options(), validated.invalid)
        resolve_plan(plan, plan.slices)  # the env stage, timed with the dry run as before
        lap("simulate")
        text = findings_json.dumps(plan_json.plan_document(plan, validated.findings))
        lap("report")
        counts["pods"] = len(plan.pods)
        counts["scheduled"] = sum(1 for p in plan.pods if p.status == "Scheduled")
    else:
        lap("simulate")  # nothing to simulate: ~0
        text = findings_json.dumps(findings_json.findings_document(
            validated.findings, validated.files, validated.documents_read))
        lap("report")
    counts["output_bytes"] = len(text)

    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    json.dump({"import": imported, "stages": times, "stages_cpu": cpu, "counts": counts}, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
