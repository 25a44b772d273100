"""Read commits from git through its command line, streamed and bounded.

``git log`` output is parsed line by line as it arrives, so memory stays flat on
repositories with 100k commits and a huge commit (a vendored library, a mass rename)
costs only the time to skip its lines: each commit keeps a bounded digest of its diff.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SleuthError
from .digest import DigestBuilder


class GitError(SleuthError):
    """git is missing, the folder is not a repository, or git refused a request."""


#: Marks the start of a commit header and the end of its message in our log format.
_START, _SEP, _END = "\x1e", "\x1f", "\x1d"
_FORMAT = f"--format={_START}%H{_SEP}%P{_SEP}%an{_SEP}%ae{_SEP}%at{_SEP}%aI{_SEP}%B{_END}"
#: git reads all of --stdin before its first line of output: smaller runs answer sooner.
SHAS_PER_PROCESS = 2_000
_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@ ?(.*)$")


@dataclass(slots=True)
class FileChange:
    path: str
    status: str  # A, M, D, R, C, T
    old_path: str = ""
    added: int = 0
    removed: int = 0


@dataclass(slots=True)
class CommitRecord:
    sha: str
    parents: list[str]
    author_name: str
    author_email: str
    author_time: int
    date: str  # ISO 8601 with the author's offset
    message: str
    files: list[FileChange] = field(default_factory=list)
    digest: str = ""
    added_identifiers: list[str] = field(default_factory=list)
    removed_identifiers: list[str] = field(default_factory=list)

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0].strip()

    @property
    def body(self) -> str:
        parts = self.message.split("\n", 1)
        return parts[1].strip() if len(parts) > 1 else ""


@dataclass(frozen=True, slots=True)
class RepoState:
    """What the history indexer needs to know before it walks."""

    head: str
    branch: str  # "" when HEAD is detached
    shallow: bool
    shallow_marker: str  # content of .git/shallow: changes when the clone is deepened


class GitRepo:
    def __init__(self, root: Path) -> None:
        self.root = root
        #: Commits the last read_commits() could not diff (read by message only).
        self.undiffable: list[str] = []

    # -- plumbing -----------------------------------------------------------------------
    def _command(self, *args: str) -> list[str]:
        return ["git", "-c", "core.quotePath=off", "-C", str(self.root), *args]

    def run(self, *args: str, check: bool = True, stdin: str | None = None) -> str:
        try:
            proc = subprocess.run(
                self._command(*args),
                input=stdin,
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                env=_git_env(),
            )
        except FileNotFoundError as exc:
            raise GitError("git is not installed: history search needs the git command") from exc
        if check and proc.returncode != 0:
            first = (proc.stderr.strip().splitlines() or ["failed"])[0]
            raise GitError(f"git {args[0]}: {first}")
        return proc.stdout

    # -- state --------------------------------------------------------------------------
    def state(self) -> RepoState:
        """HEAD, branch and shallowness; clear errors for non-repositories and empty ones."""
        if not (self.root / ".git").exists():
            raise GitError(f"not a git repository: {self.root} (history search reads git)")
        inside = self.run("rev-parse", "--is-inside-work-tree", check=False).strip()
        if inside != "true":
            raise GitError(f"not a git work tree: {self.root}")
        head = self.run("rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False).strip()
        if not head:
            raise GitError("the repository has no commits yet: nothing to search in its history")
        branch = self.run("symbolic-ref", "--quiet", "--short", "HEAD", check=False).strip()
        shallow = self.run("rev-parse", "--is-shallow-repository").strip() == "true"
        marker = ""
        if shallow:
            git_dir = Path(self.run("rev-parse", "--absolute-git-dir").strip())
            try:
                marker = (git_dir / "shallow").read_text()
            except OSError:
                marker = "?"
        return RepoState(head, branch, shallow, marker)

    def new_commits(self, head: str, known_tips: Iterable[str]) -> list[str]:
        """Commits reachable from ``head`` but from none of ``known_tips``, newest first."""
        args = ["rev-list", "--ignore-missing", head]
        args += [f"^{tip}" for tip in known_tips]
        return self.run(*args).split()

    def is_ancestor(self, older: str, newer: str) -> bool:
        proc = subprocess.run(
            self._command("merge-base", "--is-ancestor", older, newer),
            capture_output=True,
            env=_git_env(),
        )
        return proc.returncode == 0

    # -- reading commits ----------------------------------------------------------------
    def read_commits(self, shas: list[str]) -> Iterator[CommitRecord]:
        """The given commits, in the given order, each with its bounded diff digest.

        A commit git cannot diff (objects missing from a damaged or partial clone) is
        read without its diff and listed in ``self.undiffable``; the walk goes on.
        """
        self.undiffable = []
        for begin in range(0, len(shas), SHAS_PER_PROCESS):
            yield from self._read_slice(shas[begin : begin + SHAS_PER_PROCESS])

    def walk_commits(self, head: str, known_tips: list[str]) -> Iterator[CommitRecord]:
        """Like read_commits(new_commits(...)), but streams from the first commit on.

        git walks and diffs in one process, so the first commits arrive at once instead
        of after the whole list is known (seconds on a 100k-commit history). If git
        fails part way, the rest is listed and read one by one with read_commits().
        """
        walk = [a for a in _LOG_ARGS if a not in ("--no-walk=unsorted", "--stdin")]
        command = self._command(*walk, *_DIFF_ARGS, head, *[f"^{t}" for t in known_tips])
        run = _LogRun(command, [])
        seen: list[str] = []
        for record in run:
            seen.append(record.sha)
            yield record
        self.undiffable = []
        if run.error is not None:
            self.undiffable.extend(seen[-1:])  # git may have died inside its diff
            done = set(seen)
            rest = [s for s in self.new_commits(head, known_tips) if s not in done]
            failed = list(self.undiffable)
            yield from self.read_commits(rest)
            self.undiffable = failed + self.undiffable

    def _read_slice(self, shas: list[str]) -> Iterator[CommitRecord]:
        remaining = shas
        while remaining:
            run = _LogRun(self._command(*_LOG_ARGS, *_DIFF_ARGS), remaining)
            count = 0
            for record in run:
                count += 1
                yield record
            if run.error is None:
                return
            if count:  # git may have died inside the diff of the last commit it printed
                self.undiffable.append(remaining[count - 1])
            else:  # the first commit itself cannot be diffed: read it bare
                self.undiffable.append(remaining[0])
                yield from _LogRun(self._command(*_LOG_ARGS), remaining[:1])
                count = 1
            remaining = remaining[count:]

    def merge_files(self, shas: list[str]) -> dict[str, list[FileChange]]:
        """Files each merge commit changed against its first parent (no patch: cheap)."""
        if not shas:
            return {}
        stdout = self.run(
            "log",
            "--no-walk=unsorted",
            "--stdin",
            "--raw",
            "-M",
            "--diff-merges=first-parent",
            f"--format={_START}%H",
            check=False,
            stdin="\n".join(shas) + "\n",
        )
        out: dict[str, list[FileChange]] = {}
        files: list[FileChange] = []
        for line in stdout.split("\n"):  # not splitlines(): it splits at \x1e too
            if line.startswith(_START):
                files = out.setdefault(line[1:].strip(), [])
            elif line.startswith(":"):
                change = _raw_line(line)
                if change is not None:
                    files.append(change)
        return out

    def show_patch(self, sha: str, context: int = 3) -> str:
        """The full patch of one commit (merges against their first parent)."""
        return self.run(
            "show",
            "--format=",
            "--diff-merges=first-parent",
            f"-U{context}",
            "--no-color",
            "--no-ext-diff",
            "-M",
            sha,
            check=False,
        )


def _git_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update({"LC_ALL": "C", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"})
    return env


_DIFF_ARGS = ("-p", "-U0", "--raw", "-M")
_LOG_ARGS = (
    "log",
    "--no-walk=unsorted",
    "--stdin",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--encoding=UTF-8",
    _FORMAT,
)


class _LogRun:
    """One ``git log --stdin`` process over ``shas``, iterated as parsed commits.

    After iteration ``error`` holds git's first error line when it failed part way.
    """

    def __init__(self, command: list[str], shas: list[str]) -> None:
        self.command = command
        self.shas = shas
        self.error: str | None = None

    def __iter__(self) -> Iterator[CommitRecord]:
        with tempfile.TemporaryFile() as errors:
            try:
                proc = subprocess.Popen(
                    self.command,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=errors,
                    env=_git_env(),
                    bufsize=1 << 20,
                )
            except FileNotFoundError as exc:
                raise GitError("git is not installed: history search needs git") from exc
            assert proc.stdin is not None and proc.stdout is not None
            feeder = threading.Thread(target=_feed, args=(proc.stdin, self.shas), daemon=True)
            feeder.start()
            finished = False
            try:
                yield from parse_log(proc.stdout)
                finished = True
            finally:
                proc.stdout.close()
                if proc.poll() is None and not finished:
                    proc.kill()
                code = proc.wait()
                feeder.join(timeout=5)
            if code != 0:
                errors.seek(0)
                lines = errors.read().decode("utf-8", errors="replace").strip().splitlines()
                self.error = lines[0] if lines else f"git log exited with {code}"


def _feed(stream, shas: list[str]) -> None:
    try:
        for begin in range(0, len(shas), 4096):
            stream.write(("\n".join(shas[begin : begin + 4096]) + "\n").encode())
        stream.close()
    except (BrokenPipeError, ValueError, OSError):
        pass


def _unquote(path: str) -> str:
    """Undo git's C-style quoting of unusual path names."""
    if len(path) >= 2 and path[0] == '"' and path[-1] == '"':
        raw = path[1:-1].encode("latin-1", errors="backslashreplace")
        return raw.decode("unicode_escape").encode("latin-1").decode("utf-8", errors="replace")
    return path


