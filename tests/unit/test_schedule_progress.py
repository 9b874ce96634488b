"""Progress during scheduling: the simulator reports pods placed / total, and
the dry run draws it as a bar on a terminal's stderr (never when piped or with --quiet)."""

from __future__ import annotations

import io
from pathlib import Path

from dractl.api.versions import parse_feature_gates
from dractl.pipeline import CheckOptions, DryRunOptions, dry_run, executor
from dractl.pipeline import run as pipeline_run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
GATES = parse_feature_gates("", "1.37")


def test_simulator_reports_every_pod(monkeypatch):
    seen = []

    class Recorder(pipeline_run._PodProgress):
        def __call__(self, done, total):
            seen.append((done, total))

    monkeypatch.setattr(pipeline_run, "_PodProgress", Recorder)
    result = dry_run([str(EXAMPLES / "gpu-pod.yaml")], CheckOptions(gates=GATES, progress=True),
                     DryRunOptions(inventory=("builtin:example-gpu",)))
    assert len(result.plan.pods) == 2
    assert seen == [(0, 2), (1, 2), (2, 2)]


def test_no_hook_without_progress(monkeypatch):
    monkeypatch.setattr(pipeline_run, "_PodProgress", lambda: (_ for _ in ()).throw(AssertionError("bar built")))
    dry_run([str(EXAMPLES / "gpu-pod.yaml")], CheckOptions(gates=GATES, progress=False),
            DryRunOptions(inventory=("builtin:example-gpu",)))


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_bar_is_drawn_on_a_terminal(monkeypatch):
    monkeypatch.setattr(executor, "PROGRESS_AFTER", 0.0)
    err = _Terminal()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.setenv("TERM", "xterm")
    hook = pipeline_run._PodProgress()
    hook(0, 4)
    hook(3, 4)
    assert hook.bar.label == "scheduling" and hook.bar.done == 3 and hook.bar._bar is not None
    hook.stop()
    assert "pods placed" in err.getvalue()


def test_no_bar_when_stderr_is_piped(monkeypatch):
    monkeypatch.setattr(executor, "PROGRESS_AFTER", 0.0)
    monkeypatch.setattr("sys.stderr", io.StringIO())
    hook = pipeline_run._PodProgress()
    hook(1, 4)
    assert hook.bar._bar is None
    hook.stop()
