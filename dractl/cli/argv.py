"""Command-line spellings other tools accept, normalised before option parsing.

* `-o=json`, `-i=builtin:cpu`, `-j=4`: a short option joined with `=` (click reads `=json` as
  the value); split into `-o json`.
* `--kube-version v1.35`, `1.35.0`, `v1.35.2`: Kubernetes versions as kubectl prints them;
  dractl's rules differ per minor version only, so the patch is ignored.
* `--kube-version 1.36,1.37,1.38`: the upgrade check; read as `--kube-version 1.36` (the first
  release, for everything that takes one) plus the hidden `--upgrade-releases 1.36,1.37,1.38`.
"""

from __future__ import annotations

import re

SHORT_WITH_VALUE = ("-o", "-i", "-j")
_VERSION = re.compile(r"^v?(\d+)\.(\d+)(?:\.\d+)?(?:[-+][0-9A-Za-z.-]*)?$")


def normalise(args: list[str]) -> list[str]:
    out: list[str] = []
    expect_version = False
    for i, arg in enumerate(args):
        if expect_version:
            out.extend(_versions(arg))
            expect_version = False
            continue
        if arg == "--":  # everything after it is a path
            out.extend(args[i:])
            return out
        short, eq, value = arg.partition("=")
        if eq and short in SHORT_WITH_VALUE:
            out.extend([short, value])
        elif arg == "--kube-version":
            out.append(arg)
            expect_version = True
        elif arg.startswith("--kube-version="):
            first, *rest = _versions(arg.partition("=")[2])
            out.extend(["--kube-version=" + first, *rest])
        else:
            out.append(arg)
    return out


def _versions(value: str) -> list[str]:
    """The option's value (normalised), plus --upgrade-releases for a comma-separated list."""
    if "," not in value:
        return [kube_version(value)]
    releases = [kube_version(v) for v in value.split(",") if v.strip()]
    return [releases[0] if releases else value, "--upgrade-releases", ",".join(releases)]


def kube_version(value: str) -> str:
    """`v1.35.0` -> `1.35`; anything else unchanged (the option then rejects it)."""
    m = _VERSION.match(value.strip())
    return f"{m.group(1)}.{m.group(2)}" if m else value
