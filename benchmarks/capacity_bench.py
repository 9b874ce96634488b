"""`capacity --fit` against `allocate` placing the same number of pods (the target:
within 1.5x), on the 500-node scheduler_perf inventory (answer: 5,000 single-device pods) and
on the partitionable one (shared counters: 2 pods per pool).

    python -m benchmarks.capacity_bench [--runs N (default 5)] [--out DIR]

Both commands run end to end through the installed `dractl` (benchmarks/spawn.py measures
them); the ratio is of medians measured in the same run. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from benchmarks import scenarios as S
from benchmarks.runner import dractl_command, measure

FIT_POD = S.pod_doc(0, "test")


def _fit_file(directory: Path, template: str) -> Path:
    # Beside the scenario directory, not in it: `allocate DIR` would read it as one more pod.
    path = directory.parent / f"{directory.name}-fit-pod.yaml"
    path.write_text(template + "---\n" + FIT_POD)
    return path


def _cases(out: Path) -> list[tuple[str, S.Scenario, int]]:
    plain = S.claim_template(out, 5000, 500)
    parts = S.partitionable(out, 100)
    return [("scheduler_perf 500 nodes x 10 devices", plain, 5000),
            ("partitionable, 100 pools with shared counters", parts, 200)]


def run(out: Path, runs: int) -> list[dict]:
    dractl, _ = dractl_command()
    rows = []
    for label, scenario, expected in _cases(out):
        directory = Path(scenario.directory)
        fit_file = _fit_file(directory, S.claim_template_doc("test"))
        fit_cmd = dractl + ["capacity", str(directory / "cluster.yaml"), "--fit", str(fit_file),
                            "--max", str(expected + 1000), "-q", "-o", "json"]
        alloc_cmd = dractl + ["allocate", str(directory), "-o", "json"]
        # The same pods plus the one that no longer fits: --fit's answer includes why it fails
        # (the scheduler's per-node diagnosis), which an allocate of exactly N pods never computes.
        plus_one = dractl + ["allocate", str(directory), str(fit_file), "-o", "json"]
        # Interleaved, one of each per round: a busy machine slows all three alike.
        fit_runs, alloc_runs, plus_runs = [], [], []
        for _ in range(runs):
            fit_runs.append(measure(fit_cmd, out / "capacity-fit.json"))
            alloc_runs.append(measure(alloc_cmd, out / "allocate.json"))
            plus_runs.append(measure(plus_one, out / "allocate-plus-one.json"))
        # The fit file's own pod is placed as an input: the answer is the total that fits.
        answer = json.loads((out / "capacity-fit.json").read_text())["fit"]["total"]
        fit_wall = statistics.median(r.wall for r in fit_runs)
        alloc_wall = statistics.median(r.wall for r in alloc_runs)
        plus_wall = statistics.median(r.wall for r in plus_runs)
        # CPU time as well: on a shared machine wall time waits for the cores, CPU time less so.
        fit_cpu, alloc_cpu, plus_cpu = (statistics.median(r.cpu for r in runs_)
                                        for runs_ in (fit_runs, alloc_runs, plus_runs))
        rows.append({"case": label, "answer": answer, "expected": expected, "fit_wall": fit_wall,
                     "allocate_wall": alloc_wall, "ratio": fit_wall / alloc_wall,
                     "plus_one_wall": plus_wall, "plus_one_ratio": fit_wall / plus_wall,
                     "cpu_ratio": fit_cpu / alloc_cpu, "plus_one_cpu_ratio": fit_cpu / plus_cpu})
    return rows


def html_render(out: Path) -> str:
    """`allocate -o html` of the 5000-pod plan, loaded in headless Chromium: when the page was
    ready (its own data-ready-ms) and whether its self-check (every node and device drawn) passed."""
    import re
    import shutil
    import subprocess

    exe = shutil.which("chromium")
    if exe is None:
        return "HTML picture: chromium not installed, not measured"
    dractl, _ = dractl_command()
    page = out / "plan-5000.html"
    with open(page, "wb") as fh:
        subprocess.run(dractl + ["allocate", str(out / "claim_template_5000pods_500nodes"), "-o", "html"], stdout=fh)
    dom = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          "--disable-background-networking", f"--user-data-dir={out / 'chromium-profile'}",
                          "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=300).stdout
    found = re.search(r'<p id="selfcheck" data-ready-ms="(\d+)">([^<]*)</p>', dom)
    if not found:
        return "HTML picture: the page did not report back"
    ms, check = int(found.group(1)), found.group(2)
    verdict = "MET" if ms < 3000 and check == "ok" else "NOT MET"
    return (f"HTML picture of the 5000-pod plan ({page.stat().st_size / 1e6:.1f} MB): ready in {ms} ms in "
            f"headless Chromium, self-check {check!r} (target < 3 s, every node shown) -> {verdict}")


def describe(row: dict) -> str:
    verdict = "MET" if row["ratio"] <= 1.5 and row["answer"] == row["expected"] else "NOT MET"
    return (f"{row['case']}: --fit answers {row['answer']} in total (expected {row['expected']}) in "
            f"{row['fit_wall']:.2f} s; allocate of {row['expected']} pods {row['allocate_wall']:.2f} s; "
            f"x{row['ratio']:.2f} (target <= 1.5) -> {verdict}; against allocate of N+1 pods (the last one "
            f"explained, like --fit's answer) {row['plus_one_wall']:.2f} s: x{row['plus_one_ratio']:.2f}; "
            f"CPU time x{row['cpu_ratio']:.2f} and x{row['plus_one_cpu_ratio']:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("benchmarks/out/capacity"))
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for row in run(args.out, args.runs):
        print(describe(row))
    print(html_render(args.out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
