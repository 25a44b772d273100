"""Ignore rules, default excludes, secrets and size limits."""

from __future__ import annotations

import os
import subprocess
import warnings
from pathlib import Path

import pytest

from sleuth import Index
from sleuth.discover import FoundFile, PathRules, Skipped, find_root, walk
from sleuth.errors import PathError

from .conftest import git_init, write_tree


def _walk(root: Path) -> tuple[set[str], dict[str, str]]:
    found, skipped = set(), {}
    for item in walk(root):
        if isinstance(item, FoundFile):
            found.add(item.path)
        else:
            assert isinstance(item, Skipped)
            skipped[item.path] = item.reason
    return found, skipped


def test_gitignore_at_every_level_exclude_and_sleuthignore(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            ".gitignore": "*.log\nbuild_output/\n",
            "keep.py": "x = 1\n",
            "debug.log": "noise\n",
            "build_output/gen.py": "x = 1\n",
            "pkg/.gitignore": "local_*.py\n!local_keep.py\n",
            "pkg/local_tmp.py": "x = 1\n",
            "pkg/local_keep.py": "x = 1\n",
            "pkg/mod.py": "x = 1\n",
            ".sleuthignore": "fixtures/\n",
            "fixtures/big.py": "x = 1\n",
            "excluded_by_info.py": "x = 1\n",
        },
    )
    git_init(tmp_path)
    (tmp_path / ".git" / "info" / "exclude").write_text("excluded_by_info.py\n")
    found, _ = _walk(tmp_path)
    assert found == {"keep.py", "pkg/local_keep.py", "pkg/mod.py"}


@pytest.mark.parametrize("bad_line", ["!", "[z-a]", "a[b-a]c"])
def test_an_ignore_line_git_cannot_read_is_passed_over(tmp_path: Path, bad_line: str) -> None:
    """Git passes over such a line; it must not stop every index run of the repository,
    and the other lines of the file still count."""
    write_tree(
        tmp_path,
        {
            ".gitignore": f"{bad_line}\n*.log\nbuild/\n[[x]\n",
            "keep.py": "x = 1\n",
            "debug.log": "noise\n",
            "build/gen.py": "x = 1\n",
            "pkg/.sleuthignore": f"tmp_*.py\n{bad_line}\n",
            "pkg/tmp_a.py": "x = 1\n",
            "pkg/mod.py": "x = 1\n",
        },
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # `[[x]` draws a FutureWarning from `re` itself
        found, _ = _walk(tmp_path)
    assert found == {"keep.py", "pkg/mod.py"}


def test_names_that_are_not_utf8_are_skipped_and_the_rest_indexed(tmp_path: Path) -> None:
    """Such a name reaches Python with lone surrogates, which SQLite cannot store: it
    made every index run fail. Now it is a skipped file (its folder too), shown with
    U+FFFD for the bad byte; a newline in a name is fine; a pipe is never opened."""
    write_tree(tmp_path, {"ok.py": "def ok():\n    return 1\n"})
    root = os.fsencode(tmp_path)
    with open(os.path.join(root, b"bad\xff.py"), "wb") as handle:
        handle.write(b"def bad():\n    return 2\n")
    os.mkdir(os.path.join(root, b"dir\xfe"))
    with open(os.path.join(root, b"dir\xfe", b"inner.py"), "wb") as handle:
        handle.write(b"x = 1\n")
    (tmp_path / "new\nline.py").write_text("def newline_name():\n    return 3\n")
    os.mkfifo(tmp_path / "pipe.py")
    found, skipped = _walk(tmp_path)
    assert found == {"ok.py", "new\nline.py"}
    assert skipped == {"bad\ufffd.py": "bad_name", "dir\ufffd": "bad_name"}
    index = Index(tmp_path)
    report = index.index(embed="none").update
    assert (report.changed, report.skipped) == (2, {"bad_name": 2})
    assert index.search("newline_name", mode="lexical").results[0].path == "new\nline.py"


def test_default_excludes_lockfiles_generated_and_binaries(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "src/a.py": "x = 1\n",
            "node_modules/lib/index.js": "x\n",
            "vendor/dep.go": "package dep\n",
            "include/lib/thirdparty/hedley.hpp": "#define HEDLEY 1\n",  # bundled copies
            "3rdparty/zlib/zlib.h": "int inflate(void);\n",
            "dist/bundle.js": "x\n",
            "_site/readme/index.html": "<p>x</p>\n",  # a built site
            "docs/docsets/App.docset/Contents/Resources/Documents/index.html": "<p>x</p>\n",
            "package-lock.json": "{}\n",
            "Cargo.lock": "x\n",
            "bun.lock": "{}\n",  # Bun's text lockfile
            "app.min.js": "x\n",
            "logo.png": b"\x89PNG\r\n",
        },
    )
    found, skipped = _walk(tmp_path)
    assert found == {"src/a.py"}
    assert skipped["package-lock.json"] == "lockfile"
    assert skipped["Cargo.lock"] == "lockfile"
    assert skipped["bun.lock"] == "lockfile"
    assert skipped["app.min.js"] == "generated"
    assert skipped["logo.png"] == "binary"


