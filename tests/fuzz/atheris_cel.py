"""Coverage-guided fuzzing of dractl's CEL entry points with atheris (run by hand, not in CI).

    pip install atheris
    python tests/fuzz/atheris_cel.py -atheris_runs=200000          # or -max_total_time=600
    python tests/fuzz/atheris_cel.py crash-<hash>                  # replay one input

Each input is split into an expression and a few choices (gates, which device). The target
calls what the API server and the scheduler call: `check_expression` (length, parse, type-check,
cost estimate against 1,000,000, as on create) and, when that accepts the expression,
`SelectorEngine.matches` on sample devices (runtime cost limit, errors). Anything but a
`CelCompileError` from the check or a `CelRuntimeError` from the evaluation is a crash:
IndexError, RecursionError, TypeError, a hang (atheris' -timeout) are bugs to report. The
dictionary below seeds the mutator with CEL tokens and the DRA environment's names.
"""

from __future__ import annotations

import os
import sys

import atheris

with atheris.instrument_imports(include=["dractl"]):
    from dractl.api.quantity import Quantity
    from dractl.api.values import AttributeValue
    from dractl.api.versions import parse_feature_gates
    from dractl.cel.engine import SelectorEngine, check_expression
    from dractl.cel.errors import CelCompileError, CelRuntimeError

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "unit", "cel"))
from cel_testkit import Dev  # noqa: E402

TOKENS = ["device.", "driver", "attributes", "capacity", "allowMultipleAllocations", '["',
          '"]', "gpu.example.com", "model", "memory", "index", "uuid", ".matches(", ".startsWith(",
          ".endsWith(", ".contains(", "has(", ".exists(", ".all(", ".map(", ".filter(", "size(",
          "quantity(", "semver(", ".compareTo(", ".isGreaterThan(", ".isLessThan(", "cidr(",
          "ip(", "string(", "int(", "uint(", "double(", "bool(", "bytes(", "duration(",
          "timestamp(", ".orValue(", ".?", "optional.of(", "optional.none()", " && ", " || ",
          " == ", " != ", " < ", " >= ", " in ", "!", "?", ":", "(", ")", "[", "]", "{", "}", ",",
          "'", '"', "1", "0", "-1", "1.5", "9223372036854775807", "u", "true", "false", "null",
          "'(a+)+$'", "x", "\\", "\\u", "\u202e", "\x00"]

DEVICES = [
    Dev("d0", "gpu.example.com", {
        "gpu.example.com/model": AttributeValue("string", "LATEST-GPU-MODEL"),
        "gpu.example.com/index": AttributeValue("int", 0),
        "gpu.example.com/driverVersion": AttributeValue("version", "1.2.3"),
        "gpu.example.com/healthy": AttributeValue("bool", True),
    }, {"gpu.example.com/memory": Quantity.parse("80Gi")}),
    Dev("d1", "nic.example.com", {}, {}, True),
]
GATES = [parse_feature_gates("", v) for v in ("1.34", "1.37")] + \
    [parse_feature_gates("DRAConsumableCapacity=true", "1.36")]


def expression_from(fdp: atheris.FuzzedDataProvider) -> str:
    parts = []
    for _ in range(fdp.ConsumeIntInRange(1, 24)):
        if fdp.ConsumeBool():
            parts.append(TOKENS[fdp.ConsumeIntInRange(0, len(TOKENS) - 1)])
        else:
            parts.append(fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 12)))
    return "".join(parts)


def test_one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    gates = GATES[fdp.ConsumeIntInRange(0, len(GATES) - 1)]
    expression = expression_from(fdp)
    try:
        issues = check_expression(expression, gates)
    except CelCompileError:
        return
    if issues:
        for issue in issues:
            str(issue)  # the message the API-server rule prints must render
        return
    engine = SelectorEngine(gates)
    for device in DEVICES:
        try:
            engine.matches(expression, device)
        except (CelCompileError, CelRuntimeError) as exc:
            str(exc)


def main() -> None:
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
