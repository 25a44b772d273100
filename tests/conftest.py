"""Fixture repositories are built by the tests themselves, file by file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sleuth import Index


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


def git_init(root: Path) -> None:
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def run_cli(
    *args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 300
) -> subprocess.CompletedProcess:
    """Run the installed `sleuth` entry point exactly as a user would."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "sleuth.cli.main", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


#: The documented `sleuth search --json` schema (README): keys of the reply and of a result.
SEARCH_KEYS = {
    "query",
    "mode",
    "query_class",
    "embedded_fraction",
    "vectors",
    "reason",
    "notices",
    "respelled_from",
    "results",
}
RESULT_KEYS = {
    "path",
    "start_line",
    "end_line",
    "symbol",
    "kind",
    "language",
    "score",
    "preview",
    "parent",
    "signature",
    "also",
}

SAMPLE_REPO: dict[str, str] = {
    "src/uploads/retry.py": '''"""Upload retries."""
import time


def retry_failed_upload(upload, attempts=3, backoff=0.5):
    """Retry a failed upload with exponential backoff."""
    for attempt in range(attempts):
        try:
            return upload.send()
        except ConnectionError:
            time.sleep(backoff * 2 ** attempt)
    raise RuntimeError("upload failed after retries")
''',
    "src/config/parser.py": '''import json


class ConfigParser:
    """Reads the application settings file."""

    def __init__(self, path):
        self.path = path

    def parse_config(self, text):
        """Parse JSON configuration text into a dict."""
        return json.loads(text)
''',
    "src/app.py": """from config.parser import ConfigParser
from uploads.retry import retry_failed_upload


def main():
    parser = ConfigParser("settings.json")
    settings = parser.parse_config(open("settings.json").read())
    return settings
""",
    "web/server.js": """const http = require("http");

function startServer(port) {
  const server = http.createServer((req, res) => res.end("ok"));
  server.listen(port);
  return server;
}

module.exports = { startServer };
""",
    "tests/test_retry.py": """from uploads.retry import retry_failed_upload


def test_retry_gives_up_after_attempts():
    class Broken:
        def send(self):
            raise ConnectionError()
    try:
        retry_failed_upload(Broken(), attempts=1, backoff=0)
    except RuntimeError:
        pass
""",
    "docs/guide.md": """# User guide

Intro text.

## Configuration

The configuration file is JSON and is parsed at start-up.
""",
}


@pytest.fixture
def sample_repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write_tree(root, SAMPLE_REPO)
    git_init(root)
    return root


@pytest.fixture(scope="session")
def embedded_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sample repository indexed once with every vector, shared by read-only tests."""
    root = tmp_path_factory.mktemp("embedded") / "repo"
    write_tree(root, SAMPLE_REPO)
    git_init(root)
    Index(root).index(embed="deep")
    return root
