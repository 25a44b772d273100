"""Build the training corpus of the static table: code chunks from registry packages.

Reads ``corpus.txt`` (pinned packages), downloads each one with the registry's own
client into a cache outside the repository, extracts it, chunks files exactly as
``sleuth index`` does (``prepare_file``), and writes what the model would see
(``embed_text``) to ``corpus.jsonl``. Files are sampled round-robin across the packages
of a language, with a fixed seed, up to a chunk budget per language, so no single
package dominates. Nothing here comes from the repositories of the search benchmark.

    python bench/static/build_corpus.py --cache ~/.cache/sleuth-static
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections import defaultdict
from pathlib import Path

from sleuth.chunking.base import Chunk
from sleuth.discover import FoundFile, walk
from sleuth.languages import language_for
from sleuth.prepare import content_hash, embed_text, prepare_file

HERE = Path(__file__).resolve().parent
BENCH_REPOS = HERE.parents[2] / "shared" / "bench" / "repos.json"
#: Install prefixes of Debian packages: dropped so paths look like a project's own.
PREFIX = re.compile(
    r"^(usr/share/gocode/src/|usr/share/cargo/registry/|usr/share/php/|"
    r"usr/lib/ruby/vendor_ruby/|usr/share/ruby-[^/]+/|usr/share/lua/[^/]+/|usr/include/|"
    r"usr/src/|usr/share/bash-completion/|usr/lib/x86_64-linux-gnu/lua/[^/]+/|usr/bin/|"
    r"usr/share/)"
)
#: Chunk budget per language: code at full budget, prose smaller, everything else
#: (html, json, css, ...) left out.
CODE_LANGUAGES = {
    "python",
    "javascript",
    "typescript",
    "tsx",
    "go",
    "rust",
    "java",
    "c",
    "cpp",
    "csharp",
    "ruby",
    "php",
    "kotlin",
    "swift",
    "scala",
    "bash",
    "haskell",
    "lua",
    "zig",
    "elixir",
}
DOC_LANGUAGES = {"markdown", "rst", "text"}


def chunk_of(values: tuple) -> Chunk:
    """The chunk back from the row ``prepare_file`` stores (``prepare.chunk_values``)."""
    start, end, kind, symbol, parent, signature, symbols, text, _ = values
    return Chunk(start, end, kind, text, symbol, parent, signature, symbols.split())


def read_list(path: Path) -> list[tuple[str, str, str]]:
    entries = []
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            registry, name, version = line.split()
            entries.append((registry, name, version))
    return entries


def check_not_benchmark(entries: list[tuple[str, str, str]], repos_json: Path) -> None:
    """Refuse a package whose name is a benchmark repository's (e.g. click, express)."""
    if not repos_json.exists():
        return
    names = {r["name"].lower() for r in json.loads(repos_json.read_text())}
    for _, name, _ in entries:
        base = name.lower().lstrip("@").split("/")[-1]
        stripped = re.sub(r"^(golang-github-[^-]+-|golang-|librust-|ruby-|php-|lua-|lib)", "", base)
        stripped = re.sub(r"(-dev|-java|-source)$", "", stripped)
        if base in names or stripped in names:
            raise SystemExit(f"{name}: a benchmark repository; not allowed in the corpus")


def download(registry: str, name: str, version: str, into: Path) -> Path:
    """The package archive in ``into`` (downloaded once, then reused)."""
    key = re.sub(r"[^A-Za-z0-9._+-]", "_", f"{registry}-{name}-{version}")
    target = into / key
    if target.exists() and any(target.iterdir()):
        return next(target.iterdir())
    target.mkdir(parents=True, exist_ok=True)
    if registry == "pypi":
        # pip reads an sdist's metadata by building it, with its build backend
        # (setuptools, hatchling, ...) fetched as wheels into an isolated environment:
        # only the package itself is asked for as source.
        cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary"]
        cmd += [name, "-d", str(target), f"{name}=={version}"]
    elif registry == "npm":
        cmd = ["npm", "pack", "--silent", "--pack-destination", str(target), f"{name}@{version}"]
    elif registry == "deb":
        cmd = ["apt-get", "download", "-q", f"{name}={version}"]
    else:
        raise SystemExit(f"unknown registry {registry}")
    subprocess.run(cmd, check=True, cwd=target, stdout=subprocess.DEVNULL)
    return next(target.iterdir())


