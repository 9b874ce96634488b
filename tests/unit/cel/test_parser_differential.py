"""dractl.cel.parser (recursive descent) against lark_reference (the earlier lark LALR parser).

Both must give the same outcome for every input: the same AST (node classes, every field, node
ids, offsets) or the same errors (message, line, column, kind, and the further issues reported
with the first). Inputs: every CEL expression in the repository (the ``expression:`` fields of
YAML in testdata/, examples/, dractl/inventories/, the golden scenarios, the docs and manifests
embedded in tests), every string constant in the tests (selectors of the CEL tables, and much
text that is not CEL, which must fail the same way), the third-party real-world corpus
(tests/realworld_corpus.py) when present, and hypothesis-generated expressions, valid and invalid.

Where the two differ by design, this module says so (test_nesting_beyond_the_parser_limit_...).
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import lark_reference
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from realworld_corpus import REALWORLD, require_realworld

from dractl.cel import ast as A
from dractl.cel import parser as new_parser
from dractl.cel.errors import CelCompileError

REPO = Path(__file__).resolve().parents[3]
YAML_TREES = ("testdata", "examples", "dractl/inventories", "tests", "docs", "README.md")
SLOW = settings(max_examples=400, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --- comparing ------------------------------------------------------------------------------

class _Field(tuple):
    """(name, value) of a node field, told apart from tuples inside the AST."""


def _dump(node) -> list:
    """Every field of every node (ids and offsets included) as a flat list, without recursion
    (trees may be 250 levels deep): a node is its class, then its fields in slot order, then
    ")"; node lists and tuples (map entries, struct fields) are "[" ... "]"."""
    out: list = []
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, A.Node):
            fields = [name for cls in type(x).__mro__ for name in getattr(cls, "__slots__", ())]
            out.append(type(x).__name__)
            stack.append(")")
            stack.extend(reversed([_Field((f, getattr(x, f, None))) for f in fields]))
        elif isinstance(x, _Field):
            out.append(x[0])
            stack.append(x[1])
        elif isinstance(x, (list, tuple)):
            out.append("[")
            stack.append("]")
            stack.extend(reversed(x))
        else:
            out.append((type(x).__name__, x))
    return out


def _outcome(parse, text: str):
    try:
        return ("ok", _dump(parse(text)))
    except CelCompileError as e:
        return ("error",) + tuple((i.message, i.line, i.column, i.kind) for i in e.issues)


def _disagreement(text: str) -> str | None:
    want, got = _outcome(lark_reference.parse, text), _outcome(new_parser.parse, text)
    if want == got:
        return None
    return f"{text!r}\n  reference: {str(want)[:400]}\n  new:       {str(got)[:400]}"


def _assert_all_agree(texts) -> int:
    bad, count = [], 0
    for text in texts:
        count += 1
        d = _disagreement(text)
        if d is not None:
            bad.append(d)
    assert not bad, f"{len(bad)} of {count} disagree:\n" + "\n".join(bad[:15])
    return count


# --- the repository's corpus ----------------------------------------------------------------

_EXPRESSION_KEY = re.compile(r"(?:^|[\s{,])expression:\s")


def _expressions_in_yaml_text(text: str) -> set[str]:
    """``expression:`` values of YAML text (whole file or embedded), one small document each,
    so a file that does not load as a whole (or is a template) still yields its expressions."""
    found: set[str] = set()
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if not _EXPRESSION_KEY.search(line):
            continue
        col = len(line) - len(line.lstrip(" -"))
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or
                                  len(lines[j]) - len(lines[j].lstrip(" ")) > col):
            j += 1
        doc = "\n".join([line[col:]] + [ln[col:] for ln in lines[i + 1:j]])
        try:
            value = yaml.load(doc, Loader=yaml.CSafeLoader)
        except yaml.YAMLError:
            continue
        stack = [value]
        while stack:
            x = stack.pop()
            if isinstance(x, dict):
                for k, v in x.items():
                    if k == "expression" and isinstance(v, str):
                        found.add(v)
                    stack.append(v)
            elif isinstance(x, list):
                stack.extend(x)
    return found


def _python_strings(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


@functools.lru_cache(maxsize=None)
def corpus() -> dict[str, frozenset[str]]:
    yaml_exprs: set[str] = set()
    for tree in YAML_TREES:
        base = REPO / tree
        files = [base] if base.is_file() else sorted(base.rglob("*"))
        for f in files:
            if f.suffix in (".yaml", ".yml", ".md") and f.is_file():
                yaml_exprs |= _expressions_in_yaml_text(f.read_text(encoding="utf-8"))
    test_strings: set[str] = set()
    for f in sorted((REPO / "tests").rglob("*.py")):
        if f.name != "lark_reference.py":
            test_strings |= _python_strings(f)
    yaml_exprs |= {e for s in test_strings if "expression:" in s for e in _expressions_in_yaml_text(s)}
    realworld: set[str] = set()
    if REALWORLD.is_dir():
        for f in sorted(REALWORLD.rglob("*.yaml")):
            realworld |= _expressions_in_yaml_text(f.read_text(encoding="utf-8", errors="replace"))
    return {"yaml": frozenset(yaml_exprs), "test-strings": frozenset(test_strings - yaml_exprs),
            "realworld": frozenset(realworld - yaml_exprs)}


def test_corpus_is_collected() -> None:
    """The collector finds what it should (a broken collector would make the next test vacuous)."""
    c = corpus()
    assert len(c["yaml"]) > 100, len(c["yaml"])
    assert len(c["test-strings"]) > 2500, len(c["test-strings"])
    # from examples/gpu-pod.yaml (a block scalar) and from a flow mapping in FORMAT.md
    assert any('"uuid" in device.attributes["gpu.example.com"] &&' in e for e in c["yaml"])
    assert 'device.driver == "driver-a"' in c["yaml"]
    if REALWORLD.is_dir():
        assert len(c["realworld"]) > 20, len(c["realworld"])


@pytest.mark.parametrize("part", ["yaml", "test-strings", "realworld"])
def test_whole_corpus_agrees(part: str) -> None:
    if part == "realworld":
        require_realworld()
    texts = sorted(corpus()[part])
    _assert_all_agree(texts)


# --- hand-picked edge cases -----------------------------------------------------------------

EDGE_CASES = [
    # lexing that depends on what may come next
    "a inx", "a index", "in in [1]", "a.in", "a.true", "A{in: 1}", "A{true: 1}", "-1", "--1",
    "- 1", "- -1", "1-1", "a-1", "a.5", "1..5", "1.5.6", "1e", "1.e5", ".5", "-.5", "a .5", "0x",
    "0x1u", "-1u", "-0x1u", "0X1", "!=x", "a !b", "a = b", "a & b", "a | b", "A{-1}", "A{a -1}",
    "A{a .5}", "A{a inx}", ".true", ".?x", "a.b'x'", "a b'x'", "rb\"x\"", "br'x'", "bR'''x'''",
    # strings, escapes, bytes
    r'"a\"b"', '"a\\"', "'abc", "'''abc'''", "'''abc", '""""""', '"""a""b"""', '"""', "'''",
    r"r'''a\'''", r'"\u00e9\U0001F600\x41\101\a\b\f\n\r\t\v\\\'\"\`\?"', r'"\ud800"', r'"\z"',
    r'b"\u00e9"', r'b"\xff\377"', r'r"\n"', '"é"', "é", '"\\', "'\\'", '"a\rb"', "b'\\400'",
    r'"\777"', r'"\x4"', r'"\U00110000"', "'''x\ny'''", '"x\ny"', "b'é'",
    # numbers
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "- 9223372036854775808", "18446744073709551615u", "18446744073709551616u", "1e400", "01",
    "00x1", "0x1F", "0xg", "1u2", "1.", ".1e5", "1e-5", "1E+5", "- 1.5", "-(1)", "-(-1)",
    "1" * 5000, "0x" + "f" * 40, "-" * 30 + "1",
    # operators, optional syntax, literals
    "a || b || c || d || e", "a && b && c && d && e", "a ? b : c ? d : e", "a ? b ? c : d : e",
    "a in b in c", "a < b < c", "f()", "f(a,)", "[1,]", "[,]", "{1:2,}", "{?1: 2}", "[?a, b]",
    "a.?b", "a[?b]", "a.?b.c[?d]", "A{a: 1, b: 2,}", "a.b.C{x: 1}", "(a){}", "1{}", ".a.b{}",
    "A{a 1}", "A{a: 1 b: 2}", "A{,}", ".f(1)", "a.?b(1)", "f(1)(2)", "{}.a", "()", "a?", "a?b:",
    "a||", "&&", "a.?", "a.?1", "[?]", "{?}", "a[?]",
    # macros
    "has(a.b)", "has(a)", "has(a.?b)", "has(a.b, c)", "x.map(y, y + 1)", "x.map(y, y > 1, y + 1)",
    "x.filter(y, y)", "x.exists_one(y, y)", "x.existsOne(y, y)", "x.all(k, v, k == v)",
    "x.all(k, k, true)", "x.transformList(i, v, v)", "x.transformMap(k, v, k > 1, v)",
    "x.transformMapEntry(k, v, {k: v})", "cel.bind(x, 1, x + 1)", "cel.bind((x), 1, x)",
    "cel.bind(a.b, 1, 2)", "o.optMap(x, x + 1)", "o.optFlatMap(x, optional.of(x))",
    "x.sortBy(y, y)", "sets.contains([1], [1])", "strings.quote('x')", "optional.none()",
    "math.greatest(1, 2)", "x.map(@result, 1)", "x.map(__result__, 1)", "x.all(y)",
    "x.all(y, z, w, v)", "x.exists(1, y)", "(sets).contains(1)", "sets.nothing(1)",
    "[1, 2, 3].map(x, [x].map(y, y))", "x.all(y, x.exists(z, z == y))",
    # comments and whitespace between tokens (offsets are found by looking around the operands)
    "a // comment ? [ . |\n + b", "a ? // why?\n b : c", "a. // x.y\nb", "a [ // [\n1]",
    "m{// {\n}", "x\v+y", "a\u2028b", "a\f&&\rb", "f // (\n(1)", "a || // |\n b",
    "a.? // ?\n b", "{1 // :\n : 2}", "", " ", "// only a comment",
]


