"""Hostile expressions: CEL cost bombs and catastrophic regular expressions
end with a clear error well under a second; allocator searches that explode end at --timeout.

Kubernetes evaluates `matches()` / `find()` / `findAll()` with RE2, which never backtracks;
dractl uses RE2 too (google-re2), so the classic exponential patterns are linear here.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import pytest
import yaml
from cli_harness import assert_ok, run_inproc

from dractl.api.versions import DEFAULT_KUBE_VERSION, FeatureGates
from dractl.cel import CelRuntimeError, SelectorEngine, regex

# Not a speed target: a guard against runaway (backtracking) evaluation. One evaluation takes
# 0.05-0.25 s on an idle machine; backtracking on these inputs would take years, so a bound ten
# times what a loaded 2-core runner needs still tells the two apart without ever flaking (1 s did,
# under a load average of 12).
ONE_EVALUATION = 10.0
ONE_RUN = 5.0

CATASTROPHIC = [
    ("^(a+)+$", "a" * 100_000 + "!"),
    ("(a|aa)*c", "a" * 100_000),
    ("(a*)*b", "a" * 100_000),
    ("^(\\w+\\s?)*$", "word " * 20_000 + "!"),
    ("(x+x+)+y", "x" * 100_000),
    ("^(([a-z])+.)+[A-Z]([a-z])+$", "a" * 100_000 + "!"),
    ("(.*a){20}", "a" * 50_000),
]


@pytest.fixture(autouse=True)
def _no_config_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)


@pytest.mark.parametrize("pattern,text", CATASTROPHIC, ids=[p for p, _ in CATASTROPHIC])
def test_regex_engine_is_linear(pattern, text):
    compiled = regex.compile_re(pattern)
    start = time.perf_counter()
    compiled.search(text)
    list(compiled.finditer(text[:20_000]))
    assert time.perf_counter() - start < ONE_EVALUATION


@pytest.mark.parametrize("pattern", ["(a)\\1", "(?=a)", "(?<!a)b", "(?>a)", "a++", "\\",
                                     "((a{100}){100}){100}", "a{1001}", "\ud800", "[z-a]"])
def test_patterns_re2_refuses_are_clear_errors(pattern):
    message = regex.check_pattern(pattern)
    assert message and message.startswith("error parsing regexp"), message
    with pytest.raises(regex.RegexError):
        regex.compile_re(pattern)


def _class(name, expression):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expression}}]}}


def _claim(name, class_name):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": class_name}}]}}}


def _inventory(attribute_value: str):
    """One node, one device whose string attribute is `attribute_value` (over the API's 64-char
    limit on purpose: the inventory is input from strangers too)."""
    return [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
         "spec": {"driver": "gpu.example.com", "nodeName": "n1",
                  "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
                  "devices": [{"name": "gpu-0", "attributes": {"model": {"string": attribute_value}}}]}},
    ]


def _dump(docs) -> bytes:
    return yaml.safe_dump_all(docs, width=10**9).encode()


@pytest.mark.parametrize("pattern,text", CATASTROPHIC[:4], ids=[p for p, _ in CATASTROPHIC[:4]])
@pytest.mark.parametrize("function", ["matches", "find", "findAll"])
def test_catastrophic_regex_in_a_selector(pattern, text, function):
    """The attribute value is long (the API limit is 64 characters; a hostile inventory ignores
    it, so the allocator sees it after --ignore of the length finding)."""
    call = {"matches": f"matches({json.dumps(pattern)})",
            "find": f"find({json.dumps(pattern)}) != 'x'",
            "findAll": f"findAll({json.dumps(pattern)}).size() >= 0"}[function]
    docs = _inventory(text[:10_000]) + [
        _class("regex", f'device.attributes["gpu.example.com"].model.{call}'),
        _claim("c", "regex"),
        # a literal haystack in the expression itself (compile-time constant)
        _class("literal", f'{json.dumps(text[:5000])}.{call}'),
        _claim("d", "literal"),
    ]
    run = run_inproc(["validate", "-", "-o", "json"], stdin=_dump(docs), time_limit=ONE_RUN * 4)
    assert_ok(run, "json")
    assert run.seconds < ONE_RUN
    ignore = sorted({f["code"] for f in json.loads(run.out)["findings"]})
    args = ["allocate", "-", "-o", "json", "--timeout", "2"] + [a for c in ignore for a in ("--ignore", c)]
    run = run_inproc(args, stdin=_dump(docs), time_limit=ONE_RUN * 4)
    assert_ok(run, "json")
    assert run.seconds < ONE_RUN, f"{run.seconds:.1f} s"


L50 = ",".join(["1"] * 50)
COST_BOMBS = {
    "nested-comprehensions": f"[{L50}].all(a, [{L50}].all(b, [{L50}].all(c, [{L50}].all(d, true))))",
    "lists-range": "lists.range(100000).all(a, lists.range(100000).all(b, true))",
    "map-growth": f"[{L50}].map(a, [{L50}].map(b, [{L50}].map(c, a + b + c))).size() > 0",
    "string-growth": f"[{L50}].all(a, [{L50}].all(b, [{L50}].all(c, "
                     "(device.driver + device.driver + device.driver).size() > 0)))",
    "regex-in-loops": f"[{L50}].all(a, [{L50}].all(b, [{L50}].all(c, "
                      "device.driver.matches('^(a+)+$') || true)))",
}


@dataclass
class _Device:  # what dractl.cel needs of a device (the CelDevice protocol)
    key: tuple
    driver: str
    attributes: dict = field(default_factory=dict)
    capacity: dict = field(default_factory=dict)
    allow_multiple_allocations: bool = False


@pytest.mark.parametrize("name", sorted(COST_BOMBS))
def test_one_cost_bomb_evaluation_stops_well_under_a_second(name):
    """The runtime cost limit itself, without the CLI around it: one evaluation of one selector
    on one device ends with a clear error (the allocator's view: a stored expression)."""
    engine = SelectorEngine(FeatureGates(DEFAULT_KUBE_VERSION))
    device = _Device(("gpu.example.com", "pool", f"gpu-{name}"), "gpu.example.com")
    start = time.perf_counter()
    with pytest.raises(CelRuntimeError, match="cost limit"):
        engine.matches(COST_BOMBS[name], device)
    assert time.perf_counter() - start < ONE_EVALUATION


@pytest.mark.parametrize("name", sorted(COST_BOMBS))
def test_cel_cost_bomb(name):
    """Validate: the API server's static cost limit rejects it (DRA1902). Allocate, with that
    finding ignored: the runtime cost limit stops the evaluation with a clear reason."""
    docs = [_class("bomb", COST_BOMBS[name]), _claim("c", "bomb")]
    run = run_inproc(["validate", "-", "-o", "json"], stdin=_dump(docs))
    assert_ok(run, "json")
    codes = {f["code"] for f in json.loads(run.out)["findings"]}
    assert "DRA1902" in codes, codes
    assert run.seconds < ONE_RUN
    args = ["allocate", "-", "-i", "builtin:example-gpu", "-o", "json", "--timeout", "2"]
    args += [a for c in sorted(codes) for a in ("--ignore", c)]
    run = run_inproc(args, stdin=_dump(docs), time_limit=ONE_RUN * 4)
    assert_ok(run, "json")
    assert run.seconds < ONE_RUN, f"{run.seconds:.1f} s"
    claims = {c["name"]: c for c in json.loads(run.out)["claims"]}
    messages = " ".join(r["message"] for r in claims["c"]["reasons"])
    assert claims["c"]["status"] != "Allocated"
    assert "cost limit" in messages, messages


@pytest.mark.parametrize("expression", [
    "(" * 3000 + "true" + ")" * 3000,
    "[" * 2000 + "]" * 2000 + " == []",
    "!" * 5000 + "true",
    "-" * 5000 + "1 == -1",
    "1" * 5000 + " > 0",
    "true ? " * 1200 + "true" + " : false" * 1200,
    "device.attributes" + "['a']" * 2000 + " == 1",
    "a." * 4000 + "b",
], ids=["parens", "lists", "not", "minus", "bigint", "ternary", "index", "select"])
def test_parser_bombs_are_clear_findings(expression):
    docs = [_class("bomb", expression), _claim("c", "bomb")]
    run = run_inproc(["validate", "-", "-o", "json"], stdin=_dump(docs), time_limit=ONE_RUN * 4)
    assert_ok(run, "json")
    assert run.seconds < ONE_RUN
    codes = {f["code"] for f in json.loads(run.out)["findings"] if f["name"] == "bomb"}
    assert codes & {"DRA1901", "DRA1902", "DRA1904"}, codes
    args = ["allocate", "-", "-i", "builtin:example-gpu", "-o", "json"]
    args += [a for c in sorted(codes) for a in ("--ignore", c)]
    run = run_inproc(args, stdin=_dump(docs), time_limit=ONE_RUN * 4)
    assert_ok(run, "json")


# ---- the allocator's search ----------------------------------------------------------------------

def _explosive(nodes: int = 1, pods: int = 1, env: bool = False):
    """12 requests over 32 interchangeable devices, with a constraint that only the last
    request can break: the upstream search (no memoisation) tries ~32!/20! placements."""
    docs = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "any"},
             "spec": {}}]
    for n in range(nodes):
        docs.append({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{n}"}})
        docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
                     "metadata": {"name": f"s{n}"},
                     "spec": {"driver": "d.example.com", "nodeName": f"n{n}",
                              "pool": {"name": f"n{n}", "generation": 1, "resourceSliceCount": 1},
                              "devices": [{"name": f"dev-{i}", "attributes": {"x": {"int": i}}}
                                          for i in range(32)]}})
    for p in range(pods):
        requests = [{"name": f"r{i}", "exactly": {"deviceClassName": "any"}} for i in range(12)]
        docs.append({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                     "metadata": {"name": f"c{p}", "namespace": "default"},
                     "spec": {"devices": {"requests": requests, "constraints": [
                         {"requests": ["r0", "r11"], "matchAttribute": "d.example.com/x"}]}}})
        container = {"name": "c", "image": "x"}
        if env:
            container["env"] = [{"name": "X", "valueFrom": {"resourceSliceAttributeRef": {
                "claimName": "c", "requestName": "r0", "attribute": "d.example.com/x"}}}]
        docs.append({"apiVersion": "v1", "kind": "Pod",
                     "metadata": {"name": f"p{p}", "namespace": "default"},
                     "spec": {"containers": [container],
                              "resourceClaims": [{"name": "c", "resourceClaimName": f"c{p}"}]}})
    return _dump(docs)


