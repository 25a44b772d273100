"""Find the files worth indexing: ignore rules, default excludes, secrets, size.

Content checks (binary, minified, encoding) happen later, in the indexer, and only for
files whose mtime or size changed, so an unchanged repository is never re-read.
"""

from __future__ import annotations

import os
import re
import stat
import warnings
from collections.abc import Container, Iterator
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
        "third-party",
        "thirdparty",
        "3rdparty",
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
        "_site",  # Jekyll's and Eleventy's built site: a copy of the docs as HTML
        "deps",
        ".stack-work",
        "dist-newstyle",
        "zig-cache",
        ".zig-cache",
        "zig-out",
    }
)
#: Suffixes of directory names never descended into: generated bundles (a Dash docset
#: repeats a documentation site that is generated already).
EXCLUDED_DIR_SUFFIXES = (".docset",)


#: Folders no ignore rule can re-include: version control's and the index's own.
NEVER_INDEXED_DIRS = frozenset({".git", ".hg", ".svn", config.INDEX_DIRNAME})


def excluded_dir(name: str) -> bool:
    """Whether a folder of this name is never indexed (vendored, built or generated)."""
    return name in EXCLUDED_DIRS or name.endswith(EXCLUDED_DIR_SUFFIXES)


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
        "bun.lock",
        "deno.lock",
        "npm-shrinkwrap.json",
        "pdm.lock",
        "pixi.lock",
        "Podfile.lock",
        "Cartfile.resolved",
        "gradle.lockfile",
        "MODULE.bazel.lock",
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
    "*.tfvars.json",
    "*.tfstate",
    "*.tfstate.*",
    ".pgpass",
    ".vault-token",
    ".s3cfg",
    ".boto",
    ".my.cnf",
    "kubeconfig",
    "*.kubeconfig",
    ".kube/config",
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


def _joined(spec: pathspec.GitIgnoreSpec) -> re.Pattern[str]:
    """One regex that matches a path where any of the spec's patterns does (pathspec
    tries them one by one). Patterns for a name at any depth share a head and a tail
    (`^(?:.+/)?` and "then a slash or the end"): written once around their alternatives,
    the folders of a path are tried once for all of them instead of once per pattern.
    re.error when the patterns cannot be joined."""
    head, tail = r"^(?:.+/)?", r"(?:(?:/)|$)"
    anywhere, other = [], []
    for pattern in spec.patterns:
        if pattern.include is None or pattern.regex is None:
            continue  # a comment or blank line: matches nothing
        text = pattern.regex.pattern.replace("(?P<ps_d>", "(?:")
        if text.startswith(head) and text.endswith(tail):
            anywhere.append(text[len(head) : -len(tail)])
        else:
            other.append(text)
    if anywhere:
        other.append(f"{head}(?:{'|'.join(anywhere)}){tail}")
    with warnings.catch_warnings():  # `[[a]`: see _compile
        warnings.simplefilter("ignore", FutureWarning)
        return re.compile("|".join(f"(?:{part})" for part in other) or r"(?!)")


def _any_of(patterns: list[str]) -> re.Pattern[str]:
    """One regex for a list of gitignore patterns that only include (no ``!``): a path
    matches when any pattern does. Every file of every run is checked against these."""
    spec = pathspec.GitIgnoreSpec.from_lines(patterns)
    if not all(p.include for p in spec.patterns):
        raise ValueError("a negated pattern needs pathspec's order of patterns")
    return _joined(spec)


#: Secret patterns name files, never folders: a folder called ``credentials`` may hold
#: the code that manages them. A pattern with a folder in it (``.aws/credentials``)
#: matches at any depth.
_SECRET_NAMES = _any_of([p for p in SECRET_PATTERNS if "/" not in p])
_SECRET_PATHS = _any_of(["**/" + p for p in SECRET_PATTERNS if "/" in p])
_GENERATED = _any_of(GENERATED_PATTERNS)


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
            raise PathError(f"not a directory: {start} (a file: give the folder it is in)")
        if not os.access(start, os.R_OK | os.X_OK):
            raise PathError(f"cannot read directory: {start}")
    except PermissionError as exc:
        raise PathError(f"cannot read directory: {start}") from exc
    start = start.resolve()
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return start


