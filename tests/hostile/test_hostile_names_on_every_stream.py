"""Per format and per stream: names from the inputs holding terminal controls,
bidi overrides, zero-width and tag characters, or lone surrogates (JSON) reach neither stdout
nor stderr raw, in any command and any output format."""

from __future__ import annotations

import json

import pytest
from cli_harness import UNSAFE_CHARS, assert_ok, run_inproc
from fuzz_hostile import HOSTILE_CHARS

FORMATS = {"validate": ["text", "json", "sarif", "junit", "github"],
           "allocate": ["text", "json", "yaml", "sarif", "junit", "github"],
           "env": ["text", "json"]}


def _docs(evil: str) -> list[dict]:
    return [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n" + evil, "labels": {"k": evil}}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
         "metadata": {"name": "t" + evil, "namespace": "default"},
         "spec": {"spec": {"devices": {"requests": [{"name": "r" + evil, "exactly": {
             "deviceClassName": "gpu.example.com" + evil}}]}}}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p" + evil, "namespace": "default",
                                                         "annotations": {"a": evil}},
         "spec": {"resourceClaims": [{"name": "g" + evil, "resourceClaimTemplateName": "t" + evil}],
                  "containers": [{"name": "c" + evil, "image": "x",
                                  "resources": {"claims": [{"name": "g" + evil}]}}]}},
    ]


CASES = [(c, f) for c, fs in FORMATS.items() for f in fs]


@pytest.mark.parametrize("command,fmt", CASES)
@pytest.mark.parametrize("evil", HOSTILE_CHARS + ["\ud800"], ids=lambda c: repr(c)[1:-1][:20])
def test_hostile_names_never_reach_a_stream_raw(command, fmt, evil, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    stdin = {"apiVersion": "v1", "kind": "List", "items": _docs(evil)}
    args = [command, "-", "-o", fmt] + (["-i", "builtin:example-gpu"] if command != "validate" else [])
    if command == "allocate":
        args += ["--node", "n" + evil, "--explain", "*"]
    run = run_inproc(args, stdin=json.dumps(stdin).encode("ascii"))
    assert_ok(run, fmt)  # includes: no raw unsafe character on stdout or on stderr
    assert not UNSAFE_CHARS.search(run.out + run.err)
