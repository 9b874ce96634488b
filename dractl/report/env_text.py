"""`env -o text` and `env --metadata -o text`."""

from __future__ import annotations

from dractl.report.registry import Drawing
from dractl.report.sanitize import safe_line
from dractl.report.styled import Styled, print_fitted


def report(result, view) -> Drawing:
    """Findings (but info), then per pod the env values each container would see."""
    from dractl.report.env_view import env_pods

    pods = env_pods(result.plan)

    def draw(console) -> None:
        from dractl.report.findings_text import print_findings

        shown = [f for f in result.findings if f.severity != "info"]  # info: machine formats only
        if shown:
            print_findings(console, shown, quiet=view.quiet)
            if not view.quiet or any(f.severity == "error" for f in shown):
                console.print()
        if not pods:
            console.print("no env var uses resourceSliceAttributeRef")
        for pod in pods:
            if view.quiet and not any(c["errors"] for c in pod["containers"]):
                continue  # --quiet: only the containers whose references fail
            head = Styled().append(safe_line(f"pod {pod['namespace']}/{pod['name']}"), "bold")
            head.append(safe_line(f"  {pod['status']}" + (f" on {pod['node']}" if pod["node"] else "")))
            print_fitted(console, head)
            for c in pod["containers"]:
                _container(console, c)

    return Drawing(draw, plain=True)  # Styled lines only


def _container(console, c: dict) -> None:
    # Continuation lines of a long value are indented past the container name.
    for key, value in c["env"].items():
        line = Styled().append(safe_line(f"  {c['name']}: {key}={value}"), "cyan")
        line.append(safe_line(f"   from {', '.join(c['sources'].get(key, []))}"), "dim")
        print_fitted(console, line, rest="      ")
    for e in c["errors"]:
        print_fitted(console, Styled().append(safe_line(f"  {c['name']}: {e['code']} {e['message']}"), "red"),
                     rest="      ")


def plan_versions(result, release: str) -> tuple:
    from dractl.metadata import default_versions

    return result.metadata_versions if result.metadata_versions is not None else default_versions(release)


def report_metadata(result, view) -> Drawing:
    """KEP-5304 device metadata files per container (what upstream chose instead of env vars)."""
    from dractl.metadata import plan_files, release_of

    release = release_of(result)
    pods = plan_files(result.plan, result.metadata_versions, release)

    def draw(console) -> None:
        from rich.text import Text

        versions = plan_versions(result, release)
        console.print(f"device metadata files (KEP-5304, Kubernetes {release}: {', '.join(versions)}; "
                      "predicted content: the actual content is produced by the DRA driver)")
        if not pods:
            console.print("no scheduled pod receives devices")
        for p in pods:
            console.print(Text(safe_line(f"pod {p['namespace']}/{p['name']} on {p['node']}"), style="bold"))
            for container, files in p["containers"].items():
                for f in files:
                    console.print(Text(safe_line(f"  {container}: {f['path']}"), style="cyan"))
                    # The file's exact bytes (a JSON stream, one object per version), indented.
                    for line in f["content"].rstrip("\n").split("\n"):
                        console.print(Text(safe_line("    " + line), style="dim"))

    return Drawing(draw)
