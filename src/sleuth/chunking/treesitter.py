"""Syntax-aware chunks: definitions become chunks, with size bounds.

One generic algorithm over a per-language table of definition node types:
definitions that fit become one chunk; bigger ones with nested definitions are
opened (members become chunks, the rest of the body forms header chunks); bigger ones
without are split at statement boundaries. Code between definitions forms ``block``
chunks. Tiny neighbours with the same parent are then merged.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cache

import tree_sitter

from .. import config
from ..languages import parse, parser_for
from ..tokens import last_part
from .base import TEST_MODULES, Chunk, Definition, signature_of
from .parser_copy import C_STRING, CATCH_MACROS, CATCH_TEST, parser_source

_C_LIKE = {
    "function_definition": "function",
    "struct_specifier": "struct",
    "union_specifier": "struct",
    "enum_specifier": "enum",
}
_JS = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "method_definition": "method",
    "class": "class",
    "abstract_class_declaration": "class",
}
_TS = {
    **_JS,
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "internal_module": "module",
    "module": "module",
    "function_signature": "function",
    "abstract_method_signature": "method",
}

#: language -> {node type: kind}
DEFINITIONS: dict[str, dict[str, str]] = {
    "python": {"function_definition": "function", "class_definition": "class"},
    "javascript": _JS,
    "typescript": _TS,
    "tsx": _TS,
    "go": {
        "function_declaration": "function",
        "method_declaration": "method",
        "type_declaration": "type",
    },
    "rust": {
        "function_item": "function",
        "struct_item": "struct",
        "enum_item": "enum",
        "union_item": "struct",
        "trait_item": "trait",
        "impl_item": "impl",
        "mod_item": "module",
        "macro_definition": "macro",
        "type_item": "type",
    },
    "java": {
        "class_declaration": "class",
        "interface_declaration": "interface",
        "enum_declaration": "enum",
        "record_declaration": "class",
        "annotation_type_declaration": "interface",
        "annotation_type_element_declaration": "method",  # String value() default "";
        "method_declaration": "method",
        "constructor_declaration": "method",
    },
    "c": _C_LIKE,
    "cpp": {**_C_LIKE, "class_specifier": "class", "namespace_definition": "module"},
    "csharp": {
        "class_declaration": "class",
        "struct_declaration": "struct",
        "interface_declaration": "interface",
        "enum_declaration": "enum",
        "record_declaration": "class",
        "method_declaration": "method",
        "constructor_declaration": "method",
        "namespace_declaration": "module",
        "file_scoped_namespace_declaration": "module",
        "local_function_statement": "function",
        "property_declaration": "method",  # accessors: methods in all but syntax
        "indexer_declaration": "method",
        "operator_declaration": "method",
        "conversion_operator_declaration": "method",
        "delegate_declaration": "type",
    },
    "ruby": {
        "method": "method",
        "singleton_method": "method",
        "class": "class",
        "module": "module",
        "singleton_class": "class",
    },
    "php": {
        "function_definition": "function",
        "class_declaration": "class",
        "interface_declaration": "interface",
        "trait_declaration": "trait",
        "enum_declaration": "enum",
        "method_declaration": "method",
        "const_declaration": "constant",  # class constants, often under a long docblock
    },
    "kotlin": {
        "class_declaration": "class",
        "object_declaration": "class",
        "function_declaration": "function",
        "companion_object": "class",
        "type_alias": "type",
    },
    "swift": {
        "class_declaration": "class",
        "protocol_declaration": "interface",
        "function_declaration": "function",
        "init_declaration": "method",
        "protocol_function_declaration": "method",
        "typealias_declaration": "type",
        "subscript_declaration": "method",
        "deinit_declaration": "method",
    },
    "scala": {
        "class_definition": "class",
        "object_definition": "class",
        "trait_definition": "trait",
        "enum_definition": "enum",
        "function_definition": "function",
        "function_declaration": "function",
        "package_object": "module",
        "type_definition": "type",  # aliases (type HttpRoutes[F[_]] = ...), see definition()
    },
    "bash": {"function_definition": "function"},
    "haskell": {
        "function": "function",
        "data_type": "type",
        "newtype": "type",
        "class": "class",
        "instance": "impl",
        "type_synonym": "type",
        "type_family": "type",
    },
    "lua": {
        "function_declaration": "function",
        "function_definition_statement": "function",
        "local_function_definition_statement": "function",
    },
    # containers are constants (const Foo = struct { ... }), see _zig_container
    "zig": {"function_declaration": "function", "test_declaration": "test"},
    "elixir": {},  # definitions are macro calls, see _elixir_definition
}
#: Nodes whose one inner definition names them but whose span (decorators, export) counts.
WRAPPERS = frozenset({"decorated_definition", "export_statement", "template_declaration"})
_NAME_TYPES = frozenset(
    {
        "identifier",
        "type_identifier",
        "field_identifier",
        "property_identifier",
        "simple_identifier",
        "constant",
        "name",
        "word",
        "qualified_identifier",
        "scoped_identifier",
        "namespace_identifier",
        "package_identifier",
        "variable",
        "constructor",
        "private_property_identifier",
        "scope_resolution",
        "operator_name",
        "destructor_name",
        "type_constructor",
        "tycon",
        "class_name",
        "alias",
    }
)
#: Nodes that hold an object's or a class's members, in the grammars that define tests
#: by calls (``test(..)``, ``it(..)``).
_MEMBER_LISTS = frozenset({"object", "class_body", "object_type"})
#: Functions directly inside these are methods (inside a module or namespace they are not).
_CLASS_KINDS = frozenset({"class", "interface", "struct", "enum", "trait", "impl", "type"})
_ELIXIR_DEFS = {
    "def": "function",
    "defp": "function",
    "defmacro": "macro",
    "defmacrop": "macro",
    "defmodule": "module",
    "defprotocol": "interface",
    "defimpl": "impl",
    "defguard": "function",
    "defguardp": "function",
    "defdelegate": "function",
}
#: Members named by a keyword, not by an identifier: (language, node type) -> name.
_KEYWORD_MEMBERS = {
    ("swift", "subscript_declaration"): "subscript",
    ("swift", "deinit_declaration"): "deinit",
    ("csharp", "indexer_declaration"): "this",
}
_JS_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)


def _spans_lines(node: tree_sitter.Node) -> bool:
    """A value written over several lines: what makes a named value a definition worth
    its own chunk (a one-line value stays with the code around it)."""
    return node.end_point.row > node.start_point.row


def _js_declaration(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """``const f = () => ...``, ``const C = class ...``, and any top-level value spanning
    lines (``export const ZodObject = $constructor(...)``, config objects): in modern
    JS/TS these are the definitions a reader looks for."""
    for declarator in node.named_children:
        value = declarator.child_by_field_name("value")
        if value is None:
            continue
        name = _text(declarator.child_by_field_name("name"))
        if _unwrapped(value).type in _JS_FUNCTION_VALUES:  # ((url) => ..) as Got
            return "function", name, node
        if value.type == "class":
            return "class", name, node
        top_level = node.parent is not None and node.parent.type in ("program", "export_statement")
        if top_level and _spans_lines(value):
            return "constant", name, node
    return None


#: What wraps a value without changing it: parentheses, ``as T``, ``satisfies T``, ``!``.
_JS_WRAPPERS = frozenset(
    {"as_expression", "satisfies_expression", "parenthesized_expression", "non_null_expression"}
)


def _unwrapped(value: tree_sitter.Node) -> tree_sitter.Node:
    while value.type in _JS_WRAPPERS and value.named_children:
        value = value.named_children[0]
    return value


def _js_assignment(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """CommonJS-style definitions: ``app.set = function set(...)``, ``exports.x = ...``,
    ``Foo.prototype.bar = function ...``, ``inst.parse = (data) => ...``; named by the
    assigned path as code calls it (``app.set``, ``Foo.bar``, ``inst.parse``), the first
    one where several are assigned at once."""
    assignment = node.named_children[0] if node.named_children else None
    if assignment is None or assignment.type != "assignment_expression":
        return None
    right = assignment.child_by_field_name("right")
    left = assignment.child_by_field_name("left")
    # aliases assigned together: res.set = res.header = function header(...)
    while right is not None and right.type == "assignment_expression":
        right = right.child_by_field_name("right")
    if right is None or left is None or right.type not in (*_JS_FUNCTION_VALUES, "class"):
        return None
    if left.type != "member_expression":
        return None
    name = _text(left).replace(".prototype.", ".").replace(" ", "")
    return ("class" if right.type == "class" else "function"), name[:120], node


#: Test-runner calls that declare one test: ``test("..", fn)``, ``it("..", fn)``, and
#: their forms ``test.only(..)``, ``it.skip(..)``, ``test.each([..])("..", fn)``.
_JS_TEST_CALLS = frozenset({"test", "it"})
#: ... and those that declare a suite of tests: ``describe("..", fn)``, ``suite(..)``.
_JS_SUITE_CALLS = frozenset({"describe", "suite"})


def _js_test_call(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
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
    runner = _text(callee) if callee is not None and callee.type == "identifier" else ""
    if runner not in _JS_TEST_CALLS and runner not in _JS_SUITE_CALLS:
        return None
    arguments = call.child_by_field_name("arguments")
    values = arguments.named_children if arguments is not None else []
    if not values or values[0].type not in ("string", "template_string"):
        return None
    body = next((v for v in values[1:] if v.type in _JS_FUNCTION_VALUES), None)
    if body is None:
        return None
    kind, word = ("suite", runner) if runner in _JS_SUITE_CALLS else ("test", "test")
    return kind, f"{word} {' '.join(_text(values[0]).split())}"[:120], body


#: Calls that declare one test, and those that declare a suite of tests, in the languages
#: whose test runners are blocks passed to a call: RSpec and minitest (``it "..." do``,
#: ``describe Rack::Lint do``, ``test "..." do``), busted (``it("..", function() ..
#: end)``) and ExUnit (``test "..", %{conn: conn} do``, ``describe ".." do``).
_BLOCK_TESTS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "ruby": (
        frozenset({"it", "specify", "test", "scenario", "example"}),
        frozenset({"describe", "context", "feature", "shared_examples"}),
    ),
    "lua": (frozenset({"it", "test"}), frozenset({"describe", "context", "insulate"})),
    "elixir": (frozenset({"test"}), frozenset({"describe"})),
}
#: The node a test call is, and the field naming its runner word, by language (Elixir's
#: calls are all candidates already: ``_elixir_definition``).
_TEST_CALL_NODES = {"ruby": ("call", "method"), "lua": ("function_call", "name")}


def _test_kind(language: str, word: str) -> str | None:
    tests, suites = _BLOCK_TESTS.get(language, (frozenset(), frozenset()))
    return "test" if word in tests else "suite" if word in suites else None


def _block_test(
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
    return kind, f"{word} {' '.join(_text(label).split())}"[:120], body


def _ruby_test_call(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """``it "passes" do .. end``, ``describe Rack::Lint do``, ``RSpec.describe ..``."""
    receiver = node.child_by_field_name("receiver")
    if receiver is not None and _text(receiver) != "RSpec":
        return None
    arguments = node.child_by_field_name("arguments")
    label = arguments.named_children[0] if arguments and arguments.named_children else None
    word = _text(node.child_by_field_name("method"))
    return _block_test("ruby", word, label, node.child_by_field_name("block"))


def _lua_test_call(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """busted's ``describe("config", function() .. end)`` and ``it("loads", ..)``."""
    arguments = node.child_by_field_name("arguments")
    values = arguments.named_children if arguments is not None else []
    body = next((v for v in values[1:] if v.type == "function_definition"), None)
    word = _text(node.child_by_field_name("name"))
    return _block_test("lua", word, values[0] if values else None, body)


_TEST_CALL_HANDLERS = {"ruby": _ruby_test_call, "lua": _lua_test_call}


