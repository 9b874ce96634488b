"""Run the scenarios through the installed `dractl`, several times, and print a table.

For every scenario:
* end to end: `dractl allocate DIR -o json` (or `dractl validate DIR -o json`) as a subprocess,
  `runs` times; wall time, CPU time and peak RSS per run (os.wait4's rusage of that child);
  the median is reported. The first run's JSON output is checked (pods scheduled, claims
  allocated) so a benchmark that silently stopped scheduling cannot look fast.
* stage split: `python -m benchmarks.stages` in a fresh interpreter (cold caches like the CLI),
  timing load / validate / simulate / report through dractl's Python API.
* baselines measured or stated in the same run: kubernetes-validate (PyPI) on the validation
  corpus (a deterministic sample of its files by default: it re-reads its 1.7 MB definitions file
  for every document, so its cost per document is flat); for scheduling the ~50 pods/s that
  scheduler_perf's SchedulingWithResourceClaimTemplate/5000pods_500nodes reaches in a real
  control plane (a reference figure, not measured here).
Timings are never asserted; the targets (docs/decisions/0005-performance-targets.md) are printed
as met / not met.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks import ratios as R
from benchmarks import scenarios as S
from benchmarks.corpus import validation_corpus

ROOT = Path(__file__).resolve().parent
DEFAULT_OUT = ROOT / "out"
# The scenarios with targets get 3 end-to-end runs by default (the claim-template
# series too: its linearity is judged from their medians), the others 1 (the validation corpus
# too: one run of it costs as much as all the scheduling scenarios together).
HEADLINE = ("claim_template_5000pods_500nodes", "steady_state_full_500nodes")


def default_runs(name: str, quick: bool) -> int:
    if quick:
        return 1
    series = name.startswith("claim_template_") and "deployment" not in name
    return 3 if name in HEADLINE or series else 1
KUBE_VERSION = "1.37"


@dataclass
class Run:
    wall: float
    cpu: float
    rss_mb: float
    rc: int
    stderr: str = ""


@dataclass
class Result:
    scenario: S.Scenario
    runs: list[Run] = field(default_factory=list)
    stages: dict[str, float] = field(default_factory=dict)
    stages_cpu: dict[str, float] = field(default_factory=dict)
    work_cpu: float = 0.0   # the least CPU seconds of all stages together over the stage runs
    import_s: float = 0.0
    scheduled: int | None = None
    pods_seen: int | None = None
    claims_allocated: int | None = None
    findings: int | None = None
    problems: list[str] = field(default_factory=list)
    baseline: dict = field(default_factory=dict)
    parse: dict = field(default_factory=dict)   # the bare libyaml parse of the same input
    single: list[Run] = field(default_factory=list)   # the same command with --jobs 1
    load: tuple = ()   # the one-minute load average when the scenario started and ended

    @property
    def single_wall(self) -> float:
        return statistics.median(r.wall for r in self.single) if self.single else float("nan")

    @property
    def single_cpu(self) -> float:
        return statistics.median(r.cpu for r in self.single) if self.single else float("nan")

    @property
    def single_rss(self) -> float:
        return max(r.rss_mb for r in self.single) if self.single else float("nan")

    @property
    def wall(self) -> float:
        return statistics.median(r.wall for r in self.runs) if self.runs else float("nan")

    @property
    def cpu(self) -> float:
        return statistics.median(r.cpu for r in self.runs) if self.runs else float("nan")

    @property
    def rss(self) -> float:
        return max(r.rss_mb for r in self.runs) if self.runs else float("nan")

    def to_json(self) -> dict:
        return {"name": self.scenario.name, "kind": self.scenario.kind, "pods": self.scenario.pods,
                "documents": self.scenario.documents, "nodes": self.scenario.nodes,
                "runs": [vars(r) for r in self.runs], "wall_median": self.wall,
                "cpu_median": self.cpu, "peak_rss_mb": self.rss, "stages": self.stages,
                "stages_cpu": self.stages_cpu, "work_cpu_min": self.work_cpu,
                "import": self.import_s, "scheduled": self.scheduled,
                "claims_allocated": self.claims_allocated, "findings": self.findings,
                "problems": self.problems, "baseline": self.baseline,
                "libyaml_parse": self.parse, "jobs_1_runs": [vars(r) for r in self.single],
                "load_average": list(self.load)}


# ---------------------------------------------------------------------- processes ---------------
# The measured command is started by benchmarks/spawn.py: Linux carries a process's peak RSS
# across exec(), and this runner holds generated scenarios (100+ MB).
_SPAWN = Path(__file__).resolve().parent / "spawn.py"


def installed_env() -> dict:
    """The environment measured commands run in: this one, with Python's bytecode cache on, as a
    `pip install` leaves dractl (compiled modules). Under PYTHONDONTWRITEBYTECODE=1 (set on some
    development machines) an editable install would compile every dractl module on every run,
    ~0.2 s of CPU that no installed copy pays and the libyaml baseline (PyYAML is compiled)
    never pays either. benchmarks/micro.py measures start-up both ways."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def warm_bytecode() -> str:
    """Compile dractl's modules once, before anything is measured (what pip does at install)."""
    import importlib.util

    spec = importlib.util.find_spec("dractl")
    if spec is None or not spec.submodule_search_locations:
        return "bytecode cache: dractl not importable here"
    package = list(spec.submodule_search_locations)[0]
    done = subprocess.run([sys.executable, "-m", "compileall", "-q", package], env=installed_env(),
                          capture_output=True, text=True)
    return "bytecode cache warm" if done.returncode == 0 else "bytecode cache: compileall failed"


