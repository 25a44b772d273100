"""Similarity graph of a repository's files, from stored vectors; JSON, DOT and HTML."""

from __future__ import annotations

from .build import TYPES, Edge, Graph, Node, build_graph
from .export import schema, to_dict, to_dot, to_html, to_json

FORMATS = ("json", "dot", "html")

__all__ = [
    "FORMATS",
    "TYPES",
    "Edge",
    "Graph",
    "Node",
    "build_graph",
    "schema",
    "to_dict",
    "to_dot",
    "to_html",
    "to_json",
]