def _js_statement(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """An expression statement that defines: an assignment of a function, or a test."""
    return _js_assignment(node) or _js_test_call(node)


_ZIG_CONTAINERS = {
    "struct_declaration": "struct",
    "enum_declaration": "enum",
    "union_declaration": "struct",
    "opaque_declaration": "type",
}


def _zig_container(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """``const Foo = struct { ... }``: Zig's types are constants holding a container,
    whose functions are its methods."""
    name = next((c for c in node.named_children if c.type == "identifier"), None)
    for child in node.named_children:
        kind = _ZIG_CONTAINERS.get(child.type)
        if kind is not None and name is not None:
            return kind, _text(name)[:120], child
    return None


def _lua_assignment(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """``M.pick = function(opts) ... end`` and ``local pick = function ...``: how Lua
    modules often define their functions, named as code calls them (``M.pick``); and
    tables a file defines over lines."""
    assignment = node
    if node.type == "variable_declaration":
        assignment = next(
            (c for c in node.named_children if c.type == "assignment_statement"), None
        )
        if assignment is None:
            return None
    targets = next((c for c in assignment.named_children if c.type == "variable_list"), None)
    values = next((c for c in assignment.named_children if c.type == "expression_list"), None)
    if targets is None or values is None or len(targets.named_children) != 1:
        return None
    value = values.named_children[0] if values.named_children else None
    if value is not None and value.type == "function_definition":
        target = targets.named_children[0]
        if _lua_string_keyed(target):
            # `T['setup()']['creates side effects'] = function() .. end` (mini.test's
            # cases), `handlers['textDocument/hover'] = function`: named as written
            return "function", " ".join(_text(target).split())[:120], node
    name = "".join(_text(targets).split())
    # `t[function(v) ... end] = function ...` keys a table by a computed value: no name.
    if value is None or not _LUA_NAME.fullmatch(name):
        return None
    if value.type == "function_definition":
        return "function", name[:120], node
    # a table the file defines over lines (`local defaults = { .. }`, `M.config = { .. }`):
    # a module's options and lookup tables, as Python's module-level values are
    top = node.parent is not None and node.parent.type == "chunk"
    if top and value.type == "table_constructor" and _spans_lines(value):
        return "constant", name[:120], node
    return None


def _lua_string_keyed(target: tree_sitter.Node) -> bool:
    """Whether ``target`` is a table entry keyed by strings only (``T['a']['b']``)."""
    if target.type != "bracket_index_expression":
        return False
    while target.type == "bracket_index_expression":
        key = target.child_by_field_name("field")
        if key is None or key.type != "string":
            return False
        target = target.child_by_field_name("table")
        if target is None:
            return False
    return target.type in ("identifier", "dot_index_expression")


#: A name Lua code calls a function by: ``pick``, ``M.pick``, ``Async:init``.
_LUA_NAME = re.compile(r"[A-Za-z_][\w]*(?:[.:][A-Za-z_][\w]*)*")


def _lua_field(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """``{ setup = function(opts) ... end }``: a function kept in a table under a name."""
    name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
    if name is None or value is None or name.type != "identifier":
        return None
    return ("function", _text(name)[:120], node) if value.type == "function_definition" else None


def _elixir_definition(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """``def name(..)``, ``defmodule Name``: Elixir's definitions are macro calls."""
    target = node.child_by_field_name("target")
    word = _text(target)
    kind = _ELIXIR_DEFS.get(word)
    arguments = next((c for c in node.named_children if c.type == "arguments"), None)
    first = arguments.named_children[0] if arguments and arguments.named_children else None
    if kind is None:
        body = next((c for c in node.named_children if c.type == "do_block"), None)
        return _block_test("elixir", word, first, body)
    if _elixir_not_a_definition(node):
        return None
    name = _text(first).split("(")[0].split(" ")[0].split(",")[0].strip()
    return kind, name[:120], node


def _elixir_not_a_definition(node: tree_sitter.Node) -> bool:
    """A definition macro's name used otherwise: the head of another definition
    (``defmacro defguard(guard)``, Kernel's own) or a call inside a module attribute
    (``@spec defguard(Macro.t()) :: Macro.t()``)."""
    parent = node.parent
    if parent is not None and parent.type == "arguments":
        outer = parent.parent
        if (
            outer is not None
            and outer.type == "call"
            and _text(outer.child_by_field_name("target")) in _ELIXIR_DEFS
        ):
            return True
    for _ in range(4):
        if parent is None:
            return False
        if parent.type == "unary_operator":
            return _text(parent).startswith("@")
        if parent.type not in ("binary_operator", "arguments", "call"):
            return False
        parent = parent.parent
    return False


def _haskell_bind(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """``escapeText = T.replace ..``, ``parser = do ..``: an equation without arguments
    (point-free, or a parser or value built in a ``do`` block) is a ``bind``, not a
    ``function``, in the grammar, yet it defines a name as much as one with arguments.
    Pattern bindings (``(a, b) = ..``) name no one thing and are left as code."""
    name = node.child_by_field_name("name")
    if name is None:
        return None
    return "function", _text(name).strip("() ")[:120], node


def _kotlin_property(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """A property with a getter or setter body (``val isAbsolute: Boolean get() = ..``)
    runs code each time it is used, a method in all but syntax, as Swift's computed
    properties are. A top-level ``val`` whose value spans lines (``val SSE =
    createClientPlugin(..) { .. }``, ``val appModule = module { .. }``) is how Kotlin
    libraries define plugins, modules and configurations (as JavaScript does with
    ``export const``); one-line values and plain members stay with the code around them."""
    variable = next((c for c in node.named_children if c.type == "variable_declaration"), None)
    name = None
    if variable is not None:
        name = next((c for c in variable.named_children if c.type == "identifier"), None)
    if name is None:
        return None
    if any(
        c.type in ("getter", "setter") and any(b.type == "function_body" for b in c.children)
        for c in node.named_children
    ):
        return "function", _text(name)[:120], node
    if node.parent is None or node.parent.type != "source_file":
        return None
    value = node.named_children[-1]
    if value is variable or not _spans_lines(value):
        return None
    return "constant", _text(name)[:120], node


def _go_receiver(node: tree_sitter.Node) -> str:
    """The type a Go method belongs to: ``Command`` of ``func (c *Command) Run()``, ``List``
    of ``func (l *List[T]) Len()``, so that ``Command.Run`` finds it as ``Class.method``
    finds a method elsewhere."""
    receiver = node.child_by_field_name("receiver")
    parameter = receiver.named_children[0] if receiver and receiver.named_children else None
    kind = parameter.child_by_field_name("type") if parameter is not None else None
    while kind is not None and kind.type in ("pointer_type", "generic_type", "parenthesized_type"):
        kind = (
            kind.child_by_field_name("type")
            if kind.type == "generic_type"
            else (kind.named_children[0] if kind.named_children else None)
        )
    return _text(kind)[:120] if kind is not None and kind.type == "type_identifier" else ""


def _python_constant(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """A module-level name assigned over several lines: ``DEFAULT_HEADERS = {..}``,
    ``router = APIRouter(..)``, a table or a configured object a module defines, as
    JavaScript's ``export const`` and Kotlin's top-level ``val`` do."""
    return _spanning_constant(_python_assignment(node), node)


def _ruby_constant(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """A constant assigned over several lines in a class, a module or the file:
    ``DEFAULT_OPTIONS = { .. }.freeze``, ``REQUEST_METHODS = %w[..]``; a method's
    assignments stay with its code."""
    return _spanning_constant(_ruby_assignment(node), node)


def _go_variable(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """A package-level ``var`` or ``const`` of one name whose value spans lines: ``var
    defaultPlatforms = []string{..}``, a table or a configured value; a grouped
    ``var ( .. )`` of one-line values stays with the code around it."""
    specs = _go_specs(node)
    if len(specs) != 1 or len(specs[0].children_by_field_name("name")) != 1:
        return None
    name = specs[0].child_by_field_name("name")
    return _spanning_constant((name, specs[0].child_by_field_name("value")), node)


def _spanning_constant(
    assigned: tuple[tree_sitter.Node | None, tree_sitter.Node | None] | None,
    node: tree_sitter.Node,
) -> tuple[str, str, tree_sitter.Node] | None:
    """``node`` as a constant named for the target, when its value spans lines."""
    target, value = assigned or (None, None)
    if target is None or value is None or not _spans_lines(value):
        return None
    return "constant", _text(target)[:120], node


def _python_assignment(node: tree_sitter.Node) -> tuple[tree_sitter.Node, tree_sitter.Node] | None:
    """(name, value) of a module-level assignment to one plain name; not a dunder
    (``__all__ = [..]`` names what is defined elsewhere)."""
    if node.type != "expression_statement" or node.named_child_count != 1:
        return None
    if node.parent is None or node.parent.type != "module":
        return None
    assignment = node.named_children[0]
    if assignment.type != "assignment":
        return None
    target = assignment.child_by_field_name("left")
    value = assignment.child_by_field_name("right")
    if target is None or target.type != "identifier" or _text(target).startswith("__"):
        return None
    return (target, value) if value is not None else None


def _ruby_assignment(node: tree_sitter.Node) -> tuple[tree_sitter.Node, tree_sitter.Node] | None:
    """(constant, value) of an assignment in a class, a module or the file, not a method."""
    parent = node.parent
    if node.type != "assignment" or parent is None:
        return None
    if parent.type == "body_statement":
        if parent.parent is None or parent.parent.type not in ("class", "module"):
            return None
    elif parent.type != "program":
        return None
    target = node.child_by_field_name("left")
    value = node.child_by_field_name("right")
    if target is None or target.type != "constant" or value is None:
        return None
    return target, value


def _go_specs(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The specs of a package-level ``var`` or ``const`` declaration, grouped or not."""
    if node.type not in ("var_declaration", "const_declaration"):
        return []
    if node.parent is None or node.parent.type != "source_file":
        return []
    specs = [c for c in node.named_children if c.type in ("var_spec", "const_spec")]
    for group in (c for c in node.named_children if c.type == "var_spec_list"):
        specs += [c for c in group.named_children if c.type == "var_spec"]
    return specs


def _go_type_specs(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The types a ``type`` declaration declares: one, or a group ``type ( A ..; B .. )``
    (whose first child may be a comment)."""
    return [c for c in node.named_children if c.type in ("type_spec", "type_alias")]


def _named_values(language: str, node: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
    """The names a package or module gives one-line values (Go's ``ErrNotFound``,
    ``DebugMode``, grouped or not; Python's ``DEFAULT_TIMEOUT = 30``, ``Handler =
    Callable[..]``; Ruby's constants; Rust's ``const`` and ``static`` items):
    definitions without chunks. (Called for nodes that are no definition of their own:
    values over several lines are constants with chunks.)"""
    if language == "go" and node.type == "type_declaration":
        named = ((s.child_by_field_name("name"), s) for s in _go_type_specs(node))
        return [(_text(name)[:120], spec) for name, spec in named if name is not None]
    if language == "go":
        specs = _go_specs(node)
        return [(_text(n)[:120], s) for s in specs for n in s.children_by_field_name("name")]
    if language == "rust":
        name = node.child_by_field_name("name") if node.type in _VALUE_TYPES else None
        return [(_text(name)[:120], node)] if name is not None else []
    if language in _JS_LANGUAGES:
        return _js_values(node)
    reader = _ASSIGNMENTS.get(language)
    assigned = reader(node) if reader is not None else None
    return [(_text(assigned[0])[:120], node)] if assigned is not None else []


_ASSIGNMENTS = {"python": _python_assignment, "ruby": _ruby_assignment}


def _js_values(node: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
    """A module's one-line ``const`` / ``let`` / ``var`` values, exported or not
    (``const isFetchSupported = typeof fetch === 'function'``, ``export const
    DEFAULT_TIMEOUT = 5000``): each plain name a definition without a chunk."""
    if node.type not in ("lexical_declaration", "variable_declaration"):
        return []
    parent = node.parent
    if parent is not None and parent.type == "export_statement":
        parent = parent.parent
    if parent is None or parent.type != "program":
        return []
    out = []
    for declarator in node.named_children:
        name = declarator.child_by_field_name("name")
        value = declarator.child_by_field_name("value")
        if name is None or name.type != "identifier" or _js_import(value):
            continue
        out.append((_text(name)[:120], node))
    return out


def _js_import(value: tree_sitter.Node | None) -> bool:
    """``require('debug')('app')``, ``require('a').b``, ``await import('x')``: a name
    for another module's code, not a definition."""
    while value is not None and value.type in _JS_IMPORT_WRAPPERS:
        field = "function" if value.type == "call_expression" else None
        inner = value.child_by_field_name(field) if field else None
        value = inner or (value.named_children[0] if value.named_children else None)
    return (
        value is not None
        and value.type in ("identifier", "import")
        and (_text(value) in ("require", "import"))
    )


_JS_IMPORT_WRAPPERS = frozenset({"await_expression", "member_expression", "call_expression"})


def _reexports(language: str, node: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
    """The names a module re-exports (Rust's ``pub use axum_core::extract::FromRequest``,
    TypeScript's ``export { A, B as C } from './x'``), each with its name's node. When a
    name is defined nowhere else in the tree (it comes from a dependency), the
    re-export is where the tree makes it its own; ``MetaStore.find_definitions`` drops
    re-exports of names the tree defines."""
    if language == "rust" and node.type == "use_declaration":
        public = any(c.type == "visibility_modifier" for c in node.named_children)
        argument = node.child_by_field_name("argument")
        return _use_names(argument) if public and argument is not None else []
    if language in _JS_LANGUAGES and node.type == "export_statement":
        return [
            (_text(name)[:120], name)
            for clause in node.named_children
            if clause.type == "export_clause"
            for spec in clause.named_children
            if (name := spec.child_by_field_name("alias") or spec.child_by_field_name("name"))
        ]
    return []


def _use_names(node: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
    """The names a Rust ``use`` tree brings in: the last segment of each path, or its
    alias (``self`` and ``*`` name nothing new)."""
    if node.type == "identifier":
        return [(_text(node)[:120], node)]
    if node.type == "scoped_identifier":
        name = node.child_by_field_name("name")
        return _use_names(name) if name is not None else []
    if node.type == "use_as_clause":
        alias = node.child_by_field_name("alias")
        return [(_text(alias)[:120], alias)] if alias is not None else []
    if node.type == "scoped_use_list":
        listed = node.child_by_field_name("list")
        return _use_names(listed) if listed is not None else []
    if node.type == "use_list":
        return [found for child in node.named_children for found in _use_names(child)]
    return []


_JS_LANGUAGES = frozenset({"javascript", "typescript", "tsx"})


#: Conditional groups nested deeper than this around a table are not read past: real
#: code nests a few.
_PREPROCESSOR_DEPTH = 8


def _c_table(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """A file-level variable initialised over several lines: ``struct Curl_cftype
    Curl_cft_unix = { "UNIX", .. }``, a table of handlers or names; C's way to define a
    vtable or a lookup table. (The place is checked last: a node's parent is found by a
    walk from the root, long in deeply nested conditional groups.)"""
    declarator = node.child_by_field_name("declarator")
    if declarator is None or declarator.type != "init_declarator":
        return None
    value = declarator.child_by_field_name("value")
    if value is None or value.type != "initializer_list" or not _spans_lines(value):
        return None
    parent = node.parent
    for _ in range(_PREPROCESSOR_DEPTH):  # `#ifdef USE_X` .. around a file-level table
        if parent is None or not parent.type.startswith("preproc_"):
            break
        parent = parent.parent
    if parent is None or parent.type not in ("translation_unit", "declaration_list"):
        return None
    name = declarator.child_by_field_name("declarator")
    while name is not None and name.type not in _NAME_TYPES:
        name = name.child_by_field_name("declarator")
    return ("constant", _text(name)[:120], node) if name is not None else None


def _swift_computed_property(
    node: tree_sitter.Node,
) -> tuple[str, str, tree_sitter.Node] | None:
    """``public var left: ConstraintMakerExtendable { return .. }``: a computed property
    runs code each time it is read, a method in all but syntax (Swift DSLs are built of
    them); a stored property (``var x = 3``) is not."""
    if not any(c.type == "computed_property" for c in node.named_children):
        return None
    pattern = next((c for c in node.named_children if c.type == "pattern"), None)
    return ("function", _text(pattern)[:120], node) if pattern is not None else None


_RUST_MACRO_ITEMS = {"struct": "struct", "enum": "enum", "union": "struct", "trait": "trait"}


def _rust_macro_item(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """``pin_project! { pub struct RouteFuture<E> { .. } }``, ``bitflags! { struct Flags
    .. }``: a type declared inside a macro call at item level is still the type's
    definition (the grammar sees only tokens there). The first one names the chunk."""
    if node.parent is None or node.parent.type not in ("source_file", "declaration_list"):
        return None
    tokens = next((c for c in node.named_children if c.type == "token_tree"), None)
    if tokens is None:
        return None
    children = tokens.children
    for keyword, following in itertools.pairwise(children):
        kind = _RUST_MACRO_ITEMS.get(keyword.type)
        if kind is not None and following.type == "identifier":
            return kind, _text(following)[:120], node
    return None


def _declared_name(language: str, node: tree_sitter.Node) -> str | None:
    """The name of a definition ``_name_of`` would misread: members declared by keyword
    (``subscript``, ``this[..]``, ``operator +``), as code refers to them, and PHP's
    ``const A = 1, B = 2``, named by its first constant ("" when it has none). None for
    every other definition."""
    named = _KEYWORD_MEMBERS.get((language, node.type))
    if named:
        return named
    if language == "csharp" and node.type == "operator_declaration":
        return f"operator{_text(node.child_by_field_name('operator'))}"
    if language == "csharp" and node.type == "conversion_operator_declaration":
        return f"operator {_text(node.child_by_field_name('type'))}"
    if language == "php" and node.type == "const_declaration":
        element = next((c for c in node.named_children if c.type == "const_element"), None)
        name = element and next((c for c in element.named_children if c.type == "name"), None)
        return _text(name)[:120]
    return None


def _haskell_names(signature: tree_sitter.Node, definition: tree_sitter.Node) -> bool:
    """Whether a Haskell type signature declares the name the next equation defines."""
    declared = {_text(c) for c in signature.named_children if c.type == "variable"}
    name = definition.child_by_field_name("name") or next(
        (c for c in definition.named_children if c.type == "variable"), None
    )
    return name is not None and _text(name) in declared


def _leads(sibling: tree_sitter.Node) -> bool:
    """Whether a node just above a definition belongs to it: comments (Haskell's
    ``haddock``), Rust attributes (``#[derive(..)]``, ``#[test]``), Elixir attributes
    (``@doc``, ``@spec``, ``@impl``; not ``@moduledoc``, which is about the module)."""
    kind = sibling.type
    if "comment" in kind or kind in ("haddock", "attribute_item"):
        return True
    if kind == "unary_operator":
        text = _text(sibling)
        return text.startswith("@") and not text.startswith("@moduledoc")
    return False


def _test_name(node: tree_sitter.Node) -> str:
    """How a test block reads in the source: ``test "parses dates"``, ``test Parser``,
    ``test Mutex.DeadlockIdBug`` (gtest's ``TEST(Mutex, DeadlockIdBug)``)."""
    if node.type == "function_definition":
        declarator = node.child_by_field_name("declarator")
        parameters = declarator.child_by_field_name("parameters") if declarator else None
        named = parameters.named_children if parameters is not None else []
        words = [" ".join(_text(parameter).split()) for parameter in named]
        return f"test {'.'.join(words)}"[:120] if words else "test"
    label = next((c for c in node.named_children if c.type in ("string", "identifier")), None)
    return f"test {_text(label)}"[:120] if label is not None else "test"


#: C++ test frameworks' macros that read to the grammar as a function definition
#: (Catch2's and doctest's once their names are rewritten in the parser's copy).
_C_TEST_MACROS = frozenset(
    {"TEST", "TEST_F", "TEST_P", "TYPED_TEST", "TYPED_TEST_P", "BOOST_AUTO_TEST_CASE"}
    | {"BOOST_FIXTURE_TEST_CASE", "BOOST_DATA_TEST_CASE", *CATCH_MACROS}
)


def catch_test_name(line: str) -> str | None:
    """``test vectors resize`` for Catch2's ``TEST_CASE("vectors resize", "[vector]") {``
    (the first string of the arguments, as the file writes it); None for other lines."""
    match = CATCH_TEST.match(line)
    string = C_STRING.search(match.group(1)) if match else None
    return f"test {string.group(0)[1:-1]}"[:120] if string else None


@dataclass
class _Def:
    kind: str
    name: str
    start: int  # 0-based rows, inclusive
    end: int
    body: tree_sitter.Node
    children: list[_Def] = field(default_factory=list)
    #: The parent a definition names itself, outside any container: Go's receiver type.
    owner: str = ""


def _text(node: tree_sitter.Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", errors="replace")


def _name_of(node: tree_sitter.Node) -> str:
    name = node.child_by_field_name("name")
    if name is None:
        name = node.child_by_field_name("type")  # rust impl_item
        if name is not None and node.type != "impl_item":
            name = None
        # `impl IntoIterator for &'a RawPathParams` implements for RawPathParams
        while name is not None and name.type == "reference_type":
            name = name.child_by_field_name("type")
    if name is None:
        declarator = node.child_by_field_name("declarator")
        while declarator is not None and declarator.type not in _NAME_TYPES:
            if declarator.type == "operator_cast":  # operator bool() const
                break
            declarator = _inner_declarator(declarator)
        name = declarator
    if name is None and node.type == "function":  # Haskell: x // f = .., a `op` b = ..
        infix = next((c for c in node.named_children if c.type == "infix"), None)
        operator = infix.child_by_field_name("operator") if infix is not None else None
        if operator is not None:
            return _text(operator).strip().strip("`").strip()[:120]
    if name is None:
        for child in node.named_children:
            if child.type in _NAME_TYPES:
                name = child
                break
            inner = child.child_by_field_name("name")  # go type_spec, js declarators
            if inner is not None:
                name = inner
                break
    text = _text(name).strip().split("(")[0].split("\n")[0]
    # S::operator<< keeps its <<; template arguments follow only identifiers
    if re.match(r"[A-Za-z_~]", text) and not text.split("::")[-1].startswith("operator"):
        # formatter<T, Char> specialises formatter; base_sink<Mutex>::log is base_sink::log;
        # Ruby's `<=>` and `<<`, Scala's `?<` are names of their own
        text = _without_template_arguments(text).strip() or text
    return text[:120]


def _without_template_arguments(text: str) -> str:
    """``text`` without its ``<..>`` groups (nested ones too)."""
    if "<" not in text:
        return text
    out, depth = [], 0
    for char in text:
        if char == "<":
            depth += 1
        elif char == ">" and depth:
            depth -= 1
        elif not depth:
            out.append(char)
    return "".join(out)


def _inner_declarator(declarator: tree_sitter.Node) -> tree_sitter.Node | None:
    """The declarator inside a C/C++ declarator; a reference's (``S& operator=(..)``)
    is its last child, not a field, and reading past it named the function for its
    return type."""
    inner = declarator.child_by_field_name("declarator")
    if inner is None and declarator.type == "reference_declarator" and declarator.named_children:
        inner = declarator.named_children[-1]
    return inner


def _end_row(node: tree_sitter.Node) -> int:
    row = node.end_point.row
    if node.end_point.column == 0 and row > node.start_point.row:
        row -= 1
    return row


class _Chunker:
    def __init__(self, language: str, lines: list[str]) -> None:
        self.language = language
        self.table = DEFINITIONS.get(language, {})
        self.lines = lines
        self.cuts: set[int] = set()
        self._cut_rows: list[int] = []
        self.definitions: list[Definition] = []

    # -- finding definitions -------------------------------------------------------------
    def definition(self, node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
        """(kind, name, node to search for members) when ``node`` is a definition."""
        found = self._definition(node)
        if found is not None and self.language in _RESERVED_IN and found[1] in _STATEMENT_WORDS:
            return None  # a statement the parser misread (an `else if` cut off by `#if`)
        if found is not None and self.language in ("c", "cpp") and found[1] in _C_TEST_MACROS:
            return "test", "", found[2]  # TEST(Suite, Name) { .. }: a test, named below
        return found

    def _definition(self, node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
        if (
            self.language == "haskell"
            and node.type == "function"
            and node.child_by_field_name("arrow") is not None
        ):
            return None  # a function type (A -> B in a synonym or a record), not an equation
        kind = self.table.get(node.type)
        if kind is not None:
            if (
                self.language in ("c", "cpp")
                and kind in ("struct", "enum", "class")
                and node.child_by_field_name("body") is None
            ):
                return None
            if (
                self.language == "scala"
                and node.type == "type_definition"
                and node.child_by_field_name("type") is None
            ):
                return None  # an abstract type member (type F[_]): a parameter, not a definition
            declared = _declared_name(self.language, node)
            if declared is not None:
                return (kind, declared, node) if declared else None
            if self.language == "go" and node.type == "type_declaration":
                specs = _go_type_specs(node)
                if len(specs) != 1:
                    return None  # a group `type ( A ..; B .. )`: each type named below
                return kind, _name_of(specs[0]), node
            return kind, _name_of(node), node
        if node.type in WRAPPERS:
            for child in node.named_children:
                inner = self.definition(child)
                if inner is not None:
                    return inner[0], inner[1], child
            return None
        handler = _DEFINED_BY.get(self.language, {}).get(node.type)
        if handler is None and node.type == _TEST_CALL_NODES.get(self.language, ("",))[0]:
            handler = _TEST_CALL_HANDLERS[self.language]
        return handler(node) if handler is not None else None

    def find(self, root: tree_sitter.Node) -> list[_Def]:
        """Definitions as a tree, found by a tree-sitter query (the walk runs in C).

        Candidates nest by byte range; members are kept only inside containers (the
        body of a function stays with it and is split at statements when long).
        """
        candidates = _candidates(self.language, root)
        top: list[_Def] = []
        # open definitions enclosing the current position: (end byte, def, name, kind)
        stack: list[tuple[int, _Def, str, str]] = []
        consumed: set[tuple[int, int, str]] = set()
        for node in candidates:
            while stack and node.start_byte >= stack[-1][0]:
                stack.pop()
            if _key(node) in consumed:
                continue  # the inner definition of a wrapper already taken
            parent_name, parent_kind = (stack[-1][2], stack[-1][3]) if stack else ("", "")
            if parent_kind in _FUNCTION_KINDS:
                # a test's own helpers too (ky's `isKyLeaking` in a `test(..)` body), but
                # not the members of its fakes (`{ async fetch(request) { .. } }`)
                if parent_kind != "test" or getattr(node.parent, "type", "") not in _MEMBER_LISTS:
                    self._nested(node, stack[-1][1], parent_name, consumed)
                continue
            if self.language == "haskell" and _inside(node, "signature"):
                continue
            if node.type in _DECLARED_ONLY:
                # a trait's required method (Rust `fn poll_read(..);`): found by name in
                # the trait's chunks, no chunk of its own (a trait would fall to pieces)
                if parent_kind == "trait" and (name := _name_of(node)):
                    self._record(node, node, "method", name, parent_name, local=True)
                continue
            found = self.definition(node)
            if found is None:
                # one-line package values (Go's `var ErrNotFound = errors.New(..)`): found
                # by name in the chunk that holds them, no chunk of their own
                for name, spec in _named_values(self.language, node):
                    kind = "type" if spec.type in ("type_spec", "type_alias") else "constant"
                    self._record(spec, spec, kind, name, parent_name, local=True)
                for name, at in _reexports(self.language, node):
                    self._record(at, node, "reexport", name, parent_name, local=True)
                continue
            kind, name, inner = found
            suite = kind == "suite"  # a test suite is a test whose members are tests
            kind = "test" if suite else kind
            if kind == "test" and node.type in self.table:
                name = _test_name(node)  # a test block by its node type (Zig): as it reads
                if self.language in ("c", "cpp"):
                    name = catch_test_name(self.lines[node.start_point.row]) or name
            _take_inner(consumed, node, inner)
            if kind == "function" and parent_kind in _CLASS_KINDS:
                kind = "method"
            definition = _Def(kind, name, self._leading_comment_start(node), _end_row(node), inner)
            if self.language == "go" and node.type == "method_declaration":
                definition.owner = parent_name = _go_receiver(node)
            (stack[-1][1].children if stack else top).append(definition)
            body = inner.child_by_field_name("body") or inner
            self.cuts.update(c.start_point.row for c in body.named_children)
            if kind == "test":
                # a test block is not the definition of what it tests (Zig: test Parser);
                # a suite's tests are found inside it and name it as their parent
                if suite:
                    stack.append((node.end_byte, definition, name, "suite"))
                else:
                    stack.append((node.end_byte, definition, parent_name, kind))
                continue
            overload = self.language == "python" and _overload_stub(node)
            self._record(node, inner, "overload" if overload else kind, name, parent_name)
            stack.append((node.end_byte, definition, name or parent_name, kind))
        self._sort(top)
        return top

    def _nested(
        self,
        node: tree_sitter.Node,
        enclosing: _Def,
        parent: str,
        consumed: set[tuple[int, int, str]],
    ) -> None:
        """A definition inside a function's body: no chunk of its own (the body stays
        with its function, split at statements when long), but a definition all the
        same, so that it is found by name (redux's ``replaceReducer`` inside
        ``createStore``)."""
        found = self.definition(node)
        if found is None or found[0] in ("test", "suite") or not found[1]:
            return
        kind, name, inner = found
        # the enclosing definition itself, seen again through a part of it (Lua's
        # `local pick = function` holds the assignment `pick = function`)
        # (and JavaScript's `res.send = function send(..)`: the value names itself again)
        same = name == enclosing.name or last_part(enclosing.name) == name
        if same and node.start_point.row == enclosing.body.start_point.row:
            return
        _take_inner(consumed, node, inner)
        self._record(node, inner, kind, name, parent, local=True)

    def _record(
        self,
        node: tree_sitter.Node,
        inner: tree_sitter.Node,
        kind: str,
        name: str,
        parent: str,
        local: bool = False,
    ) -> None:
        # Zig's signature is the declaration (pub const Queue = struct {), not the container
        signature = signature_of(_text(node if self.language == "zig" else inner))
        start, end = node.start_point.row + 1, _end_row(node) + 1
        self.definitions.append(Definition(name, kind, parent, start, end, signature, local))

    def _sort(self, defs: list[_Def]) -> None:
        defs.sort(key=lambda d: d.start)
        for d in defs:
            self._sort(d.children)

    @staticmethod
    def _leading_comment_start(node: tree_sitter.Node) -> int:
        start = node.start_point.row
        sibling = node.prev_named_sibling
        if sibling is not None and sibling.type == "signature" and _haskell_names(sibling, node):
            # Haskell: the type signature above an equation is part of its definition
            start = sibling.start_point.row
            sibling = sibling.prev_named_sibling
        if sibling is None and node.parent is not None and node.parent.type == "declarations":
            # Haskell: the doc comment above the first declaration ends the imports node
            imports = node.parent.prev_named_sibling
            sibling = imports.named_children[-1] if imports and imports.named_children else None
        while sibling is not None and _leads(sibling):
            # A doc comment (/** ... */) belongs to the definition after it even across
            # one blank line, as JSDoc and Javadoc are often written; others must touch.
            gap = 2 if _text(sibling).startswith("/**") else 1
            if _end_row(sibling) < start - gap:
                break
            start = sibling.start_point.row
            sibling = sibling.prev_named_sibling
        return start

    # -- emitting chunks ----------------------------------------------------------------
    def chunks(self, root: tree_sitter.Node) -> list[Chunk]:
        self.cuts.update(c.start_point.row for c in root.named_children)
        self.cuts.update(i for i, line in enumerate(self.lines) if not line.strip())
        out: list[tuple[int, int, str, str, str, list[str]]] = []
        top = self.find(root)
        self._cut_rows = sorted(self.cuts)
        self._emit_region(0, len(self.lines) - 1, top, "block", "", "", out)
        out.sort(key=lambda c: c[0])
        return self._merge(out)

    def _emit_region(
        self,
        start: int,
        end: int,
        children: list[_Def],
        kind: str,
        name: str,
        parent: str,
        out: list,
    ) -> None:
        """Emit children, then the region's uncovered lines as pieces of the region itself."""
        covered = start
        for child in children:
            if child.start > covered:
                self._emit_lines(covered, child.start - 1, kind, name, parent, out)
            self._emit_def(child, name or parent, out)
            covered = max(covered, child.end + 1)
        if covered <= end:
            self._emit_lines(covered, end, kind, name, parent, out)

    def _emit_def(self, d: _Def, parent: str, out: list) -> None:
        parent = d.owner or parent
        if d.end - d.start + 1 <= config.CHUNK_MAX_LINES:
            out.append((d.start, d.end, d.kind, d.name, parent, _symbol_names(d.kind, d.name)))
        elif d.children:
            self._emit_region(d.start, d.end, d.children, d.kind, d.name, parent, out)
        else:
            self._emit_lines(d.start, d.end, d.kind, d.name, parent, out)

    def _emit_lines(
        self, start: int, end: int, kind: str, name: str, parent: str, out: list
    ) -> None:
        """Pieces of at most CHUNK_MAX_LINES, cut at statement boundaries where possible."""
        while start <= end and not self.lines[start].strip():
            start += 1
        while end >= start and not self.lines[end].strip():
            end -= 1
        if start > end or _trivial(self.lines[start : end + 1]):
            return
        names = _symbol_names(kind, name)
        limit = config.CHUNK_MAX_LINES
        while end - start + 1 > limit:
            # The last statement boundary inside the window, else a hard cut.
            at = bisect.bisect_right(self._cut_rows, start + limit) - 1
            cut = self._cut_rows[at] if at >= 0 else start + limit
            if cut <= start + config.CHUNK_MIN_LINES:
                cut = start + limit
            out.append((start, cut - 1, kind, name, parent, names))
            start = cut
        out.append((start, end, kind, name, parent, names))

    def _merge(self, spans: list) -> list[Chunk]:
        merged: list[list] = []
        for span in spans:
            start, end, kind, name, parent, names = span
            if merged and self._heading(merged[-1], start, name):
                # a section's heading comment (``## Validations``) titles what follows
                merged[-1] = [merged[-1][0], end, kind, name, parent, list(names)]
                continue
            if merged:
                prev = merged[-1]
                tiny = (
                    end - start + 1 < config.CHUNK_MIN_LINES
                    or prev[1] - prev[0] + 1 < config.CHUNK_MIN_LINES
                )
                # siblings, or a container's own lines next to one of its members
                related = prev[4] == parent or (name and prev[4] == name) or prev[3] == parent
                # a test does not join the code it tests: it ranks as a test
                if (
                    tiny
                    and related
                    and _is_test(prev[2], prev[3], prev[4]) == _is_test(kind, name, parent)
                    and start - prev[1] <= 2
                    and end - prev[0] + 1 <= config.CHUNK_MAX_LINES
                ):
                    prev[1] = end
                    if not prev[3] and name:
                        prev[2], prev[3] = kind, name
                    prev[5] = prev[5] + [n for n in names if n not in prev[5]]
                    continue
            merged.append([start, end, kind, name, parent, list(names)])
        chunks = []
        for start, end, kind, name, parent, names in merged:
            text = "\n".join(self.lines[start : end + 1])
            chunks.append(
                Chunk(
                    start + 1,
                    end + 1,
                    kind,
                    text,
                    name,
                    parent,
                    signature_of(text) if name else "",
                    names,
                )
            )
        return chunks

    def _heading(self, prev: list, start: int, name: str) -> bool:
        """Whether ``prev`` is a container's few lines of comment alone, just above the
        definition ``name`` that starts at ``start``: a section heading (``## Validations``,
        ``// MARK: - Helpers``), which as a chunk of its own matched every question about
        its section and answered none."""
        first, last = prev[0], prev[1]
        return (
            bool(name)
            and last - first + 1 < config.CHUNK_MIN_LINES
            and 0 < start - last <= 2
            and prev[3] != name
            and all(
                not line.strip() or _COMMENT_LINE.match(line)
                for line in self.lines[first : last + 1]
            )
        )


#: A line that is a comment alone, in any of the grammars' languages.
_COMMENT_LINE = re.compile(r"\s*(?://|/\*|\*|#(?![!\[{]|if|else|elif|end|define|include)|--|;|%)")
_FUNCTION_KINDS = frozenset({"function", "method", "macro", "test"})
#: Declarations recorded as definitions of their trait, without a chunk of their own.
_DECLARED_ONLY = frozenset({"function_signature_item"})
#: Node types of one-line values named as definitions without chunks (``_named_values``)
#: that no definition table lists.
_VALUE_TYPES = frozenset({"const_item", "static_item"})


def _symbol_names(kind: str, name: str) -> list[str]:
    """The names a chunk is found by in the symbol field: a test block names what it
    tests, not itself."""
    return [name] if name and kind != "test" else []


def _is_test(kind: str, name: str, parent: str) -> bool:
    """A test block, Rust's ``mod tests``, or a member of it: kept apart from the code
    beside it when tiny pieces are merged, so each ranks as what it is."""
    return kind == "test" or (kind == "module" and name in TEST_MODULES) or parent in TEST_MODULES


_Found = tuple[str, str, tree_sitter.Node] | None


def _js_named_function(node: tree_sitter.Node) -> _Found:
    """``async function inputValidatorMiddleware(opts) { .. }`` passed as a value: the
    name a stack trace shows, so it is found by name; an anonymous one is no definition."""
    name = node.child_by_field_name("name")
    return ("function", _text(name)[:120], node) if name is not None else None


_JS_FORMS: dict[str, Callable[[tree_sitter.Node], _Found]] = {
    "lexical_declaration": _js_declaration,
    "variable_declaration": _js_declaration,
    "expression_statement": _js_statement,
    "function_expression": _js_named_function,
}
#: Definitions the node type alone does not tell: language -> {node type: function that
#: returns (kind, name, node) or None}. Their node types join the candidates' query.
_DEFINED_BY: dict[str, dict[str, Callable[[tree_sitter.Node], _Found]]] = {
    "javascript": _JS_FORMS,
    "typescript": _JS_FORMS,
    "tsx": _JS_FORMS,
    "elixir": {"call": _elixir_definition},
    "zig": {"variable_declaration": _zig_container},
    "lua": {
        "assignment_statement": _lua_assignment,
        "variable_declaration": _lua_assignment,
        "field": _lua_field,
    },
    "haskell": {"bind": _haskell_bind},
    "kotlin": {"property_declaration": _kotlin_property},
    "python": {"expression_statement": _python_constant},
    "ruby": {"assignment": _ruby_constant},
    "go": {"var_declaration": _go_variable, "const_declaration": _go_variable},
    "c": {"declaration": _c_table},
    "cpp": {"declaration": _c_table},
    "swift": {"property_declaration": _swift_computed_property},
    "rust": {"macro_invocation": _rust_macro_item},
}


@cache
def _query(language: str) -> tree_sitter.Query | None:
    """One query capturing every node type that can be (or wrap) a definition."""
    parser = parser_for(language)
    if parser is None or parser.language is None:
        return None
    grammar = parser.language
    types = [
        *DEFINITIONS.get(language, {}),
        *WRAPPERS,
        *_DEFINED_BY.get(language, {}),
        *_DECLARED_ONLY,
        *(_VALUE_TYPES if language == "rust" else ()),
        *(("use_declaration",) if language == "rust" else ()),
    ]
    valid = []
    for node_type in dict.fromkeys(types):
        try:  # a type the grammar lacks would make the whole query invalid
            tree_sitter.Query(grammar, f"({node_type}) @d")
        except (tree_sitter.QueryError, ValueError, NameError):
            continue
        valid.append(node_type)
    patterns = "[" + " ".join(f"({t})" for t in valid) + "] @d" if valid else ""
    if language in _TEST_CALL_NODES:
        # only the calls a test runner's words make: a pattern for every call would
        # hand the walk each call of the file
        node_type, field = _TEST_CALL_NODES[language]
        words = " ".join(f'"{w}"' for w in sorted(set().union(*_BLOCK_TESTS[language])))
        patterns += f" (({node_type} {field}: (identifier) @w) @d (#any-of? @w {words}))"
    return tree_sitter.Query(grammar, patterns) if patterns else None


def _candidates(language: str, root: tree_sitter.Node) -> list[tree_sitter.Node]:
    """Candidate nodes in document order, outer before inner at the same start."""
    query = _query(language)
    if query is None:
        return []
    found = tree_sitter.QueryCursor(query).captures(root).get("d", [])
    unique = {(n.start_byte, n.end_byte, n.type): n for n in found}
    return [unique[k] for k in sorted(unique, key=lambda k: (k[0], -k[1]))]


def _inside(node: tree_sitter.Node, ancestor_type: str) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == ancestor_type:
            return True
        parent = parent.parent
    return False


#: Statement words no definition can be named in these languages. A preprocessor line
#: between `}` and `else if (..) {` (`#if HAVE_X`, common in C, C++ and C#) makes the
#: parser read `if (..) { .. }` as a function named `if`.
_STATEMENT_WORDS = frozenset(
    {"if", "else", "for", "while", "do", "switch", "case", "catch", "return", "sizeof"}
)
_RESERVED_IN = frozenset({"c", "cpp", "csharp", "java"})


def _key(node: tree_sitter.Node) -> tuple[int, int, str]:
    return (node.start_byte, node.end_byte, node.type)


def _take_inner(
    consumed: set[tuple[int, int, str]], node: tree_sitter.Node, inner: tree_sitter.Node
) -> None:
    """A wrapper's inner node (``export function f``'s function) is its definition's
    node: marked taken, so the walk does not meet it again as a definition of its own."""
    if inner is not node:
        consumed.add(_key(inner))


def _overload_stub(node: tree_sitter.Node) -> bool:
    """A Python ``@overload`` signature (``@typing.overload``, ``@t.overload``): a type
    checker's view of the function, not its code, which the definition after it holds."""
    if node.type != "decorated_definition":
        return False
    return any(
        child.type == "decorator" and _text(child).rstrip().endswith("overload")
        for child in node.children
    )


def _trivial(lines: list[str]) -> bool:
    """Closing braces and `end` keywords alone are not worth a chunk."""
    content = "".join(line.strip() for line in lines)
    return len(content) <= 3 or content in ("end", "endend", "}end")


def treesitter_chunks(
    parser: tree_sitter.Parser, language: str, text: str
) -> tuple[list[Chunk], list[Definition]]:
    """Chunks and the full list of definitions of one file.

    A grammar that meets a unit it cannot read (a file mid-edit, syntax newer than the
    grammar) may read everything after it as an error, or inside the unit that never
    closed, and the file's later definitions are lost or misplaced. The file is then
    read again with the broken units blanked (``_isolated``). That reading is kept when
    it finds more definitions outside the blanked lines, or more of them in place
    rather than inside a unit that never closed (``_placed``); the definitions the first
    reading found in the blanked lines are kept too, cut to their unit (the file
    mid-edit still has them). Where the grammar only skipped a construct (a macro in C)
    the first reading had them all, and it stays."""
    source = parser_source(language, text)
    tree = parse(parser, source)
    lines = text.split("\n")
    chunker = _Chunker(language, lines)
    chunks = chunker.chunks(tree.root_node)
    definitions = [d for d in chunker.definitions if d.name]
    single = language if language in _SINGLE_QUOTED_SPAN else None
    if tree.root_node.has_error and REPAIRS and _worth_reading_again(tree, lines, single):
        repaired = _isolated(parser, source, tree, lines, single)
        if repaired is not None:
            again, units, bodies = repaired
            chunker = _Chunker(language, lines)
            found = chunker.chunks(again.root_node)
            named = [d for d in chunker.definitions if d.name]
            for body in bodies:  # a unit whose header was blanked
                found, named = _members_of(lines, body, found, named, definitions)
            # as many placed: the reading with fewer errors left outside the blanked units
            if (*_placed(named, units, bodies), -_damage(again.root_node)) > (
                *_placed(definitions, units, bodies),
                -_damage(tree.root_node, skip=units),
            ):
                # (not one the second reading found too: a class whose header it
                # wrote whole)
                again_found = {(d.name, d.start_line) for d in named}
                kept = [
                    replace(d, end_line=min(d.end_line, end))
                    for d in definitions
                    for start, end in units
                    if start < d.start_line <= end and (d.name, d.start_line) not in again_found
                ]
                chunks = found
                definitions = sorted(named + kept, key=lambda d: d.start_line)
    # a chunk answers for every definition that starts inside it, but a function's inner
    # functions (``local``) do not name the chunk holding them
    named = [d for d in definitions if not d.local]
    for chunk in chunks:
        for d in named:
            if chunk.start_line <= d.start_line <= chunk.end_line and d.name not in chunk.symbols:
                chunk.symbols.append(d.name)
    return chunks, definitions


def _members_of(
    lines: list[str],
    body: tuple[int, int, int],
    chunks: list[Chunk],
    definitions: list[Definition],
    first_reading: list[Definition],
) -> tuple[list[Chunk], list[Definition]]:
    """The chunks and definitions of a unit whose header was blanked (``body``: its
    header's row, and its rows [start, end)) made its members again: the grammar read
    them as free functions. Those at its members' indentation take the name the first
    reading gave the unit (a definition starting on its header or the attribute lines
    above it, not one around it), else the one its header line gives (``class Me``, cut
    mid-name)."""
    header, first, last = body
    top = header
    while top and _ATTRIBUTE.match(lines[top - 1].lstrip()):
        top -= 1
    owner, kind = next(
        (
            (d.name, d.kind)
            for d in first_reading
            if top <= d.start_line - 1 <= header < d.end_line
            and d.kind in _CLASS_KINDS | {"module"}
        ),
        (None, None),
    )
    if owner is None and (named := _HEADER_NAME.search(lines[header])) is not None:
        owner, kind = named.group(2), named.group(1)
    elif owner is None and (cut := _HEADER_CUT.match(lines[header])) and cut.group("const"):
        owner, kind = cut.group("const"), "struct"  # (Zig's ``const Builde``)
    # a module's functions stay functions (Elixir, C++ namespaces), as in a whole file
    method = kind not in _MODULE_WORDS
    margin = _margin(lines[header])
    level = _next_level([_indent(line) for line in lines], margin, range(first, last))
    if owner is None or level is None:
        return chunks, definitions

    # a class just above at the header's indentation that read on into the body, once
    # the header was blanked (Python: the body's indentation goes on with its own)

    def swallowing(d: Definition) -> bool:
        return (
            d.start_line - 1 < top
            and d.end_line - 1 >= first
            and d.kind in _CLASS_KINDS
            and _margin(lines[d.start_line - 1]) == margin
        )

    swallowed = {d.name for d in definitions if swallowing(d)}

    def member(item: Chunk | Definition) -> bool:
        row = item.start_line - 1
        return (
            first <= row < last
            and (not item.parent or item.parent in swallowed)
            and _margin(lines[row]) == level
        )

    for chunk in chunks:
        if member(chunk):
            chunk.parent = owner
            chunk.kind = "method" if method and chunk.kind == "function" else chunk.kind
    # (the class that read on ends above the header)
    above = next((i + 1 for i in range(top - 1, -1, -1) if lines[i].strip()), top)
    definitions = [
        replace(d, parent=owner, kind="method" if method and d.kind == "function" else d.kind)
        if member(d)
        else replace(d, end_line=above)
        if swallowing(d)
        else d
        for d in definitions
    ]
    return chunks, definitions


def _margin(line: str) -> int:
    """A line's indentation, whatever it holds (a tab as four)."""
    head = line[: len(line) - len(line.lstrip())]
    return len(head) + 3 * head.count("\t")


#: The kinds and header words of units whose functions are no methods.
_MODULE_WORDS = frozenset({"module", "defmodule", "namespace"})
#: A class or module's header line (after its modifiers), and the name it gives
#: (Rust's impl: the type).
_HEADER_NAME = re.compile(
    r"^\s*(?:[\w@()\[\]]+\s+)*?(class|struct|interface|enum|trait|object|protocol|extension"
    r"|module|record|namespace|actor|defmodule|impl(?:\s*<[^>]*>)?(?:\s+[\w:<>, ]+?\s+for)?)"
    r"\s+(?!(?:class|struct|interface|object)\b)(`[^`]+`|[A-Za-z_][\w.]*)"
)


#: The words a class or module's header line starts with, and its modifiers.
_HEADER_WORDS = (
    *("class", "struct", "interface", "enum", "trait", "object", "protocol", "extension"),
    *("module", "record", "namespace", "actor", "defmodule", "impl", "union"),
    *("public", "private", "protected", "internal", "fileprivate", "static", "final"),
    *("abstract", "sealed", "open", "data", "inner", "partial", "export", "default"),
    *("pub", "unsafe", "readonly"),
)
#: A header cut short before its name (``public clas``, ``enum class``, C++'s
#: ``namespac``), or Zig's ``const Builde`` (``= struct {`` cut off): its words, the
#: last maybe cut, and nothing after them; Zig's name as ``const``.
_HEADER_CUT = re.compile(
    r"^\s*(?:(?:(?:{words})\s+)*(?:{cuts})|(?:pub\s+)?const\s+(?P<const>[A-Za-z_]\w*)"
    r"(?:\s*=\s*[a-z]*)?)\s*$".format(
        words="|".join(_HEADER_WORDS),
        cuts="|".join(sorted({w[:n] for w in _HEADER_WORDS for n in range(1, len(w) + 1)})),
    )
)


def _header_line(line: str) -> bool:
    """Whether a line is a class or module's header, whole or cut short."""
    return bool(_HEADER_NAME.search(line) or _HEADER_CUT.match(line))


def _worth_reading_again(tree: tree_sitter.Tree, lines: list[str], single: str | None) -> bool:
    """Whether a parse's errors may have cost definitions: an error holds a good part
    of the file, a bracket had to be assumed, the file's brackets do not balance, the
    first error comes after a line that opens a string it does not close (every later
    string turned inside out), or it is on a class's header, the line after it or an
    attribute line above it (its members read into the error, or as free functions).
    A construct the grammar merely skipped (a macro in C++ or Rust) leaves none of
    these, and costs no second reading."""
    count = len(lines)
    if sum(_bracket_deltas(tree, count)):
        return True
    first = min(_first_error_row(tree.root_node, 0) or 0, count - 1)
    opened = _open_string(lines, 0, single)
    above = next((i for i in range(first - 1, -1, -1) if lines[i].strip()), first)
    # (an error on a decorator or attribute line: the header is the line below it)
    below = next((i for i in range(first, count) if not _ATTRIBUTE.match(lines[i].lstrip())), first)
    if (opened and first >= opened[0]) or any(
        _header_line(lines[i]) for i in (above, first, below)
    ):
        return True
    least = min(50, max(3, count // 4))
    return any(
        _missing(node) or node.end_point.row - node.start_point.row + 1 >= least
        for node in _error_nodes(tree.root_node, into_errors=True)
    )


def _error_nodes(root: tree_sitter.Node, into_errors: bool) -> Iterator[tree_sitter.Node]:
    """Each error or missing node of a parse (the root too); those inside an error only
    with ``into_errors``."""
    stack = [root]
    while stack:
        node = stack.pop()
        error = node.type == "ERROR"
        if error or _missing(node):
            yield node
            if error and not into_errors:
                continue
        stack.extend(child for child in node.children if child.has_error or child.is_missing)


def _placed(
    definitions: list[Definition],
    units: list[tuple[int, int]],
    bodies: Sequence[tuple[int, int, int]] = (),
) -> tuple[int, int, int]:
    """How many definitions start outside the blanked units, how many of those are not
    inside a function (``local``: a method the unit before it took in is local), and
    how many sit in a class or module (a method the grammar read as a free function
    after its class broke has none). Those in the ``bodies`` of units whose header was
    blanked count only there: read free, a Kotlin property is a definition of its
    own, and in its class it is none."""

    def within(d: Definition, spans: Iterable[tuple[int, int]]) -> bool:
        return any(s < d.start_line <= e for s, e in spans)

    outside = [d for d in definitions if not within(d, units)]
    free = [d for d in outside if not within(d, ((s, e) for _, s, e in bodies))]
    return len(free), sum(not d.local for d in free), sum(bool(d.parent) for d in outside)


#: How many broken units a file may have blanked, and how many parses it may take
#: to find them (one per unit tried).
REPAIRS = 8
REPAIR_PARSES = 24
#: How many bytes a file the grammar read whole as one error may have parsed to find
#: them (at least 4 parses): each of its trials reads it all (0.07 s for 150 kB of shell).
REPAIR_FRESH_BYTES = 1_000_000


def _isolated(
    parser: tree_sitter.Parser,
    source: bytes,
    tree: tree_sitter.Tree,
    shape: list[str],
    single: str | None = None,
) -> tuple[tree_sitter.Tree, list[tuple[int, int]], list[tuple[int, int, int]]] | None:
    """The parse of ``source`` with its broken units blanked, one at a time in order,
    while each blanking also clears errors outside its unit (``_damage``). Suspects at
    each step: the units holding the first error and the sibling before one that opens
    there (``_suspects``: a method that lost its closing brace takes in the next one,
    where the grammar stumbles), the unit before the first line deeper in brackets than
    its indentation says (``_unclosed``), the units holding a line that opens a string
    it does not close (``_open_string``). The unit taken is narrowed to the member that
    broke it (``_Blanking.narrowed``), and so is the unit opening at the first error,
    which the grammar may have read as one error. The new parse and the rows
    [start, end) of each unit blanked; None when no blanking helped. Units are found in
    ``shape``, the file's own lines: the parser's copy may have blanked a unit's first
    line (Rust's ``cfg_rt! {``)."""
    blanking = _Blanking(parser, source, tree, shape)
    lines, indents = blanking.shape, blanking.indents
    after = 0  # errors before this row sit in units already blanked or left as they are
    units: list[tuple[int, int]] = []
    bodies: list[tuple[int, int, int]] = []  # (header, rows [start, end)) of headers taken
    headers: dict[tuple[int, int], tuple[int, int, int]] = {}  # their rows -> body
    for _ in range(REPAIRS):
        row = _first_error_row(blanking.tree.root_node, after)
        if row is None:
            break
        best: _Trial | None = None
        suspects = _suspects(lines, indents, row)
        suspects += _unclosed(lines, indents, after, blanking.tree)
        for opened in _open_string(lines, after, single):
            suspects += _holding(lines, indents, opened)
        for start, end in dict.fromkeys(_headed(lines, indents, *u) for u in suspects):
            trial = blanking.tried(max(start, after), end)
            if trial is not None and (best is None or trial.rank < best.rank):
                best = trial  # the least damage left, by the fewest lines
        # the member that broke the unit blanked; and the unit opening where the error
        # starts, which the grammar may have read as one error, whose blanking then
        # cleared nothing outside it
        if best is not None:
            best = blanking.narrowed(best.unit, best)
        if (best is None or best.unit[0] != row) and (
            opening := _opening(lines, indents, row)
        ) is not None:
            found = blanking.narrowed(opening, best, better=True)
            if best is None or (found is not None and found.cost < best.cost):
                best = found
        # a unit whose own header broke (its name cut, its brace gone): its header
        # written whole, or blanked with its closing line, so its members are read
        for start, end in _headers_at(lines, indents, row):
            header = _header(lines, indents, max(start, after), end)
            flat = header is None and start >= after
            if flat:
                header = _flat_header(lines, start, blanking.deltas)
            if (
                header is None
                or not _header_line(lines[header[0]])  # (not a function's)
                # (a flat header's members lie after it: the grammar reads on into them)
                or (not flat and _header_read(blanking.tree.root_node, lines, header, end))
            ):
                continue
            first, stop, closing = header
            head = max(_head(lines, indents, first), after)  # (with its attributes)
            headers[head, stop] = (first, stop, end if closing is None else closing)
            trial = blanking.header_repaired(head, stop, first, closing)
            # as few errors left as another unit's blanking: only when that one
            # blanked the header or the closing line too, with more (the whole class,
            # or its last member)
            if trial is not None and (
                best is None
                or trial.hurt < best.hurt
                or (
                    trial.hurt == best.hurt
                    and any(
                        at is not None and best.unit[0] <= at < best.unit[1]
                        for at in (first, closing)
                    )
                )
            ):
                best = trial
        if best is None:
            break
        if best.header:
            bodies.append(headers[best.unit])
        blanking.take(best)  # (blanks its rows in ``lines`` too: the same list)
        units.append(best.unit)
        after = best.unit[1]
    return (blanking.tree, units, bodies) if units else None


@dataclass
class _Trial:
    """One unit blanked: the rows [start, end), the new parse and its text's lines, and
    the errors left (``_damage``); for a unit's ``header``, the row of its closing line
    blanked too, if it was."""

    unit: tuple[int, int]
    tree: tree_sitter.Tree
    lines: list[str]
    hurt: int
    closing: int | None = None
    header: bool = False

    @property
    def rank(self) -> tuple[int, int]:
        return self.hurt, self.unit[1] - self.unit[0]

    @property
    def cost(self) -> int:
        """Rows lost to the reading: those in error and those blanked."""
        return self.hurt + self.unit[1] - self.unit[0]


class _Blanking:
    """A file's text and parse while its broken units are blanked, counting the parses
    (``REPAIR_PARSES``, and ``REPAIR_FRESH_BYTES`` while the file is one error)."""

    def __init__(
        self, parser: tree_sitter.Parser, source: bytes, tree: tree_sitter.Tree, shape: list[str]
    ):
        self.parser = parser
        self.tree = tree
        self.lines = source.decode("utf-8").split("\n")  # the parser's copy
        self.shape = list(shape)  # the file's own lines, where units are found
        self.indents = [_indent(line) for line in self.shape]
        # where each row starts, in bytes: blanking keeps every line's length
        self.offsets = list(
            itertools.accumulate((len(line.encode("utf-8")) + 1 for line in self.lines), initial=0)
        )
        self.parses = 0
        self.fresh = max(4, REPAIR_FRESH_BYTES // max(1, len(source)))  # whole parses left
        # trials on this text, by rows, closing row, header and the row written whole
        self.seen: dict[tuple[int, int, int | None, bool, int | None], _Trial | None] = {}
        self._deltas: list[int] | None = None

    def deltas(self) -> list[int]:
        """Per row, the brackets the parse's tokens open less those they close (once
        per parse: the query walks the whole tree)."""
        if self._deltas is None:
            self._deltas = _bracket_deltas(self.tree, len(self.lines))
        return self._deltas

    def tried(
        self,
        first: int,
        last: int,
        closing: int | None = None,
        header: bool = False,
        opener: int | None = None,
    ) -> _Trial | None:
        """The parse with rows [first, last) blanked (and the row ``closing``), when
        that clears errors outside them: blanking a unit clears the errors in it whether
        or not it was the broken one (a macro the grammar skipped). A unit's ``header``
        may instead clear every error: the grammar read its members as free functions,
        and only its header and closing line were in error; its row ``opener`` is then
        written as a whole header (``_rebraced``) rather than blanked. None otherwise,
        or past the budget."""
        key = (first, last, closing, header, opener)
        if key in self.seen:  # (halving ends on a unit it has tried)
            return self.seen[key]
        if first >= last or self.parses == REPAIR_PARSES:
            return None
        written = None
        if opener is not None:
            below = self.lines[last] if last < len(self.lines) else None
            if (written := _rebraced(self.lines[opener], below)) is None:
                return None
        self.parses += 1
        self.seen[key] = trial = self._blanked(first, last, closing, header, opener, written)
        return trial

    def header_repaired(
        self, first: int, last: int, named: int, closing: int | None
    ) -> _Trial | None:
        """The unit's header, rows [first, last) with its name on row ``named``,
        written whole where its body is in braces (a method read free is no definition
        in JavaScript), else, or if that leaves errors, blanked with its ``closing``
        line: the reading with fewer errors."""
        trial = None
        if closing is not None and self.shape[closing].lstrip().startswith("}"):
            trial = self.tried(first, last, header=True, opener=named)
        if trial is None or trial.hurt:
            blanked = self.tried(first, last, closing, header=True)
            if blanked is not None and (trial is None or blanked.hurt < trial.hurt):
                trial = blanked
        return trial

    def _blanked(
        self,
        first: int,
        last: int,
        closing: int | None,
        header: bool,
        opener: int | None,
        written: tuple[str, str | None] | None,
    ) -> _Trial | None:
        """``tried``, each time it parses; ``written``: the header's line ``opener``
        and the line below it, as ``_rebraced`` writes them."""
        spans = [(first, last)] if closing is None else [(first, last), (closing, closing + 1)]
        lines = [
            " " * len(line.encode("utf-8")) if any(a <= i < b for a, b in spans) else line
            for i, line in enumerate(self.lines)
        ]
        if opener is not None and written is not None:
            lines[opener], below = written
            if below is not None:  # (the brace on the first member's line)
                lines[last] = below
                spans = [(first, last + 1)]
        edited = None
        if self.tree.root_node.type == "ERROR":  # (reused, such a root stays one)
            if not self.fresh:
                return None
            self.fresh -= 1  # read from scratch
        else:
            edited = self.tree.copy()  # the parser reads again only around the blanked rows
            for a, b in spans:
                at, end = self.offsets[a], self.offsets[b]
                edited.edit(at, end, end, (a, 0), (b, 0), (b, 0))
        try:
            again = parse(self.parser, "\n".join(lines).encode("utf-8"), old_tree=edited)
        except ValueError:  # too long: the readings so far stand
            self.parses = REPAIR_PARSES
            return None
        hurt = _damage(again.root_node)
        if hurt >= _damage(self.tree.root_node, skip=spans) and (hurt or not header):
            return None
        return _Trial((first, last), again, lines, hurt, closing, header)

    def narrowed(
        self, unit: tuple[int, int], best: _Trial | None, better: bool = False
    ) -> _Trial | None:
        """The member of ``unit`` whose blanking alone leaves as few errors as ``best``
        (fewer, if ``better``: ``best`` blanks another unit), found by halving (a class
        the grammar read as one error since one method broke), and again within that
        member; ``best`` when no single member does."""
        while True:
            bound = len(self.lines) if best is None else best.hurt - better
            members = _members(self.shape, self.indents, *unit)
            while len(members) > 1:
                half = members[: len(members) // 2]
                trial = self.tried(half[0][0], half[-1][1])
                if trial is None and self.parses == REPAIR_PARSES:
                    return best
                kept = trial is not None and trial.hurt <= bound
                members = half if kept else members[len(half) :]
            trial = self.tried(*members[0]) if members else None
            if trial is None or trial.hurt > bound:
                return best
            best, unit, better = trial, trial.unit, False

    def take(self, trial: _Trial) -> None:
        """Go on from the text and parse of ``trial``."""
        self.tree, self.lines = trial.tree, trial.lines
        self._deltas = None
        first, last = trial.unit
        self.shape[first:last] = [""] * (last - first)
        if trial.closing is not None:
            self.shape[trial.closing] = ""
        self.seen.clear()


def _headers_at(lines: list[str], indents: list[int | None], row: int) -> list[tuple[int, int]]:
    """The units whose header may hold the first error at ``row``: those holding it,
    the one opening on one of the two lines above (a C++ namespace whose members are
    not indented), and the unit below when the row is an attribute of it (Swift's
    ``@Suite("..")`` above a struct whose header broke, where the grammar gives up)."""
    units = _holding(lines, indents, row)
    above = itertools.islice((i for i in range(row - 1, -1, -1) if indents[i] is not None), 2)
    for i in above:  # (a namespace not indenting, with a macro line below it)
        if _header_line(lines[i]) and (unit := _opening(lines, indents, i)) is not None:
            units.append(unit)
            break
    if _ATTRIBUTE.match(lines[row].lstrip()):
        below = next(
            (
                i
                for i in range(row + 1, len(lines))
                if indents[i] is not None and not _ATTRIBUTE.match(lines[i].lstrip())
            ),
            None,
        )
        if below is not None and (opening := _opening(lines, indents, below)) is not None:
            units.append(opening)
    return units


def _header(
    lines: list[str], indents: list[int | None], start: int, end: int
) -> tuple[int, int, int | None] | None:
    """The header of the unit of rows [start, end) that holds members, as rows
    [start, stop) and the row of its closing line, the first after them at its
    indentation that only closes (None without one, as in Python): its first line,
    and the lines at its indentation that go on with it before the first member
    (Kotlin's ``) : Closeable {`` after the constructor's parameters). None for a
    unit without members."""
    level = indents[start]
    if level is None or _next_level(indents, level, range(start + 1, end)) is None:
        return None
    stop = start + 1
    at_level = [i for i in range(start + 1, end) if indents[i] == level]
    if at_level and not _opens(lines[at_level[0]]) and not _CLOSES.match(lines[at_level[0]]):
        stop = at_level[0] + 1  # (rows deeper than the first line come before it)
        # and its supertypes may go on below it, to the brace (``) : Plan,`` over
        # ``  Carrier {``)
        brace = (i for i in range(stop - 1, min(end, stop + 3)) if lines[i].rstrip().endswith("{"))
        stop = next(brace, stop - 1) + 1
    # its closing line: the first at its indentation that closes (the unit may run on,
    # in a namespace that does not indent its contents)
    closing = next((i for i in at_level if i >= stop and _CLOSES.match(lines[i])), None)
    return start, stop, closing


def _flat_header(
    lines: list[str], start: int, bracket_deltas: Callable[[], list[int]]
) -> tuple[int, int, int | None] | None:
    """The header of a unit whose members are not indented (a C++ namespace) whose
    brace was cut off with its name: its first line, and its closing line, the first at
    its indentation where the brackets after it close one more than they opened
    (``bracket_deltas``: per row, of the parse)."""
    if not _header_line(lines[start]) or "{" in lines[start]:
        return None
    margin, depth = _margin(lines[start]), 0
    deltas = bracket_deltas()
    for row in range(start + 1, len(lines)):
        depth += deltas[row]
        if depth < 0:
            closes = _margin(lines[row]) == margin and _CLOSES.match(lines[row])
            return (start, start + 1, row) if closes else None
    return None


def _closed(node: tree_sitter.Node) -> bool:
    """Whether a node ends on a token of the file, not on one the grammar assumed."""
    while node.child_count:
        node = node.children[-1]
    return not node.is_missing


def _rebraced(line: str, below: str | None) -> tuple[str, str | None] | None:
    """A class's header line written whole, as long as it was: its modifiers, keyword
    and name, then its opening brace (``export class TestRunner imp`` -> ``export class
    TestRunner   {``), without the modifiers where they leave no room; where neither
    leaves room, the brace takes the first column of the line ``below`` (the first
    member's, indented: ``class Ch`` over ``{ public:``). The two lines, the second
    None when unchanged; None when the line names no class or nothing has room."""
    named = _HEADER_NAME.search(line)
    if named is None:
        return None
    size = len(line.encode("utf-8"))
    indent = line[: len(line) - len(line.lstrip())]
    # with its modifiers, else without them (``export class V`` -> ``class V  {``)
    for prefix in (named.group(0), f"{indent}{named.group(1)} {named.group(2)}"):
        room = size - len(prefix.encode("utf-8")) - 1
        if room >= 1:
            return prefix + " " * room + "{", None
    if below is None or below[:1] not in (" ", "\t"):
        return None
    prefix = named.group(0)
    return prefix + " " * (size - len(prefix.encode("utf-8"))), "{" + below[1:]


def _header_read(
    root: tree_sitter.Node, lines: list[str], header: tuple[int, int, int | None], end: int
) -> bool:
    """Whether the grammar read a unit's header (rows [first, stop), its closing line,
    the unit's end) whole: a node other than an error starts on its first line and
    goes on to its closing line or last row (Rust's ``impl Sign`` cut short reads on
    to the first ``;``), and no error starts on its lines or the line after (a Python
    class header without its colon)."""
    first, stop, closing = header
    last = end - 1 if closing is None else closing
    line = lines[first]
    column = len(line.encode("utf-8")) - len(line.lstrip().encode("utf-8"))
    node: tree_sitter.Node | None = root.descendant_for_point_range(
        (first, column), (first, column + 1)
    )
    while node is not None and node.parent is not None and node.start_point.row == first:
        if node.type != "ERROR" and (
            node.end_point.row >= last or (node.end_point.row >= stop and _closed(node))
        ):
            stack = [node]
            while stack:
                at = stack.pop()
                if (at.type == "ERROR" or _missing(at)) and first <= at.start_point.row <= stop:
                    return False
                stack.extend(
                    child
                    for child in at.children
                    if (child.has_error or child.is_missing)
                    and child.start_point.row <= stop
                    and child.end_point.row >= first
                )
            return True
        node = node.parent
    return False


#: A line that only closes a unit: brackets (and a separator), or ``end``.
_CLOSES = re.compile(r"\s*(?:[)\]}]+[;,]?|end)\s*(?:(?://|#).*)?$")


def _opening(lines: list[str], indents: list[int | None], row: int) -> tuple[int, int] | None:
    """The outermost unit whose first line is ``row``, if one is."""
    return next(
        ((start, end) for start, end, _ in _units(lines, indents, row) if start == row), None
    )


def _members(
    lines: list[str], indents: list[int | None], start: int, end: int
) -> list[tuple[int, int]]:
    """The units at the next indentation inside the unit of rows [start, end), as rows
    [start, end) each: a class's methods, a function's statements."""
    level = indents[start]
    deeper = None if level is None else _next_level(indents, level, range(start + 1, end))
    if deeper is None:
        return []
    members: list[tuple[int, int]] = []
    opened = None
    for i in range(start + 1, end):
        indent = indents[i]
        if indent is None or indent > deeper or (indent == deeper and not _opens(lines[i])):
            continue  # inside a member, or going on with it (its closing brace)
        if opened is not None:
            members.append((opened, i))
            opened = None
        if indent == deeper:
            opened = i
    if opened is not None:
        members.append((opened, end))
    return [_headed(lines, indents, *member) for member in members]


def _headed(lines: list[str], indents: list[int | None], start: int, end: int) -> tuple[int, int]:
    """Rows [start, end) of a unit widened to the attributes right above its first line
    (``@Test``, ``[Fact]``, ``#[test]``), which the grammar reads as part of it, and so
    narrowed by those of the unit after it: a method blanked without its attribute
    leaves the attribute to the next method."""
    last = _head(lines, indents, end)
    return _head(lines, indents, start), last if last > start else end


def _head(lines: list[str], indents: list[int | None], row: int) -> int:
    """The first of the attribute lines right above ``row``, at its indentation."""
    if row >= len(lines):
        return row
    while (
        row > 0
        and indents[row - 1] in (indents[row], None)
        and _ATTRIBUTE.match(lines[row - 1].lstrip())
    ):
        row -= 1
    return row


#: A line of attributes or annotations: ``@Test``, ``@app.get("/")``, ``[Fact]``,
#: ``#[derive(Debug)]``, or a C++ template's parameters.
_ATTRIBUTE = re.compile(r"@[A-Za-z_]|\[[A-Z]|#!?\[|template\s*<")


def _missing(node: tree_sitter.Node) -> bool:
    """A token the grammar had to assume: a missing node, or a node holding one hidden
    from its children (C#'s ``(identifier (MISSING _identifier_token))``, the name of
    a class header cut to ``internal static cl``)."""
    return node.is_missing or (
        node.has_error
        and node.type != "ERROR"
        and not any(child.has_error or child.is_missing for child in node.children)
    )


def _damage(root: tree_sitter.Node, skip: Sequence[tuple[int, int]] = ()) -> int:
    """How much of a parse is in error: the rows of its outermost errors, and one for
    each token the grammar had to assume (a missing ``}``); rows [start, end) of the
    units in ``skip`` (apart from each other) do not count."""
    total = 0
    for node in _error_nodes(root, into_errors=False):  # (the outermost: rows count once)
        first, last = node.start_point.row, node.end_point.row
        if node.type != "ERROR":  # (missing)
            total += not any(start <= first < end for start, end in skip)
        else:
            overlap = sum(max(0, min(last + 1, end) - max(first, start)) for start, end in skip)
            total += last - first + 1 - overlap
    return total


def _suspects(lines: list[str], indents: list[int | None], row: int) -> list[tuple[int, int]]:
    """Units that may have broken, given the first error at ``row``: each unit that
    holds it, from the top level to the innermost (a statement of a method of a class),
    and the sibling before a unit whose first line the error is on; first of all the
    line itself when it is a preprocessor line (``#ifndef`` around a whole C file that
    broke) or an attribute (``_holding``)."""
    suspects = []
    for start, end in _holding(lines, indents, row):
        suspects.append((start, end))
        # the error on its first line, or on its first member's (an impl whose first
        # method is where the grammar gave up on the impl before it)
        opening = start == row or not any(
            indents[i] is not None and _opens(lines[i]) for i in range(start + 1, row)
        )
        before = _sibling_before(lines, indents, start) if opening else None
        if before is not None:
            suspects.append((before, start))
    return suspects


def _holding(lines: list[str], indents: list[int | None], row: int) -> list[tuple[int, int]]:
    """The units holding ``row``, outermost first (``_units``), after the line itself
    when it says nothing of the nesting (a preprocessor line, an attribute)."""
    units = [(start, end) for start, end, _ in _units(lines, indents, row)]
    return [(row, row + 1), *units] if indents[row] is None and lines[row].strip() else units


def _sibling_before(
    lines: list[str], indents: list[int | None], row: int, low: int = 0
) -> int | None:
    """Where the unit before the one opening at ``row`` opens, at the same indentation;
    None when the parent's own lines (or ``low``) come first."""
    level = indents[row]
    if level is None:
        return None
    for i in range(row - 1, low - 1, -1):
        indent = indents[i]
        if indent is None or indent > level:
            continue
        if indent < level:
            return None
        if _opens(lines[i]):
            return i
    return None


def _indent(line: str) -> int | None:
    """A line's indentation (a tab as four); None for a blank line, or one that says
    nothing of the nesting: a comment or a preprocessor line (``#if`` at the margin
    inside a C# class)."""
    stripped = line.lstrip()
    if not stripped or stripped.startswith(("#", "//")):
        return None
    return _margin(line)


def _unclosed(
    lines: list[str], indents: list[int | None], after: int, tree: tree_sitter.Tree
) -> list[tuple[int, int]]:
    """The unit before the first line, from ``after`` on, that sits deeper in brackets
    than the lines at its indentation before it: that unit left a bracket open (its
    closing brace deleted), so the grammar reads the rest of the file inside it and may
    report the error only where the file ends, or at the class around it. Brackets are
    the parse's own tokens, so those in strings, comments and character literals do
    not count, and an interpolation's opening token does (Swift's ``\\(``, closed by ``)``)."""
    deltas = _bracket_deltas(tree, len(lines), interpolations=True)
    depth = 0
    at_indent: dict[int, int] = {}  # indentation -> bracket depth of its lines so far
    for i in range(after, len(lines)):
        indent = indents[i]
        if indent is None:  # (a preprocessor line or an attribute may hold brackets)
            depth += deltas[i]
            continue
        for deeper in [k for k in at_indent if k > indent]:
            del at_indent[deeper]
        # (a closing line sits deeper than its indentation says, and so does a switch's
        # label at the switch's own indentation: Go, Swift, C)
        if _opens(lines[i]) and not _LABEL.match(lines[i].lstrip()):
            if at_indent.get(indent, depth) < depth:
                before = _sibling_before(lines, indents, i, after)
                return [(before, i)] if before is not None else []
            at_indent.setdefault(indent, depth)
        depth += deltas[i]
    return []


#: A switch's label on its own line (``case .some(let x):``, ``default:``).
_LABEL = re.compile(r"(?:case\b.*|default\s*):\s*(?://.*)?$")


def _bracket_deltas(tree: tree_sitter.Tree, count: int, interpolations: bool = False) -> list[int]:
    """Per row, the brackets its tokens open less those they close (a bracket the
    grammar had to assume is no token of the file); with ``interpolations``, a
    string's interpolation opens one too. Found by a query: the walk runs in C."""
    deltas = [0] * count
    query = _bracket_query(tree.language, interpolations)
    if query is None:
        return deltas
    for node in tree_sitter.QueryCursor(query).captures(tree.root_node).get("b", []):
        if not node.is_missing and node.start_point.row < count:
            deltas[node.start_point.row] += _BRACKETS.get(node.type, 1)
    return deltas


@cache
def _bracket_query(grammar: tree_sitter.Language, interpolations: bool) -> tree_sitter.Query | None:
    """A query for the grammar's bracket tokens (those it has)."""
    kinds = [*_BRACKETS, *(_INTERPOLATIONS if interpolations else ())]
    tokens = [token for token in kinds if grammar.id_for_node_kind(token, False)]
    if not tokens:
        return None
    quoted = (token.replace("\\", "\\\\") for token in tokens)  # (a query string's escapes)
    try:
        return tree_sitter.Query(grammar, "[" + " ".join(f'"{t}"' for t in quoted) + "] @b")
    except (tree_sitter.QueryError, ValueError, NameError):
        return None


_BRACKETS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}
#: The tokens that open a string's interpolation (Swift's ``\(``, ``${``, ``#{``,
#: shell's ``$(``), closed by a plain bracket.
_INTERPOLATIONS = ("\\(", "${", "#{", "$(")


def _open_string(lines: list[str], after: int, single: str | None = None) -> list[int]:
    """The first line from ``after`` on that opens a string it does not close: an odd
    number of double quotes, none of them tripled; and with ``single`` (the language)
    the first that leaves a single-quoted string open, and in Ruby and Elixir the first
    that leaves a bracketed literal open (``%w(``, ``%r{``, ``~r/``). In a language
    whose strings span lines, the grammar reads on from there with every later string
    turned inside out, and reports the error wherever that stops fitting, or at the
    class around it."""
    leaves_open = [_leaves_double_open]
    if single is not None:
        leaves_open.append(lambda line: _leaves_single_open(line, single))
    if single in _PERCENT_LITERAL:
        leaves_open.append(lambda line: _leaves_literal_open(line, _PERCENT_LITERAL[single]))
    rows = range(after, len(lines))
    found = (next((i for i in rows if open_(lines[i])), None) for open_ in leaves_open)
    return sorted({i for i in found if i is not None})


def _leaves_literal_open(line: str, opener: re.Pattern[str]) -> bool:
    """Whether a bracketed literal (Ruby's ``%w(``, Elixir's ``~r{``) opened on the
    line, outside a comment, is not closed there: its bracket nests, so the literal
    ends at its partner."""
    if line.lstrip().startswith("#"):
        return False
    for found in opener.finditer(line):
        bracket = found.group(1)
        close = _PARTNER.get(bracket, bracket)
        depth, i = 1, found.end()
        while i < len(line) and depth:
            if line[i] == "\\":
                i += 1
            elif line[i] == close:
                depth -= 1
            elif line[i] == bracket and close != bracket:
                depth += 1
            i += 1
        if depth:
            return True
    return False


#: The brackets that close a literal's opening one.
_PARTNER = {"(": ")", "[": "]", "{": "}", "<": ">"}
#: Literals whose content may span lines, by language: Ruby's ``%w(..)``, ``%r{..}``,
#: ``%q[..]``, and Elixir's sigils (``~r/../``, ``~w(..)``, ``~S|..|``).
_PERCENT_LITERAL = {
    "ruby": re.compile(r"(?<![\w)\]}])%[qQwWiIrsx]?([({\[<])"),
    "elixir": re.compile(r"~[a-zA-Z]\w*([({\[<|/])"),
}


def _leaves_double_open(line: str) -> bool:
    """An odd number of double quotes, none of them tripled."""
    return '"' in line and '"""' not in line and len(_QUOTE.findall(line)) % 2 == 1


def _leaves_single_open(line: str, language: str) -> bool:
    """``_leaves_open``, for a line with a single quote and none tripled."""
    return "'" in line and "'''" not in line and _leaves_open(line, language)


#: A double quote that is not escaped.
_QUOTE = re.compile(r'(?<!\\)"')
#: Languages whose single-quoted strings may span lines (shell, Ruby, Elixir's
#: charlists), or whose grammar reads on after one left open (Lua, Python, Kotlin's
#: character literals), with what starts a comment there (the first also after code).
_SINGLE_QUOTED_SPAN = {
    "bash": ("#",),
    "elixir": ("#",),
    "kotlin": ("//", "/*", "*"),
    "lua": ("--",),
    "python": ("#",),
    "ruby": ("#",),
}


def _leaves_open(line: str, language: str) -> bool:
    """Whether ``line`` ends inside a single-quoted string: read in order, double-quoted
    text and comments aside (no escapes inside shell's single quotes)."""
    comments = _SINGLE_QUOTED_SPAN[language]
    if line.lstrip().startswith(comments):
        return False
    comment = comments[0]
    escapes = language != "bash"
    inside = None  # the quote whose string the reading is in
    i = 0
    while i < len(line):
        char = line[i]
        if inside is None:
            if char == "\\":
                i += 1
            elif char in "'\"":
                inside = char
            elif line.startswith(comment, i) and (i == 0 or line[i - 1] in " \t;"):
                break
        elif char == "\\" and (escapes or inside == '"'):
            i += 1
        elif char == inside:
            inside = None
        i += 1
    return inside == "'"


def _units(lines: list[str], indents: list[int | None], row: int) -> Iterator[tuple[int, int, int]]:
    """The units holding ``row``, outermost first, as (start, end, indentation): a unit
    opens on a line at its indentation (not a closing bracket, an ``else`` or an
    operator carried over) and ends where the next sibling opens or its parent's lines
    resume; its members are the units at the next indentation inside it."""
    low, high, level = 0, len(lines), 0
    while True:
        start = next(
            (i for i in range(row, low - 1, -1) if indents[i] == level and _opens(lines[i])),
            None,
        )
        if start is None:
            return
        end = high
        for i in range(row + 1, high):
            indent = indents[i]
            if indent is not None and (indent < level or (indent == level and _opens(lines[i]))):
                end = i
                break
        yield start, end, level
        deeper = _next_level(indents, level, range(start + 1, row + 1))
        if deeper is None:
            return
        low, high, level = start + 1, end, deeper


def _next_level(indents: list[int | None], level: int, rows: range) -> int | None:
    """The least indentation deeper than ``level`` among ``rows``: their members'."""
    return min(
        (indent for i in rows if (indent := indents[i]) is not None and indent > level),
        default=None,
    )


#: A line that closes or goes on with a unit rather than opens one: a closing bracket,
#: ``end``, a brace on a line of its own (``{`` under a C# method), another branch of
#: the statement above (``else``, ``catch``), an operator carried over.
_GOES_ON = re.compile(
    r"[)\]}{.,&|+*/%=?:<>-]"
    r"|(?:end|fi|done|esac|else|elif|elsif|except|catch|finally|rescue|ensure|then|do"
    r"|where|deriving)\b"
)


def _opens(line: str) -> bool:
    """A line that may begin a unit: not one that closes or goes on with one."""
    return _GOES_ON.match(line.lstrip()) is None


def _first_error_row(root: tree_sitter.Node, after: int) -> int | None:
    """The row of the first error or missing node that starts at ``after`` or later,
    the innermost where errors nest (an error around a whole class starts at the
    class; the one inside it, at the method that broke). A file the grammar read as one
    error with nothing wrong inside (Kotlin after a string left open) gives ``after``."""
    found = after if root.type == "ERROR" else None
    node = root
    while True:
        child = next(
            (
                c
                for c in node.children
                if (c.has_error or c.is_missing) and c.end_point.row >= after
            ),
            None,
        )
        if child is None:
            return found
        if (child.type == "ERROR" or _missing(child)) and child.start_point.row >= after:
            found = child.start_point.row
        node = child
