"""Runs every case of the allocator conformance corpus (testdata/conformance/FORMAT.md) through dractl's allocator,
under its home behaviour and under every other Kubernetes release it describes (conformance_releases.py).

The corpus lives in the repository (`testdata/conformance/`, first copied from the project's shared
corpus; new cases are added there), so a fresh clone runs every case. DRACTL_CONFORMANCE points the
suite at another copy instead (for example a newer shared corpus before it is copied in).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml
from conformance_releases import SNAPSHOT, Context, contexts
from ruamel.yaml import YAML

from dractl.allocator import Allocator
from dractl.api.quantity import Quantity
from dractl.api.resource import DeviceClass, DeviceTaintRule, ResourceClaim, ResourceSlice
from dractl.api.versions import KUBE_VERSIONS

REPO = Path(__file__).resolve().parents[2]
FOLDERS = ("allocator", "random", "random2", "v137", "v138")
# Least sizes of each folder (the corpus as first copied in); a run that finds fewer cases is
# broken, not green. Cases are added to the folders, never removed.
EXPECTED_COUNTS = {"allocator": 161, "random": 100, "random2": 1001, "v137": 28, "v138": 14}


def _corpus_root() -> Path:
    if os.environ.get("DRACTL_CONFORMANCE"):
        return Path(os.environ["DRACTL_CONFORMANCE"])
    return REPO / "testdata" / "conformance"


ROOT = _corpus_root()


class _Yaml12Loader(yaml.CSafeLoader if yaml.__with_libyaml__ else yaml.SafeLoader):
    """libyaml's speed with YAML 1.2's scalars, as ruamel reads the corpus: only true/false are
    booleans ("on", "no", "Y" stay strings), no sexagesimal or 0-prefixed octal ints. Loading all
    1,300 cases with ruamel's pure-Python parser took 40 s; this takes a few."""


_Yaml12Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers
            if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float")]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                                    list("tTfF"))
# ints before floats: the first matching resolver wins.
_Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"),
                                    list("-+0123456789"))
_Yaml12Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    list("-+.0123456789"))


def _int_12(loader, node):
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    return int(text, 16) if text.startswith("0x") else int(text, 10)


_Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _int_12)


def _load(path: Path) -> dict:
    with path.open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=_Yaml12Loader)


def _case_files() -> list[Path]:
    return [p for folder in FOLDERS for p in sorted((ROOT / folder).glob("*.yaml"))]


CASES = _case_files()


# Each case file is read once (at collection) and its manifests parsed once: reading YAML was most
# of the suite's time, and a case now runs several times.
_LOADED: dict[Path, dict] = {}
_PARSED: dict[Path, tuple] = {}


def _runs() -> list:
    """(path, context) for every run, the home context first."""
    out = []
    for path in CASES:
        case = _LOADED[path] = _load(path)
        for ctx in contexts(case):
            label = f"{path.parent.name}/{path.stem}" + ("" if ctx.name == SNAPSHOT else f"@{ctx.name}")
            out.append(pytest.param(path, ctx, id=label))
    return out


RUNS = _runs()


def test_corpus_present_and_complete():
    for folder, expected in EXPECTED_COUNTS.items():
        assert (ROOT / folder).is_dir(), f"conformance corpus folder missing: {ROOT / folder}"
        found = len(list((ROOT / folder).glob("*.yaml")))
        assert found >= expected, f"{folder}/: expected at least {expected} cases, found {found}"


def test_fast_loader_reads_yaml_1_2_like_ruamel():
    text = ("a: on\nb: no\nc: Y\nd: true\ne: 010\nf: 1:20\ng: 0x1f\nh: 0o17\ni: '7'\nj: 1.5\nk: ~\n"
            "l: 4611686018427387904\nm: 1e3\nn: .5\n")
    assert yaml.load(text, Loader=_Yaml12Loader) == YAML(typ="safe", pure=True).load(text)


def test_every_release_runs_most_cases():
    """The multi-release run is not vacuous: every release dractl models runs a sizeable share
    of the corpus (the rest is excluded for a reason conformance_releases.py states)."""
    per_release = {name: 0 for name in KUBE_VERSIONS}
    for param in RUNS:
        name = param.values[1].name
        if name in per_release:
            per_release[name] += 1
    for name, count in per_release.items():
        assert count >= len(CASES) // 3, f"only {count} of {len(CASES)} cases run under {name}"


