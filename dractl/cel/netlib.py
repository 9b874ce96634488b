"""Kubernetes CEL ``url``, ``ip`` and ``cidr`` libraries (k8s.io/apiserver/pkg/cel/library).

Rarely used in DRA selectors; implemented with the standard library (``ipaddress``,
``urllib.parse``) following the upstream rules: no IPv4-mapped IPv6 addresses, no zones, no
leading zeros.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import parse_qs, quote, urlsplit

from .values import EvalError


def _nso() -> EvalError:
    return EvalError("no such overload")


class IPAddr:
    __slots__ = ("addr",)
    CEL_TYPE = "net.IP"

    def __init__(self, addr):
        self.addr = addr

    def __eq__(self, o):
        return type(o) is IPAddr and o.addr == self.addr

    def __hash__(self):
        return hash(self.addr)

    def __str__(self):
        return str(self.addr)


class CIDR:
    __slots__ = ("net", "addr")
    CEL_TYPE = "net.CIDR"

    def __init__(self, addr, net):
        self.addr, self.net = addr, net

    def __eq__(self, o):
        return type(o) is CIDR and o.addr == self.addr and o.net.prefixlen == self.net.prefixlen

    def __hash__(self):
        return hash((self.addr, self.net.prefixlen))

    def __str__(self):
        return f"{self.addr}/{self.net.prefixlen}"


class URL:
    __slots__ = ("parts", "text")
    CEL_TYPE = "kubernetes.URL"

    def __init__(self, text, parts):
        self.text, self.parts = text, parts

    def __eq__(self, o):
        return type(o) is URL and o.text == self.text

    def __hash__(self):
        return hash(self.text)


def _parse_ip(s: str):
    if not isinstance(s, str):
        raise _nso()
    if "%" in s:
        raise EvalError(f"IP Address {s!r} with zone value is not allowed".replace("'", '"'))
    try:
        a = ipaddress.ip_address(s)
    except ValueError:
        raise EvalError(f'IP Address "{s}" parse error during conversion from string: '
                        f'ParseAddr("{s}"): unable to parse IP') from None
    if isinstance(a, ipaddress.IPv6Address) and a.ipv4_mapped is not None:
        raise EvalError(f'IPv4-mapped IPv6 address "{s}" is not allowed')
    return a


def f_ip(s):
    return IPAddr(_parse_ip(s))


def is_ip(s):
    try:
        _parse_ip(s)
        return True
    except EvalError:
        if not isinstance(s, str):
            raise
        return False


def ip_is_canonical(s):
    return str(_parse_ip(s)) == s


def _ip(x) -> IPAddr:
    if type(x) is not IPAddr:
        raise _nso()
    return x


def ip_family(x):
    return _ip(x).addr.version


def ip_is_unspecified(x):
    return _ip(x).addr.is_unspecified


def ip_is_loopback(x):
    return _ip(x).addr.is_loopback


def ip_is_link_local_multicast(x):
    a = _ip(x).addr
    if a.version == 4:
        return a in ipaddress.ip_network("224.0.0.0/24")
    return a.is_multicast and (a.packed[1] & 0x0F) == 0x02


def ip_is_link_local_unicast(x):
    a = _ip(x).addr
    if a.version == 4:
        return a in ipaddress.ip_network("169.254.0.0/16")
    return a in ipaddress.ip_network("fe80::/10")


def ip_is_global_unicast(x):
    a = _ip(x).addr
    if a.version == 4:
        if a == ipaddress.ip_address("255.255.255.255"):
            return False
    return not (a.is_unspecified or a.is_loopback or a.is_multicast or ip_is_link_local_unicast(x))


def _parse_cidr(s):
    if not isinstance(s, str):
        raise _nso()
    addr_s, slash, plen = s.partition("/")
    if not slash or "%" in addr_s:
        raise EvalError(f'network address parse error during conversion from string: '
                        f'netip.ParsePrefix("{s}"): no \'/\'' if not slash else
                        f'CIDR "{s}" with zone value is not allowed')
    a = _parse_ip(addr_s) if True else None
    if not plen.isdigit() or (len(plen) > 1 and plen[0] == "0"):
        raise EvalError(f'network address parse error during conversion from string: '
                        f'netip.ParsePrefix("{s}"): bad bits after slash: "{plen}"')
    n = int(plen)
    if n > a.max_prefixlen:
        raise EvalError(f'network address parse error during conversion from string: '
                        f'netip.ParsePrefix("{s}"): prefix length out of range')
    return CIDR(a, ipaddress.ip_network(f"{a}/{n}", strict=False))


def f_cidr(s):
    return _parse_cidr(s)


def is_cidr(s):
    try:
        _parse_cidr(s)
        return True
    except EvalError:
        if not isinstance(s, str):
            raise
        return False


def _cidr(x) -> CIDR:
    if type(x) is not CIDR:
        raise _nso()
    return x


def cidr_contains_ip(c, ip):
    c = _cidr(c)
    a = _parse_ip(ip) if isinstance(ip, str) else _ip(ip).addr
    return a.version == c.net.version and a in c.net


def cidr_contains_cidr(c, other):
    c = _cidr(c)
    o = _parse_cidr(other) if isinstance(other, str) else _cidr(other)
    return o.net.version == c.net.version and o.net.subnet_of(c.net)


def cidr_ip(c):
    return IPAddr(_cidr(c).addr)


def cidr_masked(c):
    c = _cidr(c)
    return CIDR(c.net.network_address, c.net)


def cidr_prefix_length(c):
    return _cidr(c).net.prefixlen


def _parse_url(s):
    if not isinstance(s, str):
        raise _nso()
    try:
        p = urlsplit(s)
    except ValueError as e:
        raise EvalError(f"URL parse error during conversion from string: {e}") from None
    if not (p.scheme or s.startswith("/")):
        raise EvalError(f'URL parse error during conversion from string: parse "{s}": '
                        f"invalid URI for request")
    return URL(s, p)


def f_url(s):
    return _parse_url(s)


def is_url(s):
    try:
        _parse_url(s)
        return True
    except EvalError:
        if not isinstance(s, str):
            raise
        return False


def _url(x) -> URL:
    if type(x) is not URL:
        raise _nso()
    return x


def url_scheme(u):
    return _url(u).parts.scheme


def url_host(u):
    return _url(u).parts.netloc.rpartition("@")[2]


def url_hostname(u):
    h = url_host(u)
    if h.startswith("["):
        return h[1:h.find("]")]
    return h.rpartition(":")[0] if ":" in h else h


def url_port(u):
    h = url_host(u)
    if h.startswith("["):
        rest = h[h.find("]") + 1:]
        return rest[1:] if rest.startswith(":") else ""
    return h.rpartition(":")[2] if ":" in h else ""


def url_escaped_path(u):
    return quote(_url(u).parts.path, safe="/:@!$&'()*+,;=-._~")


def url_query(u):
    return {k: list(v) for k, v in parse_qs(_url(u).parts.query, keep_blank_values=True).items()}