def measure(cmd: list[str], stdout_path: Path, env: dict | None = None) -> Run:
    """Run cmd to completion; wall time, CPU time and peak RSS of exactly this command (and
    the processes it waits for). env: installed_env() unless given."""
    env = installed_env() if env is None else env
    with open(stdout_path, "wb") as out, tempfile.TemporaryFile() as err, \
            tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "usage"
        if hasattr(os, "fork"):
            proc = subprocess.run([sys.executable, str(_SPAWN), str(report), *cmd], stdout=out,
                                  stderr=err, env=env)
            wall, cpu, rss = (float(x) for x in report.read_text().split())
        else:  # pragma: no cover - no fork(): peak RSS over all children so far
            import resource
            start = time.perf_counter()
            proc = subprocess.run(cmd, stdout=out, stderr=err, env=env)
            wall = time.perf_counter() - start
            usage = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu, rss = float("nan"), usage.ru_maxrss
        err.seek(0)
        stderr_tail = " | ".join(err.read().decode("utf-8", "replace").strip().splitlines()[-3:])
    # ru_maxrss is KiB on Linux, bytes on macOS.
    rss_mb = rss / (1024 * 1024) if sys.platform == "darwin" else rss / 1024
    return Run(wall, cpu, rss_mb, proc.returncode, stderr_tail)


def dractl_command() -> tuple[list[str], str]:
    exe = shutil.which("dractl")
    if exe:
        return [exe], exe
    return [sys.executable, "-m", "dractl"], f"{sys.executable} -m dractl (no dractl on PATH)"


def run_stages(s: S.Scenario, profile: Path | None = None) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.stages", "validate" if s.kind == "validate" else "allocate",
           s.directory]
    if profile:
        cmd += ["--profile", str(profile)]
    out = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT.parent, env=installed_env())
    if out.returncode != 0:
        raise RuntimeError(f"stage timing failed for {s.name}: {out.stderr.strip()[-500:]}")
    return json.loads(out.stdout)


