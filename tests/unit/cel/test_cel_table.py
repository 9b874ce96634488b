"""Table-driven tests of dractl's CEL engine against Kubernetes' documented behaviour.

Each row: (expression, device, expected). expected is True/False, ("compile", fragment) or
("runtime", fragment): the fragment must occur in the CelCompileError/CelRuntimeError message, like
upstream's tests use strings.Contains. Every row cites where the expected outcome comes from:

  CT:<case>   k8s.io/dynamic-resource-allocation/cel/compile_test.go, test case <case>
  NOTES:<id>  row <id> of docs/spec/cel.md#conformance (results of the reference environment)
  docs/spec/... the repository's specification, at that anchor
  STR         cel-go ext/strings.go function docs (strings version 2)
  LST         cel-go ext/lists.go docs (version 3);  K8SLST apiserver/pkg/cel/library/lists.go
  SETS        cel-go ext/sets.go docs;  OPT cel-go optional types (cel/library.go, ext docs)
  QTY         apiserver/pkg/cel/library/quantity.go docs;  SEMVER .../library/semver.go docs
  RGX         apiserver/pkg/cel/library/regex.go docs;  NET .../library/ip.go, cidr.go, url.go
  FMT         apiserver/pkg/cel/library/format.go;  SPEC cel-spec doc/langdef.md
"""

from __future__ import annotations

import pytest
from cel_testkit import A, Dev, Q

from dractl.api.versions import FeatureGates
from dractl.cel import CelCompileError, CelRuntimeError, SelectorEngine

DRA = "dra.example.com"

# compile_test.go style device: driver dra.example.com, assorted attributes
D = Dev("dra", DRA, {
    "name": A("bool", True),
    "int": A("int", 1),
    "string": A("string", "fish"),
    "version": A("version", "1.0.0"),
    "services": A("string", "some_example_value"),
    "asym": A("string", "asymetric"),
    "other.example.com/name": A("bool", True),
}, {"quantity": Q("1Mi"), "memory": Q("80Gi")})

# docs/spec/cel.md#conformance test device
GPU = Dev("gpu", "gpu.example.com", {
    "model": A("string", "A100"),
    "productName": A("string", "NVIDIA A100-SXM4-80GB"),
    "driverVersion": A("version", "1.4.2"),
    "index": A("int", 3),
    "migCapable": A("bool", True),
    "resource.kubernetes.io/pcieRoot": A("string", "pci0000:00"),
    "resource.kubernetes.io/numaNode": A("int", 0),
}, {"memory": Q("80Gi"), "cores": Q("108")})

# list-typed attributes (DRAListTypeAttributes)
LISTS = Dev("lists", DRA, {
    "names": A("strings", ["fish", "bird"]),
    "ints": A("ints", [1, 2, 3]),
    "bools": A("bools", [True, False]),
    "versions": A("versions", ["1.0.0", "2.0.0"]),
    "long": A("strings", [f"value-{i}" for i in range(49)]),
})

EMPTY_DRIVER = Dev("empty", "")
MULTI = Dev("multi", DRA, allow_multiple_allocations=True)
NOVALUE = Dev("novalue", "driver-a", {"ok": A("int", 1), "stringAttribute": None})
BADVERSION = Dev("badver", "driver-a", {"v": A("version", "1.0")})

G = 'device.attributes["gpu.example.com"]'
D_ATTR = f'device.attributes["{DRA}"]'

