"""Shell completion: static bash / zsh / fish scripts generated from the Typer app, and the
value completers Typer's own (dynamic) completion calls.

The static scripts (`completions/`, `dractl completion SHELL`) complete commands, options,
choices (`-o`, `--kube-version`, ...), built-in inventory names for `--inventory`, finding codes
for `--ignore` and file names for paths, without starting Python on every TAB. They are generated
from the command tree, so a new option shows up after `python scripts/gen_completions.py`;
tests/cli/test_cli_completions.py fails while a committed script is stale.

The dynamic scripts (`dractl --install-completion`, bash, zsh and fish) are dractl's own on
Typer's mechanism: they ask dractl on every TAB (see BASH_DYNAMIC_SCRIPT and below).
"""

from __future__ import annotations

import enum
import typing
from dataclasses import dataclass, field

PROG = "dractl"
SHELLS = ("bash", "zsh", "fish")

# What the value of an option (by parameter name) is, where its type does not say.
_VALUE_KIND = {"inventory": "inventory", "ignore": "code", "config": "file", "golden": "file",
               "paths": "file"}


# -- dynamic completion (Typer's --install-completion) ------------------------------------------

# Typer's bash script sends bash's words to dractl, but bash splits words at ':' (COMP_WORDBREAKS),
# so `--inventory builtin:ex<TAB>` arrived as `builtin` `:` `ex` and nothing matched. This one
# sends the line up to the cursor as typed (the current word last; `''` for an empty one) and
# hands back to bash only the part of each value after the current word's last ':'.
BASH_DYNAMIC_SCRIPT = r"""
%(complete_func)s() {
    local IFS=$'\n'
    local line="${COMP_LINE:0:COMP_POINT}"
    [[ "$line" == *[[:space:]] ]] && line="$line''"
    local cur="${line##*[[:space:]]}"
    COMPREPLY=( $( env COMP_WORDS="$line" COMP_CWORD=-1 \
                   %(autocomplete_var)s=complete_bash $1 ) )
    if [[ "$cur" == *:* && "$COMP_WORDBREAKS" == *:* ]]; then
        local prefix="${cur%%"${cur##*:}"}" i
        for i in "${!COMPREPLY[@]}"; do COMPREPLY[$i]="${COMPREPLY[$i]#"$prefix"}"; done
    fi
    return 0
}

complete -o default -F %(complete_func)s %(prog_name)s
"""


# zsh and fish: dractl prints one candidate a line, "value<TAB>description" (Typer's own classes
# print zsh code that the script evals, and wrap descriptions at 80 columns, which fish read as
# extra candidates). The scripts add the candidates; where dractl has none (paths, file options,
# `./inventory.yaml`) they complete file names, as bash's `complete -o default` does. A
# `--option=value` word completes its value after the '='. One dractl process per TAB (Typer's
# fish script started two).
ZSH_DYNAMIC_SCRIPT = r"""
#compdef %(prog_name)s

%(complete_func)s() {
  local -a lines described
  local line value
  [[ "$PREFIX" == --*=* ]] && compset -P '*='
  lines=( "${(@f)$(env _TYPER_COMPLETE_ARGS="${(j: :)${(@q)${(@Q)words[1,CURRENT]}}}" \
                   %(autocomplete_var)s=complete_zsh %(prog_name)s 2>/dev/null)}" )
  for line in "${lines[@]}"; do
    [[ -z "$line" ]] && continue
    value="${line%%%%$'\t'*}"
    if [[ "$line" == *$'\t'* ]]; then
      described+=( "${value//:/\\:}:${line#*$'\t'}" )
    else
      described+=( "${value//:/\\:}" )
    fi
  done
  if (( ${#described} )); then
    _describe -t values 'value' described
  else
    _files
  fi
}

# Autoloaded from fpath by compinit (what --install-completion sets up), the file is the body of
# _%(prog_name)s: complete now. Sourced: register the function.
if [[ "${funcstack[1]}" == _%(prog_name)s ]]; then
  %(complete_func)s "$@"
else
  compdef %(complete_func)s %(prog_name)s
fi
"""

