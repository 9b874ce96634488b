"""`dractl validate`: schema, API-server rules, CEL, references and lints."""

from __future__ import annotations

import sys
from enum import Enum
from typing import List, Optional

import typer

from dractl.cli import common, outputs


class ValidateFormat(str, Enum):
    text = "text"
    json = "json"
    junit = "junit"
    sarif = "sarif"
    github = "github"


def validate(
    paths: List[str] = typer.Argument(..., metavar="PATH",
                                      help="Files, directories (recursive) or - for stdin."),
    output: ValidateFormat = typer.Option(ValidateFormat.text, "--output", "-o",
                                          help="Output format: text, json, junit (JUnit XML), "
                                               "sarif (SARIF 2.1.0) or github (Actions annotations)."),
    kube_version: Optional[common.KubeVersion] = common.KUBE_VERSION_OPTION,
    feature_gates: Optional[str] = common.FEATURE_GATES_OPTION,
    strict: Optional[bool] = typer.Option(None, "--strict/--no-strict",
                                          help="Count warnings as errors (default: strict in "
                                               ".dractl.yaml, else no)."),
    ignore: Optional[List[str]] = common.IGNORE_OPTION,
    exclude: Optional[List[str]] = common.EXCLUDE_OPTION,
    force_exclude: bool = common.FORCE_EXCLUDE_OPTION,
    jobs: Optional[int] = common.JOBS_OPTION,
    config: Optional[str] = common.CONFIG_OPTION,
    no_config: bool = common.NO_CONFIG_OPTION,
    golden: Optional[str] = common.GOLDEN_OPTION,
    update: bool = common.UPDATE_OPTION,
    max_file_size: str = common.MAX_FILE_SIZE_OPTION,
    no_color: bool = common.NO_COLOR_OPTION,
    quiet: bool = common.QUIET_OPTION,
    debug: bool = common.DEBUG_OPTION,
) -> None:
    """Validate manifests like the API server would, plus references and dractl's lints.

    Exit status: 0 no errors, 1 errors found (warnings too with --strict) or, with --golden, the
    output differs from FILE; 2 usage error or unreadable input.
    """
    from dractl.cli.parallel import validate_paths
    from dractl.findings import ERROR, INFO, WARNING

    if update and not golden:
        raise common.UsageError("--update needs --golden FILE")
    s = common.settings(config_path=config, no_config=no_config, kube_version=kube_version,
                        feature_gates=feature_gates, ignore=ignore, strict=strict, exclude=exclude,
                        force_exclude=force_exclude, max_file_size=max_file_size, jobs=jobs)
    run = validate_paths(paths, limits=s.limits, gates=s.gates, ignore=s.ignore, jobs=s.jobs,
                         exclude=s.exclude, extra_ignore=s.extra_ignore,
                         explicit_excluded=s.force_exclude, progress=not quiet)
    findings = run.validated.findings
    if s.strict:
        findings = [f.located(severity=ERROR) if f.severity == WARNING else f for f in findings]
    errors = sum(1 for f in findings if f.severity == ERROR)
    warnings = sum(1 for f in findings if f.severity == WARNING)
    usage_failed = bool(run.usage_errors or run.io_errors)

    def render_text(console) -> None:
        from dractl.report.findings_text import print_findings, summary_line

        print_findings(console, findings, quiet=quiet)
        if not quiet and any(f.severity != INFO for f in findings):  # info: machine formats only
            console.print()
        console.print(summary_line(run.files, run.documents_read, errors, warnings))

    text: str | None
    if output is ValidateFormat.json:
        from dractl.report import findings_json

        text = findings_json.dumps(findings_json.findings_document(findings, run.files,
                                                                   run.documents_read))
    elif output.value in outputs.CI_FORMATS:
        text = outputs.ci_output(output.value, findings, run.docs, suite="dractl validate",
                                 successful=not usage_failed)
    elif golden or not common.is_terminal(sys.stdout):
        text = outputs.stable_text(render_text, plain=True)  # lines and strings only
    else:
        text = None

    outputs.finish(text, render_text, golden=golden, update=update, no_color=no_color,
                   usage_errors=run.usage_errors, usage_failed=usage_failed, failed=bool(errors))
