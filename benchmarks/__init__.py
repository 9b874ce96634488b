"""Benchmarks for dractl: scheduler_perf-shaped scenario generators and a runner
(docs/decisions/0005-performance-targets.md).

    python -m benchmarks            # generate into benchmarks/out/, run, print the table
    python -m benchmarks --quick    # ~30 s smoke
    python -m benchmarks --help

See benchmarks/README.md.
"""
