"""Load on the `sleuth serve` daemon (not a test): mixed searches while index runs go on.

Builds (or reuses) a copy of some exported benchmark repositories (about 10k chunks by
default) in a work folder, indexes it with every vector, then:

1. baseline: warm query p50 in this process through ``sleuth.Index`` (same queries);
2. starts the daemon on 127.0.0.1 (a free port, bearer token), measures warm p50 over
   HTTP one request at a time;
3. load: ``--clients`` threads in one client process send mixed requests (search in
   hybrid, lexical and semantic mode, some with filters, and symbol lookups) for
   ``--seconds`` while index runs follow one another: ``--reindex edit`` (default)
   changes 20 files of the copy and asks ``/reindex``, like an editor saving files;
   ``--reindex full`` rebuilds everything (``/reindex {"full": true}``); ``--reindex
   watch`` starts the daemon with its watcher and saves 20 files every second; reports
   rps, p50, p99, errors, empty answers and result-cache hits;
4. the same with every query new (no result-cache or query-vector hits), ``--unique``.

Loopback only; bounded in time (``--seconds`` per phase) and in clients (at most 32).

    python bench/serve_load.py --workdir /tmp/serve-load --out bench/results/serve_load.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from common import emit, percentile

EXPORTS = Path.home() / ".cache" / "sleuth-bench" / "repos"
#: ``--reindex watch``: seconds between two rounds of 20 saved files.
WATCH_SAVE_INTERVAL = 1.0
#: About 10.9k chunks together, six languages (Java, TypeScript, Elixir, Python, Ruby).
DEFAULT_REPOS = ["gson", "zod", "vitest", "phoenix", "aiohttp", "rails"]
PHRASES = [
    "how are requests routed",
    "parse configuration",
    "error handling",
    "retry a failed request",
    "open a connection",
    "serialize to json",
    "read a file",
    "validate the input schema",
    "run the test suite",
    "render a template",
    "close the session",
    "cookie parsing",
    "websocket handshake",
    "type adapter registration",
    "watch mode reruns tests",
    "database migration",
]


def prepare(workdir: Path, repos: list[str]) -> Path:
    """A copy of the exports in ``workdir/repo`` (never the shared exports themselves)."""
    from sleuth import Index

    root = workdir / "repo"
    root.mkdir(parents=True, exist_ok=True)
    for name in repos:
        if not (root / name).exists():
            shutil.copytree(EXPORTS / name, root / name, symlinks=True)
    if not (root / ".git").exists():
        subprocess.run(["git", "init", "-q", str(root)], check=True)
    index = Index(root)
    index.index(embed="deep")
    index.close()
    return root


def identifiers(root: Path, count: int, rng: random.Random) -> list[str]:
    db = sqlite3.connect(root / ".sleuth" / "meta.db")
    names = [
        r[0] for r in db.execute("SELECT DISTINCT name FROM definitions WHERE length(name) > 4")
    ]
    db.close()
    rng.shuffle(names)
    return names[:count]


def request_pool(root: Path, size: int, seed: int) -> list[tuple[str, dict[str, Any]]]:
    """Mixed requests: identifiers, phrases, split words, filters, symbol lookups."""
    rng = random.Random(seed)
    names = identifiers(root, size, rng)
    pool: list[tuple[str, dict[str, Any]]] = []
    for i, name in enumerate(names):
        roll = i % 10
        if roll < 2:
            pool.append(("/symbols", {"name": name, "k": 10, "refresh": False}))
            continue
        query = name if roll < 5 else rng.choice(PHRASES)
        if roll == 9:
            query = f"type:code {query}"
        mode = "hybrid" if roll % 3 else "lexical"
        if roll == 8:
            mode = "semantic"
        pool.append(("/search", {"query": query, "k": 10, "mode": mode, "refresh": False}))
    return pool


def unique_request(rng: random.Random, names: list[str]) -> tuple[str, dict[str, Any]]:
    """A query no cache has seen: two identifiers and a phrase, in hybrid mode."""
    query = f"{rng.choice(names)} {rng.choice(names)} {rng.choice(PHRASES)} {rng.random():.6f}"
    return "/search", {"query": query, "k": 10, "mode": "hybrid", "refresh": False}


def in_process(root: Path, pool: list[tuple[str, dict[str, Any]]]) -> dict[str, float]:
    """Warm p50 through the library: each request once to warm up, then timed 5 times."""
    from sleuth import Index

    index = Index(root)
    timings: list[float] = []
    cold: list[float] = []
    for endpoint, body in pool[:40]:

        def run(endpoint: str = endpoint, body: dict[str, Any] = body) -> None:
            if endpoint == "/symbols":
                index.find_symbol(body["name"], k=body["k"])
            else:
                index.structured_search(body["query"], body["k"], mode=body["mode"])

        start = time.perf_counter()
        run()
        cold.append(time.perf_counter() - start)
        for _ in range(5):
            start = time.perf_counter()
            run()
            timings.append(time.perf_counter() - start)
    index.close()
    return {
        "warm_p50_ms": percentile(timings, 0.5) * 1000,
        "warm_p99_ms": percentile(timings, 0.99) * 1000,
        "first_run_p50_ms": percentile(cold[1:], 0.5) * 1000,
    }


def start_daemon(root: Path, log: Path, watch: bool = False) -> tuple[subprocess.Popen, str, str]:
    command = [sys.executable, "-m", "sleuth.cli", "serve", str(root), "--host", "127.0.0.1"]
    command += ["--port", "0", "--embed", "none", "--log-level", "warning"]
    command += [] if watch else ["--no-watch"]
    with open(log, "wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=sink)
    info_file = root / ".sleuth" / "daemon.json"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the daemon stopped: {log.read_text()[-2000:]}")
        try:
            info = json.loads(info_file.read_text())
            if info["pid"] == process.pid:
                token = Path(info["token_file"]).read_text().strip()
                health = httpx.get(info["address"] + "/health", timeout=2)
                if health.status_code == 200:
                    return process, info["address"], token
        except (OSError, ValueError, KeyError, httpx.HTTPError):
            pass
        time.sleep(0.2)
    process.kill()
    raise SystemExit("the daemon did not start within 120 s")


def over_http(address: str, token: str, pool: list[tuple[str, dict[str, Any]]]) -> dict:
    """Warm p50 over HTTP, one request at a time (result cache hits after the first)."""
    headers = {"Authorization": f"Bearer {token}"}
    timings: list[float] = []
    with httpx.Client(base_url=address, headers=headers, timeout=60) as http:
        for endpoint, body in pool[:40]:
            http.post(endpoint, json=body).raise_for_status()
            for _ in range(5):
                start = time.perf_counter()
                http.post(endpoint, json=body).raise_for_status()
                timings.append(time.perf_counter() - start)
    return {
        "warm_p50_ms": percentile(timings, 0.5) * 1000,
        "warm_p99_ms": percentile(timings, 0.99) * 1000,
    }


def cli_runs(root: Path, pool: list[tuple[str, dict[str, Any]]], runs: int = 8) -> dict:
    """`sleuth search` as a new process: through the daemon, and in-process without it."""
    queries = [body["query"] for endpoint, body in pool if endpoint == "/search"][:runs]
    out: dict[str, float] = {}
    for label, extra in (
        ("daemon_p50_ms", []),
        ("in_process_p50_ms", ["--no-daemon"]),
        ("in_process_no_refresh_p50_ms", ["--no-daemon", "--no-refresh"]),
    ):
        timings = []
        for query in queries:
            command = [sys.executable, "-m", "sleuth.cli", "search", query, str(root), "--json"]
            start = time.perf_counter()
            subprocess.run([*command, *extra], capture_output=True, check=False)
            timings.append(time.perf_counter() - start)
        out[label] = round(percentile(timings, 0.5) * 1000, 1)
    return out


def load(
    address: str,
    token: str,
    pool: list[tuple[str, dict[str, Any]]],
    names: list[str],
    seconds: float,
    clients: int,
    unique: bool,
    reindex: str,
    root: Path,
    via: str = "http",
    rate: float = 0.0,
) -> dict[str, Any]:
    headers = {"Authorization": f"Bearer {token}"}
    began_at = time.monotonic()
    deadline = began_at + seconds
    latencies: list[float] = []
    errors: list[str] = []
    empty = 0
    lock = threading.Lock()
    reindex_runs: list[float] = []
    reindex_errors: list[str] = []

    def client(seed: int) -> None:
        nonlocal empty
        rng = random.Random(seed)
        mine: list[float] = []
        my_errors: list[str] = []
        my_empty = 0
        sent = 0
        with httpx.Client(base_url=address, headers=headers, timeout=30) as http:
            while time.monotonic() < deadline:
                endpoint, body = unique_request(rng, names) if unique else rng.choice(pool)
                start = time.perf_counter()
                if rate:  # open loop: this client's share of a fixed schedule
                    due = began_at + (seed + sent * clients) / rate
                    sent += 1
                    if due >= deadline:
                        break
                    wait = due - time.monotonic()
                    if wait > 0:
                        time.sleep(wait)
                    # latency from the scheduled moment: a late send counts as waiting
                    start = time.perf_counter() - max(0.0, time.monotonic() - due)
                try:
                    reply = http.post(endpoint, json=body)
                    took = time.perf_counter() - start
                    if reply.status_code != 200:
                        my_errors.append(f"{reply.status_code} {reply.text[:120]}")
                    elif not reply.json()["results"]:
                        my_empty += 1
                except httpx.HTTPError as exc:
                    took = time.perf_counter() - start
                    my_errors.append(f"{type(exc).__name__}: {exc}")
                mine.append(took)
        with lock:
            latencies.extend(mine)
            errors.extend(my_errors)
            empty += my_empty

    db = sqlite3.connect(root / ".sleuth" / "meta.db")
    sources = [root / r[0] for r in db.execute("SELECT path FROM files WHERE skip_reason IS NULL")]
    db.close()
    edit_rng = random.Random(3)

    def reindexer() -> None:
        with httpx.Client(base_url=address, headers=headers, timeout=600) as http:
            while time.monotonic() < deadline:
                if reindex in ("edit", "watch"):
                    for path in edit_rng.sample(sources, 20):
                        with open(path, "a") as handle:
                            handle.write("\n")
                start = time.perf_counter()
                if reindex == "watch":  # the daemon's watcher re-indexes: save again in 1 s
                    time.sleep(WATCH_SAVE_INTERVAL)
                elif via == "process":  # another process writes: the daemon only reads
                    command = [sys.executable, "-m", "sleuth.cli", "index", str(root)]
                    command += ["--embed", "none"] + (["--full"] if reindex == "full" else [])
                    done = subprocess.run(command, capture_output=True, text=True)
                    if done.returncode:
                        reindex_errors.append(done.stderr[-200:])
                else:
                    reply = http.post("/reindex", json={"full": reindex == "full"})
                    if reply.status_code != 200:
                        reindex_errors.append(f"{reply.status_code} {reply.text[:120]}")
                reindex_runs.append(time.perf_counter() - start)

    with httpx.Client(base_url=address, headers=headers, timeout=30) as http:
        if not unique:  # warm up: every request of the mix once (model, query vectors)
            for endpoint, body in pool:
                http.post(endpoint, json=body)
        before = http.get("/status").json()["caches"]
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    if reindex != "none":
        threads.append(threading.Thread(target=reindexer))
    began = began_at = time.monotonic()  # the clients' schedule starts now
    deadline = began_at + seconds
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - began
    with httpx.Client(base_url=address, headers=headers, timeout=30) as http:
        after = http.get("/status").json()["caches"]
    hits = after["results"]["hits"] - before["results"]["hits"]
    misses = after["results"]["misses"] - before["results"]["misses"]
    return {
        "requests": len(latencies),
        "seconds": round(elapsed, 1),
        "rps": round(len(latencies) / elapsed, 1),
        "p50_ms": round(percentile(latencies, 0.5) * 1000, 2),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
        "max_ms": round(max(latencies, default=0) * 1000, 1),
        "errors": len(errors),
        "error_samples": errors[:5],
        "empty_answers": empty,
        "result_cache_hit_rate": round(hits / max(1, hits + misses), 3),
        "reindex": reindex,
        "reindex_via": via,
        "reindex_runs_finished": len(reindex_runs),
        "reindex_seconds": [round(s, 1) for s in reindex_runs],
        "reindex_errors": reindex_errors[:5],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/sleuth-serve-load"))
    parser.add_argument("--repos", default=",".join(DEFAULT_REPOS))
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--pool", type=int, default=300, help="Distinct requests in the mix.")
    parser.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="Open loop: send this many requests per second on a fixed schedule (latency "
        "counted from the scheduled moment); 0: each client sends as fast as it can.",
    )
    parser.add_argument("--no-unique", action="store_true", help="Skip the all-new-query phase.")
    parser.add_argument("--reindex", choices=["edit", "full", "watch", "none"], default="edit")
    parser.add_argument(
        "--reindex-via",
        choices=["http", "process"],
        default="http",
        help="http: POST /reindex (the daemon writes); process: `sleuth index` beside it.",
    )
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if not 1 <= args.clients <= 32 or not 1 <= args.seconds <= 300:
        raise SystemExit("--clients 1..32 and --seconds 1..300")
    load_start = os.getloadavg()
    root = prepare(args.workdir, args.repos.split(","))
    db = sqlite3.connect(root / ".sleuth" / "meta.db")
    chunks = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    files = db.execute("SELECT count(*) FROM files WHERE skip_reason IS NULL").fetchone()[0]
    db.close()
    pool = request_pool(root, args.pool, seed=7)
    names = identifiers(root, 2000, random.Random(11))
    print(f"{files} files, {chunks} chunks, {len(pool)} distinct requests", flush=True)
    baseline = in_process(root, pool)
    print(f"in-process: {baseline}", flush=True)
    log = args.workdir / "daemon.log"
    process, address, token = start_daemon(root, log, watch=args.reindex == "watch")
    try:
        sequential = over_http(address, token, pool)
        print(f"over HTTP, one at a time: {sequential}", flush=True)
        cli = cli_runs(root, pool)
        print(f"sleuth search as a new process: {cli}", flush=True)

        def phase(all_new: bool) -> dict[str, Any]:
            return load(
                address,
                token,
                pool,
                names,
                args.seconds,
                args.clients,
                all_new,
                args.reindex,
                root,
                args.reindex_via,
                args.rate,
            )

        mixed = phase(all_new=False)
        print(f"mixed load with re-index runs: {json.dumps(mixed)}", flush=True)
        unique = None
        if not args.no_unique:
            unique = phase(all_new=True)
            print(f"all-new queries with re-index runs: {json.dumps(unique)}", flush=True)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(30)
    commit = subprocess.run(
        ["git", "-C", str(Path(__file__).parent), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    report = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "commit": commit,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores",
        "load_average_start": [round(x, 2) for x in load_start],
        "load_average_end": [round(x, 2) for x in os.getloadavg()],
        "repository": {"repos": args.repos.split(","), "files": files, "chunks": chunks},
        "clients": args.clients,
        "rate": args.rate or "closed loop",
        "in_process": baseline,
        "http_sequential": sequential,
        "cli_process": cli,
        "load_mixed": mixed,
        "load_unique": unique,
    }
    emit(report, args.out, indent=1)


if __name__ == "__main__":
    main()