def extract(archive: Path, into: Path) -> Path:
    if into.exists():
        return into
    temp = into.with_name(into.name + ".part")
    shutil.rmtree(temp, ignore_errors=True)
    temp.mkdir(parents=True)
    if archive.suffix == ".deb":
        subprocess.run(["dpkg-deb", "-x", str(archive), str(temp)], check=True)
        for src_zip in temp.rglob("src.zip"):  # openjdk-*-source
            with zipfile.ZipFile(src_zip) as z:
                z.extractall(src_zip.parent / "src")
            src_zip.unlink()
    elif archive.suffix == ".zip":
        with zipfile.ZipFile(archive) as z:
            z.extractall(temp)
    else:
        with tarfile.open(archive) as t:
            t.extractall(temp, filter="data")
    temp.rename(into)
    return into


def shell_language(root: Path, found: FoundFile, package: str) -> str | None:
    """Extension-less shell scripts (completions, neofetch) count as bash."""
    if "." in Path(found.path).name:
        return None
    try:
        head = (root / found.path).read_bytes()[:200]
    except OSError:
        return None
    if package == "bash-completion" and "completions/" in found.path:
        return "bash"
    return "bash" if re.match(rb"#!.*\b(ba)?sh\b", head) else None


def candidate_files(root: Path, package: str) -> dict[str, list[tuple[str, str]]]:
    """language -> [(path on disk, path as sleuth would show it)]."""
    out: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for item in walk(root):
        if not isinstance(item, FoundFile):
            continue
        path = item.path
        if path.endswith((".d.ts", ".min.js", ".map")) or "/test/fixtures/" in path:
            continue
        language = language_for(path)
        if language in (None, "text") and shell_language(root, item, package):
            # A copy named *.sh, so the chunker parses it as bash, as in a repository.
            copy = root / (path + ".sh")
            if not copy.exists():
                shutil.copyfile(root / path, copy)
            path, language = path + ".sh", "bash"
        if language not in CODE_LANGUAGES and language not in DOC_LANGUAGES:
            continue
        out[language].append((path, PREFIX.sub("", path)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--list", type=Path, default=HERE / "corpus.txt")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "sleuth-static")
    parser.add_argument("--per-language", type=int, default=10_000, help="chunk budget")
    parser.add_argument("--per-doc-language", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    entries = read_list(args.list)
    check_not_benchmark(entries, BENCH_REPOS)
    pools: dict[str, dict[str, list[tuple[Path, str, str]]]] = defaultdict(dict)
    for registry, name, version in entries:
        try:
            archive = download(registry, name, version, args.cache / "download")
        except subprocess.CalledProcessError as exc:
            print(f"{registry:5} {name:45} FAILED ({exc.returncode}): left out")
            continue
        root = extract(archive, args.cache / "src" / archive.parent.name)
        found = candidate_files(root, name)
        for language, files in found.items():
            pools[language][name] = [(root, disk, shown) for disk, shown in files]
        print(f"{registry:5} {name:45} {sum(len(f) for f in found.values()):6} files", flush=True)
    rng = random.Random(args.seed)
    seen: set[str] = set()
    written = defaultdict(int)
    rows: list[dict] = []
    for language in sorted(pools):
        budget = args.per_doc_language if language in DOC_LANGUAGES else args.per_language
        queues = {}
        for package in sorted(pools[language]):
            files = sorted(pools[language][package])
            rng.shuffle(files)
            queues[package] = files
        while written[language] < budget and any(queues.values()):
            for package in sorted(queues):
                if not queues[package] or written[language] >= budget:
                    continue
                root, disk, shown = queues[package].pop()
                size = (root / disk).stat().st_size
                record = prepare_file(str(root), disk, size, 0)
                if record.skip_reason:
                    continue
                for values in record.chunks:
                    text = embed_text(shown, chunk_of(values))
                    digest = content_hash(text)
                    if digest in seen or len(text.strip()) < 20:
                        continue
                    seen.add(digest)
                    row = {"lang": language, "pkg": package, "path": shown, "text": text}
                    rows.append(row)
                    written[language] += 1
        print(f"{language:12} {written[language]:6} chunks from {len(queues)} packages")
    # Shuffled, so any prefix (a partly embedded corpus) mixes every language.
    rng.shuffle(rows)
    with open(args.cache / "corpus.jsonl", "w") as sink:
        sink.writelines(json.dumps(row) + "\n" for row in rows)
    print(f"total {len(rows)} chunks in {args.cache / 'corpus.jsonl'}")


if __name__ == "__main__":
    main()
