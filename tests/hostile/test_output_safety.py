"""Output safety (docs/decisions/0006-hostile-inputs.md).

Names, messages and values from manifests (and file names from a checkout) never inject terminal
escape sequences, OSC 8 links, carriage returns or rich markup into text output or GitHub
annotations; JSON / YAML / JUnit / SARIF stay well-formed whatever the strings; `--update` writes
golden files atomically; `dractl ... | head -1` exits quietly.

The output formats are read from each command's --help, so junit / sarif / github (and any
format added later) are covered as soon as they exist.
"""

from __future__ import annotations

import errno
import json
import os
import re
import subprocess

import pytest
import yaml
from cli_harness import UNSAFE_CHARS, assert_ok, dractl_command, run_inproc

PAYLOADS = {
    "csi": "\x1b[38;5;199mINJECTED\x1b[0m",
    "osc8-bel": "\x1b]8;;https://evil.example/\x07click-me\x1b]8;;\x07",
    "osc8-st": "\x1b]8;;https://evil.example/\x1b\\click-me\x1b]8;;\x1b\\",
    "title": "\x1b]0;owned\x07",
    "cr": "harmless\rOVERWRITTEN",
    "backspace": "abc\x08\x08\x08XYZ",
    "c1-csi": "\x9b31mC1\x9b0m",
    "nel": "a\x85b",
    "bidi": "safe\u202eexe.yaml\u202c",
    "newline-command": "x\n::error file=owned.yaml::injected\n::add-mask::x",
    "percent": "%0A::warning::injected%0D%25",
    "markup": "[bold red]MARKUP[/bold red][link=https://evil.example]L[/link]",
    "xml": "]]><injected attr='1'>&amp;</injected><![CDATA[",
    "lsep": "a\u2028b\u2029c",
}
# Payloads YAML can carry (it refuses raw C0 controls in a stream, so those arrive escaped).
MARKER = "INJECTED"


def _formats(command: str) -> list[str]:
    run = run_inproc([command, "--help"])
    m = re.search(r"--output\s*[<\[]([a-z|]+)[>\]]", run.out)
    return m.group(1).split("|") if m else ["text", "json"]


FORMATS = {c: _formats(c) for c in ("validate", "allocate", "env")}


# printable and not a line break (NEL, LS and PS would be folded): kept raw in the scalar
_YAML_PRINTABLE = re.compile("[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _q(s: str) -> str:
    """A YAML double-quoted scalar holding exactly `s` (escapes for what YAML can't hold raw)."""
    out = []
    for c in s:
        if c in '"\\':
            out.append("\\" + c)
        elif _YAML_PRINTABLE.match(c):
            out.append(c)
        elif ord(c) <= 0xFFFF:
            out.append(f"\\u{ord(c):04x}")
        else:
            out.append(f"\\U{ord(c):08x}")
    return '"' + "".join(out) + '"'


def manifests(payload: str) -> bytes:
    """Every place a manifest string reaches the output: object names, namespaces, labels,
    CEL expressions (echoed in messages), device attribute values (env values), env names,
    container names, claim names, request names."""
    p = _q(payload)
    return f"""apiVersion: v1
kind: Node
metadata: {{name: n1, labels: {{kubernetes.io/hostname: n1, evil: {p}}}}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: gpu}}
spec:
  selectors: [{{cel: {{expression: 'device.driver == "gpu.example.com"'}}}}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: {p}}}
spec:
  selectors: [{{cel: {{expression: {_q('device.attributes["x"].y == ' + json.dumps(payload))}}}}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: s1}}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {{name: n1, generation: 1, resourceSliceCount: 1}}
  devices:
  - name: gpu-0
    attributes:
      model: {{string: {p}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {{name: s2}}
spec:
  driver: {p}
  nodeName: {p}
  pool: {{name: {p}, generation: 1, resourceSliceCount: 1}}
  devices:
  - name: {p}
    attributes:
      {p}: {{string: {p}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: gpu, namespace: default}}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {{deviceClassName: gpu}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {{name: {p}, namespace: {p}}}
spec:
  devices:
    requests:
    - name: {p}
      exactly: {{deviceClassName: {p}}}
---
apiVersion: v1
kind: Pod
metadata: {{name: good, namespace: default}}
spec:
  resourceClaims: [{{name: gpu, resourceClaimName: gpu}}]
  containers:
  - name: main
    image: x
    resources: {{claims: [{{name: gpu}}]}}
    env:
    - name: MODEL
      valueFrom:
        resourceSliceAttributeRef: {{claimName: gpu, requestName: gpu, attribute: gpu.example.com/model}}
    - name: {p}
      valueFrom:
        resourceSliceAttributeRef: {{claimName: gpu, requestName: gpu, attribute: model}}
---
apiVersion: v1
kind: Pod
metadata: {{name: {p}, namespace: default}}
spec:
  resourceClaims: [{{name: {p}, resourceClaimName: {p}}}]
  containers:
  - name: {p}
    image: {p}
    resources: {{claims: [{{name: {p}}}]}}
""".encode()


def _text_problems(out: str, payload: str) -> list[str]:
    problems = []
    if "\x1b]" in out:
        problems.append("an OSC sequence (ESC ]) reached the output")
    if "\x1b[38;5;199m" in out:
        problems.append("the injected SGR sequence reached the output")
    if "\r" in out:
        problems.append("a carriage return reached the output")
    if "[bold red]" in payload and "MARKUP" in out and "[bold red]MARKUP" not in out:
        problems.append("rich markup from the input was interpreted")
    if re.search(r"^::(error|warning|notice|add-mask|set-output)", out, re.M):
        problems.append("a workflow command starts a line of text output")
    return problems


def _sgr_only(out: str) -> str:
    """Output of a colour terminal with dractl's own SGR colour codes removed."""
    return re.sub(r"\x1b\[[0-9;]*m", "", out)


@pytest.fixture(autouse=True)
def _no_config_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)


