"""Golden tests for the dry run (docs/spec/api-and-scheduling.md#golden-scenarios) and env
resolution (docs/decisions/0002-env-references-extension.md).

Every `scenarios/<NN-name>.yaml` starts with a comment line

    # args: allocate -i builtin:example-gpu [more options]

(the dractl arguments; the runner appends `-o FORMAT`, `--no-color` for text, `--no-config` so
that no .dractl.yaml around the checkout changes the result, and the scenario's path relative to
the repository root, which is the working directory). Optional header lines:

    # outputs: text yaml json          formats to compare (default: allocate -> text yaml,
                                       env and validate -> text json); text is always first
    # xfail: <reason>                  dractl is known to be wrong here; the expected files were
    # xfail[yaml]: <reason>            written by hand from the spec (all formats, or one)

Expected outputs live in `expected/<NN-name>.<txt|yaml|json>`. `.txt` and `.yaml` start with a
`# exit: N` line (the exit status), `.json` is the bare document (its exit status must equal the
text run's). Comparison is byte for byte.

    DRACTL_UPDATE_GOLDEN=1 python -m pytest tests/golden

rewrites the expected files from dractl's current output, except those marked xfail (they were
written by hand and must only change when the spec says so).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dractl.cli.app import app

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SCENARIOS = HERE / "scenarios"
EXPECTED = HERE / "expected"
UPDATE = os.environ.get("DRACTL_UPDATE_GOLDEN") == "1"
SUFFIX = {"text": "txt", "yaml": "yaml", "json": "json"}
# Anything that could change rich's rendering or dractl's behaviour from the outside.
_ENV_BLOCKLIST = ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES",
                  "TERM", "CLICOLOR", "CLICOLOR_FORCE", "DRACTL_DEBUG")


@dataclass
class Scenario:
    path: Path
    args: list[str]
    outputs: list[str]
    xfail: dict[str, str] = field(default_factory=dict)   # format ("*" = all) -> reason

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def rel(self) -> str:
        return self.path.relative_to(REPO).as_posix()

    def expected_path(self, fmt: str) -> Path:
        return EXPECTED / f"{self.name}.{SUFFIX[fmt]}"

    def argv(self, fmt: str) -> list[str]:
        extra = ["-o", fmt, "--no-config"] + (["--no-color"] if fmt == "text" else [])
        return self.args + extra + [self.rel]

    def xfail_reason(self, fmt: str) -> str | None:
        return self.xfail.get(fmt) or self.xfail.get("*")


def parse_scenario(path: Path) -> Scenario:
    args: list[str] | None = None
    outputs: list[str] | None = None
    xfail: dict[str, str] = {}
    with path.open(encoding="utf-8") as fh:
        first = fh.readline()
        if not first.startswith("# args:"):
            raise ValueError(f"{path.name}: the first line must be '# args: ...'")
        args = shlex.split(first[len("# args:"):])
        for line in fh:
            if not line.startswith("#"):
                break
            body = line[1:].strip()
            if body.startswith("outputs:"):
                outputs = body[len("outputs:"):].split()
            elif body.startswith("xfail"):
                head, _, reason = body.partition(":")
                fmt = head[len("xfail"):].strip("[] ") or "*"
                xfail[fmt] = reason.strip()
    if not args or args[0] not in ("allocate", "env", "validate"):
        raise ValueError(f"{path.name}: args must start with allocate, env or validate")
    if outputs is None:
        outputs = ["text", "yaml"] if args[0] == "allocate" else ["text", "json"]
    if outputs[0] != "text" or any(o not in SUFFIX for o in outputs):
        raise ValueError(f"{path.name}: outputs must start with text and use text/yaml/json")
    return Scenario(path, args, outputs, xfail)


ALL = [parse_scenario(p) for p in sorted(SCENARIOS.glob("*.yaml"))]


def _params():
    for sc in ALL:
        for fmt in sc.outputs:
            marks = []
            reason = sc.xfail_reason(fmt)
            if reason:
                marks.append(pytest.mark.xfail(strict=True, reason=reason))
            yield pytest.param(sc, fmt, id=f"{sc.name}.{SUFFIX[fmt]}", marks=marks)


@pytest.fixture
def clean_env(monkeypatch):
    for var in _ENV_BLOCKLIST:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(REPO)


def run_in_process(sc: Scenario, fmt: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, sc.argv(fmt), catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"dractl raised {type(result.exception).__name__}: {result.exception}") \
            from result.exception
    return result.exit_code, result.stdout, result.stderr


def render(fmt: str, code: int, stdout: str, stderr: str) -> str:
    """The expected-file form of one run."""
    body = stdout
    if stderr:
        body += "".join(f"# stderr: {line}\n" for line in stderr.splitlines())
    if fmt == "json":
        return body
    return f"# exit: {code}\n{body}"


def exit_code_of(text: str) -> int:
    first = text.split("\n", 1)[0]
    assert first.startswith("# exit: "), f"expected file must start with '# exit: N', got {first!r}"
    return int(first[len("# exit: "):])


def test_scenarios_exist():
    assert len(ALL) >= 15, "docs/spec/api-and-scheduling.md#golden-scenarios lists 18 behaviours"
    for sc in ALL:
        for fmt in sc.outputs:
            assert sc.expected_path(fmt).exists() or UPDATE, f"missing {sc.expected_path(fmt).name}"


@pytest.mark.parametrize("sc,fmt", list(_params()))
def test_golden(sc: Scenario, fmt: str, clean_env):
    code, stdout, stderr = run_in_process(sc, fmt)
    actual = render(fmt, code, stdout, stderr)
    path = sc.expected_path(fmt)
    if UPDATE and not sc.xfail_reason(fmt):
        if not path.exists() or path.read_text(encoding="utf-8") != actual:
            path.write_text(actual, encoding="utf-8", newline="")
        return
    expected = path.read_text(encoding="utf-8")
    if fmt == "json":
        text_expected = sc.expected_path("text").read_text(encoding="utf-8")
        assert code == exit_code_of(text_expected), f"exit status {code}, the text run expects " \
            f"{exit_code_of(text_expected)}"
    assert actual == expected, f"{path.relative_to(REPO)} differs (DRACTL_UPDATE_GOLDEN=1 rewrites it)"


def test_installed_entry_point_matches(clean_env):
    """The real `dractl` console script gives byte-for-byte the same output as the in-process run."""
    exe = shutil.which("dractl")
    if exe is None:
        assert not os.environ.get("CI"), "the dractl console script must be installed in CI"
        pytest.skip("dractl is not installed on PATH")
    sc = next(s for s in ALL if s.name.startswith("01-"))
    env = {k: v for k, v in os.environ.items() if k not in _ENV_BLOCKLIST}
    for fmt in ("text", "yaml"):
        proc = subprocess.run([exe, *sc.argv(fmt)], cwd=REPO, env=env, capture_output=True,
                              text=True, encoding="utf-8", timeout=120)
        actual = render(fmt, proc.returncode, proc.stdout, proc.stderr)
        in_process = render(fmt, *run_in_process(sc, fmt))
        assert actual == in_process, f"{exe} {' '.join(sc.argv(fmt))}: differs from the in-process run"
        if not sc.xfail_reason(fmt) and not UPDATE:
            assert actual == sc.expected_path(fmt).read_text(encoding="utf-8")
