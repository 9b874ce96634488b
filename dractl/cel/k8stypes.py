"""Kubernetes CEL object types: ``kubernetes.Quantity`` and ``kubernetes.Semver``.

Quantity values are exact (:class:`dractl.api.quantity.Quantity`). On top of the value, apimachinery
keeps an internal representation that decides ``isInteger()``/``asInteger()``: only quantities held
in the int64 fast path (``int64Amount{value, scale}``) convert; anything parsed or computed through
the big-decimal path does not, even when its value is integral (``quantity("1.5Gi")``).
:class:`CelQuantity` models that with ``amount`` = ``(value, scale)`` or ``None``.

Semver follows blang/semver v4 (strict ``Parse``) plus Kubernetes' ``normalize`` option.
"""

from __future__ import annotations

import functools
import re
from fractions import Fraction

from dractl.api.quantity import BINARY_SI, DECIMAL_EXPONENT, DECIMAL_SI, Quantity, QuantityError

from .values import INT64_MAX, INT64_MIN, EvalError

_SPLIT_RE = re.compile(r"^([+-]?[0-9.]+)((?:[eEinumkKMGTP]+[-+]?[0-9]*|[-+][0-9]*)?)\Z")  # \Z: no final "\n"
FORMAT_ERR = ("quantities must match the regular expression "
              "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
SUFFIX_ERR = "unable to parse quantity's suffix"
NUMERIC_ERR = "unable to parse numeric part of quantity"

_DEC_EXP = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BIN_EXP = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_MAX_INT64_FACTORS = 18


class CelQuantity(Quantity):
    """A Quantity as a CEL value (type ``kubernetes.Quantity``)."""

    __slots__ = ("amount",)
    CEL_TYPE = "kubernetes.Quantity"

    def __init__(self, value, format: str = DECIMAL_SI, amount: tuple[int, int] | None = None):
        super().__init__(value, format)
        self.amount = amount

    @classmethod
    def of(cls, q: Quantity, original: str | None = None) -> "CelQuantity":
        """Wrap a dractl Quantity (e.g. device capacity). Fast-path info comes from the text if known."""
        if original is not None:
            try:
                return parse_quantity(original)
            except EvalError:
                pass
        return cls(q.value, q.format, _amount_for_value(q.value))

    def cel_compare(self, other: "CelQuantity") -> int:
        return self.cmp(other)

    def __repr__(self) -> str:
        return f"quantity({self.canonical()!r})"


def _amount_for_value(v: Fraction) -> tuple[int, int] | None:
    """Best-effort fast-path representation for a value whose parse text is unknown."""
    if v.denominator == 1:
        n = v.numerator
        if INT64_MIN <= n <= INT64_MAX:
            return (n, 0)
        return None
    scaled = v * 10 ** 9
    if scaled.denominator == 1 and INT64_MIN <= scaled.numerator <= INT64_MAX:
        n, s = scaled.numerator, -9
        while n % 10 == 0 and s < 0:
            n //= 10
            s += 1
        return (n, s)
    return None


_PARSED: dict[str, CelQuantity] = {}  # quantities are immutable; device capacities repeat


def parse_quantity(text: str) -> CelQuantity:
    """resource.ParseQuantity, with apimachinery's error texts and fast-path bookkeeping."""
    cached = _PARSED.get(text) if isinstance(text, str) else None
    if cached is None:
        cached = _parse_quantity(text)
        if len(_PARSED) < 10_000:
            _PARSED[text] = cached
    return cached


def _parse_quantity(text: str) -> CelQuantity:
    m = _SPLIT_RE.match(text) if text else None
    if not text or m is None:
        raise EvalError(FORMAT_ERR)
    try:
        q = Quantity.parse(text)
    except QuantityError:
        num, suffix = m.group(1), m.group(2)
        if num.count(".") > 1 or num in (".", "+.", "-.", "+", "-"):
            raise EvalError(NUMERIC_ERR) from None
        raise EvalError(SUFFIX_ERR) from None
    # --- fast path modelling (apimachinery ParseQuantity) ---
    num, suffix = m.group(1), m.group(2)
    positive = not num.startswith("-")
    digits = num.lstrip("+-")
    whole, _, denom = digits.partition(".")
    whole = whole.lstrip("0") or ("0" if not denom else "")
    # apimachinery strips leading zeros of the integer part; an all-zero integer part is dropped
    if whole == "0" and denom:
        whole = ""
    if suffix in _BIN_EXP:
        fmt, exponent = BINARY_SI, _BIN_EXP[suffix]
    elif suffix[:1] in ("e", "E") and len(suffix) > 1:
        fmt, exponent = DECIMAL_EXPONENT, int(suffix[1:])
    else:
        fmt, exponent = DECIMAL_SI, _DEC_EXP.get(suffix, 0)
    amount = None
    if fmt == BINARY_SI:
        if exponent >= 0 and not denom:
            precision = 15 - len(whole or "0") - int(exponent * 3 / 10) - 1
            mantissa, scale = 1 << exponent, 0
        else:
            precision, mantissa, scale = -1, 1, 0
    else:
        precision = _MAX_INT64_FACTORS - (len(whole) + len(denom))
        mantissa, scale = 1, exponent
    if precision >= 0:
        scale -= len(denom)
        if scale >= -9:
            shifted = (whole + denom) or "0"
            value = int(shifted)
            if value <= INT64_MAX:
                result = value * mantissa
                if INT64_MIN <= result <= INT64_MAX:
                    amount = (result if positive else -result, scale)
    return CelQuantity(q.value, q.format, amount)


def new_int_quantity(n: int) -> CelQuantity:
    return CelQuantity(n, DECIMAL_EXPONENT, (n, 0))


def _amount_add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int] | None:
    (va, sa), (vb, sb) = a, b
    s = min(sa, sb)
    va2, vb2 = va * 10 ** (sa - s), vb * 10 ** (sb - s)
    if not (INT64_MIN <= va2 <= INT64_MAX and INT64_MIN <= vb2 <= INT64_MAX):
        return None
    r = va2 + vb2
    if not (INT64_MIN <= r <= INT64_MAX):
        return None
    return (r, s)


