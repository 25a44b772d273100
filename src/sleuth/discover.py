"""Find the files worth indexing: ignore rules, default excludes, secrets, size.

Content checks (binary, minified, encoding) happen later, in the indexer, and only for
files whose mtime or size changed, so an unchanged repository is never re-read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pathspec

from . import config
from .errors import PathError

#: Directory names never descended into.
EXCLUDED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        config.INDEX_DIRNAME,
        "node_modules",
        "bower_components",
        "vendor",
        "third_party",
        "__pycache__",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".idea",
        ".vscode",
        ".gradle",
        ".next",
        ".nuxt",
        ".svelte-kit",
        ".cache",
        ".eggs",
        "site-packages",
        "dist",
        "build",
        "target",
        "out",
        "coverage",
        "htmlcov",
        "Pods",
        "Carthage",
        "DerivedData",
        "_build",
        "deps",
        ".stack-work",
        "dist-newstyle",
        "zig-cache",
        ".zig-cache",
        "zig-out",
    }
)
#: Lockfiles and similar machine-written files: skipped as ``lockfile``.
LOCKFILES = frozenset(
    {
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "Cargo.lock",
        "poetry.lock",
        "Gemfile.lock",
        "composer.lock",
        "go.sum",
        "Pipfile.lock",
        "uv.lock",
        "mix.lock",
        "flake.lock",
        "bun.lockb",
        "packages.lock.json",
        "Package.resolved",
        "pubspec.lock",
    }
)
#: Generated or minified by name: skipped as ``generated``.
GENERATED_PATTERNS = [
    "*.min.js",
    "*.min.css",
    "*.min.mjs",
    "*.bundle.js",
    "*.map",
    "*.pb.go",
    "*_pb2.py",
    "*_pb2_grpc.py",
    "*.g.dart",
    "*.designer.cs",
]
#: Never indexed, whatever the ignore files say (documented in README "Secrets").
SECRET_PATTERNS = [
    ".env",
    ".env.*",
    "*.env",
    ".envrc",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "*.ppk",
    "*.kdbx",
    "*.gpg",
    "*.asc",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    "_netrc",
    ".npmrc",
    ".pypirc",
    ".htpasswd",
    ".git-credentials",
    "credentials",
    "credentials.*",
    "*credentials*.json",
    "secrets.*",
    "*.secret",
    "*.secrets",
    "service-account*.json",
    ".aws/credentials",
    ".docker/config.json",
    "*.tfvars",
    "*.tfstate",
    "*.tfstate.*",
]
#: Extensions that are binary or pure data, skipped without reading (reason ``binary``).
BINARY_EXTENSIONS = frozenset(
    [
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".bmp",
        ".ico",
        ".icns",
        ".webp",
        ".tiff",
        ".psd",
        ".svgz",
        ".pdf",
        ".zip",
        ".gz",
        ".tgz",
        ".bz2",
        ".xz",
        ".7z",
        ".rar",
        ".tar",
        ".jar",
        ".war",
        ".ear",
        ".class",
        ".so",
        ".dylib",
        ".dll",
        ".exe",
        ".o",
        ".a",
        ".lib",
        ".obj",
        ".pyc",
        ".pyo",
        ".whl",
        ".egg",
        ".wasm",
        ".bin",
        ".dat",
        ".db",
        ".sqlite",
        ".sqlite3",
        ".woff",
        ".woff2",
        ".ttf",
        ".otf",
        ".eot",
        ".mp3",
        ".mp4",
        ".wav",
        ".ogg",
        ".flac",
        ".avi",
        ".mov",
        ".mkv",
        ".webm",
        ".npy",
        ".npz",
        ".pkl",
        ".pickle",
        ".onnx",
        ".pt",
        ".h5",
        ".parquet",
        ".ds_store",
        ".iso",
        ".dmg",
        ".deb",
        ".rpm",
        ".apk",
        ".ipa",
        ".lockb",
        ".svg",
        ".csv",
        ".tsv",
        ".log",
    ]
)

_SECRETS = pathspec.GitIgnoreSpec.from_lines(SECRET_PATTERNS)
_GENERATED = pathspec.GitIgnoreSpec.from_lines(GENERATED_PATTERNS)


@dataclass(frozen=True, slots=True)
class FoundFile:
    """A candidate file: repository-relative POSIX path plus its stat fingerprint."""

    path: str
    size: int
    mtime_ns: int


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    reason: str


def find_root(path: str | os.PathLike[str]) -> Path:
    """The git root above ``path``, or ``path`` itself outside git."""
    start = Path(path).expanduser()
    try:
        if not start.exists():
            raise PathError(f"no such directory: {start}")
        if not start.is_dir():
            raise PathError(f"not a directory: {start}")
        if not os.access(start, os.R_OK | os.X_OK):
            raise PathError(f"cannot read directory: {start}")
    except PermissionError as exc:
        raise PathError(f"cannot read directory: {start}") from exc
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return start


def _read_ignore(path: Path) -> pathspec.GitIgnoreSpec | None:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines) if lines else None


def sensitive(rel_path: str) -> bool:
    """True for paths matching the secret patterns."""
    return _SECRETS.match_file(rel_path)


class _Rules:
    """Stack of ignore specs; the deepest file with a decisive answer wins, as in git."""

    def __init__(self, root: Path) -> None:
        self.layers: list[tuple[str, pathspec.GitIgnoreSpec]] = []
        for base_file in (root / ".git" / "info" / "exclude",):
            spec = _read_ignore(base_file)
            if spec:
                self.layers.append(("", spec))

    def push_dir(self, directory: Path, rel_dir: str) -> int:
        added = 0
        for name in (".gitignore", ".sleuthignore"):
            spec = _read_ignore(directory / name)
            if spec:
                self.layers.append((rel_dir, spec))
                added += 1
        return added

    def pop(self, count: int) -> None:
        if count:
            del self.layers[-count:]

    def ignored(self, rel_path: str, is_dir: bool) -> bool:
        for base, spec in reversed(self.layers):
            local = rel_path[len(base) + 1 :] if base else rel_path
            result = spec.check_file(local + "/" if is_dir else local)
            if result.include is not None:
                return bool(result.include)
        return False


def walk(root: Path) -> Iterator[FoundFile | Skipped]:
    """Yield every file under root as FoundFile, or Skipped with a reason.

    Symlinks are not followed (no loops, no escaping the repository). Ignored
    directories are not descended into and are not reported file by file.
    """
    yield from _walk_dir(root, "", _Rules(root))


def _walk_dir(directory: Path, rel_dir: str, rules: _Rules) -> Iterator[FoundFile | Skipped]:
    pushed = rules.push_dir(directory, rel_dir)
    try:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            yield Skipped(rel_dir or ".", "unreadable")
            return
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                if entry.is_symlink():
                    yield Skipped(rel, "symlink")
                    continue
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                yield Skipped(rel, "unreadable")
                continue
            if is_dir:
                if entry.name in EXCLUDED_DIRS or rules.ignored(rel, True):
                    continue
                yield from _walk_dir(Path(entry.path), rel, rules)
                continue
            if not entry.is_file(follow_symlinks=False):
                continue  # sockets, fifos, devices
            reason = _skip_reason(entry.name, rel, rules)
            if reason == "ignored":
                continue
            if reason:
                yield Skipped(rel, reason)
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                yield Skipped(rel, "unreadable")
                continue
            if st.st_size > config.MAX_FILE_BYTES:
                yield Skipped(rel, "too_large")
                continue
            if not os.access(entry.path, os.R_OK):
                yield Skipped(rel, "unreadable")
                continue
            yield FoundFile(rel, st.st_size, st.st_mtime_ns)
    finally:
        rules.pop(pushed)


def _skip_reason(name: str, rel: str, rules: _Rules) -> str | None:
    if sensitive(rel):
        return "secret"
    # ".git" is a file (a pointer to the git directory) in worktrees and submodules.
    if name in (".gitignore", ".sleuthignore", ".gitattributes", ".git"):
        return "ignored"
    if rules.ignored(rel, False):
        return "ignored"
    if name in LOCKFILES:
        return "lockfile"
    if _GENERATED.match_file(rel):
        return "generated"
    suffix = os.path.splitext(name)[1].lower()
    if suffix in BINARY_EXTENSIONS or name.lower() in BINARY_EXTENSIONS:
        return "binary"
    return None


def content_skip_reason(data: bytes) -> str | None:
    """Reasons found by reading: NUL bytes mean binary; very long lines mean minified."""
    if b"\x00" in data[:8192]:
        return "binary"
    if not data:
        return None
    lines = data.count(b"\n") + 1
    if len(data) / lines > config.MINIFIED_AVG_LINE:
        return "minified"
    if lines < 50 and len(data) > config.MINIFIED_MAX_LINE:
        longest = max(len(line) for line in data.split(b"\n"))
        if longest > config.MINIFIED_MAX_LINE:
            return "minified"
    return None
