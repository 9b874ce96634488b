"""`.dractl.yaml`: a project's defaults for every command. Command-line options win.

The file is found by walking up from the working directory (the first `.dractl.yaml` or
`.dractl.yml`), or named with `--config FILE`; `--no-config` ignores it. Paths and globs in it are
relative to the directory that holds it, so the same file works from any sub-directory:

    kubeVersion: "1.35"                # --kube-version
    featureGates:                      # --feature-gates (the command line overrides per gate)
      DRAPrioritizedList: true
    inventory:                         # --inventory (allocate, env), when none is given
      - builtin:example-gpu
      - cluster/inventory.yaml
    ignore: [DRA2003]                  # --ignore (the command line adds to these)
    strict: false                      # --strict / --no-strict
    exclude:                           # --exclude: files never read when walking directories
      - vendor/
      - "**/*.generated.yaml"
    perPathIgnore:                     # codes ignored only under some paths
      examples/**: [DRA1417]

Only the file's content decides anything: it is data, never code.
"""

from __future__ import annotations

import os
import re
import stat

import yaml

from dractl.api.record import FrozenRecord

CONFIG_NAMES = (".dractl.yaml", ".dractl.yml")
_MAX_CONFIG_BYTES = 1024 * 1024
_CODE = re.compile(r"^[A-Z]{2,5}[0-9]{3,5}$")

KEYS = ("kubeVersion", "featureGates", "inventory", "ignore", "strict", "exclude", "perPathIgnore",
        "extensions")


class ConfigError(Exception):
    """An unreadable or invalid config file (a usage error: exit status 2)."""


class Config(FrozenRecord):
    __slots__ = ("path", "root", "kube_version", "feature_gates", "inventory", "ignore", "strict",
                 "exclude", "per_path_ignore", "extensions")

    def __init__(self, path: str | None = None, root: str = ".", kube_version: str | None = None,
                 feature_gates: tuple[tuple[str, bool], ...] = (), inventory: tuple[str, ...] = (),
                 ignore: tuple[str, ...] = (), strict: bool | None = None,
                 exclude: tuple[str, ...] = (),
                 per_path_ignore: tuple[tuple[str, tuple[str, ...]], ...] = (),
                 extensions: tuple[str, ...] = ()) -> None:
        # path: the file read, None when there is none; root: the directory that relative paths
        # and globs start from; inventory: as written ("builtin:NAME" or a path under root);
        # extensions: dractl's opt-in extensions (--extension).
        # Set like a frozen dataclass's fields (FrozenRecord: no dataclass compile at start-up).
        for name, value in zip(self.__slots__, (path, root, kube_version, feature_gates, inventory,
                                                ignore, strict, exclude, per_path_ignore, extensions), strict=True):
            object.__setattr__(self, name, value)

    def feature_gates_text(self) -> str:
        return ",".join(f"{name}={'true' if on else 'false'}" for name, on in self.feature_gates)

    def inventory_args(self) -> list[str]:
        """Inventory entries as command-line values: paths made relative to the working directory."""
        out = []
        for entry in self.inventory:
            if entry.startswith("builtin:"):
                out.append(entry)
            else:
                out.append(display_path(os.path.join(self.root, entry)))
        return out


def display_path(path: str) -> str:
    """A path as a user would type it from the working directory (relative when possible)."""
    absolute = os.path.abspath(path)
    try:
        rel = os.path.relpath(absolute)
    except ValueError:  # another drive (Windows)
        return absolute
    return absolute if rel.startswith(".." + os.sep + "..") else rel


