"""Names asked for with a slip of the keyboard, or cut short (not a test).

Takes the dev split's symbol questions (a bare name such as ``APIRouter``), makes one
typing slip in each name (two letters swapped, one dropped, one doubled, or one replaced
by a key beside it; never the first letter; names under five characters are left
alone), and scores the answers to the slipped names beside the answers to the names as
written, over the indexes `sleuth bench` built. The slip is chosen from a hash of the
name, so every run asks the same questions. A slip that spells another name of the
tree is kept: a search cannot know which was meant.

With ``--cut`` each name of six characters or more loses its end instead (``APIRou``):
one to all but half of it, at least four characters kept, the length chosen from a hash
of the name. The baseline searches the cut names with completion switched off.

    python bench/typo_queries.py
    python bench/typo_queries.py --cut --mode lexical
    python bench/typo_queries.py --repos click,gson --out typos.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
from pathlib import Path

from common import annotated_tasks, bench_roots, emit

from sleuth import Index
from sleuth.benchmark import DEFAULT_CACHE, scored_results
from sleuth.search import spelling

HERE = Path(__file__).resolve().parent
BENCH = HERE.parent.parent / "shared" / "bench"
SHORTEST = 5
#: Names cut short keep at least this many characters, and at least half of the name.
CUT_KEEPS = 4
#: Keys beside each letter on a QWERTY keyboard.
NEIGHBOURS = {
    "q": "wa", "w": "qes", "e": "wrd", "r": "etf", "t": "ryg", "y": "tuh", "u": "yij",
    "i": "uok", "o": "ipl", "p": "ol", "a": "qsz", "s": "adw", "d": "sfe", "f": "dgr",
    "g": "fht", "h": "gjy", "j": "hku", "k": "jli", "l": "ko", "z": "xa", "x": "zcs",
    "c": "xvd", "v": "cbf", "b": "vng", "n": "bmh", "m": "nj",
}  # fmt: skip


def slipped(name: str) -> str | None:
    """``name`` with one typing slip at a place and of a kind its hash picks; None for
    names too short to slip without becoming something else."""
    if len(name) < SHORTEST:
        return None
    seed = int(hashlib.blake2b(name.encode(), digest_size=8).hexdigest(), 16)
    at = 1 + seed % (len(name) - 2)  # never the first letter; the last may change
    kind = (seed >> 8) % 4
    if kind == 0:  # two letters swapped
        out = name[:at] + name[at + 1] + name[at] + name[at + 2 :]
    elif kind == 1:  # one dropped
        out = name[:at] + name[at + 1 :]
    elif kind == 2:  # one doubled
        out = name[: at + 1] + name[at] + name[at + 1 :]
    else:  # one replaced by a key beside it
        keys = NEIGHBOURS.get(name[at].lower())
        if not keys:
            out = name[:at] + name[at + 1 :]
        else:
            key = keys[(seed >> 16) % len(keys)]
            out = name[:at] + (key.upper() if name[at].isupper() else key) + name[at + 1 :]
    return out if out != name else None


def cut_short(name: str) -> str | None:
    """``name`` without an end whose length its hash picks; None for names too short."""
    keep_least = max(CUT_KEEPS, (len(name) + 1) // 2)
    if len(name) <= keep_least:
        return None
    seed = int(hashlib.blake2b(name.encode(), digest_size=8).hexdigest(), 16)
    return name[: keep_least + seed % (len(name) - keep_least)]


def run(bench_dir: Path, cache: Path, repos: set[str] | None, mode: str, cut: bool) -> dict:
    change = cut_short if cut else slipped
    switch = "COMPLETE" if cut else "RESPELL"
    label = "cut" if cut else "slipped"
    score, specs, by_repo = annotated_tasks(bench_dir, "dev.txt", repos)
    roots = bench_roots(bench_dir, cache, sorted(by_repo))
    per_repo: dict[str, dict[str, list[float]]] = {}
    questions = []
    for repo, tasks in sorted(by_repo.items()):
        if not (roots[repo] / ".sleuth").is_dir():
            print(f"skip {repo}: no index (run `sleuth bench` first)", file=sys.stderr)
            continue
        sub = specs[repo].get("benchmark_root") or ""
        index = Index(roots[repo])
        for task in tasks:
            if task.get("category") != "symbol":
                continue
            typo = change(task["query"])
            if typo is None:
                continue
            row = {"repo": repo, "query": task["query"], "typo": typo}
            asks = (("as_written", task["query"], True), ("as_typed", typo, False))
            for key, text, respell in (*asks, ("changed", typo, True)):
                setattr(spelling, switch, respell)
                response = index.search(text, k=10, mode=mode)
                results = scored_results(response.results, sub)
                targets = task["targets"]
                ndcg = score.score_query(results, targets, 10, len(targets))["ndcg"]
                row[key] = round(ndcg, 4)
                per_repo.setdefault(repo, {}).setdefault(key, []).append(ndcg)
            row["searched"] = response.query if response.respelled_from else None
            questions.append(row)
        index.close()

    def mean(key: str) -> float:
        return round(statistics.mean(statistics.mean(v[key]) for v in per_repo.values()), 4)

    return {
        "mode": mode,
        "names": "cut short" if cut else "one slip",
        "repositories": len(per_repo),
        "questions": len(questions),
        "ndcg@10 as written": mean("as_written"),
        f"ndcg@10 {label}, searched as typed": mean("as_typed"),
        f"ndcg@10 {label}": mean("changed"),
        "respelled": sum(bool(q["searched"]) for q in questions),
        f"{label} answered as well as written": sum(
            q["changed"] >= q["as_written"] for q in questions
        ),
        f"{label} found nothing": sum(q["changed"] == 0 for q in questions),
        "questions_detail": questions,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench-dir", type=Path, default=BENCH)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--repos", help="comma-separated subset of repositories")
    parser.add_argument("--mode", default="hybrid", choices=("hybrid", "lexical", "semantic"))
    parser.add_argument("--cut", action="store_true", help="names cut short, not slipped")
    parser.add_argument("--out", type=Path, help="also write the result as JSON here")
    args = parser.parse_args()
    repos = set(args.repos.split(",")) if args.repos else None
    result = run(args.bench_dir, args.cache, repos, args.mode, args.cut)
    detail = result.pop("questions_detail")
    emit(result, None)
    if args.out:
        args.out.write_text(json.dumps({**result, "questions": detail}, indent=2) + "\n")


if __name__ == "__main__":
    main()
