"""The `dractl` command: option parsing, dispatch, exit codes. No decisions are made here."""

from __future__ import annotations

import copy
import gc
import os
import sys
from enum import Enum
from typing import List, Optional

import typer

from dractl import __version__
from dractl.cli import common
from dractl.cli.allocate_cmd import allocate
from dractl.cli.capacity_cmd import capacity
from dractl.cli.dump_cmd import dump
from dractl.cli.env_cmd import env
from dractl.cli.gates_cmd import gates
from dractl.cli.helpgroups import GroupedCommand
from dractl.cli.validate_cmd import validate

app = typer.Typer(
    name="dractl",
    help="Validate Kubernetes Dynamic Resource Allocation (DRA) manifests and dry-run their "
         "scheduling offline, with the same decisions as kube-scheduler.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _completion_scripts() -> None:
    # Only when completion is asked for: it imports Typer's completion modules.
    if any(a in ("--install-completion", "--show-completion") for a in sys.argv[1:]) or \
            os.environ.get("_DRACTL_COMPLETE"):
        from dractl.cli.completion import install_dynamic_scripts

        install_dynamic_scripts()


_completion_scripts()


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"dractl {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Optional[bool] = typer.Option(None, "--version", callback=_version_callback,
                                           is_eager=True, help="Print the version and exit."),
) -> None:
    """Validate Kubernetes DRA manifests and dry-run their scheduling offline."""


# Short help written out: click cuts a docstring's first sentence at 45 characters with "...".
app.command("validate", cls=GroupedCommand, short_help="Validate manifests like the API server would, and lint them.")(validate)
app.command("allocate", cls=GroupedCommand, short_help="Dry-run scheduling: which node and devices each pod gets.")(allocate)
app.command("env", cls=GroupedCommand, short_help="Env values containers would see from device attributes.")(env)
app.command("gates", short_help="Feature gates of a Kubernetes release: stage, default, lock.")(gates)
app.command("capacity", cls=GroupedCommand, short_help="What is left per pool and node; how many more pods fit.")(capacity)
app.command("dump", short_help="Print the kubectl command for an inventory, or trim its output.")(dump)


class ListFormat(str, Enum):
    text = "text"
    json = "json"


@app.command("inventories", short_help="List or show the built-in sample inventories.")
def inventories(
    action: Optional[List[str]] = typer.Argument(None, metavar="[show NAME]",
                                                 help="show NAME: print that inventory's YAML."),
    output: ListFormat = typer.Option(ListFormat.text, "--output", "-o",
                                      help="Output format of the list: text or json."),
) -> None:
    """List the built-in sample inventories (use with --inventory builtin:NAME); `show NAME`
    prints one, so that a location such as builtin:nvidia-mig:66:3 can be looked up."""
    from dractl.report import inventory_info

    if not action:
        if output is ListFormat.json:
            from dractl.report.findings_json import dumps

            sys.stdout.write(dumps(inventory_info.inventories_document()))
        else:
            sys.stdout.write(inventory_info.inventories_text())
        return
    if action[0] != "show" or len(action) != 2:
        raise common.UsageError("inventories: expected nothing or `show NAME` "
                                f"(got {' '.join(action)!r})")
    try:
        sys.stdout.write(inventory_info.inventory_text(action[1]))
    except inventory_info.UnknownInventory as exc:
        raise common.UsageError(f"inventories show: {exc}") from None


CodesFormat, CODES_OUTPUT_OPTION = common.output_option("codes")


@app.command("codes", short_help="List the finding codes, or explain one.")
def codes(code: Optional[str] = typer.Argument(None, metavar="[CODE]",
                                               help="Explain this code (what it checks, why, an "
                                                    "example and the fix)."),
          output: CodesFormat = CODES_OUTPUT_OPTION) -> None:
    """List every finding code dractl can report, or explain one: `dractl codes DRA1009`."""
    from dractl.report.registry import render

    if code is None:
        sys.stdout.write(render(output.value, _CodesResult()))
        return
    from dractl.report.codes import explain_code

    try:
        sys.stdout.write(explain_code(code, output.value))
    except LookupError as exc:
        raise common.UsageError(str(exc.args[0])) from None


class _CodesResult:
    """The code table needs no run: its renderers read the registered codes themselves."""

    command = "codes"


class Shell(str, Enum):
    bash = "bash"
    zsh = "zsh"
    fish = "fish"


@app.command("completion", short_help="Print a shell completion script.")
def completion(shell: Shell = typer.Argument(..., metavar="SHELL",
                                             help="bash, zsh or fish.")) -> None:
    """Print a shell completion script (commands, options, values, finding codes).

    bash: dractl completion bash > ~/.local/share/bash-completion/completions/dractl
    zsh:  dractl completion zsh > ~/.zfunc/_dractl   (with fpath+=~/.zfunc before compinit)
    fish: dractl completion fish > ~/.config/fish/completions/dractl.fish
    """
    from dractl.cli.completion import render

    sys.stdout.write(render(shell.value, app))