FISH_DYNAMIC_SCRIPT = r"""
function %(complete_func)s
    set -l token (commandline -ct)
    set -l prefix ''
    if string match -qr -- '^--[^=]+=' "$token"
        set prefix (string replace -r -- '=.*' '=' "$token")
    end
    set -l found (env %(autocomplete_var)s=complete_fish _TYPER_COMPLETE_ARGS=(commandline -cp) %(prog_name)s 2>/dev/null | string match -rv '^$')
    if test (count $found) -eq 0
        set found (__fish_complete_path (string replace -r -- '^--[^=]+=' '' "$token"))
    end
    printf '%%s\n' $prefix$found
end

complete --command %(prog_name)s --no-files --arguments '(%(complete_func)s)'
"""


def candidate_lines(items) -> list[str]:
    """"value<TAB>description" per completion item, descriptions on one line. Items that only
    ask the shell for file names (Click's file and dir types) are left to the script."""
    out = []
    for item in items:
        if getattr(item, "type", "plain") in ("file", "dir") or "\n" in item.value:
            continue
        help_text = " ".join((item.help or "").split())
        out.append(f"{item.value}\t{help_text}" if help_text else item.value)
    return out


def _line_class(base, script: str):
    class LineComplete(base):
        source_template = script

        def complete(self) -> str:
            args, incomplete = self.get_completion_args()
            return "\n".join(candidate_lines(self.get_completions(args, incomplete)))

    LineComplete.__name__ = f"Dractl{base.__name__}"
    return LineComplete


def install_dynamic_scripts() -> None:
    """Make Typer's --install-completion / --show-completion and its completion classes use
    dractl's scripts: BASH_DYNAMIC_SCRIPT, ZSH_DYNAMIC_SCRIPT, FISH_DYNAMIC_SCRIPT."""
    from typer import _completion_classes, _completion_shared
    from typer._click.shell_completion import add_completion_class

    _completion_shared._completion_scripts.update(
        bash=BASH_DYNAMIC_SCRIPT, zsh=ZSH_DYNAMIC_SCRIPT, fish=FISH_DYNAMIC_SCRIPT)
    _completion_classes.BashComplete.source_template = BASH_DYNAMIC_SCRIPT
    for shell, name, script in (("zsh", "ZshComplete", ZSH_DYNAMIC_SCRIPT),
                                ("fish", "FishComplete", FISH_DYNAMIC_SCRIPT)):
        current = getattr(_completion_classes, name)
        if getattr(current, "source_template", None) != script:
            current = _line_class(current, script)
            # completion_init() registers the module's classes (it runs when the app is built).
            setattr(_completion_classes, name, current)
        add_completion_class(current, shell)


def complete_codes(incomplete: str) -> list[tuple[str, str]]:
    from dractl.cli.common import all_codes

    prefix = incomplete.upper()
    return [(r.code, r.summary) for r in all_codes() if r.code.startswith(prefix)]


def complete_inventory(incomplete: str) -> list[tuple[str, str]]:
    from dractl.inventories import list_inventories

    out = []
    for name, description in list_inventories():
        value = f"builtin:{name}"
        if value.startswith(incomplete):
            out.append((value, description))
    return out


# -- the command tree as data ------------------------------------------------------------------

@dataclass
class Opt:
    names: list[str]                 # ["-o", "--output"]
    help: str
    flag: bool
    repeatable: bool = False
    choices: list[str] = field(default_factory=list)
    kind: str = ""                   # "", "file", "code", "inventory"
    negation: str = ""               # "--no-strict" for --strict/--no-strict


@dataclass
class Cmd:
    name: str
    help: str
    options: list[Opt]
    args: list[Opt]                  # positional arguments (names empty)