CASES = [(c, f) for c in ("validate", "allocate", "env") for f in FORMATS[c]]


@pytest.mark.parametrize("name", sorted(PAYLOADS))
@pytest.mark.parametrize("command,fmt", CASES, ids=[f"{c}-{f}" for c, f in CASES])
def test_manifest_strings_cannot_take_over_the_output(command, fmt, name):
    payload = PAYLOADS[name]
    extra = ["--timeout", "2"] if command == "allocate" else []
    run = run_inproc([command, "-", "-o", fmt, *extra], stdin=manifests(payload))
    assert_ok(run, fmt)  # exit status, no traceback, well-formed, no raw control character
    assert run.out.strip(), "no output"
    if fmt == "text":
        assert not _text_problems(run.out, payload), (_text_problems(run.out, payload), run.out)
    if fmt == "github":
        for line in run.out.splitlines():
            assert line.startswith(("::error ", "::warning ", "::notice ")), line
            assert "::error file=owned.yaml" not in line.split("::", 2)[1]
    if fmt == "json" and command == "validate":
        names = {f["name"] for f in json.loads(run.out)["findings"]}
        assert payload in names, "JSON must keep the original string (escaped), not drop it"


@pytest.mark.parametrize("command", ["validate", "allocate", "env"])
def test_colour_terminal_output_has_only_dractl_colour_codes(command, monkeypatch):
    """On a colour terminal rich emits SGR codes of its own; everything else must be inert."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.setenv("TERM", "xterm-256color")
    for name, payload in PAYLOADS.items():
        run = run_inproc([command, "-"], stdin=manifests(payload), tty=True)
        assert run.problems() == [], (name, run.problems())
        assert "\x1b[" in run.out or command == "env", "expected a colour terminal"
        plain = _sgr_only(run.out)
        assert not UNSAFE_CHARS.search(plain), (name, repr(plain[:2000]))
        assert not _text_problems(run.out, payload), (name, _text_problems(run.out, payload))


def test_json_and_yaml_round_trip_hostile_strings():
    """Machine formats escape, never mangle: the very same strings come back out."""
    payload = PAYLOADS["csi"] + PAYLOADS["bidi"] + PAYLOADS["nel"] + "\u0000\ufeff😀"
    run = run_inproc(["allocate", "-", "-o", "yaml", "--timeout", "2"], stdin=manifests(payload))
    assert_ok(run, "yaml")
    docs = list(yaml.safe_load_all(run.out))
    assert any(d["metadata"]["name"] == "good" for d in docs)
    pods = [d for d in docs if d["kind"] == "Pod" and d["metadata"]["name"] == "good"]
    assert pods and pods[0]["spec"]["nodeName"] == "n1"
    run = run_inproc(["env", "-", "-o", "json"], stdin=manifests(payload))
    assert_ok(run, "json")
    pods = {p["name"]: p for p in json.loads(run.out)["pods"]}
    assert pods["good"]["containers"][0]["env"]["MODEL"] == payload


# ---- file names from a checkout ----------------------------------------------------------------

EVIL_FILE_NAMES = ["evil\x1b[38;5;199mINJECTED\x1b[0m.yaml", "new\nline::error file=x::owned.yaml",
                   "cr\rOVERWRITTEN.yaml", "bidi\u202elmay.yaml", "[bold]markup[not bold].yaml",
                   "percent%0Aname,with:colons.yaml"]


@pytest.mark.parametrize("fmt", FORMATS["validate"])
def test_hostile_file_names(tmp_path, fmt):
    tree = tmp_path / "tree"
    tree.mkdir()
    for name in EVIL_FILE_NAMES:
        (tree / name).write_bytes(b"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
                                  b"metadata: {name: Not_Valid}\n")
    # a file name that is not UTF-8 at all
    os.close(os.open(os.path.join(os.fsencode(tree), b"latin\xe9.yaml"), os.O_CREAT | os.O_WRONLY))
    run = run_inproc(["validate", tree, "-o", fmt])
    assert_ok(run, fmt)
    assert run.code == 1
    if fmt == "text":
        assert not _text_problems(run.out, ""), run.out
    if fmt == "github":
        assert len(run.out.splitlines()) >= len(EVIL_FILE_NAMES)


# ---- golden files: atomic --update -------------------------------------------------------------

GOLDEN_ARGS = ["allocate", "-i", "builtin:example-gpu", "-o", "yaml"]


def _leftovers(directory):
    return sorted(n for n in os.listdir(directory) if n not in ("golden.yaml",))


class _Interrupt:
    """fdopen() replacement whose file writes part of the text, then fails."""

    def __init__(self, real, exc):
        self.real, self.exc = real, exc

    def __call__(self, fd, *a, **kw):
        fh = self.real(fd, *a, **kw)
        exc = self.exc

        class Half:
            def __enter__(self):
                return self

            def __exit__(self, *info):
                fh.close()
                return False

            def write(self, text):
                fh.write(text[: len(text) // 2])
                fh.flush()
                raise exc

            def __getattr__(self, name):
                return getattr(fh, name)
        return Half()


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), OSError(errno.ENOSPC, "No space left on device"),
                                 MemoryError()], ids=["ctrl-c", "disk-full", "memory"])
def test_update_never_leaves_a_half_written_golden_file(tmp_path, monkeypatch, exc):
    golden = tmp_path / "golden.yaml"
    golden.write_text("previous content\n")
    import dractl.cli.outputs as outputs  # where the golden file is written
    monkeypatch.setattr(outputs.os, "fdopen", _Interrupt(os.fdopen, exc))
    run = run_inproc([*GOLDEN_ARGS, "--golden", golden, "--update"])
    monkeypatch.undo()
    assert run.code in (2, 130), (run.code, run.err)
    assert TRACEBACK_FREE(run)
    assert golden.read_text() == "previous content\n"
    assert _leftovers(tmp_path) == [], "temporary file left behind"


def TRACEBACK_FREE(run):
    return "Traceback" not in run.out + run.err


def test_update_writes_the_whole_file_and_compares_clean(tmp_path):
    golden = tmp_path / "golden.yaml"
    golden.write_text("previous content\n")
    os.chmod(golden, 0o600)
    run = run_inproc([*GOLDEN_ARGS, "--golden", golden, "--update"])
    assert_ok(run)
    assert run.code == 0 and _leftovers(tmp_path) == []
    expected = run_inproc(GOLDEN_ARGS).out
    assert golden.read_text() == expected
    run = run_inproc([*GOLDEN_ARGS, "--golden", golden])
    assert_ok(run)
    assert run.code == 0


def test_update_refuses_a_symlink_instead_of_writing_through_it(tmp_path):
    """A golden file in a pull request can be a symlink to anything the CI user may write.
    (--update refuses a symlink rather than replacing the link.)"""
    target = tmp_path / "precious.txt"
    target.write_text("do not touch\n")
    golden = tmp_path / "golden.yaml"
    os.symlink(target, golden)
    run = run_inproc([*GOLDEN_ARGS, "--golden", golden, "--update"])
    assert run.code == 2 and "symlink" in run.err and TRACEBACK_FREE(run)
    assert target.read_text() == "do not touch\n"
    assert os.path.islink(golden)


def test_ctrl_c_during_update_leaves_old_or_new_file(tmp_path):
    """A real SIGINT at several moments of a run that writes a big golden file: the file is
    always either the old one or the complete new one, and no temporary file stays behind."""
    import signal
    import time
    manifests = tmp_path / "pods.yaml"
    manifests.write_text("".join(
        f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}, namespace: default}}\n"
        "spec: {containers: [{name: c, image: x}]}\n" for i in range(600)))
    golden = tmp_path / "golden.yaml"
    args = dractl_command() + ["allocate", str(manifests), "-i", "builtin:example-gpu", "-o", "yaml"]
    complete = subprocess.run(args, capture_output=True, cwd=tmp_path).stdout.decode()
    assert complete.count("kind: Pod") == 600
    for delay in (0.2, 0.5, 0.8, 1.2):
        golden.write_text("old\n")
        # SIGINT as at a terminal, even when the tests run in the background with it ignored.
        proc = subprocess.Popen(args + ["--golden", str(golden), "--update"], cwd=tmp_path,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        err = proc.communicate(timeout=60)[1].decode()
        # (a SIGINT while the interpreter is still importing, before dractl's main() runs, gets
        # Python's own KeyboardInterrupt trace: nothing dractl can catch yet)
        assert "Traceback" not in err or err.rstrip().endswith("KeyboardInterrupt"), err
        assert golden.read_text() in ("old\n", complete), f"half-written after {delay} s"
        assert sorted(os.listdir(tmp_path)) == ["golden.yaml", "pods.yaml"], os.listdir(tmp_path)


def test_update_into_a_missing_or_read_only_directory(tmp_path):
    run = run_inproc([*GOLDEN_ARGS, "--golden", tmp_path / "missing" / "golden.yaml", "--update"])
    assert_ok(run)
    assert run.code == 2 and "does not exist" in run.err
    directory = tmp_path / "ro"
    directory.mkdir()
    (directory / "golden.yaml").write_text("previous content\n")
    os.chmod(directory, 0o555)
    try:
        run = run_inproc([*GOLDEN_ARGS, "--golden", directory / "golden.yaml", "--update"])
        assert_ok(run)
        if os.geteuid() != 0:  # root writes anyway
            assert run.code == 2
        assert (directory / "golden.yaml").read_text() in ("previous content\n", run_inproc(GOLDEN_ARGS).out)
        assert _leftovers(directory) == []
    finally:
        os.chmod(directory, 0o755)


def test_golden_diff_cannot_inject_escapes(tmp_path):
    """A golden file from the repository is input too: its diff is printed to the log."""
    golden = tmp_path / "golden.yaml"
    golden.write_text("\x1b]8;;https://evil.example/\x07x\x1b]8;;\x07\n\x1b[2J\rline\n::error::owned\n")
    run = run_inproc([*GOLDEN_ARGS, "--golden", golden])
    assert_ok(run)
    assert run.code == 1
    assert not _text_problems(run.out, ""), run.out


# ---- `| head -1` ---------------------------------------------------------------------------------

def _big_input(tmp_path):
    """Output well over a pipe's 64 KiB buffer in every format."""
    path = tmp_path / "many.yaml"
    path.write_text("".join(f"---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
                            f"metadata: {{name: Bad_{i}}}\n" for i in range(600))
                    + "".join(f"---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}}}\n"
                              "spec: {containers: [{name: c, image: x, env: [{name: X, valueFrom: "
                              "{resourceSliceAttributeRef: {claimName: c, requestName: r, "
                              "attribute: a}}}]}]}\n" for i in range(150)))
    return path