def kubernetes_validate_baseline(s: S.Scenario, out: Path, sample_docs: int) -> dict:
    exe = shutil.which("kubernetes-validate")
    if not exe:
        return {"skipped": "kubernetes-validate is not installed (pip install kubernetes-validate); "
                           "baseline column skipped"}
    files = sorted(Path(s.directory).glob("*.yaml"))
    per_file = max(1, s.documents // max(1, len(files)))
    if sample_docs and sample_docs < s.documents:
        step = max(1, len(files) * per_file // sample_docs)
        files = files[::step]
    docs = len(files) * per_file
    run = measure([exe, "--quiet", "-k", KUBE_VERSION, *map(str, files)], out / "kubernetes-validate.out")
    return {"tool": "kubernetes-validate", "documents": docs, "files": len(files), "wall": run.wall,
            "cpu": run.cpu, "docs_per_s": docs / run.wall, "docs_per_cpu_s": docs / run.cpu,
            "sampled": docs < s.documents, "rss_mb": run.rss_mb}


# ---------------------------------------------------------------------- one scenario ------------
def run_scenario(s: S.Scenario, runs: int, dractl: list[str], out: Path, stages: bool,
                 baseline_docs: int, log) -> Result:
    res = Result(s)
    load_start = _load_average()
    command = "validate" if s.kind == "validate" else "allocate"
    output = out / f"{s.name}.output.json"
    parse_runs: list[Run] = []
    for i in range(runs):
        run = measure(dractl + [command, s.directory, "-o", "json", *s.args], output)
        res.runs.append(run)
        log(".")
        if R.wants_single_process(s):  # the CPU ratios are stated for one process
            res.single.append(measure(dractl + [command, s.directory, "-o", "json", "--jobs", "1",
                                                *s.args], out / f"{s.name}.jobs1.output.json"))
            log("1")
        if R.wants_parse_baseline(s):  # alternately with dractl: load changes weigh on both
            parse_runs.append(measure(R.parse_command(s.directory), out / "libyaml-parse.out"))
            log("p")
        if i == 0:
            try:
                _check_output(res, output)
            except (OSError, ValueError) as exc:
                res.problems.append(f"no usable JSON output (exit {run.rc}; {run.stderr or exc})")
                return res  # a crashing build is not worth timing again
    if parse_runs:
        res.parse = {"wall": statistics.median(r.wall for r in parse_runs),
                     "cpu": statistics.median(r.cpu for r in parse_runs), "runs": len(parse_runs)}
    if stages:
        # As many in-process stage runs as end-to-end runs; each stage's median (a busy machine
        # slows single runs by up to half).
        try:
            splits = []
            for _ in range(max(1, runs)):
                splits.append(run_stages(s))
                log("s")
            res.stages = _median_stages([d["stages"] for d in splits])
            res.stages_cpu = _median_stages([d["stages_cpu"] for d in splits])
            res.work_cpu = min(sum(d["stages_cpu"].values()) for d in splits)
            res.import_s = statistics.median(d["import"] for d in splits)
        except (RuntimeError, ValueError) as exc:
            res.problems.append(str(exc))
    if s.kind == "validate" and baseline_docs >= 0:
        res.baseline = kubernetes_validate_baseline(s, out, baseline_docs)
        log("b")
    res.load = (load_start, _load_average())
    return res


def _load_average() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def _median_stages(splits: list[dict]) -> dict:
    return {stage: statistics.median(split[stage] for split in splits) for stage in splits[0]}


def _check_output(res: Result, path: Path) -> None:
    s = res.scenario
    data = json.loads(path.read_text(encoding="utf-8"))
    if s.kind == "validate":
        res.findings = len(data.get("findings", []))
        seen = data.get("summary", {}).get("documents")
        if seen != s.documents:
            res.problems.append(f"dractl read {seen} documents, expected {s.documents}")
        return
    summary = data.get("summary", {})
    res.scheduled = summary.get("scheduled")
    res.pods_seen = summary.get("pods")
    res.claims_allocated = summary.get("allocated")
    if res.pods_seen != s.pods:
        res.problems.append(f"{res.pods_seen} pods in the plan, expected {s.pods}")
    if s.expect_all_scheduled and res.scheduled != s.pods:
        reasons = {r.get("message", "")[:160] for p in data.get("pods", []) if p.get("status") != "Scheduled"
                   for r in p.get("reasons", [])}
        res.problems.append(f"only {res.scheduled}/{s.pods} pods scheduled: {'; '.join(sorted(reasons)[:3])}")
    if summary.get("errors"):
        res.problems.append(f"{summary['errors']} validation error(s) in generated manifests")


# ---------------------------------------------------------------------- the table ---------------
def _f(value, fmt="{:.2f}") -> str:
    if value is None or (isinstance(value, float) and value != value):
        return "-"
    return fmt.format(value)


def _ratio(x: float) -> str:
    return f"{x:.1f}" if x >= 1 else f"{x:.2f}"


def table(results: list[Result]) -> str:
    head = ("scenario", "pods", "sched", "claims", "n", "wall s", "cpu s", "pods/s", "peak MB",
            "load", "valid", "sim", "report", "sim pods/s", "vs libyaml", "vs baseline")
    rows = []
    for r in results:
        s, st = r.scenario, r.stages
        if s.kind == "validate":
            rate = s.documents / r.wall
            b = r.baseline
            if "docs_per_s" in b:
                vs = f"x{_ratio(rate / b['docs_per_s'])} vs kubernetes-validate"
            else:
                vs = "(no kubernetes-validate)" if b.get("skipped") else "-"
            rows.append((s.name, f"{s.documents}d", "-", f"{r.findings}f", str(len(r.runs)),
                         _f(r.wall), _f(r.cpu), _f(rate, "{:.0f}") + "d", _f(r.rss, "{:.0f}"),
                         _f(st.get("load")), _f(st.get("validate")), "-", _f(st.get("report")), "-", "-",
                         vs))
            continue
        pods_s = s.pods / r.wall if r.wall else float("nan")
        sim = st.get("simulate")
        rows.append((s.name + (" !" if r.problems else ""), str(s.pods), _f(r.scheduled, "{}"),
                     _f(r.claims_allocated, "{}"), str(len(r.runs)), _f(r.wall), _f(r.cpu),
                     _f(pods_s, "{:.0f}"), _f(r.rss, "{:.0f}"), _f(st.get("load")),
                     _f(st.get("validate")), _f(sim), _f(st.get("report")),
                     _f(s.pods / sim if sim else None, "{:.0f}"),
                     f"x{r.wall / r.parse['wall']:.2f}" if r.parse.get("wall") else "-",
                     f"x{_ratio(pods_s / S.IN_CLUSTER_PODS_PER_SECOND)} vs 50 pods/s"))
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows, strict=False)]
    line = lambda cells: "  ".join(str(c).ljust(w) if i == 0 or i == len(cells) - 1 else str(c).rjust(w)
                                   for i, (c, w) in enumerate(zip(cells, widths, strict=False)))
    return "\n".join([line(head), line(["-" * w for w in widths])] + [line(r) for r in rows])