def test_edge_cases_agree() -> None:
    _assert_all_agree(EDGE_CASES)


def test_depth_limits_agree() -> None:
    texts = []
    for n in (249, 250, 251, 400, 2000):
        texts += ["(" * n + "1" + ")" * n, "[" * n + "]" * n, "!" * n + "a", "-" * n + "a",
                  "a" + ".b" * n, "a" + "[0]" * n, "a ? b : " * n + "c", "1" + " + 1" * n,
                  "f(" * n + ")" * n, "a" + ".f()" * n, "x || " * n + "y",
                  "// '\n" + "(" * n + "1" + ")" * n,  # the bracket pre-check skips "strings"
                  "a" + ".b" * n + " + 99999999999999999999"]
    _assert_all_agree(texts)


# --- generated expressions ------------------------------------------------------------------

_SPACE = st.sampled_from(["", " ", "  ", "\n", "\t", "\r\n", " // c ? [ . | & : { ( \n",
                          "//\n", "\f"])
_IDENTS = st.sampled_from(["a", "b", "x", "y", "device", "attributes", "in", "index", "int",
                           "true", "false", "null", "nul", "as", "if", "for", "while", "_", "_x1",
                           "sets", "strings", "cel", "optional", "lists", "math", "k8s", "r", "b",
                           "br", "has", "all", "exists", "map", "filter", "size", "matches"])