@dataclass
class Model:
    root_options: list[Opt]
    commands: list[Cmd]
    codes: list[tuple[str, str]]
    inventories: list[tuple[str, str]]


def _first_sentence(text: str | None) -> str:
    """The first sentence of the first paragraph (a '. ' outside parentheses ends it)."""
    text = " ".join((text or "").split("\n\n")[0].split())
    depth = 0
    for i, c in enumerate(text):
        if c == "(":
            depth += 1
        elif c == ")":
            depth = max(0, depth - 1)
        elif c == "." and depth == 0 and text[i + 1:i + 2] == " ":
            return text[:i + 1]
    return text


def _choices(annotation) -> list[str]:
    candidates = [annotation] + list(typing.get_args(annotation))
    for c in candidates:
        if isinstance(c, type) and issubclass(c, enum.Enum):
            return [str(m.value) for m in c]
    return []


def _opt(param, is_argument: bool = False) -> Opt:
    # typer 0.29 keeps the annotation (an Enum); earlier releases turn it into a Choice type.
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    choices = _choices(annotation) or [
        str(getattr(c, "value", c)) for c in getattr(getattr(param, "type", None), "choices", ()) or ()]
    flag = bool(getattr(param, "is_flag", False))
    names = [] if is_argument else [n for n in sorted(param.opts, key=lambda n: (n.startswith("--"), n))]
    secondary = list(getattr(param, "secondary_opts", []) or [])
    return Opt(names=names, help=_first_sentence(getattr(param, "help", "")), flag=flag,
               repeatable=bool(getattr(param, "multiple", False)) or getattr(param, "nargs", 1) == -1,
               choices=choices, kind=_VALUE_KIND.get(param.name, ""),
               negation=secondary[0] if secondary else "")


def model(app=None) -> Model:
    import typer.main

    from dractl.cli.common import all_codes
    from dractl.inventories import list_inventories

    if app is None:
        from dractl.cli.app import app
    root = typer.main.get_command(app)
    help_opt = Opt(names=["-h", "--help"], help="Show this message and exit.", flag=True)
    root_options = [_opt(p) for p in root.params if not getattr(p, "hidden", False)] + [help_opt]
    commands = []
    for name, cmd in root.commands.items():
        if getattr(cmd, "hidden", False):
            continue
        options, args = [], []
        for p in cmd.params:
            if getattr(p, "hidden", False):
                continue
            if type(p).__name__.endswith("Argument"):
                args.append(_opt(p, is_argument=True))
            else:
                options.append(_opt(p))
        options.append(help_opt)
        commands.append(Cmd(name, _first_sentence(cmd.help), options, args))
    return Model(root_options, commands, [(r.code, r.summary) for r in all_codes()],
                 [(f"builtin:{n}", d) for n, d in list_inventories()])


def render(shell: str, app=None) -> str:
    m = model(app)
    return {"bash": render_bash, "zsh": render_zsh, "fish": render_fish}[shell](m)


_HEADER = ("Generated by scripts/gen_completions.py from the dractl command tree; do not edit "
           "(regenerate with `python scripts/gen_completions.py`).")


# -- bash --------------------------------------------------------------------------------------

def _all_names(o: Opt) -> list[str]:
    return o.names + ([o.negation] if o.negation else [])


def render_bash(m: Model) -> str:
    return "\n".join(_bash_prologue(m) + _bash_candidates(m) + _BASH_MAIN)


def _bash_prologue(m: Model) -> list[str]:
    """Header, the code and inventory word lists, and the two helpers that fill COMPREPLY."""
    return [
        "# bash completion for dractl                                  -*- shell-script -*-",
        f"# {_HEADER}",
        "# Install: `dractl completion bash > ~/.local/share/bash-completion/completions/dractl`,",
        "# or `source` this file from ~/.bashrc.",
        "",
        f"_dractl_codes='{' '.join(c for c, _ in m.codes)}'",
        f"_dractl_inventories='{' '.join(n for n, _ in m.inventories)}'",
        "",
        "_dractl_words() {",
        "    local IFS=$' \\t\\n'",
        "    COMPREPLY=( $(compgen -W \"$1\" -- \"$2\") )",
        "}",
        "",
        "_dractl_files() {",
        "    local IFS=$'\\n'",
        "    compopt -o filenames 2>/dev/null",
        "    COMPREPLY+=( $(compgen -f -- \"$1\") )",
        "}",
        "",
    ]