def targets(results: list[Result], micro: dict | None = None) -> list[str]:
    by = {r.scenario.name: r for r in results}
    out = []

    def verdict(ok: bool) -> str:
        return "MET" if ok else "NOT MET"

    r = by.get("claim_template_5000pods_500nodes")
    if r:
        out.append(f"  5000pods_500nodes end to end < 5 s: {r.wall:.2f} s wall, {r.cpu:.2f} s CPU "
                   f"(median of {len(r.runs)}) -> {verdict(r.wall < 5)}")
        sim = r.stages.get("simulate")
        if sim:
            out.append(f"  5000pods_500nodes simulate stage > 5,000 pods/s: {5000 / sim:,.0f} pods/s "
                       f"({sim:.2f} s, median of {len(r.runs)}) -> {verdict(5000 / sim > 5000)}")
        out.append(f"  5000pods_500nodes peak memory < 500 MB: {r.rss:.0f} MB -> {verdict(r.rss < 500)}")
    r = by.get("steady_state_full_500nodes")
    if r:
        out.append(f"  full_500nodes end to end < 2 s: {r.wall:.2f} s wall, {r.cpu:.2f} s CPU "
                   f"(median of {len(r.runs)}) -> {verdict(r.wall < 2)}")
    r = next((x for x in results if x.scenario.kind == "validate"), None)
    if r:
        docs = r.scenario.documents
        line = f"  validation of {docs:,} documents < 5 s: {r.wall:.2f} s wall"
        if docs == 10_000:
            line += f" -> {verdict(r.wall < 5)}"
        else:
            line += f" ({10_000 * r.wall / docs:.2f} s per 10,000 at this rate; the target is " \
                    "stated for the 10,000-document corpus)"
        out.append(line)
        if "docs_per_s" in r.baseline:
            ratio = (docs / r.wall) / r.baseline["docs_per_s"]
            cpu_ratio = (docs / r.cpu) / r.baseline["docs_per_cpu_s"]
            out.append(f"  validation at least 10x faster per manifest than kubernetes-validate: "
                       f"x{ratio:.1f} wall (x{cpu_ratio:.1f} CPU) -> {verdict(ratio >= 10)}")
    out.extend(_linearity(results, verdict))
    out.extend(_memory_per_pod(results, verdict))
    if micro and micro.get("searches"):
        from benchmarks import searches
        out.extend(searches.describe(micro["searches"]))
    if micro:
        a = micro.get("allocation")
        if a:
            out.append(f"  one single-device claim on a 10-device node: {a['us_median']:.0f} µs per "
                       f"allocation (upstream's Go allocator: ~{a['go_reference_us']:.0f} µs, "
                       "reference; reported, no target)")
        st = micro.get("startup_ms")
        if st:
            bare = st["python -c pass"]
            out.append("  start-up near the bare interpreter: " + ", ".join(
                f"`{name}` {ms:.0f} ms" for name, ms in st.items()) +
                f" (dractl --version x{st['dractl --version'] / bare:.1f}, "
                f"validate x{st['dractl validate FILE'] / bare:.1f} of python -c pass)")
    return out