def quantity_add(a: CelQuantity, b: CelQuantity, sign: int = 1) -> CelQuantity:
    amount = None
    if a.amount is not None and b.amount is not None:
        bv = b.amount if sign > 0 else (-b.amount[0], b.amount[1])
        amount = _amount_add(a.amount, bv)
    value = a.value + sign * b.value
    return CelQuantity(value, a.format, amount)


def quantity_as_int64(q: CelQuantity) -> int | None:
    if q.amount is None:
        return None
    value, scale = q.amount
    if scale == 0:
        return value
    if scale < 0:
        return None
    r = value * 10 ** scale
    if INT64_MIN <= r <= INT64_MAX:
        return r
    return None


def quantity_float(q: CelQuantity) -> float:
    try:
        return float(q.value)
    except OverflowError:
        return float("inf") if q.value > 0 else float("-inf")


# --- Semver ---------------------------------------------------------------------------------

_ALNUM = set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-")


class SemverError(Exception):
    pass


class Semver:
    __slots__ = ("major", "minor", "patch", "pre", "build")
    CEL_TYPE = "kubernetes.Semver"

    def __init__(self, major: int, minor: int, patch: int, pre: tuple = (), build: tuple = ()):
        self.major, self.minor, self.patch, self.pre, self.build = major, minor, patch, pre, build

    @staticmethod
    def parse(s: str) -> "Semver":
        """blang/semver v4 ``Parse`` (strict semver 2.0.0); cached, as every device of a
        driver tends to carry the same version strings (Semver values are never mutated)."""
        return _parse_semver_cached(s)

    @staticmethod
    def _parse(s: str) -> "Semver":
        if len(s) == 0:
            raise SemverError("Version string empty")
        parts = s.split(".", 2)
        if len(parts) != 3:
            raise SemverError("No Major.Minor.Patch elements found")
        for name, p in (("major", parts[0]), ("minor", parts[1])):
            if not p or not p.isdigit() or not p.isascii():
                raise SemverError(f"Invalid character(s) found in {name} number {p!r}".replace("'", '"'))
            if len(p) > 1 and p[0] == "0":
                raise SemverError(f"{name.capitalize()} number must not contain leading zeroes {p!r}".replace("'", '"'))
        major, minor = int(parts[0]), int(parts[1])
        rest = parts[2]
        idx = min([i for i in (rest.find("+"), rest.find("-")) if i >= 0], default=-1)
        patch_s = rest if idx < 0 else rest[:idx]
        if not patch_s or not patch_s.isdigit() or not patch_s.isascii():
            raise SemverError(f'Invalid character(s) found in patch number "{patch_s}"')
        if len(patch_s) > 1 and patch_s[0] == "0":
            raise SemverError(f'Patch number must not contain leading zeroes "{patch_s}"')
        patch = int(patch_s)
        for n in (major, minor, patch):
            if n > 2 ** 64 - 1:
                raise SemverError("value out of range")
        pre: list = []
        build: list = []
        if idx >= 0:
            tail = rest[idx:]
            if tail[0] == "-":
                body, plus, b = tail[1:].partition("+")
                for part in body.split("."):
                    pre.append(_parse_pr(part))
                if plus:
                    build = _parse_build(b)
            else:
                build = _parse_build(tail[1:])
        return Semver(major, minor, patch, tuple(pre), tuple(build))

    @staticmethod
    def parse_normalized(s: str) -> "Semver":
        """Kubernetes' normalize: strip ``v``, pad to three parts, drop leading zeros."""
        if s.startswith("v"):
            s = s[1:]
        core, extra = s, ""
        i = min([j for j in (s.find("+"), s.find("-")) if j >= 0], default=-1)
        if i >= 0:
            core, extra = s[:i], s[i:]
        parts = core.split(".")
        parts = [(p.lstrip("0") or "0") if len(p) > 1 else p for p in parts]
        if len(parts) < 3:
            if extra:
                raise SemverError("unable to normalize version with prerelease or build metadata "
                                  "and fewer than three parts")
            parts += ["0"] * (3 - len(parts))
        return Semver.parse(".".join(parts) + extra)

    def cel_compare(self, other: "Semver") -> int:
        for a, b in ((self.major, other.major), (self.minor, other.minor), (self.patch, other.patch)):
            if a != b:
                return 1 if a > b else -1
        if not self.pre and not other.pre:
            return 0
        if not self.pre:
            return 1
        if not other.pre:
            return -1
        for a, b in zip(self.pre, other.pre, strict=False):
            c = _cmp_pr(a, b)
            if c:
                return c
        if len(self.pre) == len(other.pre):
            return 0
        return 1 if len(self.pre) > len(other.pre) else -1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Semver) and self.cel_compare(other) == 0

    def __hash__(self) -> int:
        return hash((self.major, self.minor, self.patch, self.pre))

    def __str__(self) -> str:
        s = f"{self.major}.{self.minor}.{self.patch}"
        if self.pre:
            s += "-" + ".".join(str(p) for p in self.pre)
        if self.build:
            s += "+" + ".".join(self.build)
        return s

    def __repr__(self) -> str:
        return f"semver({str(self)!r})"


def _parse_pr(part: str):
    if not part:
        raise SemverError("Prerelease is empty")
    if part.isdigit() and part.isascii():
        if len(part) > 1 and part[0] == "0":
            raise SemverError(f'Numeric PreRelease version must not contain leading zeroes "{part}"')
        return int(part)
    if not set(part) <= _ALNUM:
        raise SemverError(f'Invalid character(s) found in prerelease "{part}"')
    return part


def _parse_build(b: str) -> list:
    out = []
    for part in b.split("."):
        if not part:
            raise SemverError("Build meta data is empty")
        if not set(part) <= _ALNUM:
            raise SemverError(f'Invalid character(s) found in build meta data "{part}"')
        out.append(part)
    return out


def _cmp_pr(a, b) -> int:
    ai, bi = isinstance(a, int), isinstance(b, int)
    if ai and bi:
        return (a > b) - (a < b)
    if ai:
        return -1
    if bi:
        return 1
    return (a > b) - (a < b)


@functools.lru_cache(maxsize=4096)
def _parse_semver_cached(s: str) -> Semver:
    return Semver._parse(s)
