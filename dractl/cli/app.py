"""The `dractl` command: option parsing, dispatch, exit codes. No decisions are made here."""

from __future__ import annotations

import copy
import gc
import os
import sys
from enum import Enum
from typing import Optional

import typer

from dractl import __version__
from dractl.cli import common
from dractl.cli.allocate_cmd import allocate
from dractl.cli.capacity_cmd import capacity
from dractl.cli.env_cmd import env
from dractl.cli.gates_cmd import gates
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


app.command("validate")(validate)
app.command("allocate")(allocate)
app.command("env")(env)
app.command("gates")(gates)
app.command("capacity")(capacity)


@app.command("inventories")
def inventories() -> None:
    """List the built-in sample inventories (use with --inventory builtin:NAME)."""
    from dractl.inventories import list_inventories

    for name, description in list_inventories():
        typer.echo(f"{name:<16} {description}")


CodesFormat, CODES_OUTPUT_OPTION = common.output_option("codes")


@app.command("codes")
def codes(output: CodesFormat = CODES_OUTPUT_OPTION) -> None:
    """List every finding code dractl can report, with its severity and meaning."""
    from dractl.report.registry import render

    sys.stdout.write(render(output.value, _CodesResult()))


class _CodesResult:
    """The code table needs no run: its renderers read the registered codes themselves."""

    command = "codes"


class Shell(str, Enum):
    bash = "bash"
    zsh = "zsh"
    fish = "fish"


@app.command("completion")
def completion(shell: Shell = typer.Argument(..., metavar="SHELL",
                                             help="bash, zsh or fish.")) -> None:
    """Print a shell completion script (commands, options, values, finding codes).

    bash: dractl completion bash > ~/.local/share/bash-completion/completions/dractl
    zsh:  dractl completion zsh > ~/.zfunc/_dractl   (with fpath+=~/.zfunc before compinit)
    fish: dractl completion fish > ~/.config/fish/completions/dractl.fish
    """
    from dractl.cli.completion import render

    sys.stdout.write(render(shell.value, app))


@app.command("version")
def version_cmd() -> None:
    """Print the version."""
    typer.echo(f"dractl {__version__}")


def tune_gc() -> None:
    # dractl builds many small, long-lived objects (documents, models, plans) and few cycles:
    # collecting the youngest generation every 700 allocations wastes about a third of a
    # 5,000-pod dry run. A short-lived CLI can afford the larger young generation.
    gc.set_threshold(50_000, 20, 100)


def main() -> None:
    """Console entry point: no Python traceback ever reaches a user (unless --debug)."""
    debug = "--debug" in sys.argv[1:] or os.environ.get("DRACTL_DEBUG") == "1"
    _safe_streams()
    tune_gc()
    try:
        # Standalone mode: the CLI library reports usage errors itself (exit status 2) and turns
        # typer.Exit into SystemExit with our status.
        _app_for(sys.argv[1:])(prog_name="dractl")
    except common.UsageError as exc:
        typer.echo(f"dractl: {exc}", err=True)
        sys.exit(2)
    except SystemExit as exc:
        _flush_quietly()
        raise exc
    except BrokenPipeError:
        _silence_broken_pipe()
    except KeyboardInterrupt:
        typer.echo("dractl: interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - last line of defence
        if debug:
            raise
        typer.echo(f"dractl: internal error: {type(exc).__name__}: {exc} "
                   "(run with --debug for details, and please report it)", err=True)
        sys.exit(2)


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


def _silence_broken_pipe() -> None:
    # The reader went away (e.g. `| head -1`): exit quietly, and stop Python from
    # complaining again when it flushes stdout at shutdown.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass
    sys.exit(0)