MEMORY_PER_POD_KIB = 12.0


def _memory_per_pod(results: list[Result], verdict) -> list[str]:
    """Peak memory grows by at most 12 KiB per pod with `-o json`: the slope of the
    peak RSS between the smallest and the largest claim-template scenario, one process
    (--jobs 1), so that no worker holds part of the input."""
    series = sorted((r.scenario.pods, r.single_rss) for r in results
                    if r.single and r.scenario.name.startswith("claim_template_")
                    and "deployment" not in r.scenario.name and not r.problems)
    if len(series) < 2:
        return []
    (small, small_mb), (large, large_mb) = series[0], series[-1]
    kib = (large_mb - small_mb) * 1024 / (large - small)
    shown = ", ".join(f"{p // 1000}k {mb:.0f} MB" for p, mb in series)
    return [f"  peak memory per pod with -o json, --jobs 1 <= {MEMORY_PER_POD_KIB:.0f} KiB: "
            f"{kib:.1f} KiB (slope of the peak RSS: {shown}) -> {verdict(kib <= MEMORY_PER_POD_KIB)}"]


def _linearity(results: list[Result], verdict) -> list[str]:
    """Work per pod of the claim-template series, flat within 30%: the CPU seconds of the
    in-process stages (load + validate + simulate + report; one process, no start-up, no
    process pool) over the pods, the least of the runs (other load on the machine only ever
    adds time; like timeit, the minimum estimates the work). End-to-end times are shown next
    to them: start-up weighs on the small runs, and from ~5k pods two processes share the load."""
    series = sorted((r.scenario.pods, r) for r in results
                    if r.scenario.name.startswith("claim_template_") and "deployment" not in
                    r.scenario.name and not r.problems)
    staged = [(p, r.work_cpu) for p, r in series if r.work_cpu]
    if len(staged) < 3:
        return []
    per_pod = [(p, work / p * 1000) for p, work in staged]
    values = [ms for _, ms in per_pod]
    spread = max(values) / min(values) - 1
    shown = ", ".join(f"{p // 1000}k {ms:.3f}" for p, ms in per_pod)
    e2e = ", ".join(f"{p // 1000}k {r.wall / p * 1000:.3f}" for p, r in series if r.wall == r.wall)
    return [f"  cost grows linearly (stage CPU ms per pod, flat within 30%): {shown}; spread "
            f"{spread:.0%} -> {verdict(spread <= 0.3)} (end to end, ms per pod: {e2e})"]


