"""Tests written as code: test blocks and the calls of a test runner (``test(..)``,
``it(..)``, ``describe``), gtest's and Catch2's macros, and how each is named, so that
ranking can tell tests from the code they test."""

from __future__ import annotations

import tree_sitter

from ..base import TEST_MODULES
from ..parser_copy import C_STRING, CATCH_MACROS, CATCH_TEST
from .nodes import JS_FUNCTION_VALUES, first_child, node_text

#: Nodes that hold an object's or a class's members, in the grammars that define tests
#: by calls (``test(..)``, ``it(..)``).
MEMBER_LISTS = frozenset({"object", "class_body", "object_type"})


#: Test-runner calls that declare one test: ``test("..", fn)``, ``it("..", fn)``, and
#: their forms ``test.only(..)``, ``it.skip(..)``, ``test.each([..])("..", fn)``.
_JS_TEST_CALLS = frozenset({"test", "it"})


#: ... and those that declare a suite of tests: ``describe("..", fn)``, ``suite(..)``.
_JS_SUITE_CALLS = frozenset({"describe", "suite"})


def js_test_call(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """``test("parses dates", () => { .. })``: a test of Jest, Vitest, Mocha or
    node:test, named for its description as Zig's ``test "parses dates"`` is; the
    function is its body, so a long test is split at its statements.
    ``describe("parser", () => { .. })`` is a suite, named ``describe "parser"``: the
    tests inside it are its members, as methods are a class's."""
    call = node.named_children[0] if node.named_children else None
    if call is None or call.type != "call_expression":
        return None
    callee = call.child_by_field_name("function")
    while callee is not None and callee.type in ("call_expression", "member_expression"):
        field = "function" if callee.type == "call_expression" else "object"
        callee = callee.child_by_field_name(field)
    runner = node_text(callee) if callee is not None and callee.type == "identifier" else ""
    if runner not in _JS_TEST_CALLS and runner not in _JS_SUITE_CALLS:
        return None
    arguments = call.child_by_field_name("arguments")
    values = arguments.named_children if arguments is not None else []
    if not values or values[0].type not in ("string", "template_string"):
        return None
    body = next((v for v in values[1:] if v.type in JS_FUNCTION_VALUES), None)
    if body is None:
        return None
    kind, word = ("suite", runner) if runner in _JS_SUITE_CALLS else ("test", "test")
    return kind, f"{word} {' '.join(node_text(values[0]).split())}"[:120], body


#: Calls that declare one test, and those that declare a suite of tests, in the languages
#: whose test runners are blocks passed to a call: RSpec and minitest (``it "..." do``,
#: ``describe Rack::Lint do``, ``test "..." do``), busted (``it("..", function() ..
#: end)``) and ExUnit (``test "..", %{conn: conn} do``, ``describe ".." do``).
BLOCK_TESTS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "ruby": (
        frozenset({"it", "specify", "test", "scenario", "example"}),
        frozenset({"describe", "context", "feature", "shared_examples"}),
    ),
    "lua": (frozenset({"it", "test"}), frozenset({"describe", "context", "insulate"})),
    "elixir": (frozenset({"test"}), frozenset({"describe"})),
}


#: The node a test call is, and the field naming its runner word, by language (Elixir's
#: calls are all candidates already: ``_elixir_definition``).
TEST_CALL_NODES = {"ruby": ("call", "method"), "lua": ("function_call", "name")}


def _test_kind(language: str, word: str) -> str | None:
    tests, suites = BLOCK_TESTS.get(language, (frozenset(), frozenset()))
    return "test" if word in tests else "suite" if word in suites else None


def block_test(
    language: str, word: str, label: tree_sitter.Node | None, body: tree_sitter.Node | None
) -> tuple[str, str, tree_sitter.Node] | None:
    """A test or suite named as it reads (``it "passes"``, ``describe Rack::Lint``), its
    block the body: a long test is split at its statements, a suite's tests are its
    members. A test needs a description in a string; a suite may name a module."""
    kind = _test_kind(language, word)
    if kind is None or body is None or label is None:
        return None
    if label.type not in ("string", "constant", "scope_resolution", "alias"):
        return None
    if kind == "test" and label.type != "string":
        return None
    return kind, f"{word} {' '.join(node_text(label).split())}"[:120], body


def _ruby_test_call(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """``it "passes" do .. end``, ``describe Rack::Lint do``, ``RSpec.describe ..``."""
    receiver = node.child_by_field_name("receiver")
    if receiver is not None and node_text(receiver) != "RSpec":
        return None
    arguments = node.child_by_field_name("arguments")
    label = arguments.named_children[0] if arguments and arguments.named_children else None
    word = node_text(node.child_by_field_name("method"))
    return block_test("ruby", word, label, node.child_by_field_name("block"))


def _lua_test_call(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """busted's ``describe("config", function() .. end)`` and ``it("loads", ..)``."""
    arguments = node.child_by_field_name("arguments")
    values = arguments.named_children if arguments is not None else []
    body = next((v for v in values[1:] if v.type == "function_definition"), None)
    word = node_text(node.child_by_field_name("name"))
    return block_test("lua", word, values[0] if values else None, body)


TEST_CALL_HANDLERS = {"ruby": _ruby_test_call, "lua": _lua_test_call}


def test_name(node: tree_sitter.Node) -> str:
    """How a test block reads in the source: ``test "parses dates"``, ``test Parser``,
    ``test Mutex.DeadlockIdBug`` (gtest's ``TEST(Mutex, DeadlockIdBug)``)."""
    if node.type == "function_definition":
        declarator = node.child_by_field_name("declarator")
        parameters = declarator.child_by_field_name("parameters") if declarator else None
        named = parameters.named_children if parameters is not None else []
        words = [" ".join(node_text(parameter).split()) for parameter in named]
        return f"test {'.'.join(words)}"[:120] if words else "test"
    label = first_child(node, "string", "identifier")
    return f"test {node_text(label)}"[:120] if label is not None else "test"


#: C++ test frameworks' macros that read to the grammar as a function definition
#: (Catch2's and doctest's once their names are rewritten in the parser's copy).
C_TEST_MACROS = frozenset(
    {"TEST", "TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P", "BOOST_AUTO_TEST_CASE"}
    | {"BOOST_FIXTURE_TEST_CASE", "BOOST_DATA_TEST_CASE", *CATCH_MACROS}
)


def catch_test_name(line: str) -> str | None:
    """``test vectors resize`` for Catch2's ``TEST_CASE("vectors resize", "[vector]") {``
    (the first string of the arguments, as the file writes it); None for other lines."""
    match = CATCH_TEST.match(line)
    string = C_STRING.search(match.group(1)) if match else None
    return f"test {string.group(0)[1:-1]}"[:120] if string else None


def symbol_names(kind: str, name: str) -> list[str]:
    """The names a chunk is found by in the symbol field: a test block names what it
    tests, not itself."""
    return [name] if name and kind != "test" else []


def is_test(kind: str, name: str, parent: str) -> bool:
    """A test block, Rust's ``mod tests``, or a member of it: kept apart from the code
    beside it when tiny pieces are merged, so each ranks as what it is."""
    return kind == "test" or (kind == "module" and name in TEST_MODULES) or parent in TEST_MODULES
