"""The similarity graph: built from stored vectors, exported as valid JSON, DOT and HTML."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pydot
import pytest

from sleuth import Index
from sleuth.graph import schema, to_dict, to_dot, to_html

from .conftest import SAMPLE_REPO, git_init, run_cli, write_tree


def test_json_export_follows_its_schema(embedded_repo: Path) -> None:
    graph = Index(embedded_repo).graph(k=3, threshold=0.2)
    data = to_dict(graph)
    jsonschema.validate(json.loads(json.dumps(data)), schema())
    paths = {n["path"] for n in data["nodes"]}
    assert paths == set(SAMPLE_REPO)
    ids = {n["id"] for n in data["nodes"]}
    assert ids == set(range(len(ids)))
    for edge in data["edges"]:
        assert edge["source"] < edge["target"]
        assert 0.2 <= edge["weight"] <= 1.0
    pairs = [(e["source"], e["target"]) for e in data["edges"]]
    assert len(pairs) == len(set(pairs))


def test_schema_rejects_a_broken_graph(embedded_repo: Path) -> None:
    data = to_dict(Index(embedded_repo).graph())
    data["nodes"][0]["type"] = "binary"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, schema())


def test_a_file_and_its_test_are_neighbours(embedded_repo: Path) -> None:
    graph = Index(embedded_repo).graph(k=2, threshold=0.0)
    by_path = {n.path: n.id for n in graph.nodes}
    linked = {
        frozenset((graph.nodes[e.source].path, graph.nodes[e.target].path)) for e in graph.edges
    }
    assert frozenset(("src/uploads/retry.py", "tests/test_retry.py")) in linked
    assert by_path["src/uploads/retry.py"] != by_path["tests/test_retry.py"]


def test_k_and_threshold_bound_the_edges(embedded_repo: Path) -> None:
    index = Index(embedded_repo)
    loose = index.graph(k=5, threshold=-1.0)
    one = index.graph(k=1, threshold=-1.0)
    strict = index.graph(k=5, threshold=0.6)
    n = len(loose.nodes)
    assert len(loose.edges) <= n * 5
    assert len(one.edges) <= n
    # every file keeps at least its single best link when nothing is cut
    assert {x for e in one.edges for x in (e.source, e.target)} == set(range(n))
    assert len(strict.edges) < len(loose.edges)
    assert all(e.weight >= 0.6 for e in strict.edges)


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("docs", {"docs/guide.md"}),
        ("tests", {"tests/test_retry.py"}),
        ("code", {"src/uploads/retry.py", "src/config/parser.py", "src/app.py", "web/server.js"}),
    ],
)
def test_type_filter(embedded_repo: Path, kind: str, expected: set[str]) -> None:
    graph = Index(embedded_repo).graph(type=kind, threshold=0.0)
    assert {n.path for n in graph.nodes} == expected
    assert {n.type for n in graph.nodes} == {kind}


def test_nodes_carry_directory_size_and_preview(embedded_repo: Path) -> None:
    graph = Index(embedded_repo).graph()
    node = next(n for n in graph.nodes if n.path == "src/config/parser.py")
    assert node.directory == "src/config"
    assert node.size == len(SAMPLE_REPO["src/config/parser.py"].encode())
    assert node.language == "python" and node.type == "code"
    assert "class ConfigParser" in node.preview
    assert 0.0 <= node.x <= 1.0 and 0.0 <= node.y <= 1.0


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # pydot on newer pyparsing
def test_dot_export_parses(embedded_repo: Path) -> None:
    graph = Index(embedded_repo).graph(k=3, threshold=0.0)
    parsed = pydot.graph_from_dot_data(to_dot(graph))
    assert parsed is not None and len(parsed) == 1
    dot = parsed[0]
    names = {n.get_name().strip('"') for n in dot.get_nodes()} - {"node", "graph", "edge"}
    assert names == {n.path for n in graph.nodes}
    assert len(dot.get_edges()) == len(graph.edges)
    first = dot.get_node('"src/app.py"')[0]
    assert first.get("type").strip('"') == "code"


def test_html_is_self_contained(embedded_repo: Path) -> None:
    page = to_html(Index(embedded_repo).graph())
    assert "<script src" not in page and "<link" not in page
    urls = set(re.findall(r"https?://[^\s\"'<>)]+", page))
    assert urls <= {"http://www.w3.org/2000/svg"}
    assert '"schema":"sleuth-graph/1"' in page


def test_cli_says_when_the_path_matches_no_file(embedded_repo: Path) -> None:
    proc = run_cli("graph", str(embedded_repo), "--path", "nomatch/**", "--format", "json")
    assert proc.returncode == 1
    assert "no indexed file matches the path 'nomatch/**'" in proc.stderr


def test_cli_writes_each_format(embedded_repo: Path, tmp_path: Path) -> None:
    proc = run_cli("graph", str(embedded_repo), "--format", "json", "-k", "2")
    assert proc.returncode == 0, proc.stderr
    jsonschema.validate(json.loads(proc.stdout), schema())
    for fmt in ("dot", "html"):
        out = tmp_path / f"graph.{fmt}"
        proc = run_cli("graph", str(embedded_repo), "--format", fmt, "-o", str(out))
        assert proc.returncode == 0, proc.stderr
        assert out.stat().st_size > 0
        assert f"wrote {out}" in proc.stderr
    proc = run_cli("graph", str(embedded_repo), "--type", "docs", "--format", "json")
    assert [n["path"] for n in json.loads(proc.stdout)["nodes"]] == ["docs/guide.md"]


def test_cli_without_index_or_vectors_says_what_to_do(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write_tree(root, SAMPLE_REPO)
    git_init(root)
    proc = run_cli("graph", str(root))
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: there is no index yet")
    Index(root).index(embed="none")
    proc = run_cli("graph", str(root))
    assert proc.returncode == 1
    assert "have no vectors yet" in proc.stderr
    assert "Traceback" not in proc.stderr
    proc = run_cli("graph", str(root), "--threshold", "3")
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
