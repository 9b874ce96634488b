"""`--help` of the commands with many options: options grouped by what they are for (input,
selection, dry run, output, run) instead of one alphabet, and usage lines that read the same
in every command (`PATH...` required, `[PATH]...` optional).

Each option names its group with Typer's `rich_help_panel`; dractl prints help without rich
(plain click formatting, `rich_markup_mode=None`), so the grouping is done here.
"""

from __future__ import annotations

from typer.core import TyperCommand

INPUT = "Input"
SELECTION = "Selection"
DRY_RUN = "Dry run"
OUTPUT = "Output"
RUN = "Run"
ORDER = (INPUT, SELECTION, DRY_RUN, OUTPUT, RUN)
OTHER = ""  # options of the command itself, and --help


class GroupedCommand(TyperCommand):
    def collect_usage_pieces(self, ctx) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if _is_argument(param):
                name = (param.metavar or (param.name or "").upper()).strip("[]{}.")
                piece = name if param.required else f"[{name}]"
                pieces.append(piece + ("..." if param.nargs != 1 else ""))
        return pieces

    def format_options(self, ctx, formatter) -> None:
        arguments, groups = [], {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if _is_argument(param):
                arguments.append(record)
                continue
            panel = getattr(param, "rich_help_panel", None) or OTHER
            groups.setdefault(panel, []).append(record)
        if arguments:
            with formatter.section("Arguments"):
                formatter.write_dl(arguments)
        # The command's own options (no group) first, under the plain heading, then the groups.
        for panel in [OTHER] + [p for p in ORDER if p in groups] + \
                [p for p in groups if p not in ORDER and p != OTHER]:
            if panel in groups:
                with formatter.section("Options" if panel == OTHER else f"{panel} options"):
                    formatter.write_dl(groups[panel])


def _is_argument(param) -> bool:
    # Typer vendors its own click (typer._click): its classes are not click's.
    return getattr(param, "param_type_name", "") == "argument"
