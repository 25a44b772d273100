"""Git repositories with real history, built commit by commit for the history tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .conftest import write_tree


def git(root: Path, *args: str, env: dict | None = None) -> str:
    return subprocess.run(
        ["git", "-C", str(root), *args],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
    ).stdout


def commit(
    root: Path,
    message: str,
    author: str,
    date: str,
    files: dict[str, str] | None = None,
    remove: tuple[str, ...] = (),
    move: tuple[str, str] | None = None,
) -> str:
    """Write, delete or rename files and commit them as ``author`` at ``date`` (ISO)."""
    if files:
        write_tree(root, files)
    for path in remove:
        git(root, "rm", "-q", path)
    if move:
        (root / move[1]).parent.mkdir(parents=True, exist_ok=True)
        git(root, "mv", move[0], move[1])
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", message, env=identity(author, date))
    return git(root, "rev-parse", "HEAD").strip()


def identity(author: str, date: str) -> dict[str, str]:
    email = f"{author.lower()}@example.com"
    return {
        "GIT_AUTHOR_NAME": author,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_NAME": author,
        "GIT_COMMITTER_EMAIL": email,
        "GIT_COMMITTER_DATE": date,
    }


UPLOAD_V1 = """import requests


def send(data, url):
    return requests.post(url, data=data)
"""

UPLOAD_V2 = """import time

import requests


def send(data, url):
    return requests.post(url, data=data)


def retry_upload(data, url, attempts=3, backoff=0.5):
    for attempt in range(attempts):
        try:
            return send(data, url)
        except ConnectionError:
            time.sleep(backoff * 2 ** attempt)
    raise RuntimeError("upload failed")
"""

UPLOAD_V3 = UPLOAD_V2.replace("import time\n", "import random\nimport time\n").replace(
    "time.sleep(backoff * 2 ** attempt)",
    "delay = backoff * 2 ** attempt\n            time.sleep(delay + random.random() * delay)",
)

CONFIG = """import yaml


def parse_config(text):
    \"\"\"Parse the YAML settings file into a dict.\"\"\"
    return yaml.safe_load(text)
"""

XML_PARSER = """import xml.etree.ElementTree as ET


def parse_legacy_xml(text):
    return ET.fromstring(text)
"""


def build_history_repo(root: Path) -> dict[str, str]:
    """Four authors over a year: a rename, a feature branch merged with --no-ff, a delete.

    Returns the commit shas by a short name.
    """
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    shas = {}
    shas["add_upload"] = commit(
        root,
        "Add upload client",
        "Alice",
        "2023-01-10T10:00:00+00:00",
        {"src/upload.py": UPLOAD_V1, "README.md": "# Uploader\n"},
    )
    shas["retry"] = commit(
        root,
        "Retry failed uploads with exponential backoff\n\nConnections drop on mobile "
        "networks; three attempts with a doubling delay recover most of them.",
        "Bob",
        "2023-03-05T10:00:00+00:00",
        {"src/upload.py": UPLOAD_V2},
    )
    shas["config"] = commit(
        root,
        "Parse YAML configuration files",
        "Carol",
        "2023-06-20T10:00:00+00:00",
        {"src/config.py": CONFIG, "src/xml_parser.py": XML_PARSER},
    )
    shas["move"] = commit(
        root,
        "Move the upload client into the net package",
        "Alice",
        "2023-08-01T10:00:00+00:00",
        move=("src/upload.py", "src/net/upload.py"),
    )
    git(root, "checkout", "-q", "-b", "jitter")
    shas["jitter"] = commit(
        root,
        "Add random jitter to the delay between attempts",
        "Bob",
        "2023-09-10T10:00:00+00:00",
        {"src/net/upload.py": UPLOAD_V3},
    )
    git(root, "checkout", "-q", "main")
    shas["docs"] = commit(
        root,
        "Document the settings file format",
        "Carol",
        "2023-09-12T10:00:00+00:00",
        {"docs/settings.md": "# Settings\n\nThe settings file is YAML.\n"},
    )
    git(
        root,
        "merge",
        "-q",
        "--no-ff",
        "-m",
        "Merge branch 'jitter'",
        "jitter",
        env=identity("Alice", "2023-09-15T10:00:00+00:00"),
    )
    shas["merge"] = git(root, "rev-parse", "HEAD").strip()
    shas["remove_xml"] = commit(
        root,
        "Remove the legacy XML parser",
        "Dave",
        "2024-02-01T10:00:00+00:00",
        remove=("src/xml_parser.py",),
    )
    return shas