# ---------------------------------------------------------------------- main --------------------
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="~30 s smoke: 2 small scenarios, 1,000-document "
                   "corpus, one run each")
    p.add_argument("--large", action="store_true", help="add claim_template_20000pods_2000nodes")
    p.add_argument("--runs", type=int, default=None, help="end-to-end runs per scenario (default: 3 for "
                   f"{', '.join(HEADLINE)} and the claim-template series; 1 for the others; 1 "
                   "with --quick)")
    p.add_argument("--only", action="append", default=[], metavar="TEXT",
                   help="only scenarios whose name contains TEXT (repeatable)")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where scenarios and outputs go "
                   "(default benchmarks/out/, which is not meant to be committed)")
    p.add_argument("--stages", choices=("auto", "all", "none"), default="auto",
                   help="in-process stage split: auto (default) = every scenario (the claim-template "
                        "series judges linearity by it); all; none")
    p.add_argument("--baseline-docs", type=int, default=None, metavar="N",
                   help="documents of the corpus given to kubernetes-validate (0 = all 10,000, ~3 min; "
                        "-1 = skip; default 300, 100 with --quick)")
    p.add_argument("--corpus-docs", type=int, default=None, metavar="N",
                   help="size of the validation corpus (default 10,000; 1,000 with --quick)")
    p.add_argument("--profile", metavar="SCENARIO", help="also run SCENARIO's stages under cProfile "
                   "and print the top functions")
    p.add_argument("--no-micro", action="store_true", help="skip the per-allocation and start-up "
                   "measurements (python -m benchmarks.micro)")
    p.add_argument("--json", type=Path, metavar="FILE", help="write all measurements as JSON "
                   "(default OUT/results.json)")
    p.add_argument("--capacity", action="store_true", help="also run benchmarks/capacity_bench.py once "
                   "(capacity --fit vs allocate on 5,000 pods, the HTML picture in headless Chromium)")
    p.add_argument("--write-readme", nargs="?", type=Path, const=R.README, default=None, metavar="FILE",
                   help="rewrite the generated performance block of FILE (default README.md) from "
                        "this run's table, ratios and targets")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    started = time.perf_counter()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    corpus_docs = args.corpus_docs or (1000 if args.quick else 10_000)
    baseline_docs = args.baseline_docs if args.baseline_docs is not None else (100 if args.quick else 300)

    suite = S.scheduling_suite(quick=args.quick, large=args.large)
    suite.append((f"validation_{corpus_docs}docs", lambda o: validation_corpus(o, corpus_docs)))
    if args.only:
        suite = [(n, b) for n, b in suite if any(t in n for t in args.only)]
    dractl, dractl_desc = dractl_command()
    bytecode = warm_bytecode()
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",)
    context = (f"{dractl_desc}; Python {platform.python_version()}; {os.cpu_count()} CPUs; "
               f"{bytecode}; load average {load[0]:.2f} at start")
    if load[0] != "?" and load[0] > 0.5 * (os.cpu_count() or 1):
        print("note: the machine is busy; compare CPU seconds (wall ratios carry others' load)")
    print(f"dractl benchmarks: {context}", flush=True)

    print(f"generating {len(suite)} scenarios into {out} ...", end="", flush=True)
    t = time.perf_counter()
    scenarios = [build(out) for _, build in suite]
    print(f" {time.perf_counter() - t:.1f} s", flush=True)

    results: list[Result] = []
    for s in scenarios:
        runs = args.runs or default_runs(s.name, args.quick)
        print(f"  {s.name} ", end="", flush=True)
        t = time.perf_counter()
        stages = args.stages == "all" or (args.stages == "auto" and (
            s.pods < 10_000 or s.name.startswith("claim_template_")))
        res = run_scenario(s, runs, dractl, out, stages, baseline_docs,
                           lambda c: print(c, end="", flush=True))
        results.append(res)
        print(f" {time.perf_counter() - t:.1f} s", flush=True)

    print_results(results)
    micro = None if args.no_micro else run_micro(dractl, args.quick)
    lines = targets(results, micro)
    if lines:
        print("targets (stated for a 2-core machine):")
        print("\n".join(lines))
    rows = R.ratio_rows(results, micro)
    if rows:
        print("\nratios (every baseline measured in this run, Go's stated; load = one-minute load average at the start and end of the measurement):")
        print(R.ratio_table(rows))
    extra = run_capacity(out) if args.capacity else []
    print("\n".join(extra))

    if args.profile:
        match = [s for s in scenarios if args.profile in s.name]
        if match:
            print_profile(match[0], out)
        else:
            print(f"--profile {args.profile}: no such scenario in this run")

    path = args.json or out / "results.json"
    path.write_text(json.dumps({"dractl": dractl_desc, "python": platform.python_version(),
                                "cpus": os.cpu_count(), "results": [r.to_json() for r in results],
                                "micro": micro, "ratios": rows, "capacity": extra}, indent=2) + "\n")
    if hasattr(os, "getloadavg"):
        context += f", {os.getloadavg()[0]:.2f} at the end"
    if args.write_readme:
        # No path of this machine in the README: which dractl ran, not where it is installed.
        shown = context.replace(dractl_desc, "dractl on PATH" if dractl_desc == dractl[0] else "python -m dractl")
        R.write_readme(R.readme_block(f"Measured by `python -m benchmarks{_argv_text(argv)}`: " + shown,
                                      scenario_rows(results), rows, lines, extra), args.write_readme)
        print(f"wrote the performance block of {args.write_readme}")
    print(f"\n{len(results)} scenarios in {time.perf_counter() - started:.0f} s; measurements in {path}")
    return 1 if any(r.problems for r in results) else 0