def find_config(start: str | None = None, warnings: list[str] | None = None) -> str | None:
    """The nearest config file in `start` (default: the working directory) or above it, up to
    the repository root: the directory holding `.git` is the last one looked at, so a file in a
    shared parent (/tmp, a runner's workspace) never configures a checkout. A file owned by
    neither the current user nor root is skipped with a warning, as git refuses a repository
    owned by someone else (safe.directory, CVE-2022-24765): another user's `exclude: ["**"]`
    must not turn a failing check into a pass."""
    try:
        directory = os.path.abspath(start or os.getcwd())
    except OSError:  # the working directory was removed
        return None
    while True:
        for name in CONFIG_NAMES:
            candidate = os.path.join(directory, name)
            if not os.path.isfile(candidate):
                continue
            stranger = _stranger(candidate)
            if stranger is None:
                return candidate
            if warnings is not None:
                warnings.append(stranger)
        parent = os.path.dirname(directory)
        if parent == directory or os.path.lexists(os.path.join(directory, ".git")):
            return None
        directory = parent


def _stranger(path: str) -> str | None:
    """Why `path` is not to be trusted (owned by someone else), or None."""
    try:
        owner = os.stat(path).st_uid
    except OSError:
        return None  # load_config reports what cannot be read
    me = os.geteuid() if hasattr(os, "geteuid") else owner
    if owner in (me, 0):
        return None
    return (f"ignoring {display_path(path)}: owned by uid {owner}, not by you (uid {me}) or "
            "root; give it with --config FILE to use it anyway")


def discover(explicit: str | None = None, disabled: bool = False,
             allow_outside: bool = False, warnings: list[str] | None = None) -> Config:
    """The config of this run: none (--no-config), FILE (--config, trusted: the user named it)
    or the nearest one found (find_config). `warnings` collects the files skipped."""
    if disabled:
        return Config()
    if explicit:
        if not os.path.exists(explicit):
            raise ConfigError(f"--config {explicit}: no such file")
        return load_config(explicit, allow_outside)
    found = find_config(warnings=warnings)
    return load_config(found, allow_outside) if found else Config()