def _bash_candidates(m: Model) -> list[str]:
    """_dractl_candidates: one case per command (none yet: the root options and commands)."""
    out = [
        "# Candidates for the current word; uses cur, prev and cmd of _dractl (dynamic scope).",
        "_dractl_candidates() {",
        "    case \"$cmd\" in",
        "        \"\")",
        "            if [[ \"$cur\" == -* ]]; then",
        f"                _dractl_words '{' '.join(n for o in m.root_options for n in _all_names(o))}' \"$cur\"",
        "            else",
        f"                _dractl_words '{' '.join(c.name for c in m.commands)}' \"$cur\"",
        "            fi",
        "            ;;",
    ]
    for c in m.commands:
        out += _bash_command_case(c)
    return out + ["    esac", "}", ""]


def _bash_value_action(o: Opt) -> str:
    """What completes the value of option `o` (empty: nothing, bash leaves the word alone)."""
    if o.choices:
        return f"_dractl_words '{' '.join(o.choices)}' \"$cur\"; "
    if o.kind == "code":
        return "_dractl_words \"$_dractl_codes\" \"$cur\"; "
    if o.kind == "inventory":
        return "_dractl_words \"$_dractl_inventories\" \"$cur\"; _dractl_files \"$cur\"; "
    if o.kind == "file":
        return "_dractl_files \"$cur\"; "
    return ""


def _bash_command_case(c: Cmd) -> list[str]:
    """One command's case: the value of the option before the cursor, else option names or
    the positional argument (its choices, or files)."""
    out = [f"        {c.name})"]
    value_cases = [f"                {'|'.join(o.names)}) {_bash_value_action(o)}return ;;"
                   for o in c.options if not o.flag]
    if value_cases:
        out += ["            case \"$prev\" in", *value_cases, "            esac"]
    names = " ".join(n for o in c.options for n in _all_names(o))
    out.append("            if [[ \"$cur\" == -* ]]; then")
    out.append(f"                _dractl_words '{names}' \"$cur\"")
    arg = c.args[0] if c.args else None
    if arg is not None and arg.choices:
        out.append("            else")
        out.append(f"                _dractl_words '{' '.join(arg.choices)}' \"$cur\"")
    elif arg is not None:
        out.append("            else")
        out.append("                _dractl_files \"$cur\"")
    return out + ["            fi", "            ;;"]


# The entry point: the words from the line itself (bash would split builtin:NAME and
# --opt=value apart), the command, then the candidates.
_BASH_MAIN = [
    "_dractl() {",
    "    # Words from the line itself: bash would split builtin:NAME and --opt=value apart.",
    "    local line=\"${COMP_LINE:0:COMP_POINT}\"",
    "    local -a words",
    "    read -r -a words <<< \"$line\"",
    "    local cur=\"\"",
    "    if [[ -n \"$line\" && \"$line\" != *[[:space:]] ]]; then",
    "        cur=\"${words[${#words[@]}-1]}\"",
    "        words=( \"${words[@]:0:${#words[@]}-1}\" )",
    "    fi",
    "    local prev=\"${words[${#words[@]}-1]}\"",
    "    if [[ \"$cur\" == --*=* ]]; then",
    "        prev=\"${cur%%=*}\"",
    "        cur=\"${cur#*=}\"",
    "    fi",
    "    local cmd=\"\" w",
    "    for w in \"${words[@]:1}\"; do",
    "        case \"$w\" in",
    "            -*) ;;",
    "            *) cmd=\"$w\"; break ;;",
    "        esac",
    "    done",
    "    COMPREPLY=()",
    "    _dractl_candidates",
    "    # bash replaces only the part after the last ':' of the word: drop what is already there.",
    "    if [[ \"$cur\" == *:* && \"$COMP_WORDBREAKS\" == *:* ]]; then",
    "        local colon_prefix=\"${cur%\"${cur##*:}\"}\" i",
    "        for i in \"${!COMPREPLY[@]}\"; do",
    "            COMPREPLY[$i]=\"${COMPREPLY[$i]#\"$colon_prefix\"}\"",
    "        done",
    "    fi",
    "    return 0",
    "}",
    "",
    "complete -F _dractl dractl",
    "",
]


