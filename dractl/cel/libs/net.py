"""Kubernetes url, ip and cidr libraries (k8s.io/apiserver/pkg/cel/library/urls.go, ip.go,
cidr.go). The value types and parsing live in dractl/cel/netlib.py."""

from __future__ import annotations

from .. import netlib as N
from ..values import no_such_overload
from . import Library, _args


def ip(x):
    """``ip(string)`` builds an IP; ``cidr.ip()`` is the CIDR's address (one name, two uses)."""
    if type(x) is str:
        return N.f_ip(x)
    if type(x) is N.CIDR:
        return N.cidr_ip(x)
    raise no_such_overload()


def _url_cost(est, call, target, args, arg_sum):
    from ..cost import _add, _factor
    if target is not None or len(args) != 1:
        return None
    return _add(_factor(est.size_or_unknown(args[0])[1], 0.1), arg_sum), None


def _contains_cost(est, call, target, args, arg_sum):
    from ..checker import STRING
    from ..cost import _add, _factor
    if target is None or not args:
        return None
    c = _factor(32, 0.1)
    if call.function == "containsCIDR":
        c = _add(_add(c, _factor(16, 0.1)), 1)
    if est.types.get(args[0].id) == STRING:
        c = _add(c, _factor(est.size_or_unknown(args[0])[1], 0.1))
    return _add(c, arg_sum), None


DECLARATIONS = (
    "url(string) -> URL", "isURL(string) -> bool", "URL.getScheme() -> string",
    "URL.getHost() -> string", "URL.getHostname() -> string", "URL.getPort() -> string",
    "URL.getEscapedPath() -> string", "URL.getQuery() -> map(string,list(string))",
    "ip(string) -> IP", "isIP(string) -> bool", "ip.isCanonical(string) -> bool",
    "IP.family() -> int", "IP.isUnspecified() -> bool", "IP.isLoopback() -> bool",
    "IP.isLinkLocalMulticast() -> bool", "IP.isLinkLocalUnicast() -> bool",
    "IP.isGlobalUnicast() -> bool", "cidr(string) -> CIDR", "isCIDR(string) -> bool",
    "CIDR.containsIP(IP) -> bool", "CIDR.containsIP(string) -> bool",
    "CIDR.containsCIDR(CIDR) -> bool", "CIDR.containsCIDR(string) -> bool", "CIDR.ip() -> IP",
    "CIDR.masked() -> CIDR", "CIDR.prefixLength() -> int",
)

LIBRARY = Library(
    "net",
    DECLARATIONS,
    functions={
        "url": N.f_url, "isURL": N.is_url, "getScheme": N.url_scheme, "getHost": N.url_host,
        "getHostname": N.url_hostname, "getPort": N.url_port,
        "getEscapedPath": N.url_escaped_path, "getQuery": N.url_query,
        "ip": ip, "isIP": N.is_ip, "ip.isCanonical": N.ip_is_canonical, "family": N.ip_family,
        "isUnspecified": N.ip_is_unspecified, "isLoopback": N.ip_is_loopback,
        "isLinkLocalMulticast": N.ip_is_link_local_multicast,
        "isLinkLocalUnicast": N.ip_is_link_local_unicast,
        "isGlobalUnicast": N.ip_is_global_unicast,
        "cidr": N.f_cidr, "isCIDR": N.is_cidr, "containsIP": N.cidr_contains_ip,
        "containsCIDR": N.cidr_contains_cidr, "masked": N.cidr_masked,
        "prefixLength": N.cidr_prefix_length,
    },
    static_costs={
        "url": _url_cost, "containsIP": _contains_cost, "containsCIDR": _contains_cost,
        **{name: _args.fixed_cost for name in (
            "masked", "prefixLength", "family", "isUnspecified", "isLoopback",
            "isLinkLocalMulticast", "isLinkLocalUnicast")},
    },
)