def test_named_fixes_change_the_result():
    """Every fix a case names in `upstreamFixes` matters: with it flipped the expectation fails,
    so no case is kept from a release without a reason."""
    from dataclasses import replace

    from dractl.allocator.features import FIX_SWITCHES

    named = 0
    for path, case in _LOADED.items():
        home = contexts(case)[0]
        for pr in case.get("upstreamFixes") or {}:
            switch = FIX_SWITCHES[pr]
            flipped = replace(home, compat=replace(home.compat, **{switch: not getattr(home.compat, switch)}))
            assert mismatch(case, run_case(case, flipped)) is not None, \
                f"{path.parent.name}/{path.name}: upstreamFixes names #{pr}, but the result is the same without it"
            named += 1
    assert named >= 20


def run_case(case: dict, ctx: Context | None = None, parsed: tuple | None = None):
    """Allocate the case's claims under `ctx` (default: the case's home context). `parsed`: the
    case's objects from `parse_objects`, when the caller keeps them."""
    if ctx is None:
        ctx = contexts(case)[0]
    classes, slices, claims, rules = parsed or parse_objects(case)
    by_name = {(c.namespace or "default", c.name): c for c in claims}
    to_allocate = [by_name[("default", name)] for name in case.get("allocate") or []]
    allocated = [c for c in claims if c.allocation is not None]
    allocator = Allocator(ctx.gates, classes, slices, allocated, rules, compat=ctx.compat)
    return allocator.allocate(case["node"], to_allocate)


def parse_objects(case: dict) -> tuple:
    """(classes, slices, claims, taint rules) of the case. The records are immutable, so runs
    under several releases share them."""
    classes, slices, claims, rules = [], [], [], []
    for doc in case.get("objects") or []:
        kind = doc.get("kind")
        if kind == "DeviceClass":
            classes.append(DeviceClass.from_dict(doc))
        elif kind == "ResourceSlice":
            slices.append(ResourceSlice.from_dict(doc))
        elif kind == "ResourceClaim":
            claims.append(ResourceClaim.from_dict(doc))
        elif kind == "DeviceTaintRule":
            rules.append(DeviceTaintRule.from_dict(doc))
        else:
            raise AssertionError(f"unexpected object kind {kind!r}")
    return classes, slices, claims, rules


def _norm_result(entry: dict) -> dict:
    out = dict(entry)
    if "shareID" in out:
        out["shareID"] = "<present>"
    if "consumedCapacity" in out:
        out["consumedCapacity"] = {k: Quantity.parse(v).canonical() for k, v in out["consumedCapacity"].items()}
    if "tolerations" in out:
        out["tolerations"] = [{k: v for k, v in t.items()} for t in out["tolerations"]]
        for t in out["tolerations"]:
            t.setdefault("operator", "Equal")
    return out


def _norm_config(entry: dict) -> dict:
    out = dict(entry)
    if not out.get("requests"):
        out.pop("requests", None)
    return out


def mismatch(case: dict, outcome) -> str | None:
    """How `outcome` differs from the case's expectation, or None when it meets it."""
    expect = case["expect"]
    if outcome.status != expect["outcome"]:
        detail = f"got {outcome.status}" + (f": {outcome.error}" if outcome.error else "")
        return f"expected {expect['outcome']}, {detail}"
    if expect["outcome"] == "error":
        fragment = expect.get("errorContains")
        if fragment and fragment not in outcome.error:
            return f"error {outcome.error!r} does not contain {fragment!r}"
        return None
    if expect["outcome"] != "allocated":
        return None
    allocations = expect.get("allocations") or []
    if [a["claim"] for a in allocations] != [c.name for c in outcome.claims]:
        return "allocated claims differ"
    for want, got, claim in zip(allocations, outcome.results, outcome.claims, strict=True):
        got_dict = got.to_dict()
        got_devices = [_norm_result(r) for r in got_dict["devices"]["results"]]
        if got_devices != [_norm_result(r) for r in want.get("devices") or []]:
            return f"claim {claim.name}: device results differ: got {got_devices}"
        if got_dict.get("nodeSelector") != want.get("nodeSelector"):
            return f"claim {claim.name}: nodeSelector differs"
        got_config = [_norm_config(c) for c in got_dict["devices"].get("config", [])]
        if got_config != [_norm_config(c) for c in want.get("config") or []]:
            return f"claim {claim.name}: config differs"
    return None


@pytest.mark.parametrize("path, ctx", RUNS)
def test_case(path: Path, ctx: Context):
    case = _LOADED[path]
    parsed = _PARSED.get(path)
    if parsed is None:
        parsed = _PARSED[path] = parse_objects(case)
    problem = mismatch(case, run_case(case, ctx, parsed))
    assert problem is None, f"{path.parent.name}/{path.name} ({ctx.name}): {problem}"
