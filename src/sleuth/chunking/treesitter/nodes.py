"""Reading tree-sitter nodes in every grammar: their text, their names (a C
declarator, a Rust impl's type, a Haskell operator) and the lines they span."""

from __future__ import annotations

import re

import tree_sitter

NAME_TYPES = frozenset(
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


#: Members named by a keyword, not by an identifier: (language, node type) -> name.
_KEYWORD_MEMBERS = {
    ("swift", "subscript_declaration"): "subscript",
    ("swift", "deinit_declaration"): "deinit",
    ("csharp", "indexer_declaration"): "this",
}


JS_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)


def first_child(node: tree_sitter.Node, *types: str) -> tree_sitter.Node | None:
    """The first named child of one of these types: how a form finds the part it reads
    when the grammar gives that part no field name."""
    return next((child for child in node.named_children if child.type in types), None)


def spans_lines(node: tree_sitter.Node) -> bool:
    """A value written over several lines: what makes a named value a definition worth
    its own chunk (a one-line value stays with the code around it)."""
    return node.end_point.row > node.start_point.row


#: C and C++ types that may be declared without a tag of their own.
C_TAGGED = frozenset({"struct_specifier", "enum_specifier", "union_specifier", "class_specifier"})


def declared_name(language: str, node: tree_sitter.Node) -> str | None:
    """The name of a definition ``name_of`` would misread: members declared by keyword
    (``subscript``, ``this[..]``, ``operator +``), as code refers to them, a C type
    with no tag of its own, named by its typedef, and PHP's ``const A = 1, B = 2``, named
    by its first constant ("" when it has none). None for every other definition."""
    named = _KEYWORD_MEMBERS.get((language, node.type))
    if named:
        return named
    if language == "csharp" and node.type == "operator_declaration":
        return f"operator{node_text(node.child_by_field_name('operator'))}"
    if language == "csharp" and node.type == "conversion_operator_declaration":
        return f"operator {node_text(node.child_by_field_name('type'))}"
    if language in ("c", "cpp") and node.type in C_TAGGED and node.parent is not None:
        # `typedef struct { .. } parse_buffer;`: an anonymous type takes the typedef's name
        declarator = node.parent.child_by_field_name("declarator")
        if (
            node.parent.type == "type_definition"
            and node.child_by_field_name("name") is None
            and declarator is not None
            and declarator.type == "type_identifier"
        ):
            return node_text(declarator)[:120]
    if language == "php" and node.type == "const_declaration":
        element = first_child(node, "const_element")
        name = element and first_child(element, "name")
        return node_text(name)[:120]
    return None


def node_text(node: tree_sitter.Node | None) -> str:
    if node is None or node.text is None:
        return ""
    return node.text.decode("utf-8", errors="replace")


def name_of(node: tree_sitter.Node) -> str:
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
        while declarator is not None and declarator.type not in NAME_TYPES:
            if declarator.type == "operator_cast":  # operator bool() const
                break
            declarator = _inner_declarator(declarator)
        name = declarator
    if name is None and node.type == "function":  # Haskell: x // f = .., a `op` b = ..
        infix = first_child(node, "infix")
        operator = infix.child_by_field_name("operator") if infix is not None else None
        if operator is not None:
            return node_text(operator).strip().strip("`").strip()[:120]
    if name is None:
        for child in node.named_children:
            if child.type in NAME_TYPES:
                name = child
                break
            inner = child.child_by_field_name("name")  # go type_spec, js declarators
            if inner is not None:
                name = inner
                break
    text = node_text(name).strip().split("(")[0].split("\n")[0]
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


def end_row(node: tree_sitter.Node) -> int:
    row = node.end_point.row
    if node.end_point.column == 0 and row > node.start_point.row:
        row -= 1
    return row


def has_ancestor(node: tree_sitter.Node, ancestor_type: str) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == ancestor_type:
            return True
        parent = parent.parent
    return False


def node_key(node: tree_sitter.Node) -> tuple[int, int, str]:
    return (node.start_byte, node.end_byte, node.type)


def is_missing_node(node: tree_sitter.Node) -> bool:
    """A token the grammar had to assume: a missing node, or a node holding one hidden
    from its children (C#'s ``(identifier (MISSING _identifier_token))``, the name of
    a class header cut to ``internal static cl``)."""
    return node.is_missing or (
        node.has_error
        and node.type != "ERROR"
        and not any(child.has_error or child.is_missing for child in node.children)
    )