class _IgnoreFile:
    """One ignore file's patterns. Most paths match none of them: a joined regex says so
    in one test, and only a path it matches goes through pathspec, whose verdict (the
    last matching pattern, file patterns over folder ones) decides."""

    def __init__(self, spec: pathspec.GitIgnoreSpec, own: bool = False) -> None:
        self.spec = spec
        #: a ``.sleuthignore``: its ``!folder/`` re-includes a folder excluded by default
        self.own = own
        try:
            self.any_match: re.Pattern[str] | None = _joined(spec)
        except (re.error, OverflowError, RecursionError):
            self.any_match = None  # pathspec alone then

    def verdict(self, path: str) -> bool | None:
        """True: ignored; False: re-included (``!``); None: no pattern speaks of it."""
        if self.any_match is not None and self.any_match.match(path) is None:
            return None
        return self.spec.check_file(path).include


def _read_ignore(path: Path) -> _IgnoreFile | None:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    if not lines:
        return None
    own = path.name == ".sleuthignore"
    try:
        return _IgnoreFile(_compile(lines), own)
    except (ValueError, re.error):
        # git passes over a line it cannot read (`!` alone, a range `[z-a]`); so do we,
        # instead of failing every index run of the repository
        return _IgnoreFile(_compile([line for line in lines if _readable(line)]), own)


def _compile(lines: list[str]) -> pathspec.GitIgnoreSpec:
    """The spec of ignore lines, without the regex module's warnings about patterns
    such as `[[a]` (printed on every index run otherwise)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return pathspec.GitIgnoreSpec.from_lines(lines)


def _readable(line: str) -> bool:
    try:
        _compile([line])
    except (ValueError, re.error):
        return False
    return True


def sensitive(rel_path: str) -> bool:
    """True for files matching the secret patterns (by name, or by path for the
    patterns that hold a folder)."""
    name = rel_path.rsplit("/", 1)[-1]
    return _SECRET_NAMES.match(name) is not None or _SECRET_PATHS.match(rel_path) is not None


#: A private key written out (PEM, OpenSSH, PuTTY) or a cloud service account's key file.
_KEY_CONTENT = re.compile(
    rb"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-"
    rb'|"private_key"\s*:\s*"-----BEGIN'
)


_KEY_TEXT = re.compile(_KEY_CONTENT.pattern.decode())


def holds_key(data: bytes | str, language: str) -> bool:
    """Whether a file that is not source code holds a private key: such a file is a
    secret whatever its name (``deploy_key``, ``gcp.json``). Source files are kept: a
    library's tests often embed a throwaway key, and the code around it is wanted."""
    if language not in KEY_LANGUAGES:
        return False
    found = _KEY_TEXT.search(data) if isinstance(data, str) else _KEY_CONTENT.search(data)
    return found is not None


#: Languages whose files are searched for private keys: text and configuration, not code.
KEY_LANGUAGES = frozenset({"text", "markdown", "rst", "asciidoc", "json", "yaml", "toml"})


class _Rules:
    """Stack of ignore specs; the deepest file with a decisive answer wins, as in git."""

    def __init__(self, root: Path) -> None:
        self.layers: list[tuple[str, _IgnoreFile]] = []
        for base_file in (root / ".git" / "info" / "exclude",):
            spec = _read_ignore(base_file)
            if spec:
                self.layers.append(("", spec))

    def push_dir(self, directory: Path, rel_dir: str, names: Container[str]) -> int:
        """Add the ignore files among the folder's ``names`` (its entries: most folders
        have none, and trying to open one in each folder costs a failed open)."""
        added = 0
        for name in (".gitignore", ".sleuthignore"):
            if name not in names:
                continue
            spec = _read_ignore(directory / name)
            if spec:
                self.layers.append((rel_dir, spec))
                added += 1
        return added

    def pop(self, count: int) -> None:
        if count:
            del self.layers[-count:]

    def ignored(self, rel_path: str, is_dir: bool) -> bool:
        return self._decision(rel_path, is_dir)[0]

    def _decision(self, rel_path: str, is_dir: bool) -> tuple[bool, bool]:
        """Whether the path is ignored, and whether a ``.sleuthignore`` said so."""
        for base, rules in reversed(self.layers):
            local = rel_path[len(base) + 1 :] if base else rel_path
            verdict = rules.verdict(local + "/" if is_dir else local)
            if verdict is not None:
                return verdict, rules.own
        return False, False

    def skips_dir(self, name: str, rel_path: str) -> bool:
        """Whether the walk passes over this folder: ignored, or excluded by default
        (``vendor``, ``build``, ...) unless a ``.sleuthignore`` re-includes it by a
        negation (``!source/vendor/``). A ``.gitignore`` speaks of what git tracks, so
        its negations do not re-include a folder that sleuth leaves out."""
        if name in NEVER_INDEXED_DIRS:
            return True
        ignored, own = self._decision(rel_path, True)
        if excluded_dir(name):
            return ignored or not own
        return ignored


