#!/usr/bin/env python3
"""Generate dractl/schemas/history.json: what older Kubernetes releases served, for hints.

dractl's schemas (scripts/gen_schemas.py) cover the releases dractl checks against. A manifest
written for an older release meets them with an apiVersion or a field that is gone, and the
API server then says only "no matches for kind" or "unknown field". This file records, from the
same upstream source, what each release from RELEASES[0] on served, so that dractl can name the
release that removed something (and `validate` can say what replaced it):

* `served`: for the DRA API groups (GROUPS) and for every apiVersion of a kind dractl reads,
  apiVersion -> kind -> [first, last] release serving it (each range is contiguous; checked).
* `fields`: for every definition of dractl's newest schema (dractl/schemas/k8s-1.NN.json), each
  field it lacks that an older release had, and each field added after the oldest release
  dractl checks against: definition -> field -> [first, last] release that had it.

Source: the `kubernetes-validate` package (the one scripts/gen_schemas.py pins), its
`kubernetes-json-schema/v1.NN.0-local-strict/_definitions.json` per release: the definitions of
api/openapi-spec/swagger.json of kubernetes/kubernetes at tag v1.NN.0.

Usage
    python scripts/gen_api_history.py            # write dractl/schemas/history.json
    python scripts/gen_api_history.py --check    # exit 1 when the committed file is stale

Deterministic: sorted keys, fixed separators.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "dractl" / "schemas" / "history.json"
RELEASES = tuple(f"1.{minor}" for minor in range(25, 38))
GROUPS = ("resource.k8s.io", "scheduling.k8s.io")


def _gen_schemas():
    spec = importlib.util.spec_from_file_location("gen_schemas", ROOT / "scripts" / "gen_schemas.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _definitions(base: Path, release: str) -> dict:
    return json.loads((base / f"v{release}.0-local-strict" / "_definitions.json").read_bytes())["$defs"]


def _range(releases: list[str], what: str) -> list[str]:
    """[first, last] of releases that must be consecutive in RELEASES."""
    positions = [RELEASES.index(r) for r in releases]
    if positions != list(range(positions[0], positions[-1] + 1)):
        raise SystemExit(f"{what}: served in {releases}, not a contiguous range; extend the format")
    return [releases[0], releases[-1]]


def served(all_defs: dict[str, dict], read_kinds: dict[str, tuple]) -> dict:
    found: dict[tuple[str, str], list[str]] = {}
    for release in RELEASES:
        for definition in all_defs[release].values():
            for gvk in definition.get("x-kubernetes-group-version-kind", ()):
                group, kind = gvk["group"], gvk["kind"]
                if kind.endswith("List") or kind in ("DeleteOptions", "WatchEvent", "Status"):
                    continue
                if group in GROUPS or kind in read_kinds.get(group, ()):
                    api_version = f"{group}/{gvk['version']}" if group else gvk["version"]
                    seen = found.setdefault((api_version, kind), [])
                    if release not in seen:
                        seen.append(release)
    out: dict[str, dict[str, list[str]]] = {}
    for (api_version, kind), releases in sorted(found.items()):
        out.setdefault(api_version, {})[kind] = _range(releases, f"{api_version} {kind}")
    return out


def fields(all_defs: dict[str, dict], current: dict[str, dict], oldest: str) -> dict:
    """Fields of dractl's definitions that some release dractl checks against lacks: removed
    ones (not in the newest schema) and ones added after `oldest`, with the releases having them."""
    out: dict[str, dict[str, list[str]]] = {}
    for name in sorted(current):
        now = set(current[name].get("properties", {}))
        history: dict[str, list[str]] = {}
        for release in RELEASES:
            for field in all_defs[release].get(name, {}).get("properties", {}):
                history.setdefault(field, []).append(release)
        for field, releases in sorted(history.items()):
            added_later = RELEASES.index(releases[0]) > RELEASES.index(oldest)
            if field not in now or added_later:
                out.setdefault(name, {})[field] = _range(releases, f"{name}.{field}")
    return out


def build() -> dict:
    gen = _gen_schemas()
    base, version = gen.source_dir()
    if base is None:
        raise SystemExit(f"{gen.SOURCE_PACKAGE} is not installed: pip install "
                         f"{gen.SOURCE_PACKAGE}=={gen.SOURCE_VERSION}")
    if version != gen.SOURCE_VERSION:
        raise SystemExit(f"{gen.SOURCE_PACKAGE} {version} is installed; scripts/gen_schemas.py pins "
                         f"{gen.SOURCE_VERSION}")
    all_defs = {release: _definitions(base, release) for release in RELEASES}
    ordered = sorted(gen.KUBE_VERSIONS, key=lambda v: tuple(map(int, v.split("."))))
    newest = ordered[-1]
    current = json.loads((ROOT / "dractl" / "schemas" / gen.schema_name(newest)).read_text())["$defs"]
    return {
        "generator": "scripts/gen_api_history.py",
        "note": "Generated; do not edit. Regenerate with: python scripts/gen_api_history.py",
        "source": {"package": gen.SOURCE_PACKAGE, "version": version,
                   "files": f"{gen.SOURCE_MODULE}/kubernetes-json-schema/v1.NN.0-local-strict/"
                            "_definitions.json",
                   "upstream": "kubernetes/kubernetes v1.NN.0 api/openapi-spec/swagger.json"},
        "releases": list(RELEASES),
        "served": served(all_defs, gen.KINDS),
        "fields": fields(all_defs, current, ordered[0]),
    }


def render(doc: dict) -> str:
    return json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=True) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed file")
    args = parser.parse_args(argv)
    text = render(build())
    if args.check:
        stale = not OUT.exists() or OUT.read_text() != text
        print("history.json is stale: run scripts/gen_api_history.py" if stale
              else "history.json is up to date")
        return 1 if stale else 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