# -- zsh ---------------------------------------------------------------------------------------

def _zq(text: str) -> str:
    """Inside '...' in zsh."""
    return text.replace("'", "'\\''")


def _zdesc(text: str) -> str:
    """An _arguments [description]."""
    return _zq(text.replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]"))


def _zitem(name: str, description: str) -> str:
    """An _describe item name:description."""
    return "'" + _zq(name.replace("\\", "\\\\").replace(":", "\\:") + ":" + description) + "'"


def _zsh_spec(o: Opt, root: bool = False) -> list[str]:
    if o.choices:
        action = f":{o.names[-1].lstrip('-') or 'value'}:({' '.join(o.choices)})"
    elif o.kind == "code":
        action = ":code:_dractl_codes"
    elif o.kind == "inventory":
        action = ":inventory:_dractl_inventory"
    elif o.kind == "file":
        action = ":file:_files"
    elif not o.flag:
        action = f":{o.names[-1].lstrip('-')}: "
    else:
        action = ""
    group = " ".join(_all_names(o))
    star = "*" if o.repeatable else ""
    exclusive = f"({group})" if not o.repeatable and (len(o.names) > 1 or o.negation) else ""
    if root or o.names == ["-h", "--help"]:
        exclusive = "(- *)"
    desc = _zdesc(o.help)
    specs = []
    if len(o.names) > 1:
        specs.append(f"'{exclusive}{star}'{{{','.join(o.names)}}}'[{desc}]{_zq(action)}'")
    else:
        specs.append(f"'{exclusive}{star}{o.names[0]}[{desc}]{_zq(action)}'")
    if o.negation:
        specs.append(f"'{exclusive}{o.negation}[{_zdesc('Turn off ' + o.names[-1] + '.')}]'")
    return specs


def render_zsh(m: Model) -> str:
    return "\n".join(_zsh_value_functions(m) + _zsh_main(m) + _ZSH_EPILOGUE)


def _zsh_value_functions(m: Model) -> list[str]:
    """Header, and the functions that offer finding codes and inventories (with descriptions)."""
    out = [
        "#compdef dractl",
        f"# zsh completion for dractl. {_HEADER}",
        "# Install: `dractl completion zsh > ~/.zfunc/_dractl` with `fpath+=~/.zfunc` before",
        "# `compinit` in ~/.zshrc (or `source` this file after compinit).",
        "",
        "_dractl_codes() {",
        "  local -a codes",
        "  codes=(",
        *[f"    {_zitem(c, d)}" for c, d in m.codes],
        "  )",
        "  _describe -t codes 'finding code' codes",
        "}",
        "",
        "_dractl_inventory() {",
        "  local -a builtins",
        "  builtins=(",
        *[f"    {_zitem(n, d)}" for n, d in m.inventories],
        "  )",
        "  _describe -t builtins 'built-in inventory' builtins",
        "  _files",
        "}",
        "",
    ]
    return out