def walk(root: Path) -> Iterator[FoundFile | Skipped]:
    """Yield every file under root as FoundFile, or Skipped with a reason.

    Symlinks are not followed (no loops, no escaping the repository). Ignored
    directories are not descended into and are not reported file by file.
    """
    yield from _walk_dir(root, "", _Rules(root))


def _walk_dir(directory: Path, rel_dir: str, rules: _Rules) -> Iterator[FoundFile | Skipped]:
    try:
        entries = sorted(os.scandir(directory), key=lambda e: e.name)
    except OSError:
        yield Skipped(rel_dir or ".", "unreadable")
        return
    pushed = rules.push_dir(directory, rel_dir, {entry.name for entry in entries})
    try:
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            if not _utf8(entry.name):
                yield Skipped(_shown(rel), "bad_name")
                continue
            try:
                if entry.is_symlink():
                    yield Skipped(rel, "symlink")
                    continue
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                yield Skipped(rel, "unreadable")
                continue
            if is_dir:
                if rules.skips_dir(entry.name, rel):
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


def _utf8(name: str) -> bool:
    """Whether a file name is text: bytes that are not UTF-8 reach Python as lone
    surrogates, which no UTF-8 store (SQLite, tantivy, JSON) can hold."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shown(rel: str) -> str:
    """A path with undecodable bytes, printable: each such byte becomes U+FFFD."""
    return rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


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
    if _GENERATED.match(rel):
        return "generated"
    suffix = os.path.splitext(name)[1].lower()
    if suffix in BINARY_EXTENSIONS or name.lower() in BINARY_EXTENSIONS:
        return "binary"
    return None


def content_skip_reason(data: bytes) -> str | None:
    """Reasons found by reading: NUL bytes mean binary; very long lines mean minified,
    unless they are a few lines of data in a file of code lines (a source file that
    embeds an image or a table as one string is code all the same)."""
    if b"\x00" in data[:8192]:
        return "binary"
    if not data:
        return None
    lines = data.count(b"\n") + 1
    if len(data) / lines > config.MINIFIED_AVG_LINE:
        return None if _code_around_data(data.split(b"\n")) else "minified"
    if lines < 50 and len(data) > config.MINIFIED_MAX_LINE:
        longest = max(len(line) for line in data.split(b"\n"))
        if longest > config.MINIFIED_MAX_LINE:
            return "minified"
    return None


#: Lines of ordinary length a file with very long lines needs to count as code.
CODE_LINES = 50


def _code_around_data(lines: list[bytes]) -> bool:
    """Whether nearly all lines (nine in ten, and at least ``CODE_LINES``) are of
    ordinary length: the long ones are then data inside code, not a minified file (whose
    few short lines are a licence header)."""
    ordinary = sum(1 for line in lines if len(line) <= config.MINIFIED_AVG_LINE)
    return ordinary >= CODE_LINES and ordinary >= 0.9 * len(lines)


#: File names whose change alters which files are indexed: a watcher re-walks the tree.
RULE_FILES = frozenset({".gitignore", ".sleuthignore"})


class PathRules:
    """``walk``'s rules for single paths, for a watcher that hears about a few files.

    Ignore files are read once per folder and cached; ``forget`` drops the cache when
    one changes. Answers match ``walk`` over the same tree.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._specs: dict[str, list[_IgnoreFile]] = {}

    def forget(self) -> None:
        self._specs.clear()

    def _rules_for(self, rel_dir: str) -> _Rules:
        """The rule stack in effect for entries of ``rel_dir`` (its own files included)."""
        rules = _Rules(self.root)
        parts = rel_dir.split("/") if rel_dir else []
        for depth in range(len(parts) + 1):
            here = "/".join(parts[:depth])
            specs = self._specs.get(here)
            if specs is None:
                folder = self.root / here if here else self.root
                specs = [s for s in (_read_ignore(folder / n) for n in sorted(RULE_FILES)) if s]
                self._specs[here] = specs
            rules.layers.extend((here, spec) for spec in specs)
        return rules

    def excluded(self, rel: str, is_dir: bool = False) -> bool:
        """True when ``walk`` would never reach ``rel``: an excluded or ignored folder on
        the way, or an ignored file. No stat: the path may be gone already."""
        parts = rel.split("/")
        for depth in range(1, len(parts) + (1 if is_dir else 0)):
            folder = "/".join(parts[:depth])
            if self._rules_for("/".join(parts[: depth - 1])).skips_dir(parts[depth - 1], folder):
                return True
        if is_dir:
            return False
        parent = "/".join(parts[:-1])
        return _skip_reason(parts[-1], rel, self._rules_for(parent)) == "ignored"

    def scan(self, rels: list[str]) -> tuple[list[FoundFile], list[Skipped], list[str]]:
        """Found files, skipped files and the scanned scopes under the given paths.

        A folder is walked whole (a folder moved in arrives as one event). The scopes
        are the paths given, minus those ``walk`` would not reach: indexed files at or
        under a scope that are not found again are gone.
        """
        found: list[FoundFile] = []
        skipped: list[Skipped] = []
        scopes: list[str] = []
        walked: list[str] = []  # folders walked whole: paths under them are in already
        for rel in sorted(set(rels)):
            if any(rel.startswith(folder + "/") for folder in walked):
                continue  # a file listed twice would be written twice
            if not _utf8(rel):  # never indexed, so no scope either
                skipped.append(Skipped(_shown(rel), "bad_name"))
                continue
            path = self.root / rel
            try:
                is_dir = path.is_dir() and not path.is_symlink()
            except OSError:
                is_dir = False
            scopes.append(rel)
            if self.excluded(rel, is_dir):
                continue
            if is_dir:
                walked.append(rel)
                for item in _walk_dir(path, rel, _Subtree(self._rules_for(rel), rel)):
                    (skipped if isinstance(item, Skipped) else found).append(item)
                continue
            item = self._one_file(rel)
            if isinstance(item, Skipped):
                skipped.append(item)
            elif item is not None:
                found.append(item)
        return found, skipped, scopes

    def _one_file(self, rel: str) -> FoundFile | Skipped | None:
        path = self.root / rel
        try:
            st = os.lstat(path)
        except OSError:
            return None  # gone
        name = rel.rsplit("/", 1)[-1]
        if stat.S_ISLNK(st.st_mode):
            return Skipped(rel, "symlink")
        if not stat.S_ISREG(st.st_mode):
            return None
        reason = _skip_reason(name, rel, self._rules_for(rel.rpartition("/")[0]))
        if reason == "ignored":
            return None
        if reason:
            return Skipped(rel, reason)
        if st.st_size > config.MAX_FILE_BYTES:
            return Skipped(rel, "too_large")
        if not os.access(path, os.R_OK):
            return Skipped(rel, "unreadable")
        return FoundFile(rel, st.st_size, st.st_mtime_ns)


class _Subtree(_Rules):
    """A rule stack that starts with a folder's own rules already in place.

    ``_walk_dir`` pushes the ignore files of the folder it enters; for the top folder
    of a subtree those are in the stack already, so the first push is skipped.
    """

    def __init__(self, rules: _Rules, top: str) -> None:
        self.layers = list(rules.layers)
        self._top: str | None = top

    def push_dir(self, directory: Path, rel_dir: str, names: Container[str]) -> int:
        if rel_dir == self._top:
            self._top = None  # pushed by PathRules already
            return 0
        return super().push_dir(directory, rel_dir, names)
