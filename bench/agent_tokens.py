"""Tokens an agent spends to reach the annotated code of the shared benchmark's queries.

Three ways to get there, all measured with the same estimate (``sleuth.handles``:
characters / 4) on the exact text the agent would read:

* handles + expand: the MCP ``search`` reply (k=10), then ``expand`` of one hit after
  another, best first, until an expanded hit covers an annotated target. Both replies
  are produced by the real MCP server's tools (in process).
* search + whole files: the same ``search`` reply, then whole files in the order of the
  hits, until the file holding a target is read. Also reported: reading only the
  target file (a lower bound no search can beat when it has to read whole files).
* grep + read: a files-with-matches grep (case-insensitive, any query word of three or
  more letters that is not a stopword, over the files the index holds), files ordered
  by matching lines, then whole files in that order until the target file is read.

Whole files are shown with line numbers in the same format as ``expand``. A query
counts as reached by a strategy when it gets there within 10 reads. Token medians and
means are over the queries that every strategy reached, so they compare the same work.

The repositories are copied out of the benchmark's export cache first, so indexes are
built in the copy, never in the shared exports. Usage::

    python bench/agent_tokens.py --repos fastapi,express,gson,axum,rack --mode lexical
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import shutil
import statistics
import time
from pathlib import Path

from sleuth import Index
from sleuth.handles import estimate_tokens
from sleuth.mcp.server import build_server
from sleuth.tokens import STOPWORDS

EXPORTS = Path.home() / ".cache" / "sleuth-bench" / "repos"
WORKDIR = Path.home() / ".cache" / "sleuth-mcp-bench" / "repos"
BENCH = Path(__file__).resolve().parents[2] / "shared" / "bench"
MAX_READS = 10
DEFAULT_REPOS = "fastapi,express,gson,axum,rack"


def path_matches(found: str, target: str) -> bool:
    """The benchmark's rule: equal, or one is a suffix of the other at a folder boundary."""
    return found == target or found.endswith("/" + target) or target.endswith("/" + found)


def covers(path: str, start: int, end: int, target: dict) -> bool:
    if not path_matches(path, target["path"]):
        return False
    if target.get("start_line") is None:
        return True
    return not (end < target["start_line"] or start > target["end_line"])


def targets_of(task: dict) -> list[dict]:
    out = []
    for item in task.get("relevant", []) + task.get("secondary", []):
        out.append({"path": item} if isinstance(item, str) else dict(item))
    return out


