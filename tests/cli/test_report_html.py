"""The HTML picture (dractl.report.html): escaping, determinism, and a real headless browser.

The browser tests need Debian's chromium (browser_helpers.py).
"""

from __future__ import annotations

import re

from browser_helpers import browser, browser_dom

from dractl.report.html import render

HOSTILE = '"><script>alert(1)</script>&\u202e\u2028</script><!--'


def _picture(nodes: int, devices: int, name_suffix: str = "") -> dict:
    groups = []
    for n in range(nodes):
        parents = []
        for d in range(devices):
            state = ("allocated", "free", "unavailable")[d % 3]
            dev = {"id": f"gpu.example.com/node-{n}/gpu-{d}{name_suffix}", "name": f"gpu-{d}", "state": state,
                   "attributes": {"model": "A100" + name_suffix}}
            if state == "allocated":
                dev["claims"] = [f"default/claim-{n}-{d}"]
                dev["pods"] = [f"default/pod-{n}-{d}{name_suffix}"]
            if state == "unavailable":
                dev["unavailable"] = "tainted (broken:NoSchedule)" + name_suffix
            parents.append({"device": dev})
        if n == 0:
            parents.append({"counterSet": "gpu-x-counters" + name_suffix,
                            "counters": [{"name": "memory", "total": "80Gi", "consumed": "40Gi", "available": "40Gi"}],
                            "devices": [{"id": f"gpu.example.com/node-0/mig-{i}", "name": f"mig-{i}", "state": "free"}
                                        for i in range(3)]})
        groups.append({"node": f"node-{n}{name_suffix}", "attached": False, "parents": parents})
    workloads = [{"id": f"pods:default/pod-{n}", "label": f"Pods default/pod-{n}-*{name_suffix}", "devices": 1,
                  "pods": 1} for n in range(nodes)]
    pod_workload = {f"default/pod-{n}-{d}{name_suffix}": f"pods:default/pod-{n}" for n in range(nodes)
                    for d in range(devices)}
    return {"title": "dractl allocate" + name_suffix, "summary": {"pods": 3, "scheduled": 2},
            "nodes": groups, "workloads": workloads, "podWorkload": pod_workload,
            "pending": [{"pod": "default/p" + name_suffix, "owner": "Job/j" + name_suffix, "status": "Unschedulable",
                         "claims": ["claim c" + name_suffix],
                         "reasons": [{"code": "DRA5001", "message": name_suffix,
                                      "details": ["node" + name_suffix, "  why" + name_suffix]}]}],
            "pools": [{"driver": "gpu.example.com", "poolName": "node-0" + name_suffix, "generation": 1}]}


def test_every_input_string_is_escaped():
    page = render(_picture(2, 3, HOSTILE))
    assert "<script>alert(1)" not in page
    # Only dractl's two script elements exist; the JSON inside the data script cannot close it.
    assert page.count("<script") == 2 and page.count("</script>") == 2
    data = re.search(r'<script type="application/json" id="devices-data">(.*?)</script>', page, re.S).group(1)
    assert "<" not in data and ">" not in data and "\u2028" not in data


def test_output_is_deterministic_and_self_contained():
    one, two = render(_picture(5, 8)), render(_picture(5, 8))
    assert one == two
    assert "http://" not in one and "https://" not in one and "src=" not in one
    assert '<body data-nodes="5" data-devices="43">' in one  # 5 x 8 devices + 3 partitions


def test_page_checks_itself_in_headless_chromium(tmp_path):
    page = tmp_path / "plan.html"
    page.write_text(render(_picture(500, 8, HOSTILE)), encoding="utf-8")
    dom = browser_dom(page, tmp_path)
    check = re.search(r'<p id="selfcheck"[^>]*>([^<]*)</p>', dom)
    assert check and check.group(1) == "ok", check.group(1) if check else dom[-2000:]
    # The hostile title did not run: no alert() script, and the page title is the escaped text.
    assert "<script>alert(1)" not in dom
    shot = tmp_path / "plan.png"
    taken = browser(tmp_path / "profile2", "--window-size=1400,900", f"--screenshot={shot}", page.as_uri())
    assert taken.returncode == 0 and shot.stat().st_size > 10_000, taken.stderr[-2000:]


def test_self_check_reports_a_mismatch(tmp_path):
    # The check can fail: a page whose expected counts disagree with its DOM says so.
    page = tmp_path / "bad.html"
    page.write_text(render(_picture(2, 2)).replace('data-nodes="2"', 'data-nodes="3"'), encoding="utf-8")
    dom = browser_dom(page, tmp_path)
    assert re.search(r'<p id="selfcheck"[^>]*>mismatch: 2 nodes', dom), dom[-1000:]


def test_legend_beyond_the_palette_is_one_entry():
    from dractl.report import palette

    picture = _picture(25, 1)
    page = render(picture)
    colours = re.findall(r'<li class="workload"><span class="swatch" style="background:(#[0-9a-f]{6})"></span>', page)
    assert len(colours) == len(palette.BASE) + 1 and len(set(colours)) == len(colours)
    assert colours[-1] == palette.OTHER and f"{25 - len(palette.BASE)} more workload(s)" in page


def test_palette_colours_are_far_apart():
    import itertools

    from html_layout import delta_e

    from dractl.report import palette

    colours = [*palette.BASE, palette.OTHER]
    assert min(delta_e(a, b) for a, b in itertools.combinations(colours, 2)) >= 22
    assert min(delta_e(c, "#ffffff") for c in colours) >= 22
    assert min(delta_e(c, "#c9ced6") for c in colours) >= 15
