"""The `-o html` picture as a user opens it, in headless Chromium (cdp.py, html_layout.py), at
1400 x 1000 and on a phone (390 x 844), for 3 nodes and for 500: no text overlaps other text or
overflows its box, the legend's workload colours are far apart, the filter finds nodes,
devices and pods, big clusters open collapsed; and, in the markup: one hue family per workload,
labelled devices, partitions and counters, every holder of a shared device in its title, the
plan's tree for pods that were not scheduled, no visible self-check text, no network."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest
from cli_helpers import run
from html_layout import delta_e, layout_report

from dractl.report import palette

DATA = Path(__file__).resolve().parent / "data"
REPO = Path(__file__).resolve().parents[2]
THREE = ["allocate", "--no-config", "-i", "builtin:example-gpu", str(DATA / "html" / "three-nodes.yaml")]
SIZES = [(1400, 1000), (390, 844)]
MIN_DISTANCE = 20          # CIE76 delta E between two legend colours
FREE, HATCH = "#ffffff", "#c9ced6"


def _page(tmp: Path, name: str, args: list[str]) -> tuple[Path, str]:
    r = run(*args, "-o", "html")
    assert r.code in (0, 1), r.err
    page = tmp / f"{name}.html"
    page.write_text(r.out, encoding="utf-8")
    return page, r.out


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    return _page(tmp_path_factory.mktemp("three"), "three-nodes", THREE)


@pytest.fixture(scope="module")
def five_hundred(tmp_path_factory):
    from benchmarks import scenarios

    tmp = tmp_path_factory.mktemp("five-hundred")
    scenario = scenarios.claim_template(tmp, 5000, 500, devices=8)
    plan = json.loads(run("allocate", "--no-config", scenario.directory, "-o", "json").out)
    return (*_page(tmp, "500-nodes", ["allocate", "--no-config", scenario.directory]), plan)


def _assert_laid_out(report: dict) -> None:
    for check in report["checks"]:
        assert check["count"] == 0, (check["label"], check["problems"])
        assert check["texts"] > 20, check


@pytest.mark.parametrize("width, height", SIZES, ids=["1400x1000", "390x844"])
def test_three_nodes_in_the_browser(three, tmp_path, width, height):
    page, _ = three
    shot = tmp_path / f"three-nodes-{width}x{height}.png"
    report = layout_report(page, tmp_path, width, height, ["tool-2", "1g.5gb", ""], shot=shot)
    assert report["width"] == width and shot.stat().st_size > 10_000
    _assert_laid_out(report)
    assert report["selfcheck"] == "ok" and not report["selfcheckShown"] and report["open"] == 2
    # The filter by a pod name: the node it runs on, its device marked; nothing matches a MIG
    # profile here; an empty filter shows every node again.
    assert report["filters"]["tool-2"] == {"nodes": ["dra-example-driver-cluster-worker2"], "shown": "1 of 2 node(s) shown",
                                           "hits": ["gpu.example.com/dra-example-driver-cluster-worker2/gpu-0"]}
    assert report["filters"]["1g.5gb"]["nodes"] == [] and report["filters"][""]["shown"] == "2 of 2 node(s) shown"
    legend = report["legend"]
    assert len(legend) == 6
    for one, two in itertools.combinations(legend, 2):
        assert delta_e(one, two) >= MIN_DISTANCE, (one, two)
    assert all(delta_e(c, FREE) >= MIN_DISTANCE and delta_e(c, HATCH) >= 15 for c in legend)


@pytest.mark.parametrize("width, height", SIZES, ids=["1400x1000", "390x844"])
def test_500_nodes_in_the_browser(five_hundred, tmp_path, width, height):
    page, _, plan = five_hundred
    pod = next(p for p in plan["pods"] if p["name"] == "test-dra-1234" and p["status"] == "Scheduled")
    shot = tmp_path / f"500-nodes-{width}x{height}.png"
    query = f"{pod['namespace']}/test-dra-1234"
    report = layout_report(page, tmp_path, width, height, [query, "scheduler-perf-dra-417"], shot=shot)
    assert shot.stat().st_size > 10_000
    _assert_laid_out(report)
    assert report["selfcheck"] == "ok" and report["nodes"] == 500
    assert report["open"] == 0       # hundreds of nodes open collapsed, one line each
    by_pod, by_node = report["filters"][query], report["filters"]["scheduler-perf-dra-417"]
    assert by_pod["nodes"] == [pod["node"]] and len(by_pod["hits"]) == 1
    assert by_pod["hits"][0].startswith(f"test-driver.cdi.k8s.io/{pod['node']}/")
    assert by_pod["shown"] == "1 of 500 node(s) shown"
    assert by_node["nodes"] == ["scheduler-perf-dra-417"] and by_node["hits"] == []


def test_500_nodes_page_lists_every_node_and_pod_that_did_not_fit(five_hundred):
    _, html, plan = five_hundred
    assert html.count('<details class="node"') == 500 and ' open>' not in html.split('<div id="nodes">')[1][:5000]
    not_scheduled = [p for p in plan["pods"] if p["status"] != "Scheduled"]
    assert len(not_scheduled) == 1000 and f"Not scheduled ({len(not_scheduled)})" in html


def _legend(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<li class="workload"><span class="swatch" style="background:(#[0-9a-f]{6})"></span>([^<]*)</li>',
                      html)


def test_workloads_share_a_hue_family(three):
    _, html = three
    legend = dict((label.split(" (")[0], colour) for colour, label in _legend(html))
    assert list(legend) == ["Deployment default/inference", "Job default/train", "StatefulSet default/db",
                            "Pods default/tool-*", "Pods default/reader-a", "Pods default/reader-b"]
    base = legend["Deployment default/inference"]
    # The Deployment's three pods: the base colour and two shades of it.
    chips = re.findall(r'title="([^"]*)" style="--c:(#[0-9a-f]{6});', html)
    inference = [colour for title, colour in chips if "default/inference-" in title]
    assert inference == [palette.shade(base, i) for i in range(3)] and len(set(inference)) == 3
    assert all(delta_e(c, base) < delta_e(c, legend["Job default/train"]) for c in inference)


def test_shared_device_names_every_holder(three):
    _, html = three
    [chip] = re.findall(r'<span class="dev allocated"[^>]*title="([^"]*held by 2 pods[^"]*)"[^>]*>', html)
    assert chip.endswith("held by 2 pods: default/reader-a, default/reader-b")
    assert re.search(r'--c:linear-gradient\(90deg,#59a14f 0% 50%,#edc948 50% 100%\)', html)


def test_unscheduled_pod_shows_the_plans_tree(three):
    _, html = three
    section = html.split('<section id="pending">')[1].split("</section>")[0]
    assert "<b>pod default/huge</b>" in section and "claim gpus -&gt; huge-gpus-" in section
    # Explanation lines nest: node group, then claim, then causes.
    assert re.search(r'<ul class="tree"><li>1 node\(s\) \(dra-example-driver-cluster-worker\):<ul class="tree">'
                     r'<li>claim default/huge-gpus-\w+, request gpu', section), section[:3000]


def test_partitions_and_counters_are_labelled(tmp_path):
    _, html = _page(tmp_path, "mig", ["capacity", "--no-config", "-i", "builtin:nvidia-mig",
                                      str(REPO / "examples" / "mig.yaml")])
    labels = re.findall(r'<span class="dev [a-z]+"[^>]*>([^<]+)</span>', html)
    assert {"1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb", "gpu-0", "gpu-1"} <= set(labels)
    assert "counter set gpu-0-counter-set" in html
    assert re.search(r'<span>memory</span><span class="bar"><i style="width:\d+%"></i></span><span>39Gi/40192Mi</span>',
                     html)
    assert '<table id="pools">' in html and 'data-label="totalDevices">52<' in html


def test_page_is_self_contained_and_shows_no_check_text(three):
    _, html = three
    assert "http://" not in html and "https://" not in html and " src=" not in html and "@import" not in html
    assert '<p id="selfcheck">checking</p>' in html and "#selfcheck{display:none}" in html


BROKEN = """<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width,initial-scale=1"></head>
<body><div id="nodes"></div><ul id="legend"></ul>
<p style="position:absolute;top:10px;left:10px;margin:0">one text</p>
<p style="position:absolute;top:12px;left:14px;margin:0">another text</p>
<div style="width:60px;height:14px;overflow:visible;white-space:nowrap;margin-top:80px">a long unbreakable line</div>
<div style="width:1600px">a row wider than the page</div>
</body></html>"""


def test_the_layout_check_finds_overlaps_and_overflows(tmp_path):
    page = tmp_path / "broken.html"
    page.write_text(BROKEN)
    report = layout_report(page, tmp_path, 1400, 1000, ["x"])
    problems = " | ".join(report["checks"][0]["problems"])
    assert 'overlap: "one text" / "another text"' in problems
    assert "overflows its box: a long unbreakable line" in problems
    assert "page scrolls sideways" in problems


GANG = """apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: trainers, namespace: default}
spec:
  schedulingPolicy: {gang: {minCount: 2}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: gpu, namespace: default}
spec:
  spec:
    devices:
      requests: [{name: gpu, exactly: {deviceClassName: gpu.example.com}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: train, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: t}}
  template:
    metadata: {labels: {app: t}}
    spec:
      schedulingGroup: {podGroupName: trainers}
      resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu}]
      containers: [{name: c, image: x, resources: {claims: [{name: gpu}]}}]
"""


def test_pods_of_a_podgroup_are_one_workload(tmp_path):
    manifests = tmp_path / "gang.yaml"
    manifests.write_text(GANG)
    _, html = _page(tmp_path, "gang", ["allocate", "--no-config", "-i", "builtin:example-gpu", "--kube-version", "1.36",
                                       "--feature-gates", "GenericWorkload=true,GangScheduling=true", str(manifests)])
    assert [label for _, label in _legend(html)] == ["PodGroup default/trainers (2 pod(s), 2 device(s))"]