@app.command("version", short_help="Print the version (-o json: with what it carries).")
def version_cmd(output: ListFormat = typer.Option(ListFormat.text, "--output", "-o",
                                                  help="text, or json: the Kubernetes versions, "
                                                       "schema sources and feature gates too.")) -> None:
    """Print the version (-o json: with the Kubernetes versions and schemas it carries)."""
    if output is ListFormat.json:
        from dractl.report.findings_json import dumps
        from dractl.report.version_info import version_document

        sys.stdout.write(dumps(version_document()))
        return
    typer.echo(f"dractl {__version__}")


def tune_gc() -> None:
    # dractl builds many small, long-lived objects (documents, models, plans) and few cycles:
    # collecting the youngest generation every 700 allocations wastes about a third of a
    # 5,000-pod dry run. A short-lived CLI can afford the larger young generation.
    gc.set_threshold(50_000, 20, 100)


def main() -> None:
    """Console entry point: no Python traceback ever reaches a user (unless --debug)."""
    from dractl.cli import streams

    debug = "--debug" in sys.argv[1:] or os.environ.get("DRACTL_DEBUG") == "1"
    closed = streams.closed_stream()
    if closed:
        streams.say(f"dractl: standard {closed[3:]}put is closed")
        sys.exit(2)
    _safe_streams()
    tune_gc()
    streams.sanitize_stderr()
    try:
        with streams.signals_as_exceptions():
            _run_app(debug)
    finally:
        streams.restore_stderr()


def _run_app(debug: bool) -> None:
    from dractl.cli import streams

    try:
        # Standalone mode: the CLI library reports usage errors itself (exit status 2) and turns
        # typer.Exit into SystemExit with our status.
        from dractl.cli.argv import normalise

        args = normalise(sys.argv[1:])
        if not args:  # bare `dractl`: the help is the answer, not a usage error
            args = ["--help"]
        _app_for(args)(args=args, prog_name="dractl")
    except common.UsageError as exc:
        typer.echo(f"dractl: {exc}", err=True)
        sys.exit(2)
    except SystemExit as exc:
        if exc.code == 130:  # the CLI library turns Ctrl-C (and so SIGTERM, the deadline) into it
            _interrupted()
        _flush_quietly()
        raise exc
    except KeyboardInterrupt:
        _interrupted()
    except OSError as exc:
        if streams.is_broken_pipe(exc):
            _silence_broken_pipe()
        if debug:
            raise
        streams.say(streams.write_error_message(exc) if _is_output_error(exc) else
                    f"dractl: {(exc.strerror or str(exc)).lower()}")
        sys.exit(2)
    except Exception as exc:  # noqa: BLE001 - last line of defence
        if debug:
            raise
        typer.echo(f"dractl: internal error: {type(exc).__name__}: {exc} "
                   "(run with --debug for details, and please report it)", err=True)
        sys.exit(2)


def _interrupted() -> None:
    """Ctrl-C: 130; SIGTERM: 143; the --deadline: 2, each with its one line."""
    from dractl import deadline
    from dractl.cli import streams

    if streams.TERMINATED[0]:
        streams.say("dractl: terminated")
        sys.exit(143)
    if deadline.expired():
        streams.say(f"dractl: stopped: the run took longer than --deadline "
                    f"{deadline.expired_after():g} seconds")
        sys.exit(2)
    streams.say("dractl: interrupted")
    sys.exit(130)


def _is_output_error(exc: OSError) -> bool:
    import errno

    return exc.errno in (errno.ENOSPC, errno.EIO, errno.EBADF, errno.EFBIG, errno.EDQUOT)


def _app_for(args: list[str]) -> typer.Typer:
    """The app to run: when the first argument names a subcommand, the same app with only that
    subcommand registered. typer builds the click command of every registered subcommand
    (inspecting each function's options) on every run; a run reaches only one of them, and
    its options, usage line, messages and exit statuses do not depend on the others. Anything
    else (root options first, no subcommand, a typo that needs "no such command", shell
    completion) gets the whole app."""
    if not args or f"_{app.info.name.upper()}_COMPLETE" in os.environ:
        return app
    chosen = [info for info in app.registered_commands
              if (info.name or info.callback.__name__) == args[0]]
    if len(chosen) != 1:
        return app
    single = copy.copy(app)
    single.registered_commands = chosen
    return single


def _safe_streams() -> None:
    # File names that are not valid UTF-8 reach us as lone surrogates; print them as escapes
    # instead of failing in the middle of a report.
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass


def _flush_quietly() -> None:
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_broken_pipe()
    except (OSError, ValueError) as exc:  # /dev/full, a closed descriptor
        from dractl.cli import streams

        if isinstance(exc, OSError):
            streams.say(streams.write_error_message(exc))
        raise SystemExit(2) from None


def _silence_broken_pipe() -> None:
    # The reader went away (e.g. `| head -1`): exit quietly, and stop Python from
    # complaining again when it flushes stdout at shutdown.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
    sys.exit(0)
