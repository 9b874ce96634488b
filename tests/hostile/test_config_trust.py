"""`.dractl.yaml` is found only where the checkout decides: discovery stops at the repository
root (the directory holding `.git`), skips a file owned by another user (not root) with a warning
naming it, as git's safe.directory does; and paths in a config (inventory:, globs with `..`)
outside its directory are refused unless --config-allow-outside, the rule of --golden."""

from __future__ import annotations

import json
import os

import pytest
from cli_harness import assert_ok, run_inproc

BAD = b"apiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: Not_A_Name}\n"
STRANGER_UID = 4242


def _tree(tmp_path):
    """shared/.dractl.yaml (excludes everything) above shared/repo/.git and shared/repo/m.yaml."""
    shared = tmp_path / "shared"
    repo = shared / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "m.yaml").write_bytes(BAD)
    (shared / ".dractl.yaml").write_text('exclude: ["**"]\n')
    return shared, repo


def test_discovery_stops_at_the_repository_root(tmp_path, monkeypatch):
    shared, repo = _tree(tmp_path)
    monkeypatch.chdir(repo)
    run = run_inproc(["validate", "."])
    assert_ok(run)
    assert run.code == 1 and "DRA1" in run.out  # the finding stands: the file above was not read
    (repo / ".git").rmdir()
    (repo / ".git").write_text("gitdir: /elsewhere\n")  # a worktree's .git is a file
    assert run_inproc(["validate", "."]).code == 1
    os.remove(repo / ".git")
    outside_repo = run_inproc(["validate", "."])
    assert outside_repo.code == 0  # no repository: the walk goes up and finds it, as before


def test_config_in_the_repository_root_still_applies(tmp_path, monkeypatch):
    shared, repo = _tree(tmp_path)
    (repo / ".dractl.yaml").write_text('exclude: ["m.yaml"]\n')
    (repo / "sub").mkdir()
    monkeypatch.chdir(repo / "sub")
    assert run_inproc(["validate", ".."]).code == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="chown to another user needs root")
def test_config_of_another_user_is_ignored_with_a_warning(tmp_path, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    (work / "m.yaml").write_bytes(BAD)
    config = work / ".dractl.yaml"
    config.write_text('exclude: ["**"]\n')
    os.chown(config, STRANGER_UID, STRANGER_UID)
    monkeypatch.chdir(work)
    run = run_inproc(["validate", "."])
    assert_ok(run)
    assert run.code == 1, "another user's exclude: ['**'] turned a failing check into a pass"
    assert run.err == (f"dractl: warning: ignoring .dractl.yaml: owned by uid {STRANGER_UID}, not by "
                       f"you (uid {os.geteuid()}) or root; give it with --config FILE to use it "
                       "anyway\n")
    named = run_inproc(["validate", ".", "--config", ".dractl.yaml"])
    assert named.code == 0 and "ignoring" not in named.err  # named on the command line: trusted
    os.chown(config, 0, 0)
    assert run_inproc(["validate", "."]).code == 0  # root's file is trusted, as in git


@pytest.mark.parametrize("entry", ["/etc/passwd", "/proc/self/environ", "../outside.yaml", "/",
                                   "link-out"])
def test_inventory_outside_the_config_tree_is_refused(entry, tmp_path, monkeypatch):
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "outside.yaml").write_bytes(BAD)
    os.symlink(tmp_path / "outside.yaml", work / "link-out")
    (work / "m.yaml").write_bytes(BAD)
    (work / ".dractl.yaml").write_text(json.dumps({"inventory": [entry]}))
    monkeypatch.chdir(work)
    run = run_inproc(["allocate", "m.yaml"])
    assert_ok(run)
    assert run.code == 2 and run.out == ""
    assert "inventory:" in run.err and "resolves outside the config's directory" in run.err
    assert "--config-allow-outside" in run.err
    allowed = run_inproc(["allocate", "m.yaml", "--config-allow-outside"], time_limit=60) \
        if entry in ("../outside.yaml", "link-out") else None
    if allowed is not None:
        assert allowed.code == 1 and entry.lstrip("./") in allowed.out


@pytest.mark.parametrize("key", ["exclude", "perPathIgnore"])
def test_globs_reaching_outside_are_refused(key, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "m.yaml").write_bytes(BAD)
    value = ["../**"] if key == "exclude" else {"../**": ["DRA1002"]}
    (tmp_path / ".dractl.yaml").write_text(json.dumps({key: value}))
    run = run_inproc(["validate", "m.yaml"])
    assert run.code == 2 and f"{key}:" in run.err and "outside the config's directory" in run.err
    assert run_inproc(["validate", "m.yaml", "--config-allow-outside"]).code == 1


def test_inventory_inside_the_tree_and_builtin_are_fine(tmp_path, monkeypatch):
    (tmp_path / "inv").mkdir()
    (tmp_path / "inv" / "nodes.yaml").write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n")
    (tmp_path / ".dractl.yaml").write_text(json.dumps({"inventory": ["inv", "builtin:example-gpu"]}))
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    run = run_inproc(["allocate", "../inv/nodes.yaml"])
    assert_ok(run)
    assert run.code == 0, run.err