ROWS = [
    # ---- device variable and lookup rules --------------------------------------------------
    ('device.driver == "dra.example.com"', D, True),  # CT:real-driver-name
    ('device.driver == ""', EMPTY_DRIVER, True),  # CT:empty-driver-name
    (f'{D_ATTR}.name', D, True),  # CT:driver-name-qualifier (unqualified name -> driver domain)
    (f'{D_ATTR}["name"]', D, True),  # CT:driver-name-qualifier-map-lookup
    ('device.attributes["other.example.com"].name', D, True),  # CT:qualified-attribute-name
    ('device.attributes["no-such-domain"].noSuchAttr.isGreaterThan(quantity("0"))', D,
     ("runtime", "no such key: noSuchAttr")),  # CT:runtime-error-lookup-identifier
    ('device.attributes["no-such-domain"]["noSuchAttr"].isGreaterThan(quantity("0"))', D,
     ("runtime", "no such key: noSuchAttr")),  # CT:runtime-error-lookup-map
    ('"no-such-domain" in device.attributes', D, False),  # CT:domain-check-negative
    ('"dra.example.com" in device.attributes', D, True),  # CT:domain-check-positive
    ('has(device.attributes["other.example.com"].model)', GPU, False),  # NOTES:A8 (empty map)
    ('has(device.attributes.foo)', GPU, True),  # docs/spec/allocator.md#lookups (unknown domain is always "present")
    ('device.attributes[?"x.example.com"].hasValue()', GPU, True),  # docs/spec/allocator.md#lookups
    (f'{G}.?nosuch.orValue("none") == "none"', GPU, True),  # NOTES:J1, docs/spec/allocator.md#lookups safe form
    (f'"nosuch" in {G}', GPU, False),  # docs/spec/allocator.md#lookups safe form
    ('size(device.attributes["x.example.com"]) == 0', GPU, True),  # docs/spec/allocator.md#lookups default empty map
    ('device.attributes.size() == 2', GPU, True),  # docs/spec/allocator.md#lookups (size sees the real domains only)
    ('device.drivr == "x"', GPU, ("compile", "undefined field 'drivr'")),  # NOTES:B4, docs/spec/allocator.md#lookups
    ('device.allowMultipleAllocations == false', D, True),  # CT:allow_multiple_allocations_default
    ('device.allowMultipleAllocations == true', MULTI, True),  # CT:allow_multiple_allocations
    ('has(device.driver)', D, True),  # docs/spec/cel.md#declarations (device is a plain map at runtime)
    ('device.attributes["resource.kubernetes.io"].numaNode == 0', GPU, True),  # NOTES:A4
    (f'{G}["productName"].startsWith("NVIDIA")', GPU, True),  # NOTES:A3
    (f'{G}.exists_one(k, k == "index")', GPU, True),  # NOTES:A10
    (f'has({G}.model) && !has({G}.nosuch)', GPU, True),  # NOTES:A7
    ('device.attributes.exists_one(x, x == "dra.example.com")', D, True),  # CT:check_attribute_domains
    (f'{D_ATTR}.exists_one(x, x == "services")', D, True),  # CT:check_attribute_ids
    ('device.capacity.exists_one(x, x == "dra.example.com")', D, True),  # CT:check_capacity_domains
    (f'device.capacity["{DRA}"].quantity.isGreaterThan(quantity("1Ki"))', D, True),  # CT:quantity
    (f'"quantity" in device.capacity["{DRA}"] && device.capacity["{DRA}"].quantity.isGreaterThan(quantity("1Ki"))',
     D, True),  # CT:check-positive
    ('device.capacity["x.example.com"].memory.isGreaterThan(quantity("1"))', D,
     ("runtime", "no such key: memory")),  # docs/spec/allocator.md#lookups missing id inside a domain
    (f'{D_ATTR}.int > 0', D, True),  # CT:int
    (f'{D_ATTR}.string == "fish"', D, True),  # CT:string
    (f'{D_ATTR}.version.isGreaterThan(semver("0.0.1"))', D, True),  # CT:version
    (f'{D_ATTR}.version.isGreaterThan(semver("v0.0.1", true)) && isSemver("v1.0.0", true)', D, True),  # CT:version_v
    (f'{D_ATTR}.services.split("example").size() >= 2', D, True),  # CT:split_attribute
    (f'{D_ATTR}.asym.matches("[^a]?sym")', D, True),  # CT:regexp_attribute
    (f'{D_ATTR}.int.exists(x, x > 0)', D, ("runtime", "got 'types.Int', expected iterable type")),  # CT:macro-exists-on-int
    (f'{D_ATTR}.name.exists(x, x == true)', D, ("runtime", "got 'types.Bool', expected iterable type")),  # CT:macro-exists-on-bool
    (f'{D_ATTR}.string.exists(x, x == "fish")', D, ("runtime", "got 'types.String', expected iterable type")),  # CT:macro-exists-on-string
    (f'{D_ATTR}.version.exists(x, x.isGreaterThan(semver("0.0.1")))', D,
     ("runtime", "got 'cel.Semver', expected iterable type")),  # CT:macro-exists-on-version
    (f'{D_ATTR}.string > 0', D, ("runtime", "no such overload")),  # docs/spec/cel.md#compile-vs-runtime dyn misuse is a runtime error
    ('device.attributes["x"].y == 1 || true', GPU, True),  # NOTES:B2 (error absorbed by ||)
    ('false && device.attributes["x"].y == 1', GPU, False),  # NOTES:B1
    ('(true ? 1 : device.attributes["x"].y) == 1', GPU, True),  # NOTES:B3
    ('device.attributes["other.example.com"].model == "A100"', GPU, ("runtime", "no such key: model")),  # NOTES:A6
    # ---- list-typed attributes and includes --------------------------------------------------
    (f'{D_ATTR}.names', LISTS, ("runtime", "CEL result of type list could not be converted to bool")),  # CT:list-result-type-causes-match-error
    (f'{D_ATTR}.names.includes("fish")', LISTS, True),  # CT:includes-function-can-evaluate
    (f'{D_ATTR}.names.includes("cat")', LISTS, False),  # CT:includes-function-on-string-list-negative
    (f'{D_ATTR}.string.includes("fish")', D, True),  # CT:includes-function-on-string-scalar-positive
    (f'{D_ATTR}.int.includes(2)', D, False),  # CT:includes-function-on-int-scalar-negative
    (f'{D_ATTR}.version.includes(semver("1.0.0"))', D, True),  # CT:includes-function-on-semver-scalar-positive
    (f'{D_ATTR}.versions.includes(semver("3.0.0"))', LISTS, False),  # CT:includes-function-on-semver-list-negative
    (f'{D_ATTR}.bools.includes(true)', LISTS, True),  # CT:includes-function-on-bool-list-positive
    (f'{D_ATTR}.long.includes("value-48")', LISTS,
     ("runtime", "'includes' function cannot be applied to lists longer than 48 values")),  # CT:includes-function-on-very-long-list-runtime-error
    ('"abc".includes("b")', D, False),  # docs/spec/cel.md#lib-includes (not a substring test)
    (f'1 in {D_ATTR}.ints', LISTS, True),  # CT:in-operator-on-list
    (f'{D_ATTR}.names.size() == 2', LISTS, True),  # CT:list-of-string
    (f'{D_ATTR}.versions.all(x, x.isGreaterThan(semver("0.0.1")))', LISTS, True),  # CT:macro-on-list-of-semver
    (f'{D_ATTR}.ints.exists(x, x > 2)', LISTS, True),  # CT:macro-on-list-of-int
    # ---- attribute conversion errors (every selector on the device fails) ------------------
    ('device.driver == "driver-a"', NOVALUE, ("runtime", "attribute stringAttribute: unsupported attribute value")),  # docs/spec/allocator.md#device-variable
    ('device.driver == "driver-a"', BADVERSION, ("runtime", "attribute v: parse semantic version")),  # docs/spec/allocator.md#device-variable
    # ---- compile errors -------------------------------------------------------------------
    ('1', D, ("compile", "must evaluate to bool or the unknown type, not int")),  # CT:type-error
    ('?!', D, ("compile", "Syntax error")),  # CT:syntax-error
    ('noSuchVar', D, ("compile", "undeclared reference to 'noSuchVar' (in container '')")),  # conformance invalid-CEL-*
    ('device.driver > 1', D, ("compile", "found no matching overload for '_>_' applied to '(string, int)'")),  # docs/spec/cel.md#compile-vs-runtime
    ('device.driver', D, ("compile", "must evaluate to bool or the unknown type, not string")),  # docs/spec/cel.md#declarations
    (f'{D_ATTR}', D, ("compile", "not map(string, dyn)")),  # docs/spec/cel.md#declarations
    (f'device.capacity["{DRA}"].memory', D, ("compile", "not kubernetes.Quantity")),  # docs/spec/cel.md#declarations
    (f'device.capacity["{DRA}"].memory > quantity("1")', D, ("compile", "found no matching overload for '_>_'")),  # docs/spec/cel.md#lib-quantity no < > on Quantity
    ('semver("1.0.0") < semver("2.0.0")', D, ("compile", "found no matching overload for '_<_'")),  # docs/spec/cel.md#lib-semver
    ('[1, "a"].size() == 2', D, ("compile", "expected type 'int' but found 'string'")),  # NOTES:D2
    ('"abc".reverse() == "cba"', D, ("compile", "found no matching overload for 'reverse'")),  # NOTES:D7 (strings v2)
    ('noSuchFunc(1)', D, ("compile", "undeclared reference to 'noSuchFunc'")),  # docs/spec/cel.md#compile-vs-runtime
    ('quantity("1").sign() == 1', D, ("compile", "found no matching overload for 'sign'")),  # docs/spec/cel.md#lib-quantity (global-only)
    ('"x".matches("[")', D, ("compile", "invalid matches argument")),  # docs/spec/cel.md#language-options regex literals validated
    ('1 == "a"', D, ("compile", "found no matching overload for '_==_' applied to '(int, string)'")),  # docs/spec/cel.md#language-options
    # ---- standard library -----------------------------------------------------------------
    ('9223372036854775807 + 1 > 0', D, ("runtime", "integer overflow")),  # NOTES:C1
    ('-9223372036854775808 == -9223372036854775807 - 1', D, True),  # NOTES:C2
    (f'{G}.index / 0 == 0', GPU, ("runtime", "division by zero")),  # NOTES:C3
    (f'{G}.index % 0 == 0', GPU, ("runtime", "modulus by zero")),  # SPEC (cel-go error text)
    ('1 < 2.5 && 1u < 2 && 2.0 > 1u', D, True),  # NOTES:C4, docs/spec/cel.md#language-options cross-type numeric comparisons
    (f'{G}.index == 3.0', GPU, True),  # NOTES:C5 heterogeneous equality
    ('dyn(1) == "1"', D, False),  # docs/spec/cel.md#language-options (== across types is false, no error)
    ('int("42") + 1 == 43 && uint(1) == 1u && double("1.5") == 1.5', D, True),  # NOTES:C6
    (r'"caf\u00e9" == "café" && "\x41" == "A" && "\101" == "A" && r"\n" == "\\n" && size("é") == 1 && size(b"\xc3\xa9") == 2',
     D, True),  # NOTES:D1
    ('"hello".contains("ell") && "hello".endsWith("lo") && "hello".size() == 5', D, True),  # SPEC
    ('string(1.5) == "1.5" && string(true) == "true" && bytes("a") == b"a"', D, True),  # SPEC conversions
    ('type(1) == int && type("a") == string', D, True),  # SPEC type()
    ('int("x") == 1', D, ("runtime", "cannot convert string to int")),  # SPEC (strconv error)
    # ---- strings ext v2 -------------------------------------------------------------------
    ('"NVIDIA".lowerAscii() == "nvidia" && "a100".upperAscii() == "A100"', D, True),  # NOTES:D3
    ('"TacoCÆt".lowerAscii() == "tacocÆt"', D, True),  # STR lowerAscii (ASCII only)
    ('"hello".charAt(4) == "o" && "hello".charAt(5) == ""', D, True),  # STR charAt (index == length -> "")
    ('"hello".charAt(6) == ""', D, ("runtime", "index out of range: 6")),  # STR charAt
    ('"hello mellow".indexOf("ello", 2) == 7 && "hello mellow".indexOf("jello") == -1', D, True),  # NOTES:D4, STR
    ('"hello".indexOf("l", -1) == 2', D, ("runtime", "index out of range: -1")),  # STR indexOf
    ('"hello mellow".lastIndexOf("ello") == 7 && "hello mellow".lastIndexOf("ello", 6) == 1', D, True),  # STR lastIndexOf
    ('"tacocat".substring(4) == "cat" && "tacocat".substring(0, 4) == "taco"', D, True),  # NOTES:D4
    ('"tacocat".substring(4, 2) == ""', D, ("runtime", "invalid substring range. start: 4, end: 2")),  # STR substring
    ('"hello hello".replace("he", "we", 1) == "wello hello" && "aXa".replace("a", "b") == "bXb"', D, True),  # STR replace, NOTES:D5
    ('"a b c".split(" ", 2) == ["a", "b c"] && "a b".split(" ", 0) == [] && "a,b,c".split(",").size() == 3', D, True),  # STR split
    ('"  \\ttrim\\n ".trim() == "trim"', D, True),  # STR trim
    ('["a", "b"].join("-") == "a-b" && ["a", "b"].join() == "ab"', D, True),  # STR join, NOTES:D5
    ('"%s has %d cores".format(["gpu", 108]) == "gpu has 108 cores"', D, True),  # NOTES:D6
    ('"%.2f|%x|%X|%o|%b|%e".format([1.5, 255, 255, 8, 5, 1234.5]) == "1.50|ff|FF|10|101|1.234500e+03"', D, True),  # STR format verbs
    ('"%d".format(["x"]) == ""', D, ("runtime", "decimal clause can only be used on integers")),  # STR format
    ('strings.quote("a\\"b") == "\\"a\\\\\\"b\\""', D, True),  # STR strings.quote
    # ---- lists (Kubernetes + ext v3) ---------------------------------------------------------
    ('[1,2,3].isSorted() && [1,2,3].sum() == 6 && [3,1,2].min() == 1 && [3,1,2].max() == 3', D, True),  # NOTES:F1, K8SLST
    ('["a", "c", "b"].isSorted()', D, False),  # K8SLST isSorted
    ('[1.5, 2.5].sum() == 4.0 && [].sum() == 0', D, True),  # K8SLST sum (empty -> 0)
    ('[1,2,2,3].indexOf(2) == 1 && [1,2,2,3].lastIndexOf(2) == 2 && [1,2,3,4].slice(1, 3) == [2, 3]', D, True),  # NOTES:F2
    ('[].min() == 0', D, ("runtime", "min called on empty list")),  # NOTES:F3, K8SLST
    ('[[1], [2, 3]].flatten() == [1, 2, 3] && [[[1]], [[2]]].flatten(2) == [1, 2]', D, True),  # LST flatten
    ('[[[1]], [[2]]].flatten() == [[1], [2]]', D, True),  # LST flatten (default depth 1)
    ('[1, 2, 2, 1].distinct() == [1, 2] && [1, 2, 3].reverse() == [3, 2, 1]', D, True),  # LST distinct/reverse
    ('[3, 1, 2].sort() == [1, 2, 3] && ["b", "a"].sort() == ["a", "b"]', D, True),  # LST sort
    ('[{"n": 2}, {"n": 1}].sortBy(e, e.n)[0].n == 1', D, True),  # LST sortBy
    ('lists.range(3) == [0, 1, 2]', D, True),  # LST lists.range
    ('[1, 2].first().value() == 1 && [].last().hasValue() == false', D, True),  # OPT first/last
    ('[10, 20].all(i, v, v > i) && {"a": 1}.exists(k, v, k == "a" && v == 1)', D, True),  # docs/spec/cel.md#lib-comprehensions two-variable comprehensions
    ('[1, 2].transformList(i, v, v * 2) == [2, 4] && {"a": 1}.transformMap(k, v, v + 1) == {"a": 2}', D, True),  # docs/spec/cel.md#lib-comprehensions
    ('[1, 2, 3].map(x, x * 2) == [2, 4, 6] && [1, 2, 3].filter(x, x > 1) == [2, 3]', D, True),  # SPEC macros
    # ---- sets -----------------------------------------------------------------------------
    ('sets.contains([1,2,3],[2,3]) && sets.intersects([1],[1,2]) && sets.equivalent([1,2],[2,1,1])', D, True),  # NOTES:G1
    ('sets.contains([1], []) && !sets.intersects([1], [2])', D, True),  # SETS
    ('sets.contains([dyn(1)], [dyn(1.0)])', D, True),  # docs/spec/cel.md numeric cross-type equality
    # ---- regex ----------------------------------------------------------------------------
    (f'{G}.productName.matches("^NVIDIA A100")', GPU, True),  # NOTES:E1
    ('"abc 123".find("[0-9]+") == "123" && "abc".find("[0-9]+") == ""', D, True),  # RGX find
    ('"123 abc 456".findAll("[0-9]+") == ["123", "456"] && "123 abc 456".findAll("[0-9]+", 1) == ["123"]', D, True),  # RGX findAll
    ('("a" + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!").matches("^(a+)+$")', D, False),  # RE2 (linear time)
    # ---- quantity -------------------------------------------------------------------------
    ('device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0 && device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("80G"))',
     GPU, True),  # NOTES:H1
    ('quantity("200M") == quantity("0.2G") && quantity("50k").add(20).sub(quantity("100k")).asInteger() == -49980', D, True),  # NOTES:H2, QTY
    ('!quantity("1.5").isInteger() && quantity("50k").asApproximateFloat() == 50000.0 && sign(quantity("-5")) == -1', D, True),  # NOTES:H2
    ('!isQuantity("200K") && isQuantity("1.3Gi") && !quantity("1Mi").isLessThan(quantity("1M"))', D, True),  # NOTES:H3
    ('quantity("50M").compareTo(quantity("50Mi")) == -1 && quantity("50k").sub(20000) == quantity("30k")', D, True),  # QTY docs examples
    ('quantity("1.5Gi").isInteger()', D, False),  # docs/spec/cel.md#lib-quantity (big-decimal path)
    ('quantity("1.5Gi").asInteger() == 1', D, ("runtime", "cannot convert value to integer")),  # QTY asInteger
    ('quantity("200K") == quantity("1")', D, ("runtime", "unable to parse quantity's suffix")),  # QTY parse errors
    ('quantity("abc") == quantity("1")', D, ("runtime", "quantities must match the regular expression")),  # QTY
    # ---- semver ---------------------------------------------------------------------------
    (f'{G}.driverVersion.isGreaterThan(semver("1.2.0")) && {G}.driverVersion.major() == 1 && semver("1.0.0-alpha").isLessThan(semver("1.0.0"))',
     GPU, True),  # NOTES:I1
    ('semver("v1.2", true) == semver("1.2.0") && !isSemver("01.2.3") && semver("1.2.3").compareTo(semver("1.2.3+build")) == 0',
     D, True),  # NOTES:I2
    ('semver("1.0.0-alpha.1").isLessThan(semver("1.0.0-alpha.beta")) && semver("1.0.0-beta.2").isLessThan(semver("1.0.0-beta.11"))',
     D, True),  # SEMVER (semver 2.0.0 precedence, blang/semver)
    ('semver("1.2.3").minor() == 2 && semver("1.2.3").patch() == 3', D, True),  # SEMVER accessors
    ('semver("v1.0.0") == semver("1.0.0")', D, ("runtime", "Invalid character(s) found in major number")),  # SEMVER strict parse
    # ---- optional -------------------------------------------------------------------------
    ('optional.of(1).value() == 1 && optional.none().orValue(2) == 2', D, True),  # OPT
    ('optional.none().value() == 1', D, ("runtime", "optional.none() dereference")),  # OPT
    ('!optional.ofNonZeroValue(0).hasValue() && optional.none().or(optional.of(3)).value() == 3', D, True),  # OPT
    ('[?optional.none(), 1] == [1] && {?"a": optional.none(), "b": 2}.size() == 1', D, True),  # OPT optional entries
    (f'{G}.?nosuch.optMap(x, x + "!").orValue("none") == "none"', GPU, True),  # OPT optMap
    # ---- bind -----------------------------------------------------------------------------
    (f'cel.bind(dra, {D_ATTR}, dra.name)', D, True),  # CT:bind
    (f'cel.bind(a, {G}, a.model == "A100" && a.index == 3)', GPU, True),  # NOTES:K1
    # ---- url / ip / cidr / format ---------------------------------------------------------
    ('isIP("1.2.3.4") && ip("::1").family() == 6 && !isIP("1.2.3.04") && !isIP("::ffff:1.2.3.4")', D, True),  # NET ip
    ('cidr("10.0.0.0/8").containsIP("10.1.2.3") && cidr("10.0.0.0/8").prefixLength() == 8', D, True),  # NET cidr
    ('url("https://x.example.com:8443/p?a=1").getPort() == "8443" && url("https://x.example.com/p").getHostname() == "x.example.com"', D, True),  # NET url
    ('format.dns1123Label().validate("Foo").hasValue() && !format.named("uuid").value().validate("123e4567-e89b-12d3-a456-426614174000").hasValue()', D, True),  # FMT
    # ---- cost limit -----------------------------------------------------------------------
    ("[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(x, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(y, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z2, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z3, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z4, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].all(z5, int('1'.find('[0-9]*')) < 100)))))))",
     D, ("runtime", "actual cost limit exceeded")),  # CT:expensive
]


def _id(row) -> str:
    return row[0][:60]


@pytest.fixture(scope="module")
def engine() -> SelectorEngine:
    return SelectorEngine(FeatureGates())


@pytest.mark.parametrize("expression,device,expected", ROWS, ids=[_id(r) for r in ROWS])
def test_row(engine: SelectorEngine, expression: str, device: Dev, expected) -> None:
    if isinstance(expected, bool):
        assert engine.matches(expression, device) is expected
        return
    kind, fragment = expected
    exc = CelCompileError if kind == "compile" else CelRuntimeError
    with pytest.raises(exc) as info:
        engine.matches(expression, device)
    assert fragment in info.value.message, info.value.message


def test_table_is_big_enough() -> None:
    assert len(ROWS) >= 80