def load_config(path: str, allow_outside: bool = False) -> Config:
    shown = display_path(path)
    try:
        # Never open a FIFO (it blocks until a writer comes) or a device (endless or hostile):
        # like every other input, a config file must be a regular file. O_NONBLOCK makes the
        # open itself return at once; fstat then looks at what was opened, not at a name.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):
                raise ConfigError(f"{shown}: not a regular file")
            if st.st_size > _MAX_CONFIG_BYTES:
                raise ConfigError(f"{shown}: config file is larger than 1 MiB")
            raw = fh.read(_MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{shown}: {(exc.strerror or str(exc)).lower()}") from None
    try:
        text = raw.decode("utf-8-sig")
        data = yaml.safe_load(text)
    except UnicodeDecodeError:
        raise ConfigError(f"{shown}: not UTF-8 text") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}:{mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise ConfigError(f"{shown}{where}: {problem}") from None
    except RecursionError:
        raise ConfigError(f"{shown}: nests too deeply") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise ConfigError(f"{shown}: {exc}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{shown}: expected a mapping of settings, found {_type_name(data)}")
    return _parse(data, path, shown, allow_outside)


def _parse(data: dict, path: str, shown: str, allow_outside: bool = False) -> Config:
    def fail(key: str, message: str) -> ConfigError:
        return ConfigError(f"{shown}: {key}: {message}")

    unknown = [k for k in data if k not in KEYS]
    if unknown:
        key = str(unknown[0])
        hint = _did_you_mean(key)
        raise ConfigError(f"{shown}: unknown setting {key!r}" + (f" (did you mean {hint!r}?)" if hint
                          else f" (settings: {', '.join(KEYS)})"))
    kube_version = _kube_version(data.get("kubeVersion"), fail)
    gates = _feature_gates(data.get("featureGates"), fail)

    def strings(key: str) -> tuple[str, ...]:
        value = data.get(key)
        if value is None:
            return ()
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise fail(key, "expected a list of non-empty strings")
        return tuple(value)

    inventory = strings("inventory")
    root = os.path.dirname(os.path.abspath(path))
    if not allow_outside:
        for entry in inventory:
            _inside_tree(root, entry, lambda m: fail("inventory", m))
    ignore = strings("ignore")
    for code in ignore:
        if not _CODE.match(code):
            raise fail("ignore", f"{code!r} is not a finding code (see `dractl codes`)")
    exclude = strings("exclude")
    for pattern in exclude:
        _check_glob(pattern, lambda m: fail("exclude", m), allow_outside)

    extensions = strings("extensions")
    for name in extensions:
        from dractl.extensions import KNOWN

        if name not in KNOWN:
            raise fail("extensions", f"unknown extension {name!r}; dractl knows: {', '.join(sorted(KNOWN))}")

    strict = data.get("strict")
    if strict is not None and not isinstance(strict, bool):
        raise fail("strict", f"expected true or false, found {_type_name(strict)}")
    per_path = _per_path_ignore(data.get("perPathIgnore"), fail, allow_outside)
    return Config(path=path, root=root, kube_version=kube_version,
                  feature_gates=tuple(gates), inventory=inventory, ignore=ignore, strict=strict,
                  exclude=exclude, per_path_ignore=tuple(per_path), extensions=extensions)


def _kube_version(kube_version, fail) -> str | None:
    if kube_version is None:
        return None
    if isinstance(kube_version, float):  # `kubeVersion: 1.35` unquoted
        kube_version = repr(kube_version)
    if not isinstance(kube_version, str):
        raise fail("kubeVersion", f"expected a string such as \"1.35\", found {_type_name(kube_version)}")
    from dractl.api.versions import KUBE_VERSIONS

    if kube_version not in KUBE_VERSIONS:
        raise fail("kubeVersion", f"unsupported version {kube_version!r} (supported: "
                   f"{', '.join(KUBE_VERSIONS)}; quote the value: \"1.30\" is not 1.3)")
    return kube_version


def _feature_gates(raw_gates, fail) -> list[tuple[str, bool]]:
    """featureGates as a mapping (Name: true) or as the command line's string (Name=true,...)."""
    gates: list[tuple[str, bool]] = []
    if isinstance(raw_gates, dict):
        for name, value in raw_gates.items():
            if not isinstance(name, str) or not isinstance(value, bool):
                raise fail("featureGates", f"expected Name: true|false, found {name!r}: {value!r}")
            gates.append((name, value))
    elif isinstance(raw_gates, str):
        for part in (p.strip() for p in raw_gates.split(",")):
            if not part:
                continue
            name, sep, value = part.partition("=")
            if not sep or value.strip().lower() not in ("true", "false"):
                raise fail("featureGates", f"invalid entry {part!r}: expected Name=true or Name=false")
            gates.append((name.strip(), value.strip().lower() == "true"))
    elif raw_gates is not None:
        raise fail("featureGates", f"expected a mapping Name: true|false, found {_type_name(raw_gates)}")
    return gates


def _per_path_ignore(raw_per_path, fail, allow_outside: bool = False) -> list[tuple[str, tuple[str, ...]]]:
    per_path: list[tuple[str, tuple[str, ...]]] = []
    if raw_per_path is None:
        return per_path
    if not isinstance(raw_per_path, dict):
        raise fail("perPathIgnore", "expected a mapping of glob: [codes]")
    for pattern, codes in raw_per_path.items():
        if not isinstance(pattern, str) or not pattern:
            raise fail("perPathIgnore", f"{pattern!r} is not a glob")
        _check_glob(pattern, lambda m: fail("perPathIgnore", m), allow_outside)
        if isinstance(codes, str):
            codes = [codes]
        if not isinstance(codes, list) or not codes or not all(
                isinstance(c, str) and _CODE.match(c) for c in codes):
            raise fail("perPathIgnore", f"{pattern}: expected a list of finding codes")
        per_path.append((pattern, tuple(codes)))
    return per_path


def _check_glob(pattern: str, fail, allow_outside: bool = False) -> None:
    if "\x00" in pattern or len(pattern) > 1000:
        raise fail(f"{pattern[:40]!r} is not a usable glob")
    if not allow_outside and ".." in pattern.replace("\\", "/").split("/"):
        raise fail(f"{pattern!r} reaches outside the config's directory (..); refused (give "
                   "--config-allow-outside to allow it)")


def _inside_tree(root: str, entry: str, fail) -> None:
    """An `inventory:` path must resolve (symlinks followed) inside the config's directory, as
    `--golden FILE` must inside the working directory: a config from a pull request must not
    make dractl read /proc/self/environ, /etc/passwd or the whole disk (`inventory: [/]`)."""
    if entry.startswith("builtin:"):
        return
    here = os.path.realpath(root)
    target = os.path.realpath(os.path.join(root, entry))
    if os.path.commonpath([here, target]) != here:
        raise fail(f"{entry!r} resolves outside the config's directory ({target}); refused "
                   "(give --config-allow-outside to allow it)")


def _did_you_mean(key: str) -> str | None:
    import difflib

    lowered = {k.lower(): k for k in KEYS}
    if key.lower().replace("-", "").replace("_", "") in lowered:
        return lowered[key.lower().replace("-", "").replace("_", "")]
    close = difflib.get_close_matches(key, KEYS, n=1, cutoff=0.6)
    return close[0] if close else None


def _type_name(value: object) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", int: "a number",
            float: "a number", type(None): "nothing"}.get(type(value), type(value).__name__)


