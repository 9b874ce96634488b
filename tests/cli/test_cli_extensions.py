"""`--extension` on allocate and capacity, `extensions:` in .dractl.yaml (dractl's own opt-in
extensions, docs/decisions/0001-podgroup-constraints-extension.md)."""

from __future__ import annotations

import json

from groupconstraint_manifests import CLASS, GATES, match, node, podgroup, pods, template


def _group(tmp_path):
    (tmp_path / "in.yaml").write_text("---\n".join(
        [CLASS, node("n1", 2, "nvlinkDomain", lambda i: "a"), template(1),
         podgroup("g", "gang: {minCount: 2}", match()), pods("g", 2)]))


def test_unknown_extension_is_a_usage_error(dractl, tmp_path):
    _group(tmp_path)
    for command in ("allocate", "capacity"):
        result = dractl(command, "--no-config", "--extension", "nope", "in.yaml", cwd=tmp_path)
        assert result.code == 2, command
        assert "unknown extension 'nope'; dractl knows: podgroup-constraints" in result.err


def test_option_switches_it_on_for_allocate(dractl, tmp_path):
    _group(tmp_path)
    off = dractl("allocate", "--no-config", "--feature-gates", GATES, "-o", "json", "in.yaml", cwd=tmp_path)
    assert off.code == 1 and "DRA0101" in off.out
    on = dractl("allocate", "--no-config", "--feature-gates", GATES, "--extension", "podgroup-constraints",
                "-o", "json", "in.yaml", cwd=tmp_path)
    assert on.code == 0, on.err
    reasons = [r for p in json.loads(on.out)["pods"] for r in p["reasons"]]
    assert {(r["code"], r["extension"]) for r in reasons} == {("DRA8011", True)}


def test_capacity_accepts_the_extension(dractl, tmp_path):
    _group(tmp_path)
    off = dractl("capacity", "--no-config", "--feature-gates", GATES, "in.yaml", cwd=tmp_path)
    on = dractl("capacity", "--no-config", "--feature-gates", GATES, "--extension", "podgroup-constraints",
                "in.yaml", cwd=tmp_path)
    assert off.code == 1 and "DRA0101" in off.out + off.err
    assert on.code == 0, on.out + on.err


def test_config_extensions(dractl, tmp_path):
    _group(tmp_path)
    (tmp_path / ".dractl.yaml").write_text("extensions: [podgroup-constraints]\n")
    args = ("allocate", "--feature-gates", GATES, "-o", "json", "in.yaml")
    result = dractl(*args, cwd=tmp_path)
    assert result.code == 0, result.err
    assert '"extension": true' in result.out
    (tmp_path / ".dractl.yaml").write_text("extensions: [nope]\n")
    bad = dractl(*args, cwd=tmp_path)
    assert bad.code == 2 and "extensions: unknown extension 'nope'" in bad.err
