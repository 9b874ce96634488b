"""The format registry: it builds every command's -o choices and help, and adding a format
takes one module plus one registry line."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import REPO, run

from dractl.report import registry

FORMATS_DIR = Path(__file__).resolve().parent / "formats"

# What a contributor writes: the registry line for tests/cli/formats/names_format.py.
WITH_NAMES_FORMAT = """
import sys
from dractl.report import registry
registry.FORMATS += (registry.Format("names", "one object per line",
                                     {registry.VALIDATE: "names_format:report"}),)
from dractl.cli.app import main
sys.argv = ["dractl", *sys.argv[1:]]
main()
"""


def _with_names_format(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(FORMATS_DIR), str(REPO)]))
    env.pop("NO_COLOR", None)
    return subprocess.run([sys.executable, "-c", WITH_NAMES_FORMAT, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("command", ["validate", "allocate", "env", "codes"])
def test_each_command_offers_exactly_the_registered_formats(command):
    help_text = run(command, "--help").out
    names = registry.names_for(command)
    assert f"--output <{'|'.join(names)}>" in help_text
    assert names[0] == "text"


def test_env_and_its_metadata_view_offer_the_same_formats():
    assert registry.names_for(registry.ENV) == registry.names_for(registry.METADATA)


def test_every_registered_renderer_exists():
    for fmt in registry.FORMATS:
        assert fmt.commands, fmt.name
        for command, target in fmt.renderers.items():
            module, _, function = target.partition(":")
            assert callable(getattr(importlib.import_module(module), function)), (fmt.name, command)


def test_help_lists_the_labels():
    assert registry.help_for(registry.VALIDATE) == (
        "Output format: text, json, yaml (the -o json document as YAML), junit (JUnit XML), "
        "sarif (SARIF 2.1.0), github (Actions annotations), concise (file:line:column: CODE "
        "message) or gitlab (GitLab code quality JSON).")
    assert registry.help_for(registry.ENV).startswith(
        "Output format: text, json or yaml (the -o json document as YAML). The findings formats")


def test_a_format_for_another_command_is_refused():
    with pytest.raises(KeyError):
        registry.find("html", registry.VALIDATE)
    bad = run("validate", str(REPO / "examples" / "gpu-pod.yaml"), "-o", "html")
    assert bad.code == 2 and "html" in bad.err


def test_the_commands_that_report_findings_offer_the_same_formats():
    # validate, allocate and the upgrade check carry findings: the same machine formats each
    # (allocate adds its picture, html).
    findings_formats = {"text", "json", "yaml", "junit", "sarif", "github", "concise", "gitlab"}
    assert set(registry.names_for(registry.VALIDATE)) == findings_formats
    assert set(registry.names_for(registry.ALLOCATE)) == findings_formats | {"html"}
    assert set(registry.names_for(registry.UPGRADE)) == findings_formats


def test_adding_a_format_is_one_module_and_one_registry_line(tmp_path):
    (tmp_path / "m.yaml").write_text(
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata:\n  name: gpu.example.com\n"
        "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: one\n"
        "  namespace: team\nspec:\n  devices:\n    requests:\n    - name: gpu\n      exactly:\n"
        "        deviceClassName: gpu.example.com\n")
    out = _with_names_format("validate", "m.yaml", "-o", "names", "--no-config", cwd=tmp_path)
    assert (out.returncode, out.stderr) == (0, "")
    assert out.stdout == "DeviceClass gpu.example.com\nResourceClaim team/one\n"
    # the new choice and its label reach --help, for the command it serves only
    shown = _with_names_format("validate", "--help")
    assert "<text|json|yaml|junit|sarif|github|concise|gitlab|names>" in shown.stdout
    assert "names (one object per line)" in " ".join(shown.stdout.split())
    refused = _with_names_format("allocate", "m.yaml", "-o", "names", cwd=tmp_path)
    assert refused.returncode == 2 and "names" in refused.stderr