def numbered(text: str) -> str:
    """A whole file as an agent's read tool shows it: numbered like ``expand``."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    width = len(str(max(len(lines), 1)))
    return "\n".join(f"{n:>{width}}  {line}" for n, line in enumerate(lines, 1))


def grep_words(query: str) -> list[str]:
    words = [w.lower() for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", query)]
    kept = [w for w in words if len(w) >= 3 and w not in STOPWORDS]
    return list(dict.fromkeys(kept)) or [query.lower()]


class RepoBench:
    def __init__(self, name: str, root: Path, prefix: str, mode: str) -> None:
        self.name, self.root, self.prefix, self.mode = name, root, prefix, mode
        self.server = build_server(root, "none" if mode == "lexical" else "background")
        meta = Index(root)._open()
        self.files = sorted(p for p, row in meta.files().items() if row.skip_reason is None)
        self._text: dict[str, str] = {}

    def text(self, path: str) -> str:
        if path not in self._text:
            raw = (self.root / path).read_bytes().decode("utf-8", errors="replace")
            self._text[path] = raw
        return self._text[path]

    def full(self, path: str) -> str:
        return self.prefix + path

    async def tool(self, name: str, arguments: dict) -> str:
        result = await self.server.call_tool(name, arguments)
        text = result.content[0].text
        if result.is_error:
            raise RuntimeError(f"{name} failed: {text}")
        return text

    def read_until(self, paths: list[str], targets: list[dict]) -> tuple[bool, int]:
        cost = 0
        for path in paths[:MAX_READS]:
            cost += estimate_tokens(numbered(self.text(path)))
            if any(covers(self.full(path), 1, 10**9, t) for t in targets):
                return True, cost
        return False, cost

    async def query(self, query: str, targets: list[dict]) -> dict:
        row: dict = {"repo": self.name, "query": query}
        reply = await self.tool("search", {"query": query, "k": 10, "mode": self.mode})
        hits = json.loads(reply)["hits"]
        search_cost = estimate_tokens(reply)
        # handles + expand
        cost, reached = search_cost, False
        for hit in hits[:MAX_READS]:
            cost += estimate_tokens(await self.tool("expand", {"handles": [hit["id"]]}))
            start, end = (int(x) for x in hit["id"].split(":")[1].split("@")[0].split("-"))
            if any(covers(self.full(hit["path"]), start, end, t) for t in targets):
                reached = True
                break
        row["handles"] = {"reached": reached, "tokens": cost}
        # search + whole files, in hit order
        ordered = list(dict.fromkeys(h["path"] for h in hits))
        reached, cost = self.read_until(ordered, targets)
        row["files"] = {"reached": reached, "tokens": search_cost + cost}
        # the target file alone
        sizes = [
            estimate_tokens(numbered(self.text(p)))
            for p in self.files
            if any(path_matches(self.full(p), t["path"]) for t in targets)
        ]
        row["target_file"] = {"reached": bool(sizes), "tokens": min(sizes) if sizes else 0}
        # grep + read
        pattern = re.compile("|".join(re.escape(w) for w in grep_words(query)), re.IGNORECASE)
        counts = []
        for path in self.files:
            n = sum(1 for line in self.text(path).split("\n") if pattern.search(line))
            if n:
                counts.append((-n, path))
        listing = "\n".join(path for _, path in sorted(counts))
        reached, cost = self.read_until([p for _, p in sorted(counts)], targets)
        row["grep"] = {"reached": reached, "tokens": estimate_tokens(listing) + cost}
        return row


def prepare_copy(name: str, source: Path) -> Path:
    """Copy the export once (without any index in it); index the copy."""
    copy = WORKDIR / name
    if not copy.exists():
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(source, copy, ignore=shutil.ignore_patterns(".sleuth"), symlinks=True)
    return copy


async def run_repo(name: str, spec: dict, tasks: list[dict], mode: str) -> list[dict]:
    checkout = prepare_copy(name, EXPORTS / name)
    sub = spec.get("benchmark_root") or ""
    root = checkout / sub if sub else checkout
    Index(root).index(embed="none" if mode == "lexical" else "deep")
    bench = RepoBench(name, root, f"{sub}/" if sub else "", mode)
    return [await bench.query(task["query"], targets_of(task)) for task in tasks]


def summarize(rows: list[dict]) -> dict:
    strategies = ("handles", "files", "target_file", "grep")
    common = [r for r in rows if all(r[s]["reached"] for s in strategies)]
    out: dict = {"queries": len(rows), "reached_by_all": len(common)}
    for s in strategies:
        tokens = [r[s]["tokens"] for r in common]
        out[s] = {
            "reached": sum(r[s]["reached"] for r in rows),
            "median_tokens": statistics.median(tokens) if tokens else 0,
            "mean_tokens": round(statistics.fmean(tokens)) if tokens else 0,
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", default=DEFAULT_REPOS, help="comma-separated names, or all")
    parser.add_argument("--mode", default="lexical", choices=("lexical", "hybrid", "semantic"))
    parser.add_argument("--bench", type=Path, default=BENCH, help="the shared benchmark folder")
    parser.add_argument("--out", type=Path, default=Path("bench/results/agent_tokens.json"))
    args = parser.parse_args()
    specs = {s["name"]: s for s in json.loads((args.bench / "repos.json").read_text())}
    rows: list[dict] = []
    per_repo: dict[str, dict] = {}
    names = args.repos.split(",")
    if args.repos == "all":
        names = sorted(p.stem for p in (args.bench / "annotations").glob("*.json"))
    for name in names:
        if not (EXPORTS / name).is_dir():
            print(f"{name}: no export in {EXPORTS} (run the benchmark's prepare.py)")
            continue
        tasks = json.loads((args.bench / "annotations" / f"{name}.json").read_text())
        begin = time.perf_counter()
        repo_rows = asyncio.run(run_repo(name, specs[name], tasks, args.mode))
        rows += repo_rows
        per_repo[name] = summarize(repo_rows)
        s = per_repo[name]
        print(
            f"{name:<12} {s['queries']:>3} queries  handles {s['handles']['median_tokens']:>7}"
            f"  files {s['files']['median_tokens']:>7}  target file"
            f" {s['target_file']['median_tokens']:>7}  grep {s['grep']['median_tokens']:>7}"
            f"  (median tokens, {s['reached_by_all']} reached by all;"
            f" {time.perf_counter() - begin:.0f} s)"
        )
    summary = {"mode": args.mode, "overall": summarize(rows), "per_repo": per_repo}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"summary": summary, "queries": rows}, indent=1) + "\n")
    print(json.dumps(summary["overall"], indent=1))


if __name__ == "__main__":
    main()
