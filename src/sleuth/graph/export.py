"""Graph exports: JSON (schema in schema.json, described in the README), DOT, and HTML."""

from __future__ import annotations

import json
from dataclasses import asdict
from importlib import resources

from .build import Graph

SCHEMA_ID = "sleuth-graph/1"


def to_dict(graph: Graph) -> dict:
    return {
        "schema": SCHEMA_ID,
        "root": graph.root,
        "type": graph.type,
        "k": graph.k,
        "threshold": graph.threshold,
        "model": graph.model,
        "missing_vectors": graph.missing_vectors,
        "nodes": [asdict(n) for n in graph.nodes],
        "edges": [asdict(e) for e in graph.edges],
    }


def to_json(graph: Graph) -> str:
    return json.dumps(to_dict(graph), indent=1)


def schema() -> dict:
    """The JSON schema the JSON export follows."""
    return json.loads((resources.files(__package__) / "schema.json").read_text("utf-8"))


def _quote(value: object) -> str:
    text = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{text}"'


#: Fill colours by node type, shared with the HTML page.
TYPE_COLOURS = {"code": "#4e79a7", "docs": "#f28e2b", "tests": "#59a14f"}


def to_dot(graph: Graph) -> str:
    """Graphviz DOT: an undirected graph, files as nodes, similarity as edge weight."""
    lines = [
        "graph sleuth {",
        "  graph [overlap=false, splines=true];",
        '  node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=10];',
    ]
    for node in graph.nodes:
        attributes = {
            "label": node.path.rsplit("/", 1)[-1],
            "tooltip": node.path,
            "type": node.type,
            "language": node.language,
            "directory": node.directory,
            "size": node.size,
            "fillcolor": TYPE_COLOURS.get(node.type, "#bab0ac"),
        }
        rendered = ", ".join(f"{key}={_quote(value)}" for key, value in attributes.items())
        lines.append(f"  {_quote(node.path)} [{rendered}];")
    for edge in graph.edges:
        source, target = graph.nodes[edge.source].path, graph.nodes[edge.target].path
        lines.append(
            f"  {_quote(source)} -- {_quote(target)} "
            f'[weight="{edge.weight}", penwidth="{1 + 3 * max(edge.weight, 0):.2f}"];'
        )
    lines.append("}")
    return "\n".join(lines) + "\n"


def to_html(graph: Graph) -> str:
    """One self-contained page: the data and a small SVG viewer inline, nothing fetched."""
    template = (resources.files(__package__) / "viewer.html").read_text("utf-8")
    data = json.dumps(to_dict(graph), separators=(",", ":"))
    # "</" inside a script element would end it early; JSON allows the escaped form.
    data = data.replace("</", "<\\/")
    colours = json.dumps(TYPE_COLOURS)
    title = f"sleuth graph: {graph.root.rsplit('/', 1)[-1] or graph.root}"
    return (
        template.replace("__TITLE__", _html_escape(title))
        .replace("__TYPE_COLOURS__", colours)
        .replace("__GRAPH_DATA__", data)
    )


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