_INTS = st.one_of(st.integers(-2 ** 65, 2 ** 65).map(str),
                  st.sampled_from(["0", "00", "0x0", "0xFF", "0xffffffffffffffff", "0x8000000000000000",
                                   "9223372036854775807", "9223372036854775808"]))
_NUMBERS = st.one_of(
    _INTS, _INTS.map(lambda s: s + "u"), _INTS.map(lambda s: s + "U"),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["1.", ".5", "1e5", "1E-5", "1.5e+300", "1e400", "0.0", "-0.0", ".0e0"]))
_STRING_CHARS = st.lists(st.one_of(
    st.sampled_from(list("abc \"'`?\t") + ["\\", "\\n", "\\\\", "\\\"", "\\'", "\\x41", "\\x4",
                                            "\\u00e9", "\\ud800", "\\U0001F600", "\\U00110000",
                                            "\\101", "\\400", "\\8", "\\z", "\n", "é", "😀"]),
    st.characters()), max_size=12).map("".join)
_STRINGS = st.builds(lambda prefix, quote, body: f"{prefix}{quote}{body}{quote}",
                     st.sampled_from(["", "r", "R", "b", "B", "br", "bR", "rb"]),
                     st.sampled_from(["'", '"', "'''", '"""']), _STRING_CHARS)
