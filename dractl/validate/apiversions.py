"""What a document's apiVersion and kind mean when dractl's schemas do not serve them: a kind of
another API (skipped), a typo (an error with the closest name), or something an older or newer
Kubernetes release serves (an error naming that release).

The API server's REST mapper answers such a manifest with `no matches for kind "ResourceClam" in
version "resource.k8s.io/v1"` (k8s.io/apimachinery/pkg/api/meta, NoKindMatchError.Error), so
kubectl apply fails; the did-you-mean and the releases are dractl's own additions. What each
release served comes from dractl/schemas/history.json (scripts/gen_api_history.py), read only on
these paths, never for a document whose kind and apiVersion are served.
"""

from __future__ import annotations

import json
from functools import lru_cache

from dractl.findings import ERROR, Finding

# API groups whose kinds are all DRA's: a kind there that dractl does not read and that no
# Kubernetes release serves is a typo or newer than dractl.
DRA_GROUPS = ("resource.k8s.io", "scheduling.k8s.io")
# Groups served by the API server itself besides `*.k8s.io` (a custom resource cannot use
# `*.k8s.io` or `*.kubernetes.io` without the api-approved.kubernetes.io annotation, KEP-2337).
_LEGACY_GROUPS = frozenset({"", "apps", "batch", "autoscaling", "policy", "extensions"})


@lru_cache(maxsize=None)
def history() -> dict:
    from dractl.validate.schema import _package_text

    return json.loads(_package_text("history.json"))


def group_of(api_version: str) -> str:
    return api_version.rpartition("/")[0]


def position(release: str) -> int:
    """Where a release stands among history.json's (oldest first); a release after the newest
    it knows (a preview) stands after all of them. dractl checks only releases from the oldest
    one history.json knows on, so no release stands before them."""
    releases = history()["releases"]
    return releases.index(release) if release in releases else len(releases)


def served_range(api_version: str, kind: str) -> tuple[str, str] | None:
    """[first, last] release (of history.json's) that served `kind` as `api_version`."""
    found = history()["served"].get(api_version, {}).get(kind)
    return (found[0], found[1]) if found else None


def served_in(span: tuple[str, str] | None, release: str) -> bool:
    """Whether a release is in a served range; a range reaching the newest release history.json
    knows is taken as still open (a release after it serves what its predecessor did)."""
    if span is None:
        return False
    newest = history()["releases"][-1]
    return position(span[0]) <= position(release) and (span[1] == newest
                                                        or position(release) <= position(span[1]))


def describe_range(span: tuple[str, str]) -> str:
    first, last = span
    if last == history()["releases"][-1]:
        return f"Kubernetes {first} and later serve it"
    return f"Kubernetes {first} served it" if first == last else f"Kubernetes {first} to {last} served it"


def is_kubernetes_group(group: str) -> bool:
    """A group the API server itself serves (not a custom resource's)."""
    if group in _LEGACY_GROUPS:
        return True
    return group.endswith(".k8s.io") and not group.endswith(".x-k8s.io")


def _near_group(group: str) -> str | None:
    """A DRA group that `group` misspells (`resources.k8s.io`), for custom-looking groups."""
    from dractl.suggest import closest_match

    return closest_match(group, DRA_GROUPS, cutoff=0.9)


def no_matches(kind: str, api_version: str) -> str:
    return f'no matches for kind "{kind}" in version "{api_version}"'


def unknown_kind_finding(code: str, api_version: str, kind: str, known_kinds,
                         release: str) -> Finding | None:
    """The finding for a kind dractl does not read, or None when the document is simply not
    DRA's (skipped and counted): a kind a Kubernetes release serves (PriorityClass), a custom
    resource, any kind of another group that is no near miss of a kind dractl reads."""
    from dractl.suggest import closest_match

    group = group_of(api_version)
    span = served_range(api_version, kind)
    if served_in(span, release):
        return None  # a real Kubernetes kind dractl has no business with
    guess = closest_match(kind, sorted(known_kinds), cutoff=0.8)
    if group not in DRA_GROUPS and guess is None:
        return None
    message = no_matches(kind, api_version)
    if span is not None:
        message += f": {describe_range(span)}, {release} does not"
    elif guess:
        message += f"; did you mean {guess}?"
    return Finding(ERROR, code, message, ("kind",))


def is_custom_resource(api_version: str) -> bool:
    """A known kind under a custom group (`scheduling.x-k8s.io/v1alpha1` PodGroup of the
    coscheduling plugin, Volcano's `scheduling.volcano.sh`): another API, not a typo."""
    group = group_of(api_version)
    if group.endswith(".x-k8s.io"):  # the suffix of Kubernetes subprojects' own CRDs
        return True
    return not is_kubernetes_group(group) and _near_group(group) is None


def not_served_message(api_version: str, kind: str, release: str, serving: list[str],
                       here: list[str]) -> str:
    """DRA0105's message. serving: dractl's releases that serve kind as api_version; here: the
    apiVersions that serve kind in `release`."""
    if serving:
        return (f"{api_version} {kind} is not served by Kubernetes {release} (served by Kubernetes "
                f"{', '.join(serving)}); use --kube-version or convert the manifest")
    instead = f"Kubernetes {release} serves {kind} as {', '.join(here)}" if here else ""
    span = served_range(api_version, kind)
    if span is not None:
        return (f"{api_version} {kind} is not served by Kubernetes {release}: "
                f"{describe_range(span)}" + (f"; {instead}" if instead else ""))
    from dractl.suggest import closest_match

    guess = closest_match(api_version, here, cutoff=0.6) if here else None
    message = no_matches(kind, api_version) + " (no Kubernetes release serves it)"
    if guess:
        message += f"; did you mean {guess}?"
    elif instead:
        message += f"; {instead}"
    return message