def _zsh_main(m: Model) -> list[str]:
    """_dractl: the root options and the command, then each command's own _arguments."""
    out = [
        "_dractl() {",
        "  local curcontext=\"$curcontext\" state line ret=1",
        "  typeset -A opt_args",
        "  _arguments -C \\",
        *[f"    {spec} \\" for o in m.root_options for spec in _zsh_spec(o, root=True)],
        "    '1: :->command' \\",
        "    '*:: :->args' && ret=0",
        "  case $state in",
        "    command)",
        "      local -a commands",
        "      commands=(",
        *[f"        {_zitem(c.name, c.help)}" for c in m.commands],
        "      )",
        "      _describe -t commands 'dractl command' commands && ret=0",
        "      ;;",
        "    args)",
        "      curcontext=\"${curcontext%:*:*}:dractl-$line[1]:\"",
        "      case $line[1] in",
    ]
    for c in m.commands:
        out += _zsh_command_case(c)
    return out + ["      esac", "      ;;", "  esac", "  return ret", "}", ""]


def _zsh_command_case(c: Cmd) -> list[str]:
    out = [f"        {c.name})", "          _arguments -s \\"]
    out += [f"            {spec} \\" for o in c.options for spec in _zsh_spec(o)]
    for a in c.args:
        action = f"({' '.join(a.choices)})" if a.choices else "_files"
        star = "*" if a.repeatable else "1"
        out.append(f"            '{star}:{_zq(a.help.rstrip('.').lower() or 'argument')}:{action}' \\")
    out[-1] = out[-1][:-2] + " && ret=0"
    return out + ["          ;;"]


_ZSH_EPILOGUE = [
    "if [[ \"${funcstack[1]}\" == _dractl ]]; then",
    "  _dractl \"$@\"",
    "else",
    "  compdef _dractl dractl",
    "fi",
    "",
]


# -- fish --------------------------------------------------------------------------------------

def _fq(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _fish_names(o: Opt) -> str:
    parts = []
    for n in o.names:
        parts.append(f"-l {n[2:]}" if n.startswith("--") else f"-s {n[1:]}")
    return " ".join(parts)


def render_fish(m: Model) -> str:
    out = [
        f"# fish completion for dractl. {_HEADER}",
        "# Install: `dractl completion fish > ~/.config/fish/completions/dractl.fish`.",
        "",
        "function __dractl_codes",
        "    printf '%s\\t%s\\n' \\",
    ]
    out += [f"        {c} {_fq(d)} \\" for c, d in m.codes]
    out[-1] = out[-1][:-2]
    out += ["end", "", "function __dractl_inventories", "    printf '%s\\t%s\\n' \\"]
    out += [f"        {n} {_fq(d)} \\" for n, d in m.inventories]
    out[-1] = out[-1][:-2]
    out += ["end", "", "complete -c dractl -f"]
    top = "-n __fish_use_subcommand"
    for o in m.root_options:
        out.append(f"complete -c dractl {top} {_fish_names(o)} -d {_fq(o.help)}")
    for c in m.commands:
        out.append(f"complete -c dractl {top} -a {c.name} -d {_fq(c.help)}")
    for c in m.commands:
        cond = f"-n '__fish_seen_subcommand_from {c.name}'"
        for o in c.options:
            line = f"complete -c dractl {cond} {_fish_names(o)}"
            if o.choices:
                line += f" -x -a {_fq(' '.join(o.choices))}"
            elif o.kind == "code":
                line += " -x -a '(__dractl_codes)'"
            elif o.kind == "inventory":
                line += " -r -F -a '(__dractl_inventories)'"
            elif o.kind == "file":
                line += " -r -F"
            elif not o.flag:
                line += " -x"
            out.append(line + f" -d {_fq(o.help)}")
            if o.negation:
                out.append(f"complete -c dractl {cond} -l {o.negation[2:]} -d {_fq('Turn off ' + o.names[-1] + '.')}")
        for a in c.args:
            if a.choices:
                out.append(f"complete -c dractl {cond} -x -a {_fq(' '.join(a.choices))}")
            else:
                out.append(f"complete -c dractl {cond} -F")
    out.append("")
    return "\n".join(out)
