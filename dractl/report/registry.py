"""Every output format, the commands it serves, and the function that renders it.

The CLI builds each command's `-o` choices and their help from this table, in this order.
Adding a format: write a module with `report(result, view)` (returning the output text, or a
Drawing for text that a terminal shows with colour), add one line below, add tests.

A renderer is named "module:function" and imported only when chosen, so the command line
stays quick to start.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping

if TYPE_CHECKING:
    from rich.console import Console

    from dractl.pipeline.result import Result

# The commands (dractl.pipeline.result's names, plus `codes`, which renders the code table).
VALIDATE, ALLOCATE, ENV, METADATA, CODES = "validate", "allocate", "env", "metadata", "codes"
GATES, CAPACITY, UPGRADE = "gates", "capacity", "upgrade"


@dataclass(frozen=True)
class Format:
    name: str                      # the -o value
    label: str                     # shown after the name in --help; "" for none
    renderers: Mapping[str, str]   # command -> "module:function"
    labels: Mapping[str, str] = None   # per-command labels where one label does not fit all

    def label_for(self, command: str) -> str:
        return (self.labels or {}).get(command, self.label)

    @property
    def commands(self) -> frozenset:
        return frozenset(self.renderers)


FORMATS: tuple[Format, ...] = (
    Format("text", "", {VALIDATE: "dractl.report.findings_text:report",
                        ALLOCATE: "dractl.report.plan_text:report",
                        ENV: "dractl.report.env_text:report",
                        METADATA: "dractl.report.env_text:report_metadata",
                        CODES: "dractl.report.codes:report_text",
                        GATES: "dractl.report.gates_table:report_text",
                        CAPACITY: "dractl.report.capacity_text:report",
                        UPGRADE: "dractl.report.upgrade_report:report_text"}),
    Format("json", "", {VALIDATE: "dractl.report.findings_json:report",
                        ALLOCATE: "dractl.report.plan_json:report",
                        ENV: "dractl.report.env_json:report",
                        METADATA: "dractl.report.env_json:report_metadata",
                        CODES: "dractl.report.codes:report_json",
                        GATES: "dractl.report.gates_table:report_json",
                        CAPACITY: "dractl.report.capacity_json:report",
                        UPGRADE: "dractl.report.upgrade_report:report_json"}),
    Format("yaml", "the -o json document as YAML", {
        VALIDATE: "dractl.report.findings_json:report_yaml",
        ALLOCATE: "dractl.report.plan_yaml:report",
        ENV: "dractl.report.env_json:report_yaml",
        METADATA: "dractl.report.env_json:report_metadata_yaml",
        CAPACITY: "dractl.report.capacity_json:report_yaml",
        UPGRADE: "dractl.report.upgrade_report:report_yaml"},
        labels={ALLOCATE: "the objects after scheduling"}),
    Format("html", "a self-contained page picturing the devices", {
        ALLOCATE: "dractl.report.html_report:report_allocate",
        CAPACITY: "dractl.report.html_report:report_capacity"}),
    Format("junit", "JUnit XML", {VALIDATE: "dractl.report.junit:report",
                                  ALLOCATE: "dractl.report.junit:report",
                                  UPGRADE: "dractl.report.junit:report"}),
    Format("sarif", "SARIF 2.1.0", {VALIDATE: "dractl.report.sarif:report",
                                    ALLOCATE: "dractl.report.sarif:report",
                                    UPGRADE: "dractl.report.sarif:report"}),
    Format("github", "Actions annotations", {VALIDATE: "dractl.report.github:report",
                                             ALLOCATE: "dractl.report.github:report",
                                             UPGRADE: "dractl.report.github:report"}),
    Format("concise", "file:line:column: CODE message", {
        VALIDATE: "dractl.report.concise:report", ALLOCATE: "dractl.report.concise:report",
        UPGRADE: "dractl.report.concise:report"}),
    Format("gitlab", "GitLab code quality JSON", {
        VALIDATE: "dractl.report.gitlab:report", ALLOCATE: "dractl.report.gitlab:report",
        UPGRADE: "dractl.report.gitlab:report"}),
    Format("markdown", "a table", {CODES: "dractl.report.codes:report_markdown"}),
)


@dataclass(frozen=True)
class View:
    """Reporting choices that are not results: how much to show."""

    quiet: bool = False
    explain: str | None = None     # allocate: the pod or claim to explain
    verbose: bool = False          # validate: every object checked and its result


@dataclass(frozen=True)
class Drawing:
    """Text output drawn on a console: with colour on a terminal, as stable text elsewhere.
    plain: it prints only strings and Styled lines, which need no rich (report/styled.py)."""

    draw: Callable[["Console"], None]
    plain: bool = False


def formats_for(command: str) -> list[Format]:
    """The formats a command offers, in table order."""
    return [f for f in FORMATS if command in f.renderers]


def names_for(command: str) -> list[str]:
    return [f.name for f in formats_for(command)]


def help_for(command: str) -> str:
    """`Output format: text, json, junit (JUnit XML) or github (...).` for --help."""
    shown = [f"{f.name} ({f.label_for(command)})" if f.label_for(command) else f.name
             for f in formats_for(command)]
    listed = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " or " + shown[-1]
    note = _NOTES.get(command)
    return f"Output format: {listed}." + (f" {note}" if note else "")


# Why a command lacks formats others have (the findings formats carry findings; these commands
# report values).
_NOTES = {
    ENV: "The findings formats (junit, sarif, github, concise, gitlab) are validate's and "
         "allocate's: env reports values; its findings are in json and yaml.",
    CAPACITY: "The findings formats (junit, sarif, github, concise, gitlab) are validate's and "
              "allocate's: capacity reports counts; its findings are in json and yaml.",
}


def find(name: str, command: str) -> Format:
    for f in FORMATS:
        if f.name == name and command in f.renderers:
            return f
    raise KeyError(f"format {name!r} does not serve {command}")


def render(name: str, result: "Result", view: View = View()) -> "str | Drawing":
    """The output of format `name` for a result (its command picks the renderer)."""
    module, _, function = find(name, result.command).renderers[result.command].partition(":")
    return getattr(importlib.import_module(module), function)(result, view)
