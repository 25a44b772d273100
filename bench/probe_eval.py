"""Questions on trees outside the shared benchmark, as a check that ranking generalises.

`probes/questions.json` holds 1,576 questions (words, architecture, identifiers) on 94
repositories at fixed commits, in all 19 languages of the benchmark (viper, black,
pinia, jq, jsoup, sidekiq, mini-redis, ky, Polly, Slim; jotai, tmux, okio,
swift-argument-parser, shellcheck, plenary.nvim, os-lib, phoenix_live_view, http.zig,
rbenv, CLI11, koa; httpx, immer, cobra, serde_json, spdlog, alamofire; sinatra,
monolog, koin, automapper; gin, reqwest, valtio, commons-cli, uvicorn, hiredis; tesla,
psr7, moya, hakyll; libxev, lualine, oban, fastparse, pyenv, serilog, flysystem,
grape; ripgrep, cJSON, Kingfisher, moshi, zustand, typer, yaml-cpp, echo; okhttp,
retrofit, got, RestSharp, swift-dependencies, gettext, which-key, zlib; bats-assert,
logrus, mainargs, walkdir, stb, attrs, javapoet, commander.js; execa, httparty, afero,
scopt, structlog, phpdotenv, warp, swift-log; h3, kotlin-result, yup, busted,
commons-csv, zig-clap, MediatR, cxxopts; itsdangerous, luassert, pflag, clikt), each with
the code that answers it as path and line range, decided by reading the code before
any search. A result is right when its file is an
answer's and its lines overlap it. The benchmark's scorer is not used: answers are not
cut into its chunks.

Each tree is exported from its git mirror (``fetch`` ``github:<owner>/<name>``) at its
commit into ``--cache``, and indexed there with both tiers on first use (minutes each).

    python bench/probe_eval.py                  # hybrid: MRR, right at 1 / 3 / 10
    python bench/probe_eval.py --mode lexical -v
    python bench/probe_eval.py --set words_symbol_boost=3   # a ranking knob changed
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
from pathlib import Path

from common import first_overlap, set_knobs

from sleuth import Index

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "probes" / "questions.json"
DEFAULT_CACHE = Path.home() / ".cache" / "sleuth-bench" / "probes"
DEFAULT_MIRRORS = HERE.parent.parent / ".mirror"


def export(tree: dict, cache: Path, mirrors: Path) -> Path | None:
    """The tree's export at its commit (made when missing), or None without a mirror."""
    root = cache / tree["name"]
    if root.is_dir() and any(root.iterdir()):
        return root
    git_dir = mirrors / tree["repo"].replace("/", "+") / "repo"
    if (git_dir / ".git").is_dir():  # a mirror that arrived with a work tree
        git_dir = git_dir / ".git"
    if not git_dir.is_dir():
        print(f"{tree['name']}: no mirror at {git_dir} (fetch github:{tree['repo']})")
        return None
    root.mkdir(parents=True, exist_ok=True)
    git = ["git", f"--git-dir={git_dir}"]
    archive = subprocess.run([*git, "archive", tree["commit"]], capture_output=True)
    if archive.returncode == 0:
        subprocess.run(["tar", "-x", "-C", str(root)], input=archive.stdout, check=True)
        return root
    # a mirror may lack its largest files (AutoMapper's nuget.exe): the rest, one by one
    listing = subprocess.run(
        [
            *git,
            "ls-tree",
            "-r",
            "-z",
            "--format=%(objecttype) %(objectname) %(path)",
            tree["commit"],
        ],
        capture_output=True,
        check=True,
        text=True,
    )
    missing = 0
    for entry in filter(None, listing.stdout.split("\0")):
        kind, blob, path = entry.split(" ", 2)
        if kind != "blob":
            continue  # a submodule's commit: no file of this tree
        content = subprocess.run([*git, "cat-file", "blob", blob], capture_output=True)
        if content.returncode != 0:
            missing += 1
            continue
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content.stdout)
    print(f"{tree['name']}: exported without {missing} file(s) the mirror lacks")
    return root


def summary(label: str, places: list[int | None]) -> str:
    mrr = statistics.mean(1 / p if p else 0.0 for p in places)
    within = [sum(1 for p in places if p and p <= k) for k in (1, 3, 10)]
    at = " / ".join(map(str, within))
    return f"{label:12} MRR {mrr:.3f}  right at 1 / 3 / 10: {at} of {len(places)}"


def tree_arguments(parser: argparse.ArgumentParser, one_line_per: str) -> None:
    """The options of every script that asks questions on the probe trees."""
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--mirrors", type=Path, default=DEFAULT_MIRRORS)
    parser.add_argument("--mode", default="hybrid", choices=["hybrid", "lexical", "semantic"])
    parser.add_argument("--trees", help="comma-separated subset (viper,black,...)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("-v", "--verbose", action="store_true", help=f"one line per {one_line_per}")


def open_tree(tree: dict, cache: Path, mirrors: Path) -> Index | None:
    """The tree's index, exported and indexed with both tiers when missing, brought up to
    date (a new chunker version re-chunks and embeds what changed); None without a mirror."""
    root = export(tree, cache, mirrors)
    if root is None:
        return None
    index = Index(root)
    if not index.exists():
        print(f"{tree['name']}: indexing (both tiers) ...", flush=True)
    index.index(embed="deep")
    return index


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    tree_arguments(parser, "question")
    parser.add_argument("--questions", type=Path, default=QUESTIONS, help="questions file")
    args = parser.parse_args()
    set_knobs(args.set)
    trees = json.loads(args.questions.read_text())
    if args.trees:
        trees = [t for t in trees if t["name"] in args.trees.split(",")]
    every: list[int | None] = []
    by_kind: dict[str, list[int | None]] = {}
    for tree in trees:
        index = open_tree(tree, args.cache, args.mirrors)
        if index is None:
            continue
        places = []
        for qid, kind, question, answers in tree["questions"]:
            place = first_overlap(index.search(question, k=10, mode=args.mode).results, answers)
            places.append(place)
            by_kind.setdefault(kind, []).append(place)
            if args.verbose:
                print(f"  {qid:4} {place or '-':>2}  {question}")
        index.close()
        print(summary(tree["name"], places))
        every += places
    for kind, places in sorted(by_kind.items()):
        print(summary(kind, places))
    if every:
        print(summary("all", every))


if __name__ == "__main__":
    main()
