"""Which syntax nodes are definitions: the per-language table of node types and their
kinds, and the one query per language that finds every candidate."""

from __future__ import annotations

from functools import cache

import tree_sitter

from ...languages import parser_for
from .forms import DEFINED_BY, VALUE_TYPES
from .nodes import node_text
from .suites import BLOCK_TESTS, TEST_CALL_NODES

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


#: Functions directly inside these are methods (inside a module or namespace they are not).
CLASS_KINDS = frozenset({"class", "interface", "struct", "enum", "trait", "impl", "type"})


#: Declarations recorded as definitions of their trait, without a chunk of their own.
DECLARED_ONLY = frozenset({"function_signature_item"})


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
        *DEFINED_BY.get(language, {}),
        *DECLARED_ONLY,
        *(VALUE_TYPES if language == "rust" else ()),
        *(("use_declaration",) if language == "rust" else ()),
        *(("preproc_def", "type_definition") if language in ("c", "cpp") else ()),
        *(("alias_declaration",) if language == "cpp" else ()),
    ]
    valid = []
    for node_type in dict.fromkeys(types):
        try:  # a type the grammar lacks would make the whole query invalid
            tree_sitter.Query(grammar, f"({node_type}) @d")
        except (tree_sitter.QueryError, ValueError, NameError):
            continue
        valid.append(node_type)
    patterns = "[" + " ".join(f"({t})" for t in valid) + "] @d" if valid else ""
    if language in TEST_CALL_NODES:
        # only the calls a test runner's words make: a pattern for every call would
        # hand the walk each call of the file
        node_type, field = TEST_CALL_NODES[language]
        words = " ".join(f'"{w}"' for w in sorted(set().union(*BLOCK_TESTS[language])))
        patterns += f" (({node_type} {field}: (identifier) @w) @d (#any-of? @w {words}))"
    return tree_sitter.Query(grammar, patterns) if patterns else None


def candidate_nodes(language: str, root: tree_sitter.Node) -> list[tree_sitter.Node]:
    """Candidate nodes in document order, outer before inner at the same start."""
    query = _query(language)
    if query is None:
        return []
    found = tree_sitter.QueryCursor(query).captures(root).get("d", [])
    unique = {(n.start_byte, n.end_byte, n.type): n for n in found}
    return [unique[k] for k in sorted(unique, key=lambda k: (k[0], -k[1]))]


#: Statement words no definition can be named in these languages. A preprocessor line
#: between `}` and `else if (..) {` (`#if HAVE_X`, common in C, C++ and C#) makes the
#: parser read `if (..) { .. }` as a function named `if`.
STATEMENT_WORDS = frozenset(
    {"if", "else", "for", "while", "do", "switch", "case", "catch", "return", "sizeof"}
)


RESERVED_IN = frozenset({"c", "cpp", "csharp", "java"})


def overload_stub(node: tree_sitter.Node) -> bool:
    """A Python ``@overload`` signature (``@typing.overload``, ``@t.overload``): a type
    checker's view of the function, not its code, which the definition after it holds."""
    if node.type != "decorated_definition":
        return False
    return any(
        child.type == "decorator" and node_text(child).rstrip().endswith("overload")
        for child in node.children
    )