def parse_log(stream: Iterable[bytes]) -> Iterator[CommitRecord]:
    """Parse our ``git log`` format (header, message, raw lines, -U0 patch) as it streams."""
    record: CommitRecord | None = None
    digest: DigestBuilder | None = None
    message: list[str] = []
    in_message = False
    by_path: dict[str, FileChange] = {}
    current: FileChange | None = None
    old_left = new_left = 0  # lines still to come in the current hunk
    source = ""

    def finish() -> CommitRecord | None:
        if record is None:
            return None
        assert digest is not None
        record.digest, record.added_identifiers, record.removed_identifiers = digest.result()
        return record

    for raw in stream:
        line = raw.decode("utf-8", errors="replace").rstrip("\n")
        if in_message:
            if line.endswith(_END):
                message.append(line[: -len(_END)])
                assert record is not None
                record.message = "\n".join(message).strip()
                in_message = False
            else:
                message.append(line)
            continue
        if old_left or new_left:  # inside a hunk: the counts say what belongs to it
            if line.startswith("-") and old_left:
                old_left -= 1
                if current is not None:
                    current.removed += 1
                assert digest is not None
                digest.removed(line[1:])
                continue
            if line.startswith("+") and new_left:
                new_left -= 1
                if current is not None:
                    current.added += 1
                assert digest is not None
                digest.added(line[1:])
                continue
            if line.startswith("\\"):  # "\ No newline at end of file"
                continue
            old_left = new_left = 0
        if line.startswith(_START):
            done = finish()
            if done is not None:
                yield done
            fields = line[1:].split(_SEP, 6)
            if len(fields) < 7:
                record = None
                continue
            sha, parents, name, email, when, iso, first = fields
            record = CommitRecord(
                sha, parents.split(), name, email, int(when or 0), iso, message=""
            )
            digest = DigestBuilder()
            by_path, current = {}, None
            message = []
            if first.endswith(_END):
                record.message = first[: -len(_END)].strip()
            else:
                message.append(first)
                in_message = True
            continue
        if record is None:
            continue
        if line.startswith(":"):
            change = _raw_line(line)
            if change is not None:
                record.files.append(change)
                by_path[change.path] = change
            continue
        if line.startswith("diff --git "):
            current = None
            continue
        if line.startswith("--- "):
            source = line[4:]
            continue
        if line.startswith("+++ "):
            target = line[4:]
            name = _unquote(target if target != "/dev/null" else source)[2:]
            current = by_path.get(name)
            assert digest is not None
            digest.file(name)
            continue
        if line.startswith("@@"):
            match = _HUNK.match(line)
            if match is None:
                continue
            old_left = int(match.group(1)) if match.group(1) is not None else 1
            new_left = int(match.group(2)) if match.group(2) is not None else 1
            assert digest is not None
            digest.hunk(match.group(3))
            continue
    done = finish()
    if done is not None:
        yield done


def _raw_line(line: str) -> FileChange | None:
    """``:100644 100644 abc def M\tpath`` or ``... R095\told\tnew`` -> FileChange."""
    meta, _, paths = line.partition("\t")
    parts = meta.split()
    if len(parts) < 5 or not paths:
        return None
    status = parts[4][:1]
    names = paths.split("\t")
    if status in ("R", "C") and len(names) == 2:
        return FileChange(_unquote(names[1]), status, old_path=_unquote(names[0]))
    return FileChange(_unquote(names[0]), status)