_LITERALS = st.one_of(_NUMBERS, _STRINGS, st.sampled_from(["true", "false", "null"]))
_BINARY = st.sampled_from(["||", "&&", "<", "<=", ">", ">=", "==", "!=", "in", "+", "-", "*",
                           "/", "%"])
_MACROS = st.sampled_from(["all", "exists", "exists_one", "existsOne", "map", "filter", "optMap",
                           "optFlatMap", "sortBy", "transformList", "transformMap",
                           "transformMapEntry", "contains", "size"])


def _join(sep, parts):
    return sep.join(parts)


def _extend(inner):
    """One level of CEL syntax around generated sub-expressions, with generated spacing."""
    two = st.tuples(inner, inner)
    args = st.lists(inner, max_size=4)
    return st.one_of(
        st.builds(lambda ab, op, s: f"{ab[0]}{s}{op}{s}{ab[1]}", two, _BINARY, _SPACE),
        st.builds(lambda a, op, s: f"{op}{s}{a}", inner, st.sampled_from(["!", "-", "!!", "--"]), _SPACE),
        st.builds(lambda a, n, s, opt: f"{a}{s}.{'?' if opt else ''}{s}{n}", inner, _IDENTS, _SPACE,
                  st.booleans()),
        st.builds(lambda ab, s, opt: f"{ab[0]}{s}[{'?' if opt else ''}{s}{ab[1]}]", two, _SPACE,
                  st.booleans()),
        st.builds(lambda t, n, xs, s: f"{t}.{n}({_join(',' + s, xs)})", inner, st.one_of(_IDENTS, _MACROS),
                  args, _SPACE),
        st.builds(lambda t, m, v, xs, s: f"{t}.{m}({v},{s}{_join(', ', xs)})", inner, _MACROS,
                  st.one_of(_IDENTS, inner), args, _SPACE),
        st.builds(lambda n, xs, s, dot: f"{'.' if dot else ''}{n}({_join(',' + s, xs)})", _IDENTS, args,
                  _SPACE, st.booleans()),
        st.builds(lambda ns, n, xs: f"{ns}.{n}({_join(', ', xs)})",
                  st.sampled_from(["cel", "sets", "strings", "optional", "lists", "math", "x"]),
                  st.sampled_from(["bind", "contains", "quote", "of", "none", "range", "greatest",
                                   "ofNonZeroValue", "intersects"]), args),
        st.builds(lambda xs, opts, trailing: "[" + ", ".join(("?" if o else "") + x for x, o in
                                                            zip(xs, opts, strict=False)) + ("," if trailing and xs else "") + "]",
                  args, st.lists(st.booleans(), min_size=4, max_size=4), st.booleans()),
        st.builds(lambda kvs, opts, trailing: "{" + ", ".join(f"{'?' if o else ''}{k}: {v}" for (k, v), o in
                                                             zip(kvs, opts, strict=False)) + ("," if trailing and kvs else "") + "}",
                  st.lists(two, max_size=3), st.lists(st.booleans(), min_size=3, max_size=3), st.booleans()),
        st.builds(lambda t, fs, trailing: f"{t}{{" + ", ".join(f"{n}: {v}" for n, v in fs)
                  + ("," if trailing and fs else "") + "}",
                  st.one_of(_IDENTS, st.just("a.b.C"), inner), st.lists(st.tuples(_IDENTS, inner), max_size=3),
                  st.booleans()),
        st.builds(lambda abc, s: f"{abc[0]}{s}?{s}{abc[1]}{s}:{s}{abc[2]}", st.tuples(inner, inner, inner), _SPACE),
        st.builds(lambda a, s: f"({s}{a}{s})", inner, _SPACE),
    )