_PATH_OPTIONS = {"--out": "DIR", "--json": "FILE"}


def _argv_text(argv: list[str] | None) -> str:
    """The options of this run as typed, without --write-readme [FILE] itself and with the
    paths of --out and --json as placeholders."""
    args, shown = list(sys.argv[1:] if argv is None else argv), []
    while args:
        arg = args.pop(0)
        name = arg.split("=", 1)[0]
        if arg == "--write-readme":
            if args and not args[0].startswith("-"):
                args.pop(0)
        elif name in _PATH_OPTIONS:
            if arg == name and args:
                args.pop(0)
            shown.append(f"{name} {_PATH_OPTIONS[name]}")
        elif not arg.startswith("--write-readme="):
            shown.append(arg)
    return (" " + " ".join(shown)) if shown else ""


def print_results(results: list[Result]) -> None:
    print()
    print(table(results))
    print()
    print("columns: wall/cpu s = median end-to-end `dractl allocate|validate DIR -o json` (startup, load, "
          "validate, simulate, JSON output); pods/s = pods / wall (d = documents/s); peak MB = max RSS; "
          "load..report = seconds per stage, median of n in-process runs (python -m benchmarks.stages); "
          "sim pods/s = pods / simulate stage; vs libyaml = wall over a bare libyaml parse of the same "
          "files, run alternately with it; vs 50 pods/s = e2e pods/s over the in-cluster "
          "scheduler_perf figure (reference, not measured here); n = runs.")
    for r in results:
        b = r.baseline
        if b.get("skipped"):
            print(f"note: {b['skipped']}")
        elif b:
            print(f"baseline: kubernetes-validate {KUBE_VERSION} on {b['documents']} of {r.scenario.documents} "
                  f"documents ({b['files']} files{', a sample: its cost per document is flat' if b['sampled'] else ''}): "
                  f"{b['wall']:.1f} s, {b['docs_per_s']:.0f} docs/s ({b['docs_per_cpu_s']:.0f} per CPU s); "
                  f"dractl: {r.scenario.documents / r.wall:.0f} docs/s ({r.scenario.documents / r.cpu:.0f} "
                  f"per CPU s, {r.findings} findings)")
    for r in results:
        for p in r.problems:
            print(f"problem: {r.scenario.name}: {p}")
        if r.scenario.note:
            print(f"note: {r.scenario.name}: {r.scenario.note}")


