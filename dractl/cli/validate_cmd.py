"""`dractl validate`: schema, API-server rules, CEL, references and lints."""

from __future__ import annotations

import sys
from enum import Enum
from typing import List, Optional

import typer

from dractl.cli import common
from dractl.load.limits import Limits
from dractl.load.loader import load_paths
from dractl.report import findings_json
from dractl.report.findings_text import print_findings, summary_line
from dractl.validate.findings import ERROR, WARNING, Finding
from dractl.validate.pipeline import validate_documents


class ValidateFormat(str, Enum):
    text = "text"
    json = "json"


def validate(
    paths: List[str] = typer.Argument(..., metavar="PATH...",
                                      help="Files, directories (recursive) or - for stdin."),
    output: ValidateFormat = typer.Option(ValidateFormat.text, "--output", "-o",
                                          help=common.OUTPUT_HELP),
    kube_version: Optional[common.KubeVersion] = common.KUBE_VERSION_OPTION,
    feature_gates: Optional[str] = common.FEATURE_GATES_OPTION,
    strict: bool = typer.Option(False, "--strict", help="Count warnings as errors."),
    ignore: Optional[List[str]] = common.IGNORE_OPTION,
    max_file_size: str = common.MAX_FILE_SIZE_OPTION,
    no_color: bool = common.NO_COLOR_OPTION,
    quiet: bool = common.QUIET_OPTION,
    debug: bool = common.DEBUG_OPTION,
) -> None:
    """Validate manifests like the API server would, plus references and dractl's lints.

    Exit status: 0 no errors, 1 errors found (warnings too with --strict), 2 usage error or
    unreadable input.
    """
    gates = common.make_gates(kube_version, feature_gates)
    limits = Limits(max_file_bytes=common.parse_size(max_file_size))
    loaded = load_paths(paths, limits)
    result = validate_documents(loaded, gates, ignore=ignore or ())
    findings = result.findings
    if strict:
        findings = [f.located(severity=ERROR) if f.severity == WARNING else f for f in findings]
    errors = sum(1 for f in findings if f.severity == ERROR)
    warnings = sum(1 for f in findings if f.severity == WARNING)

    if output is ValidateFormat.json:
        sys.stdout.write(findings_json.dumps(
            findings_json.findings_document(findings, result.files, result.documents_read)))
    else:
        console = common.make_console(no_color)
        print_findings(console, findings, quiet=quiet)
        if findings and not quiet:
            console.print()
        console.print(summary_line(result.files, result.documents_read, errors, warnings))
    for message in loaded.usage_errors:
        typer.echo(f"dractl: {message}", err=True)
    if loaded.usage_errors or loaded.io_errors:
        raise typer.Exit(2)
    raise typer.Exit(1 if errors else 0)