VALID_ISH = st.recursive(st.one_of(_LITERALS, _IDENTS), _extend, max_leaves=12)

_SOUP_TOKENS = st.one_of(
    _IDENTS, _LITERALS, _BINARY, _MACROS,
    st.sampled_from(list("()[]{}.,:?!-+*/%<>=&|\"'`\\@#$^~;") + ["//", "\v", "\x00", "é", "\u202e",
                                                                   "\ud800", "0x", "1.", ".?", "[?", "{?",
                                                                   "'''", '"""', "b'", "r\"", "in"]),
)
TOKEN_SOUP = st.lists(st.tuples(_SOUP_TOKENS, _SPACE), max_size=14).map(
    lambda parts: "".join(tok + (space if space.endswith("\n") or " " in space else " ") for tok, space in parts))
TIGHT_SOUP = st.lists(_SOUP_TOKENS, max_size=14).map("".join)


@SLOW
@given(VALID_ISH)
def test_generated_expressions_agree(text: str) -> None:
    assert _disagreement(text) is None, _disagreement(text)


@SLOW
@given(st.one_of(TOKEN_SOUP, TIGHT_SOUP))
def test_token_soup_agrees(text: str) -> None:
    assert _disagreement(text) is None, _disagreement(text)


@SLOW
@given(st.text(max_size=40))
def test_arbitrary_text_agrees(text: str) -> None:
    assert _disagreement(text) is None, _disagreement(text)


@functools.lru_cache(maxsize=None)
def _sorted_yaml_corpus() -> list[str]:
    return sorted(corpus()["yaml"])


@SLOW
@given(st.data())
def test_mutated_corpus_agrees(data) -> None:
    """Real selectors, cut, spliced and garbled: errors at every position of real text."""
    text = data.draw(st.sampled_from(_sorted_yaml_corpus()))
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(text)))
        j = data.draw(st.integers(i, min(len(text), i + 8)))
        insert = data.draw(st.one_of(st.just(""), _SOUP_TOKENS, st.text(max_size=3)))
        text = text[:i] + insert + text[j:]
    assert _disagreement(text) is None, _disagreement(text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(200, 300), st.sampled_from(["({})", "[{}]", "!{}", "-{}", "{}.b", "{}[0]",
                                              "a ? b : {}", "1 + {}", "f({})", "{}.f()", "x || {}"]),
       st.sampled_from(["1", "a", "", ")", "99999999999999999999", "'\\z'", "a.b{}"]))
def test_deep_nesting_agrees(depth: int, shape: str, core: str) -> None:
    text = core
    for _ in range(depth):
        text = shape.format(text)
    assert _disagreement(text) is None, _disagreement(text)


@pytest.mark.parametrize("depth", [5001, 40_000])
def test_nesting_beyond_the_parser_limit_is_a_depth_error(depth: int) -> None:
    """The one difference by design (dractl.cel.parser's docstring): brackets the MAX_DEPTH
    pre-check misses (a quote in a comment) and nested deeper than the parser's limit are
    "max recursion depth exceeded", whatever follows, never a crash."""
    text = "// '\n" + "(" * depth + "1" + ")" * depth
    with pytest.raises(CelCompileError) as info:
        new_parser.parse(text)
    assert (info.value.message, info.value.line, info.value.column) == \
        ("max recursion depth exceeded", None, None)
    assert new_parser.parse("// '\n" + "(" * 4000 + "1" + ")" * 4000).value == 1  # within the limit