HEAD_CASES = [("validate", f) for f in FORMATS["validate"]] + \
    [("allocate", f) for f in FORMATS["allocate"]] + [("env", f) for f in FORMATS["env"]]


def test_broken_pipe_is_quiet(tmp_path):
    """`dractl ... | head -1`: the reader goes away; no BrokenPipeError, no traceback."""
    path = _big_input(tmp_path)
    procs = []
    for command, fmt in HEAD_CASES:  # all at once: the runs are independent
        args = [command, path, "-o", fmt] + (["-i", "builtin:example-gpu"] if command != "validate" else [])
        with open(tmp_path / f"{command}-{fmt}.err", "wb") as err:
            procs.append((command, fmt, subprocess.Popen(
                dractl_command() + [str(a) for a in args], stdout=subprocess.PIPE, stderr=err,
                cwd=tmp_path)))
    failures = []
    for command, fmt, proc in procs:
        first = proc.stdout.readline()  # `head -1`
        proc.stdout.close()
        code = proc.wait(timeout=120)
        err = (tmp_path / f"{command}-{fmt}.err").read_text("utf-8", "replace")
        if not first or code not in (0, 1, 2) or "Traceback" in err or "BrokenPipe" in err \
                or "Exception ignored" in err:
            failures.append((command, fmt, code, first[:80], err[-500:]))
    assert not failures, failures
