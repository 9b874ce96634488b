"""CEL timestamps and durations (minimal, UTC): the value types and the ``duration()`` /
``timestamp()`` parsers. A module of its own because the operators (dractl/cel/functions.py) and
several libraries (dractl/cel/libs/) use the types."""

from __future__ import annotations

import re
from typing import Any

from .values import EvalError, no_such_overload


class Duration:
    __slots__ = ("nanos",)
    CEL_TYPE = "google.protobuf.Duration"
    MAX = 315576000000 * 10 ** 9 + 999999999

    def __init__(self, nanos: int):
        self.nanos = nanos

    def checked(self) -> "Duration":
        if abs(self.nanos) > Duration.MAX:
            raise EvalError("duration out of range")
        return self

    def __eq__(self, o):
        return type(o) is Duration and o.nanos == self.nanos

    def __hash__(self):
        return hash(("dur", self.nanos))

    def __str__(self):
        s, ns = divmod(abs(self.nanos), 10 ** 9)
        sign = "-" if self.nanos < 0 else ""
        frac = f".{ns:09d}".rstrip("0") if ns else ""
        return f"{sign}{s}{frac}s"


_DUR_RE = re.compile(r"((?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+))(ns|us|µs|ms|s|m|h)")
_DUR_UNITS = {"ns": 1, "us": 10 ** 3, "µs": 10 ** 3, "ms": 10 ** 6, "s": 10 ** 9, "m": 60 * 10 ** 9,
              "h": 3600 * 10 ** 9}


def f_duration(x: Any) -> Duration:
    if type(x) is Duration:
        return x
    if type(x) is not str:
        raise no_such_overload()
    s = x
    neg = s.startswith("-")
    if s[:1] in "+-":
        s = s[1:]
    if s == "0":
        return Duration(0)
    pos, total = 0, 0
    from fractions import Fraction
    while pos < len(s):
        m = _DUR_RE.match(s, pos)
        if not m:
            raise EvalError("type conversion error from 'string' to 'google.protobuf.Duration'")
        total += Fraction(m.group(1)) * _DUR_UNITS[m.group(2)]
        pos = m.end()
    if not s:
        raise EvalError("type conversion error from 'string' to 'google.protobuf.Duration'")
    n = int(total)
    return Duration(-n if neg else n).checked()


class Timestamp:
    __slots__ = ("nanos",)
    CEL_TYPE = "google.protobuf.Timestamp"

    def __init__(self, nanos: int):
        self.nanos = nanos

    def add(self, d: Duration) -> "Timestamp":
        r = Timestamp(self.nanos + d.nanos)
        if not (-62135596800 * 10 ** 9 <= r.nanos <= 253402300799 * 10 ** 9 + 999999999):
            raise EvalError("timestamp out of range")
        return r

    def __eq__(self, o):
        return type(o) is Timestamp and o.nanos == self.nanos

    def __hash__(self):
        return hash(("ts", self.nanos))

    def dt(self):
        import datetime
        return datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + \
            datetime.timedelta(microseconds=self.nanos // 1000)

    def __str__(self):
        d = self.dt()
        ns = self.nanos % 10 ** 9
        frac = f".{ns:09d}".rstrip("0") if ns else ""
        return d.strftime("%Y-%m-%dT%H:%M:%S") + frac + "Z"


_TS_RE = re.compile(r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})")


def f_timestamp(x: Any) -> Timestamp:
    if type(x) is Timestamp:
        return x
    if type(x) is int:
        return Timestamp(x * 10 ** 9)
    if type(x) is not str:
        raise no_such_overload()
    m = _TS_RE.fullmatch(x)
    if not m:
        raise EvalError("type conversion error from 'string' to 'google.protobuf.Timestamp'")
    import datetime
    y, mo, d, h, mi, s = (int(m.group(i)) for i in range(1, 7))
    try:
        base = datetime.datetime(y, mo, d, h, mi, s, tzinfo=datetime.timezone.utc)
    except ValueError:
        raise EvalError("type conversion error from 'string' to 'google.protobuf.Timestamp'") from None
    tz = m.group(8)
    offset = 0
    if tz not in ("Z", "z"):
        sign = 1 if tz[0] == "+" else -1
        offset = sign * (int(tz[1:3]) * 3600 + int(tz[4:6]) * 60)
    secs = int((base - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)).total_seconds()) - offset
    frac = m.group(7)
    ns = int((frac[1:] + "000000000")[:9]) if frac else 0
    return Timestamp(secs * 10 ** 9 + ns)