def scenario_rows(results: list[Result]) -> list[list[str]]:
    """The README's scenario table: the headline columns of `table`."""
    rows = []
    for r in results:
        s = r.scenario
        if s.kind == "validate":
            b = r.baseline
            vs = (f"x{_ratio((s.documents / r.wall) / b['docs_per_s'])} kubernetes-validate"
                  if "docs_per_s" in b else "-")
            size = f"{s.documents} docs"
        else:
            vs = (f"x{r.wall / r.parse['wall']:.2f} libyaml parse" if r.parse.get("wall")
                  else f"x{_ratio(s.pods / r.wall / S.IN_CLUSTER_PODS_PER_SECOND)} of 50 pods/s")
            size = f"{r.scheduled}/{s.pods}"
        rows.append([s.name + (" !" if r.problems else ""), size, str(len(r.runs)), _f(r.wall),
                     _f(r.cpu), _f(r.rss, "{:.0f}"), vs])
    return rows


def run_micro(dractl: list[str], quick: bool) -> dict:
    from benchmarks import micro as micro_bench
    print("micro: allocation and start-up ...", end="", flush=True)
    from benchmarks import searches
    load_start = _load_average()
    micro = {"allocation": micro_bench.allocation_us(batches=3 if quick else 7),
             "startup_ms": micro_bench.startup_ms(dractl, runs=3 if quick else 9),
             "startup_ratios": micro_bench.startup_ratios(dractl, runs=5 if quick else 7)}
    print(" searches ...", end="", flush=True)
    micro["searches"] = searches.corpus_searches(runs=3)
    micro["load"] = (load_start, _load_average())
    print(" done", flush=True)
    return micro


def run_capacity(out: Path) -> list[str]:
    """benchmarks/capacity_bench.py, one run each: capacity --fit vs allocate, the HTML picture."""
    from benchmarks import capacity_bench
    print("capacity: --fit vs allocate, HTML picture ...", end="", flush=True)
    lines = [capacity_bench.describe(row) for row in capacity_bench.run(out / "capacity", 1)]
    lines.append(capacity_bench.html_render(out / "capacity"))
    print(" done", flush=True)
    return ["capacity (one run each): " + line for line in lines]


def print_profile(s: S.Scenario, out: Path, top: int = 25) -> None:
    import io
    import pstats

    prof = out / f"{s.name}.prof"
    run_stages(s, profile=prof)
    buf = io.StringIO()
    stats = pstats.Stats(str(prof), stream=buf)
    stats.sort_stats("cumulative").print_stats(r"dractl", top)
    stats.sort_stats("tottime").print_stats(top)
    print(f"\nprofile of {s.name} (cProfile, stages only; {prof}):")
    print("\n".join(line for line in buf.getvalue().splitlines()
                    if line.strip() and not line.startswith(("   Ordered", "   List reduced"))))