@pytest.mark.parametrize("timeout", [0.3, 1.0])
def test_exploding_search_ends_at_timeout(timeout):
    run = run_inproc(["allocate", "-", "-o", "json", "--timeout", str(timeout)],
                     stdin=_explosive(), time_limit=60)
    assert_ok(run, "json")
    assert run.code == 1
    assert run.seconds < timeout + ONE_RUN, f"{run.seconds:.1f} s for --timeout {timeout}"
    pod = json.loads(run.out)["pods"][0]
    assert pod["status"] == "Unschedulable"
    assert "timed out" in " ".join(r["message"] for r in pod["reasons"])


def test_exploding_search_on_several_nodes_and_pods():
    """--timeout is per pod and node (kube-scheduler's filterTimeout): 3 nodes x 4 pods."""
    run = run_inproc(["allocate", "-", "-o", "json", "--timeout", "0.3"],
                     stdin=_explosive(nodes=3, pods=4), time_limit=60)
    assert_ok(run, "json")
    assert run.seconds < 3 * 4 * 0.3 + ONE_RUN, f"{run.seconds:.1f} s"
    assert all(p["status"] == "Unschedulable" for p in json.loads(run.out)["pods"])


def test_env_search_can_be_bounded():
    run = run_inproc(["env", "-", "-o", "json", "--timeout", "0.3"],
                     stdin=_explosive(nodes=3, env=True), time_limit=20)
    assert_ok(run, "json")
    assert run.code in (0, 1) and run.seconds < 3 * 0.3 + ONE_RUN