def test_a_sleuthignore_negation_re_includes_a_folder_excluded_by_default(
    tmp_path: Path,
) -> None:
    """chalk keeps its own code in `source/vendor/`: `!source/vendor/` in .sleuthignore
    brings it in. A .gitignore negation speaks of git and leaves the default alone, and
    no rule re-includes version control's folders or the index's own; the watcher's
    per-path rules agree with the walk."""
    write_tree(
        tmp_path,
        {
            ".sleuthignore": "!source/vendor/\n!.git/\n!.sleuth/\n",
            ".gitignore": "!lib/vendor/\n",
            "source/index.js": "x\n",
            "source/vendor/supports-color/index.js": "x\n",
            "lib/vendor/dep.js": "x\n",
            "vendor/other.go": "package other\n",
            "node_modules/pkg/index.js": "x\n",
        },
    )
    git_init(tmp_path)
    (tmp_path / ".sleuth").mkdir()
    (tmp_path / ".sleuth" / "state.py").write_text("x = 1\n")
    found, _ = _walk(tmp_path)
    assert found == {"source/index.js", "source/vendor/supports-color/index.js"}
    rules = PathRules(tmp_path)
    assert not rules.excluded("source/vendor/supports-color/index.js")
    assert not rules.excluded("source/vendor", is_dir=True)
    for rel in ("lib/vendor/dep.js", "vendor/other.go", ".git/HEAD", ".sleuth/state.py"):
        assert rules.excluded(rel), rel


@pytest.mark.parametrize(
    "name",
    [
        ".env",
        ".env.production",
        "server.pem",
        "tls.key",
        "id_rsa",
        "id_ed25519.pub",
        "credentials.json",
        ".netrc",
        "config/secrets.yml",
        ".aws/credentials",
        "home/.aws/credentials",
        "prod.tfvars",
        "prod.tfvars.json",
        ".pgpass",
        ".vault-token",
        "deploy/kubeconfig",
    ],
)
def test_secrets_are_never_indexed(tmp_path: Path, name: str) -> None:
    write_tree(tmp_path, {name: "SECRET=hunter2\n", "ok.py": "x = 1\n"})
    (tmp_path / ".gitignore").write_text(f"!{name}\n")  # even when re-included
    found, skipped = _walk(tmp_path)
    assert name not in found
    assert skipped[name] == "secret"


def test_a_folder_named_like_a_secret_keeps_its_code(tmp_path: Path) -> None:
    # the patterns name files: rails keeps the code of its credentials command in
    # commands/credentials/
    write_tree(
        tmp_path,
        {
            "commands/credentials/credentials_command.rb": "class CredentialsCommand\nend\n",
            "commands/credentials/credentials": "TOKEN=hunter2\n",
        },
    )
    found, skipped = _walk(tmp_path)
    assert "commands/credentials/credentials_command.rb" in found
    assert skipped["commands/credentials/credentials"] == "secret"


KEY = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAzz\n-----END RSA PRIVATE KEY-----\n"


def test_a_private_key_is_a_secret_whatever_the_file_is_called(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "deploy_key": KEY,
            "gcp-key.json": '{"type": "service_account", "private_key": "' + KEY[:40] + '"}\n',
            # a library's test with a throwaway key is code, and stays
            "tls/handshake_test.go": f"package tls\n\nconst testKey = `{KEY}`\n",
            "notes.txt": "rotate the deploy key every quarter\n",
        },
    )
    git_init(tmp_path)
    index = Index(tmp_path)
    index.index(embed="none")
    meta = index._open()
    for name in ("deploy_key", "gcp-key.json"):
        assert meta.file_row(name).skip_reason == "secret", name
    assert index.status()["skipped"]["secret"] == 2
    paths = {r.path for r in index.search("PRIVATE KEY", k=20, mode="lexical").results}
    assert "tls/handshake_test.go" in paths
    assert not paths & {"deploy_key", "gcp-key.json"}


