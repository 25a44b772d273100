"""The client configurations in README.md are valid and start a working server."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import sys
import tomllib
from pathlib import Path

import pytest
from mcp.client.stdio import StdioServerParameters

from sleuth import Index

from .conftest import SAMPLE_REPO, git_init, write_tree
from .test_mcp import TOOLS, Client, ok, session

README = Path(__file__).resolve().parents[1] / "README.md"
CONFIG_BLOCK = re.compile(
    r"`(?P<file>[^`\n]*(?:mcp\.json|config\.toml))`[^\n]*\n\n```(?P<lang>json|toml)\n"
    r"(?P<body>.*?)\n```",
    re.DOTALL,
)


def readme_configs() -> dict[str, tuple[str, list[str]]]:
    """file name -> (command, args) for every configuration snippet in README.md."""
    text = README.read_text()
    found: dict[str, tuple[str, list[str]]] = {}
    for match in CONFIG_BLOCK.finditer(text):
        name, body = match.group("file"), match.group("body")
        if match.group("lang") == "toml":
            entry = tomllib.loads(body)["mcp_servers"]["sleuth"]
        else:
            data = json.loads(body)
            key = "servers" if name.startswith(".vscode") else "mcpServers"
            entry = data[key]["sleuth"]
            if key == "servers":
                assert entry["type"] == "stdio"
        assert isinstance(entry["args"], list)
        found[name] = (entry["command"], entry["args"])
    [command_line] = re.findall(r"^claude mcp add .*$", text, re.MULTILINE)
    words = shlex.split(command_line)
    assert words[3] == "sleuth" and "--" in words
    rest = words[words.index("--") + 1 :]
    found["claude mcp add"] = (rest[0], rest[1:])
    return found


CONFIGS = readme_configs()


def test_every_client_has_a_snippet() -> None:
    assert set(CONFIGS) == {
        "claude mcp add",
        ".mcp.json",
        ".cursor/mcp.json",
        "~/.codex/config.toml",
        ".vscode/mcp.json",
    }


@pytest.fixture(scope="module")
def configured_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("configured") / "repo"
    write_tree(root, SAMPLE_REPO)
    git_init(root)
    Index(root).index(embed="deep")
    return root


@pytest.mark.parametrize("client", sorted(CONFIGS))
def test_snippet_starts_the_server(client: str, configured_repo: Path) -> None:
    command, args = CONFIGS[client]
    assert command == "sleuth"
    executable = shutil.which("sleuth") or str(Path(sys.executable).parent / "sleuth")
    args = [a.replace("${workspaceFolder}", str(configured_repo)) for a in args]
    params = StdioServerParameters(command=executable, args=args, cwd=configured_repo)

    async def body(client_session: Client) -> None:
        assert {t.name for t in (await client_session.list_tools()).tools} == TOOLS
        reply = json.loads(await ok(client_session, "find_symbol", {"name": "ConfigParser"}))
        assert reply["hits"][0]["path"] == "src/config/parser.py"

    session(params, body)
