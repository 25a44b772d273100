"""Definitions the node type alone does not tell, language by language: functions
assigned to names (JavaScript, Lua), Elixir's macro calls, Zig's containers, Kotlin's
and Swift's properties, named values and tables, re-exports and imports."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

import tree_sitter

from .nodes import C_TAGGED, JS_FUNCTION_VALUES, NAME_TYPES, first_child, node_text, spans_lines
from .suites import block_test, js_test_call

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


def _js_declaration(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """``const f = () => ...``, ``const C = class ...``, and any top-level value spanning
    lines (``export const ZodObject = $constructor(...)``, config objects): in modern
    JS/TS these are the definitions a reader looks for."""
    for declarator in node.named_children:
        value = declarator.child_by_field_name("value")
        if value is None:
            continue
        name = node_text(declarator.child_by_field_name("name"))
        if _unwrapped(value).type in JS_FUNCTION_VALUES:  # ((url) => ..) as Got
            return "function", name, node
        if value.type == "class":
            return "class", name, node
        top_level = node.parent is not None and node.parent.type in ("program", "export_statement")
        if top_level and spans_lines(value):
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
    if right is None or left is None or right.type not in (*JS_FUNCTION_VALUES, "class"):
        return None
    if left.type != "member_expression":
        return None
    name = node_text(left).replace(".prototype.", ".").replace(" ", "")
    return ("class" if right.type == "class" else "function"), name[:120], node


def _js_statement(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """An expression statement that defines: an assignment of a function, or a test."""
    return _js_assignment(node) or js_test_call(node)


_ZIG_CONTAINERS = {
    "struct_declaration": "struct",
    "enum_declaration": "enum",
    "union_declaration": "struct",
    "opaque_declaration": "type",
}


def _zig_container(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """``const Foo = struct { ... }``: Zig's types are constants holding a container,
    whose functions are its methods. An error set is a type too, written out
    (``error{ Closed, Timeout }``) or merged from others (``ReadError || WriteError``,
    the one use of ``||`` in Zig)."""
    name = first_child(node, "identifier")
    if name is None:
        return None
    for child in node.named_children:
        kind = _ZIG_CONTAINERS.get(child.type)
        if kind is None and _zig_error_set(child):
            kind = "type"
        if kind is not None:
            return kind, node_text(name)[:120], child
    return None


def _zig_error_set(node: tree_sitter.Node) -> bool:
    """``error{ .. }``, or error sets merged with ``||``."""
    if node.type == "error_set_declaration":
        return True
    return node.type == "binary_expression" and any(
        child.type == "||" for child in node.children if not child.is_named
    )


def _lua_assignment(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """``M.pick = function(opts) ... end`` and ``local pick = function ...``: how Lua
    modules often define their functions, named as code calls them (``M.pick``); and
    tables a file defines over lines."""
    assignment = node
    if node.type == "variable_declaration":
        assignment = first_child(node, "assignment_statement")
        if assignment is None:
            return None
    targets = first_child(assignment, "variable_list")
    values = first_child(assignment, "expression_list")
    if targets is None or values is None or len(targets.named_children) != 1:
        return None
    value = values.named_children[0] if values.named_children else None
    if value is not None and value.type == "function_definition":
        target = targets.named_children[0]
        if _lua_string_keyed(target):
            # `T['setup()']['creates side effects'] = function() .. end` (mini.test's
            # cases), `handlers['textDocument/hover'] = function`: named as written
            return "function", " ".join(node_text(target).split())[:120], node
    name = "".join(node_text(targets).split())
    # `t[function(v) ... end] = function ...` keys a table by a computed value: no name.
    if value is None or not _LUA_NAME.fullmatch(name):
        return None
    if value.type == "function_definition":
        return "function", name[:120], node
    # a table the file defines over lines (`local defaults = { .. }`, `M.config = { .. }`):
    # a module's options and lookup tables, as Python's module-level values are
    top = node.parent is not None and node.parent.type == "chunk"
    if top and value.type == "table_constructor" and spans_lines(value):
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
    return (
        ("function", node_text(name)[:120], node) if value.type == "function_definition" else None
    )


def _elixir_definition(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """``def name(..)``, ``defmodule Name``: Elixir's definitions are macro calls."""
    target = node.child_by_field_name("target")
    word = node_text(target)
    kind = _ELIXIR_DEFS.get(word)
    arguments = first_child(node, "arguments")
    first = arguments.named_children[0] if arguments and arguments.named_children else None
    if kind is None:
        body = first_child(node, "do_block")
        return block_test("elixir", word, first, body)
    if _elixir_not_a_definition(node):
        return None
    name = node_text(first).split("(")[0].split(" ")[0].split(",")[0].strip()
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
            and node_text(outer.child_by_field_name("target")) in _ELIXIR_DEFS
        ):
            return True
    for _ in range(4):
        if parent is None:
            return False
        if parent.type == "unary_operator":
            return node_text(parent).startswith("@")
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
    return "function", node_text(name).strip("() ")[:120], node


