"""Exact Kubernetes resource quantities (`resource.Quantity`), without floats.

A quantity is an exact rational number (rounded up to nano precision on parse, as Kubernetes does)
plus the *format* it was written in, which only matters for printing canonically.
"""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction
from functools import total_ordering

BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"
DECIMAL_EXPONENT = "DecimalExponent"

_BINARY = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX_BY_EXP = {v: k for k, v in _DECIMAL.items()}

# \Z, not $: Python's $ also matches before a final "\n", and ParseQuantity takes no whitespace.
_QUANTITY_RE = re.compile(
    r"^(?P<sign>[+-])?(?P<num>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)"
    r"(?:(?P<bin>Ki|Mi|Gi|Ti|Pi|Ei)|[eE](?P<exp>[+-]?[0-9]+)|(?P<dec>[numkMGTPE]?))\Z"
)
# Go's unicode.IsSpace (what strings.TrimSpace removes); Python's str.strip() also removes
# U+001C..U+001F, which Go keeps.
_GO_SPACE = ("\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
             "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
_FORMAT_WRONG = ("quantities must match the regular expression "
                 "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")

_NANO = Fraction(1, 10**9)
# Kubernetes caps exponents it will materialise; anything beyond is out of range for an int64
# anyway, and a bound keeps hostile input ("1e999999999") from allocating huge integers.
_MAX_EXPONENT = 100


class QuantityError(ValueError):
    pass


# Parsed quantities by text: inventories repeat the same few strings thousands of times.
# Quantity values are never mutated (arithmetic returns new objects), so sharing is safe.
_PARSED: dict = {}
_PARSED_MAX = 65536


def _round_up_to_nano(value: Fraction) -> Fraction:
    scaled = value / _NANO
    if scaled.denominator == 1:
        return value
    # Kubernetes rounds away from zero when precision is lost.
    n = -((-abs(scaled.numerator)) // scaled.denominator)
    return Fraction(n if value >= 0 else -n) * _NANO


@total_ordering
class Quantity:
    """An exact quantity. Compares and hashes by numeric value only."""

    __slots__ = ("value", "format")

    def __init__(self, value: Fraction | int, format: str = DECIMAL_SI):
        # Whole values (nearly all: bytes, counts) are kept as int, because arithmetic and
        # comparisons on Fractions cost ~1 µs each and counter bookkeeping does millions of them.
        # int and Fraction mix exactly; division must go through Fraction (see capacity.py).
        if type(value) is not int:
            value = Fraction(value)
            if value.denominator == 1:
                value = value.numerator
        self.value = value
        self.format = format

    @classmethod
    def parse(cls, text: str) -> "Quantity":
        """resource.ParseQuantity: the text exactly, no surrounding whitespace (CEL's
        quantity() and isQuantity() take this)."""
        if isinstance(text, str) and cls is Quantity:
            cached = _PARSED.get(text)
            if cached is None:
                cached = cls._parse(text)
                if len(_PARSED) < _PARSED_MAX:
                    _PARSED[text] = cached
            return cached
        return cls._parse(text)

    @classmethod
    def _parse(cls, text: str) -> "Quantity":
        if not isinstance(text, str):
            if isinstance(text, bool):
                raise QuantityError(f"quantities must be strings or numbers, not {text!r}")
            if isinstance(text, int):
                return cls(text, DECIMAL_SI)
            raise QuantityError(_FORMAT_WRONG)
        m = _QUANTITY_RE.match(text)
        if not m:
            raise QuantityError(_FORMAT_WRONG)
        if len(m.group("num")) > 1000:  # beyond any int64 quantity; also Python's int-digit limit
            raise QuantityError("quantity is too large")
        num = Fraction(m.group("num"))
        if m.group("sign") == "-":
            num = -num
        if m.group("bin"):
            value, fmt = num * (2 ** _BINARY[m.group("bin")]), BINARY_SI
        elif m.group("exp") is not None:
            exp = int(m.group("exp"))
            if abs(exp) > _MAX_EXPONENT:
                raise QuantityError("quantity exponent out of range")
            value, fmt = num * Fraction(10) ** exp, DECIMAL_EXPONENT
        else:
            value, fmt = num * Fraction(10) ** _DECIMAL[m.group("dec") or ""], DECIMAL_SI
        return cls(_round_up_to_nano(value), fmt)

    @classmethod
    def from_manifest(cls, value) -> "Quantity":
        """A quantity field of a manifest as the API server decodes it (Quantity.UnmarshalJSON
        and UnmarshalCBOR): leading and trailing whitespace trimmed (strings.TrimSpace), then
        ParseQuantity. So `value: |` block scalars ("1Gi\\n") are 1Gi, as in the cluster."""
        if isinstance(value, str) and value:
            first, last = value[0], value[-1]
            if first in _GO_SPACE or last in _GO_SPACE:
                value = value.strip(_GO_SPACE)
        elif isinstance(value, float):
            # `cpu: 0.5` in YAML: kubectl sends the JSON number 0.5, which UnmarshalJSON parses
            # as the quantity "0.5" (it was ignored here: a pod's half CPU went uncounted).
            value = go_json_number(value)
        return cls.parse(value)

    @classmethod
    def is_valid(cls, text: str) -> bool:
        """ParseQuantity accepts the text."""
        try:
            cls.parse(text)
            return True
        except QuantityError:
            return False

    @classmethod
    def is_valid_manifest_value(cls, value) -> bool:
        """The API server decodes the value of a manifest's quantity field (from_manifest)."""
        try:
            cls.from_manifest(value)
            return True
        except QuantityError:
            return False

    # -- arithmetic ---------------------------------------------------------------------
    def __add__(self, other: "Quantity | int") -> "Quantity":
        o = other.value if isinstance(other, Quantity) else Fraction(other)
        return Quantity(self.value + o, self.format)

    def __sub__(self, other: "Quantity | int") -> "Quantity":
        o = other.value if isinstance(other, Quantity) else Fraction(other)
        return Quantity(self.value - o, self.format)

    def __neg__(self) -> "Quantity":
        return Quantity(-self.value, self.format)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Quantity):
            return self.value == other.value
        return NotImplemented

    def __lt__(self, other: "Quantity") -> bool:
        if isinstance(other, Quantity):
            return self.value < other.value
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.value)

    def cmp(self, other: "Quantity") -> int:
        return (self.value > other.value) - (self.value < other.value)

    def sign(self) -> int:
        return (self.value > 0) - (self.value < 0)

    def is_zero(self) -> bool:
        return self.value == 0

    def is_integer(self) -> bool:
        return self.value.denominator == 1

    def ceil_int(self) -> int:
        """Kubernetes `Value()`: the integer value, rounded up away from zero."""
        v = self.value
        if v.denominator == 1:
            return v.numerator
        q = -((-abs(v.numerator)) // v.denominator)
        return q if v > 0 else -q

    def milli_value(self) -> int:
        return Quantity(self.value * 1000).ceil_int()

    # -- formatting ---------------------------------------------------------------------
    def canonical(self) -> str:
        """The canonical string Kubernetes prints (Quantity.String())."""
        v = self.value
        if v == 0:
            return "0"
        if self.format == BINARY_SI and abs(v) >= 1024 and v.denominator == 1:
            n, exp = v.numerator, 0
            while n % 1024 == 0 and exp < 60:
                n //= 1024
                exp += 10
            if exp:
                suffix = {10 * i: s for i, s in enumerate(["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"])}[exp]
                return f"{n}{suffix}"
        return _format_decimal(v, exponent_form=self.format == DECIMAL_EXPONENT)

    def __str__(self) -> str:
        return self.canonical()

    def __repr__(self) -> str:
        return f"Quantity({self.canonical()!r})"


def _format_decimal(v: Fraction, exponent_form: bool) -> str:
    # Represent v as mantissa * 10^exp with integer mantissa (v has at most nano precision).
    exp = 0
    while v.denominator != 1:
        v *= 10
        exp -= 1
    mantissa = v.numerator
    while mantissa != 0 and mantissa % 10 == 0:
        mantissa //= 10
        exp += 1
    # Lower the exponent to a multiple of 3 (SI suffixes step by 1000).
    while exp % 3 != 0:
        mantissa *= 10
        exp -= 1
    if exponent_form:
        return f"{mantissa}" if exp == 0 else f"{mantissa}e{exp}"
    if exp > 18:
        mantissa *= 10 ** (exp - 18)
        exp = 18
    if exp < -9:  # cannot happen after nano rounding; keep it total
        return f"{mantissa}e{exp}"
    return f"{mantissa}{_DECIMAL_SUFFIX_BY_EXP[exp]}"


def go_json_number(number: float) -> str:
    """The text Go's encoding/json writes for a float64 (what the API server's decoder then
    reads): positional from 1e-6 up to 1e21, else an exponent without leading zeros."""
    if number != number or number in (float("inf"), float("-inf")):
        raise QuantityError(_FORMAT_WRONG)
    shortest = repr(number)
    magnitude = abs(number)
    if magnitude == 0 or 1e-6 <= magnitude < 1e21:
        text = format(Decimal(shortest), "f")
        return text[:-2] if text.endswith(".0") else text
    mantissa, _, exponent = shortest.partition("e")
    power = int(exponent)
    return f"{mantissa.removesuffix('.0')}e{'-' if power < 0 else '+'}{abs(power)}"


def parse_quantity(text: str) -> Quantity:
    return Quantity.parse(text)
