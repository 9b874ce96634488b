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


def report_metadata(result, view) -> Drawing:
    """KEP-5304 device metadata files per container (what upstream chose instead of env vars)."""
    from dractl.metadata import plan_files

    pods = plan_files(result.plan)

    def draw(console) -> None:
        from rich.text import Text

        console.print("device metadata files (KEP-5304; predicted content: the actual content is "
                      "produced by the DRA driver)")
        if not pods:
            console.print("no scheduled pod receives devices")
        for p in pods:
            console.print(Text(safe_line(f"pod {p['namespace']}/{p['name']} on {p['node']}"), style="bold"))
            for container, files in p["containers"].items():
                for f in files:
                    console.print(Text(safe_line(f"  {container}: {f['path']}"), style="cyan"))
                    console.print(Text(safe_line("    " + f["content"].rstrip("\n")), style="dim"))

    return Drawing(draw)
