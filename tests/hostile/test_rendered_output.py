"""Manifest text that means something to a renderer (Markdown, HTML, XML) is shown as text by
every writer whose output a person reads rendered: the GitHub job summary (rendered here by
cmark-gfm, GitHub's own Markdown library, with raw HTML let through as the runner's renderer
lets its allowed tags through), SARIF's Markdown (rule help only: no manifest text ever reaches
it), the HTML page and JUnit XML."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import cmarkgfm
import pytest
from cli_harness import assert_ok, run_inproc
from cmarkgfm.cmark import Options

HOSTILE = ["<!-- ", '<img src="https://evil.example/p.png">', "<h1>big</h1>",
           "[click](https://evil.example/l)", "https://evil.example/bare", "www.evil.example",
           "@octocat", "`tick`", "a|b", "<script>x()</script>", "]]>", "&amp;", "*em* _u_ ~~s~~",
           "\\", "<details><summary>s", "![i](https://evil.example/i.png)"]


def _manifests(evil: str) -> str:
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": f"c-{evil}", "namespace": "default"},
             "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                 "deviceClassName": f"gpu.example.com{evil}"}}]}}}
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"resourceClaims": [{"name": "g", "resourceClaimName": f"missing{evil}"}],
                    "containers": [{"name": "c", "image": "x", "resources": {"claims": [{"name": "g"}]}}]}}
    return "\n---\n".join(json.dumps(d) for d in (claim, pod)) + "\n"


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, list]] = []
        self.text: list[str] = []
        self.rows: list[int] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))
        if tag == "tr":
            self.rows.append(0)
        elif tag in ("td", "th"):
            self.rows[-1] += 1

    def handle_data(self, data):
        self.text.append(data)

    def handle_comment(self, data):
        self.tags.append(("<!--", [data]))


def _rendered_summary(path) -> _Tags:
    html = cmarkgfm.github_flavored_markdown_to_html(path.read_text(), options=Options.CMARK_OPT_UNSAFE)
    parsed = _Tags()
    parsed.feed(html)
    return parsed


@pytest.mark.parametrize("command", ["validate", "allocate"])
@pytest.mark.parametrize("evil", HOSTILE)
def test_job_summary_shows_manifest_text_as_text(command, evil, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    args = [command, "-", "-o", "github", "--no-config"]
    if command == "allocate":
        args += ["-i", "builtin:example-gpu"]
    run = run_inproc(args, stdin=_manifests(evil).encode())
    assert_ok(run, "github")
    parsed = _rendered_summary(summary)
    allowed = {"h3", "p", "table", "thead", "tbody", "tr", "th", "td", "code"}
    assert {t for t, _ in parsed.tags} <= allowed, parsed.tags
    assert all(not attrs for t, attrs in parsed.tags if t != "td" and t != "th"), parsed.tags
    finding_rows = [n for n in parsed.rows[1:] if n == 4]
    assert len(set(parsed.rows)) <= 2 and finding_rows, parsed.rows  # every row whole
    assert evil.strip() in "".join(parsed.text)


def test_sarif_markdown_never_holds_manifest_text(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    marker = "<img src=\"https://evil.example/s.png\">"
    run = run_inproc(["validate", "-", "-o", "sarif", "--no-config"], stdin=_manifests(marker).encode())
    assert_ok(run, "sarif")
    doc = json.loads(run.out)
    found = []

    def walk(node, key=""):
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif key == "markdown" and isinstance(node, str):
            found.append(node)

    walk(doc)
    assert found and not any("evil.example" in text for text in found)
    assert "evil.example" in run.out  # in the plain-text messages, as JSON strings


@pytest.mark.parametrize("evil", HOSTILE)
def test_junit_and_html_carry_manifest_text_as_text(evil, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    junit = run_inproc(["validate", "-", "-o", "junit", "--no-config"], stdin=_manifests(evil).encode())
    assert_ok(junit, "junit")
    root = ET.fromstring(junit.out.encode())
    texts = " ".join((e.text or "") + " ".join(e.attrib.values()) for e in root.iter())
    assert evil.strip() in texts
    # The page's elements are the same as for a plain name: nothing in the text became markup.
    assert _page_tags(evil) == _page_tags("plain")


def _page_tags(name: str) -> list[str]:
    page = run_inproc(["allocate", "-", "-i", "builtin:example-gpu", "-o", "html", "--no-config"],
                      stdin=_manifests(name).encode())
    assert page.code in (0, 1), page.err
    parsed = _Tags()
    parsed.feed(page.out)
    return [t for t, _ in parsed.tags]