def test_the_secret_and_generated_lists_match_as_pathspec_does() -> None:
    """Each list is matched as one regex; a path is caught exactly when one of the
    list's patterns, read by pathspec as a .gitignore line, would catch it."""
    import pathspec

    from sleuth.discover import _GENERATED, GENERATED_PATTERNS, SECRET_PATTERNS, sensitive

    names = [
        ".env",
        ".env.local",
        "prod.env",
        ".envrc",
        "environment.py",
        "a/.env/inner.txt",
        "k.pem",
        "pem.py",
        "id_rsa",
        "id_rsa.pub",
        "docs/id_rsa_guide.md",
        ".netrc",
        "credentials",
        "credentials.yml",
        "my-credentials.json",
        "credentials_test.py",
        "secrets.yaml",
        "secrets",
        "a.secret",
        "service-account-1.json",
        "config.json",
        ".aws/credentials",
        "home/.aws/credentials",
        ".docker/config.json",
        "x.tfvars",
        "state.tfstate.backup",
        "app.min.js",
        "app.js",
        "x.pb.go",
        "x.go",
        "api_pb2.py",
        "a.g.dart",
        "Form.designer.cs",
        "bundle.js.map",
        "mapper.py",
        "src/app.bundle.js",
    ]
    paths = names + [f"deep/er/{name}" for name in names]
    spec = pathspec.GitIgnoreSpec.from_lines(GENERATED_PATTERNS)
    caught = [path for path in paths if spec.match_file(path)]
    assert [path for path in paths if _GENERATED.match(path)] == caught
    assert 10 <= len(caught) < len(paths)  # both kinds of path are in the sample
    # secret patterns name files: a bare pattern matches the file's name, one with a
    # folder matches at any depth; a folder's name never makes its files secret
    names_spec = pathspec.GitIgnoreSpec.from_lines([p for p in SECRET_PATTERNS if "/" not in p])
    paths_spec = pathspec.GitIgnoreSpec.from_lines(["**/" + p for p in SECRET_PATTERNS if "/" in p])
    caught = [
        path
        for path in paths
        if names_spec.match_file(path.rsplit("/", 1)[-1]) or paths_spec.match_file(path)
    ]
    assert [path for path in paths if sensitive(path)] == caught
    assert 10 <= len(caught) < len(paths)
    assert not sensitive("a/.env/inner.txt") and sensitive("deep/er/.aws/credentials")


def test_an_ignore_file_gives_pathspecs_verdict(tmp_path: Path) -> None:
    """A path no pattern of an ignore file can match is passed over by one joined regex;
    every other path gets pathspec's verdict. Both agree on every path, negations and
    folder patterns included."""
    from sleuth.discover import _read_ignore

    (tmp_path / ".gitignore").write_text(
        "# build output\n*.log\n!keep.log\nbuild/\n!build/keep/\n/root_only.txt\n"
        "docs/**/*.md\n!docs/README.md\n**/tmp\nfoo/*\n!foo/bar\n\\#hash\n*.py[cod]\n"
        "[Bb]in/\nnode_modules\n.env*\n"
    )
    rules = _read_ignore(tmp_path / ".gitignore")
    assert rules is not None and rules.any_match is not None
    names = [
        "a.log",
        "keep.log",
        "build",
        "root_only.txt",
        "b.md",
        "README.md",
        "tmp",
        "bar",
        "baz",
        "#hash",
        "x.pyc",
        "x.py",
        "bin",
        "Bin",
        "node_modules",
        ".env.local",
        "main.go",
        "docs",
        "foo",
    ]
    folders = ["", "x/", "docs/", "docs/a/", "build/", "build/keep/", "foo/", "src/bin/"]
    paths = [f"{folder}{name}{end}" for folder in folders for name in names for end in ("", "/")]
    verdicts = [rules.verdict(path) for path in paths]
    assert verdicts == [rules.spec.check_file(path).include for path in paths]
    assert verdicts.count(None) > 50 and verdicts.count(True) > 50 and False in verdicts


def test_size_limit_and_symlinks(tmp_path: Path) -> None:
    write_tree(tmp_path, {"big.py": "x = 1\n" * 200_000, "small.py": "x = 1\n"})
    (tmp_path / "loop").symlink_to(tmp_path, target_is_directory=True)
    (tmp_path / "alias.py").symlink_to(tmp_path / "small.py")
    found, skipped = _walk(tmp_path)
    assert found == {"small.py"}
    assert skipped["big.py"] == "too_large"
    assert skipped["loop"] == "symlink"
    assert skipped["alias.py"] == "symlink"


def test_root_is_git_root_or_the_path_itself(tmp_path: Path) -> None:
    write_tree(tmp_path, {"repo/a/b/c.py": "x\n", "plain/d.py": "x\n"})
    git_init(tmp_path / "repo")
    assert find_root(tmp_path / "repo" / "a" / "b") == (tmp_path / "repo").resolve()
    assert find_root(tmp_path / "plain") == (tmp_path / "plain").resolve()
    with pytest.raises(PathError):
        find_root(tmp_path / "missing")
    with pytest.raises(PathError):
        find_root(tmp_path / "plain" / "d.py")


def test_git_pointer_file_of_a_worktree_is_not_indexed(tmp_path: Path) -> None:
    main = tmp_path / "main"
    write_tree(main, {"a.py": "x = 1\n"})
    git_init(main)
    subprocess.run(["git", "-C", str(main), "add", "-A"], check=True)
    subprocess.run(
        ["git", "-C", str(main), "-c", "user.name=A", "-c", "user.email=a@b", "commit", "-qm", "x"],
        check=True,
    )
    other = tmp_path / "other"
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", str(other)], check=True)
    assert (other / ".git").is_file()
    assert find_root(other / "") == other
    found, skipped = _walk(other)
    assert found == {"a.py"}
    assert ".git" not in skipped