# -- globs ------------------------------------------------------------------------------------

def glob_regex(pattern: str) -> re.Pattern:
    """gitignore-like globs over `/`-separated paths relative to the config's directory.

    `*` and `?` stay within one path segment, `**` spans segments, `[...]` is a character class.
    A pattern without a `/` (other than a trailing one) matches at any depth (`*.gen.yaml`,
    `vendor/`); a pattern matches a directory's whole subtree (`deploy/old` excludes every file
    below it).
    """
    p = pattern.strip()
    if p.startswith("./"):
        p = p[2:]
    p = p.rstrip("/")
    anchored = "/" in p
    p = p.lstrip("/")
    out = []
    i = 0
    while i < len(p):
        c = p[i]
        if p.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif p.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            end = p.find("]", i + 2)
            if end == -1:
                out.append(re.escape(c))
                i += 1
            else:
                body = p[i + 1:end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end + 1
        else:
            out.append(re.escape(c))
            i += 1
    prefix = "" if anchored else "(?:[^/]+/)*"
    # RE2 matches in linear time: a config in a stranger's pull request cannot make the glob
    # match backtrack for hours (`**/**/**/...`). Python's `re` only if RE2 refuses the pattern.
    for compile_, source in ((_re2_compile, f"(?s)^{prefix}{''.join(out)}(?:/.*)?$"),
                             (_re2_compile, f"(?s)^{prefix}{re.escape(p)}(?:/.*)?$")):
        try:
            return compile_(source)
        except Exception:  # noqa: BLE001 - re2.error / re.error: try the literal pattern
            continue
    return re.compile(f"^{prefix}{re.escape(p)}(?:/.*)?$", re.S)


def _re2_compile(pattern: str):
    import re2

    return re2.compile(pattern)


class PathMatcher:
    """Matches file names (as the loader shows them) against globs relative to a root."""

    def __init__(self, patterns: tuple[str, ...] | list[str], root: str):
        self.patterns = tuple(patterns)
        self._regexes = [glob_regex(p) for p in self.patterns]
        self._root = os.path.abspath(root)

    def __bool__(self) -> bool:
        return bool(self._regexes)

    def relative(self, name: str) -> str | None:
        try:
            rel = os.path.relpath(os.path.abspath(name), self._root)
        except ValueError:
            return None
        if rel == ".." or rel.startswith(".." + os.sep):
            return None
        return rel.replace(os.sep, "/")

    def matches(self, name: str) -> bool:
        if not self._regexes or not name or name.startswith(("<", "builtin:")):
            return False
        rel = self.relative(name)
        if rel is None:
            return False
        return any(r.match(rel) for r in self._regexes)
