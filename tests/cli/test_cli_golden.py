"""--golden FILE / --update: round trips for validate and allocate, text stable and colour-free."""

from __future__ import annotations

import pytest
from cli_helpers import CLAIM_BAD, CLAIM_OK, run_subprocess

GPU_POD = """apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: one-gpu
  namespace: default
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      resourceClaims:
      - name: gpu
        resourceClaimTemplateName: one-gpu
      containers:
      - name: main
        image: busybox
        resources:
          claims:
          - name: gpu
"""


@pytest.fixture
def manifests(tmp_path):
    (tmp_path / "ok.yaml").write_text(CLAIM_OK)
    (tmp_path / "bad.yaml").write_text(CLAIM_BAD)
    (tmp_path / "pod.yaml").write_text(GPU_POD)
    return tmp_path


CASES = [
    ("validate", ("ok.yaml", "bad.yaml"), "text"),
    ("validate", ("ok.yaml", "bad.yaml"), "json"),
    ("validate", ("ok.yaml", "bad.yaml"), "junit"),
    ("validate", ("ok.yaml", "bad.yaml"), "sarif"),
    ("validate", ("ok.yaml", "bad.yaml"), "github"),
    ("allocate", ("pod.yaml", "-i", "builtin:example-gpu"), "text"),
    ("allocate", ("pod.yaml", "-i", "builtin:example-gpu"), "json"),
    ("allocate", ("pod.yaml", "-i", "builtin:example-gpu"), "yaml"),
]


@pytest.mark.parametrize("command,args,fmt", CASES)
def test_golden_round_trip(dractl, manifests, command, args, fmt):
    golden = manifests / f"golden.{fmt}"
    wrote = dractl(command, *args, "-o", fmt, "--golden", golden.name, "--update", cwd=manifests)
    assert wrote.code == 0, wrote.err
    assert wrote.out == ""
    assert f"wrote {golden.name}" in wrote.err
    # the golden file is exactly what the command prints when piped
    plain = dractl(command, *args, "-o", fmt, cwd=manifests)
    assert golden.read_text(encoding="utf-8") == plain.out
    assert plain.out
    # matches: exit 0 (even though bad.yaml has errors: the snapshot records them), no output
    same = dractl(command, *args, "-o", fmt, "--golden", golden.name, cwd=manifests)
    assert (same.code, same.out) == (0, ""), same.err
    # a difference: unified diff on stdout, exit 1
    changed = golden.read_text(encoding="utf-8").replace("default", "dfault", 1)
    assert changed != plain.out
    golden.write_text(changed, encoding="utf-8")
    differs = dractl(command, *args, "-o", fmt, "--golden", golden.name, cwd=manifests)
    assert differs.code == 1
    assert differs.out.startswith(f"--- {golden.name}\n+++ dractl output\n")
    assert "-" in differs.out and "dfault" in differs.out
    assert "differs from" in differs.err and "--update" in differs.err


def test_text_golden_is_colour_free_and_terminal_independent(dractl, manifests):
    env_sets = [{}, {"FORCE_COLOR": "1", "COLUMNS": "40", "TERM": "xterm-256color"},
                {"TTY_COMPATIBLE": "1", "COLUMNS": "500", "LANG": "C"}]
    outputs = []
    for i, env in enumerate(env_sets):
        golden = manifests / f"g{i}.txt"
        result = dractl("allocate", "pod.yaml", "bad.yaml", "-i", "builtin:example-gpu",
                        "--golden", golden.name, "--update", cwd=manifests, env=env)
        assert result.code == 0, result.err
        text = golden.read_text(encoding="utf-8")
        assert "\x1b" not in text
        assert all(line == line.rstrip() for line in text.splitlines())
        outputs.append(text)
    assert outputs[0] == outputs[1] == outputs[2]
    assert "pod default/web-" in outputs[0] and "validation error" in outputs[0]


def test_golden_through_the_console_script_with_ascii_stdout(tmp_path, manifests):
    golden = manifests / "g.txt"
    first = run_subprocess("validate", "ok.yaml", "bad.yaml", "--golden", golden, "--update",
                           cwd=manifests)
    assert first.code == 0, first.err
    again = run_subprocess("validate", "ok.yaml", "bad.yaml", "--golden", golden, cwd=manifests,
                           env={"PYTHONIOENCODING": "ascii", "LC_ALL": "C", "FORCE_COLOR": "1"})
    assert (again.code, again.out) == (0, ""), again.err


def test_golden_usage_errors(dractl, manifests):
    result = dractl("validate", "ok.yaml", "--update", cwd=manifests)
    assert result.code == 2 and "--update needs --golden" in result.err
    result = dractl("validate", "ok.yaml", "--golden", "missing.txt", cwd=manifests)
    assert result.code == 2 and "missing.txt" in result.err and "--update" in result.err
    result = dractl("validate", "ok.yaml", "--golden", "no/such/dir/g.txt", "--update", cwd=manifests)
    assert result.code == 2 and "Traceback" not in result.err
    result = dractl("allocate", "pod.yaml", "-i", "builtin:example-gpu", "--update", cwd=manifests)
    assert result.code == 2


def test_golden_ignores_crlf_checkouts(dractl, manifests):
    golden = manifests / "g.json"
    assert dractl("validate", "bad.yaml", "-o", "json", "--golden", golden.name, "--update",
                  cwd=manifests).code == 0
    golden.write_bytes(golden.read_bytes().replace(b"\n", b"\r\n"))
    assert dractl("validate", "bad.yaml", "-o", "json", "--golden", golden.name, cwd=manifests).code == 0


def test_update_never_leaves_temporary_files(dractl, manifests):
    golden = manifests / "g.yaml"
    for _ in range(2):
        assert dractl("allocate", "pod.yaml", "-i", "builtin:example-gpu", "-o", "yaml", "--golden",
                      golden.name, "--update", cwd=manifests).code == 0
    assert not [p for p in manifests.iterdir() if p.name.startswith(".dractl-golden-")]