def _haskell_pattern_synonym(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """``pattern T_Bang id = OuterToken id Inner_T_Bang``, ``pattern DefaultString =
    "default"``: a pattern synonym is used as a constructor is, and defined here. Its
    signature (``pattern DefaultString :: Text``), a node of its own, joins the equation
    below it (``haskell_names``)."""
    equation = first_child(node, "equation")
    name = pattern_synonym_name(equation) if equation is not None else None
    return ("constant", name, node) if name else None


def pattern_synonym_name(part: tree_sitter.Node) -> str | None:
    """The name a pattern synonym's equation or signature defines (its ``synonym``: a
    constructor, applied to arguments or not, or an infix constructor operator)."""
    synonym = part.child_by_field_name("synonym")
    while synonym is not None and synonym.type == "apply":
        synonym = synonym.child_by_field_name("function")
    if synonym is not None and synonym.type == "infix":
        synonym = synonym.child_by_field_name("operator")
    if synonym is None or synonym.type not in ("constructor", "constructor_operator"):
        return None
    return node_text(synonym)[:120]


def _kotlin_property(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """A property with a getter or setter body (``val isAbsolute: Boolean get() = ..``)
    runs code each time it is used, a method in all but syntax, as Swift's computed
    properties are. A top-level ``val`` whose value spans lines (``val SSE =
    createClientPlugin(..) { .. }``, ``val appModule = module { .. }``) is how Kotlin
    libraries define plugins, modules and configurations (as JavaScript does with
    ``export const``); one-line values and plain members stay with the code around them."""
    variable = first_child(node, "variable_declaration")
    name = None
    if variable is not None:
        name = first_child(variable, "identifier")
    if name is None:
        return None
    if any(
        c.type in ("getter", "setter") and any(b.type == "function_body" for b in c.children)
        for c in node.named_children
    ):
        return "function", node_text(name)[:120], node
    if node.parent is None or node.parent.type != "source_file":
        return None
    value = node.named_children[-1]
    if value is variable or not spans_lines(value):
        return None
    return "constant", node_text(name)[:120], node


def go_receiver(node: tree_sitter.Node) -> str:
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
    return node_text(kind)[:120] if kind is not None and kind.type == "type_identifier" else ""


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


def _rust_value(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """A ``const`` or ``static`` item whose value spans lines (ripgrep's ``const FLAGS:
    &[&dyn Flag] = &[..]``, a ``static`` built by ``LazyLock::new(|| { .. })``): a
    constant with its chunk, as Go's and Python's are; a one-line one stays a name in
    the code around it (``named_values``), and so does ``const _: () = { .. }``, a
    block the compiler checks, which names nothing."""
    name = node.child_by_field_name("name")
    if name is None or node_text(name) == "_":
        return None
    return _spanning_constant((name, node.child_by_field_name("value")), node)


def _spanning_constant(
    assigned: tuple[tree_sitter.Node | None, tree_sitter.Node | None] | None,
    node: tree_sitter.Node,
) -> tuple[str, str, tree_sitter.Node] | None:
    """``node`` as a constant named for the target, when its value spans lines."""
    target, value = assigned or (None, None)
    if target is None or value is None or not spans_lines(value):
        return None
    return "constant", node_text(target)[:120], node


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
    if target is None or target.type != "identifier" or node_text(target).startswith("__"):
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


def go_type_specs(node: tree_sitter.Node) -> list[tree_sitter.Node]:
    """The types a ``type`` declaration declares: one, or a group ``type ( A ..; B .. )``
    (whose first child may be a comment)."""
    return [c for c in node.named_children if c.type in ("type_spec", "type_alias")]


def named_values(language: str, node: tree_sitter.Node) -> list[tuple[str, str, tree_sitter.Node]]:
    """The names a package or module gives one-line values (Go's ``ErrNotFound``,
    ``DebugMode``, grouped or not; Python's ``DEFAULT_TIMEOUT = 30``, ``Handler =
    Callable[..]``; Ruby's constants; Rust's ``const`` and ``static`` items; C's
    ``#define``s with a value), and Go's one-line types and Elixir's ``@type``s, each as
    (name, kind, node): definitions without chunks. (Called for nodes that are no
    definition of their own: values over several lines are constants with chunks.)"""
    if language == "elixir":
        name = _elixir_typespec(node)
        return [(name, "type", node)] if name else []
    return [
        (name, "type" if spec.type in _TYPE_VALUES else "constant", spec)
        for name, spec in _values(language, node)
    ]


def _values(language: str, node: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
    """``named_values`` but Elixir's, without their kinds."""
    if language == "go" and node.type == "type_declaration":
        named = ((s.child_by_field_name("name"), s) for s in go_type_specs(node))
        return [(node_text(name)[:120], spec) for name, spec in named if name is not None]
    if language == "go":
        specs = _go_specs(node)
        return [(node_text(n)[:120], s) for s in specs for n in s.children_by_field_name("name")]
    if language == "rust":
        name = node.child_by_field_name("name") if node.type in VALUE_TYPES else None
        return [(node_text(name)[:120], node)] if name is not None else []
    if language in _JS_LANGUAGES:
        return _js_values(node)
    if language in ("c", "cpp"):
        return _c_constant(node) + _c_typedef(node)
    reader = _ASSIGNMENTS.get(language)
    assigned = reader(node) if reader is not None else None
    return [(node_text(assigned[0])[:120], node)] if assigned is not None else []


_ASSIGNMENTS = {"python": _python_assignment, "ruby": _ruby_assignment}


def haskell_constructors(node: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
    """The constructors a Haskell ``data`` or ``newtype`` declares (``data Command = Build
    | Server { .. }``, GADT constructors, ``newtype Wrap = Wrap Int``): code builds and
    matches on them by name, so each is found in its type's chunk. One named as its type
    is the type."""
    type_name = node_text(node.child_by_field_name("name"))
    found = []
    for holder in node.children_by_field_name("constructors"):
        for constructor in holder.named_children:
            form = constructor.child_by_field_name("constructor") or constructor
            name = form.child_by_field_name("name") or form.child_by_field_name("operator")
            if name is not None:
                found.append((node_text(name)[:120], constructor))
    if node.type == "newtype":
        form = first_child(node, "newtype_constructor")
        name = form and first_child(form, "constructor")
        if form is not None and name is not None:
            found.append((node_text(name)[:120], form))
    return [(name, at) for name, at in found if name and name != type_name]


#: Module attributes that define a type (``@type scheme :: :http | :https``).
_ELIXIR_TYPE_WORDS = frozenset({"type", "typep", "opaque"})


def _elixir_typespec(node: tree_sitter.Node) -> str:
    """The name an Elixir ``@type``/``@typep``/``@opaque`` defines (``scheme``, ``t`` of
    ``@type t(value) :: ..``), or "" for any other node."""
    parent = node.parent
    if (
        node.type != "call"
        or node_text(node.child_by_field_name("target")) not in _ELIXIR_TYPE_WORDS
        or parent is None
        or parent.type != "unary_operator"
        or not node_text(parent).startswith("@")
    ):
        return ""
    arguments = first_child(node, "arguments")
    spec = arguments.named_children[0] if arguments and arguments.named_children else None
    if spec is None or spec.type != "binary_operator":
        return ""
    head = spec.child_by_field_name("left")
    if head is not None and head.type == "call":
        head = head.child_by_field_name("target")
    return node_text(head)[:120] if head is not None and head.type == "identifier" else ""


def _c_constant(node: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
    """``#define REDIS_OPT_NOAUTOFREE 0x04``: a constant by name. A name defined with no
    value (an include guard, a feature flag) is none, and neither is a macro with
    parameters: as a definition it would shadow the function it stands in for in one
    configuration (measured, docs/decisions.md)."""
    if node.type != "preproc_def" or node.child_by_field_name("value") is None:
        return []
    name = node.child_by_field_name("name")
    return [(node_text(name)[:120], node)] if name is not None else []


def _c_typedef(node: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
    """The names a C/C++ ``typedef`` gives: ``typedef unsigned long uLong;``, ``typedef
    void (*xev_timer_cb)(..);``, and the alias of a tagged type, ``typedef struct
    unz_global_info_s { .. } unz_global_info;``, by which code mostly refers to it (the
    type itself is a definition under its tag; an untagged one already takes the
    alias's name, ``declared_name``); C++'s ``using appender = basic_appender<char>;``
    likewise."""
    if node.type == "alias_declaration":
        name = node_text(node.child_by_field_name("name"))[:120]
        return [(name, node)] if name else []
    if node.type != "type_definition":
        return []
    written = node.child_by_field_name("type")
    if (
        written is not None
        and written.type in C_TAGGED
        and written.child_by_field_name("name") is None
        and written.child_by_field_name("body") is not None
    ):
        return []
    tag = node_text(written.child_by_field_name("name")) if written is not None else ""
    found = []
    for declarator in node.children_by_field_name("declarator"):
        while declarator is not None and declarator.type != "type_identifier":
            inner = declarator.child_by_field_name("declarator")
            if inner is None and declarator.type == "parenthesized_declarator":
                inner = declarator.named_children[0] if declarator.named_children else None
            declarator = inner
        name = node_text(declarator)[:120]
        if name and name != tag:  # `typedef struct Foo { .. } Foo;` is one definition
            found.append((name, node))
    return found


#: Node types of one-line values that name a type.
_TYPE_VALUES = frozenset({"type_spec", "type_alias", "type_definition", "alias_declaration"})


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
        out.append((node_text(name)[:120], node))
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
        and (node_text(value) in ("require", "import"))
    )


_JS_IMPORT_WRAPPERS = frozenset({"await_expression", "member_expression", "call_expression"})


def reexports(language: str, node: tree_sitter.Node) -> list[tuple[str, tree_sitter.Node]]:
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
            (node_text(name)[:120], name)
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
        return [(node_text(node)[:120], node)]
    if node.type == "scoped_identifier":
        name = node.child_by_field_name("name")
        return _use_names(name) if name is not None else []
    if node.type == "use_as_clause":
        alias = node.child_by_field_name("alias")
        return [(node_text(alias)[:120], alias)] if alias is not None else []
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
    if value is None or value.type != "initializer_list" or not spans_lines(value):
        return None
    parent = node.parent
    for _ in range(_PREPROCESSOR_DEPTH):  # `#ifdef USE_X` .. around a file-level table
        if parent is None or not parent.type.startswith("preproc_"):
            break
        parent = parent.parent
    if parent is None or parent.type not in ("translation_unit", "declaration_list"):
        return None
    name = declarator.child_by_field_name("declarator")
    while name is not None and name.type not in NAME_TYPES:
        name = name.child_by_field_name("declarator")
    return ("constant", node_text(name)[:120], node) if name is not None else None


def _swift_computed_property(
    node: tree_sitter.Node,
) -> tuple[str, str, tree_sitter.Node] | None:
    """``public var left: ConstraintMakerExtendable { return .. }``: a computed property
    runs code each time it is read, a method in all but syntax (Swift DSLs are built of
    them); a stored property (``var x = 3``) is not."""
    if not any(c.type == "computed_property" for c in node.named_children):
        return None
    pattern = first_child(node, "pattern")
    return ("function", node_text(pattern)[:120], node) if pattern is not None else None


_RUST_MACRO_ITEMS = {"struct": "struct", "enum": "enum", "union": "struct", "trait": "trait"}


def _rust_macro_item(node: tree_sitter.Node) -> tuple[str, str, tree_sitter.Node] | None:
    """``pin_project! { pub struct RouteFuture<E> { .. } }``, ``bitflags! { struct Flags
    .. }``: a type declared inside a macro call at item level is still the type's
    definition (the grammar sees only tokens there). The first one names the chunk."""
    if node.parent is None or node.parent.type not in ("source_file", "declaration_list"):
        return None
    tokens = first_child(node, "token_tree")
    if tokens is None:
        return None
    children = tokens.children
    for keyword, following in itertools.pairwise(children):
        kind = _RUST_MACRO_ITEMS.get(keyword.type)
        if kind is not None and following.type == "identifier":
            return kind, node_text(following)[:120], node
    return None


def haskell_names(signature: tree_sitter.Node, definition: tree_sitter.Node) -> bool:
    """Whether a Haskell type signature declares the name the next equation defines (a
    pattern synonym's signature, the name of the synonym below it)."""
    if signature.type == "pattern_synonym" and definition.type == "pattern_synonym":
        typed = first_child(signature, "signature")
        defined = _haskell_pattern_synonym(definition)
        return (
            typed is not None and defined is not None and pattern_synonym_name(typed) == defined[1]
        )
    declared = {node_text(c) for c in signature.named_children if c.type == "variable"}
    name = definition.child_by_field_name("name") or first_child(definition, "variable")
    return name is not None and node_text(name) in declared


def leads(sibling: tree_sitter.Node) -> bool:
    """Whether a node just above a definition belongs to it: comments (Haskell's
    ``haddock``), Rust attributes (``#[derive(..)]``, ``#[test]``), Elixir attributes
    (``@doc``, ``@spec``, ``@impl``; not ``@moduledoc``, which is about the module), and
    C#'s ``#pragma warning disable`` between a doc comment and its type."""
    kind = sibling.type
    if "comment" in kind or kind in ("haddock", "attribute_item", "preproc_pragma"):
        return True
    if kind == "unary_operator":
        text = node_text(sibling)
        return text.startswith("@") and not text.startswith("@moduledoc")
    return False


#: Node types of one-line values named as definitions without chunks (``named_values``)
#: that no definition table lists.
VALUE_TYPES = frozenset({"const_item", "static_item"})


_Found = tuple[str, str, tree_sitter.Node] | None


def _js_named_function(node: tree_sitter.Node) -> _Found:
    """``async function inputValidatorMiddleware(opts) { .. }`` passed as a value: the
    name a stack trace shows, so it is found by name; an anonymous one is no definition."""
    name = node.child_by_field_name("name")
    return ("function", node_text(name)[:120], node) if name is not None else None


_JS_FORMS: dict[str, Callable[[tree_sitter.Node], _Found]] = {
    "lexical_declaration": _js_declaration,
    "variable_declaration": _js_declaration,
    "expression_statement": _js_statement,
    "function_expression": _js_named_function,
}


#: Definitions the node type alone does not tell: language -> {node type: function that
#: returns (kind, name, node) or None}. Their node types join the candidates' query.
DEFINED_BY: dict[str, dict[str, Callable[[tree_sitter.Node], _Found]]] = {
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
    "haskell": {"bind": _haskell_bind, "pattern_synonym": _haskell_pattern_synonym},
    "kotlin": {"property_declaration": _kotlin_property},
    "python": {"expression_statement": _python_constant},
    "ruby": {"assignment": _ruby_constant},
    "go": {"var_declaration": _go_variable, "const_declaration": _go_variable},
    "c": {"declaration": _c_table},
    "cpp": {"declaration": _c_table},
    "swift": {"property_declaration": _swift_computed_property},
    "rust": {
        "macro_invocation": _rust_macro_item,
        "const_item": _rust_value,
        "static_item": _rust_value,
    },
}
