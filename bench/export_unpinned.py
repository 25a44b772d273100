"""Export benchmark repositories whose pinned revision the mirror lacks, at the mirror's HEAD.

Six dev repositories (circe, guzzle, http4s, nlohmann-json, snapkit, starlette) have
mirrors that do not hold the pinned commit, so ``prepare.py`` cannot export them. Their
newest stored revision still holds every annotated file, which makes them a check no
ranking change was ever tuned on. Scores are not comparable with published ones (other
revisions); they are comparable between sleuth's own variants.

    python bench/export_unpinned.py                      # -> ~/.cache/sleuth-bench/head
    sleuth bench --cache ~/.cache/sleuth-bench/head \\
        --repos circe,guzzle,http4s,nlohmann-json,snapkit,starlette
"""

from __future__ import annotations

import argparse
import io
import json
import tarfile
from pathlib import Path

from common import bench_module

HERE = Path(__file__).resolve().parent
BENCH = HERE.parents[1] / "shared" / "bench"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bench-dir", type=Path, default=BENCH)
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache/sleuth-bench/head")
    args = parser.parse_args()
    wanted = set((args.bench_dir / "dev.txt").read_text().split())
    prepare = bench_module(args.bench_dir, "prepare")
    for spec in json.loads((args.bench_dir / "repos.json").read_text()):
        if spec["name"] not in wanted:
            continue
        git_dir = prepare.find_git_dir(args.mirrors, spec["url"])
        if git_dir is None:
            owner, name = prepare.owner_name(spec["url"])
            print(f"{spec['name']:16} no mirror (fetch github:{owner}/{name})")
            continue
        if prepare.has_commit(git_dir, spec["revision"]):
            continue  # prepare.py exports it at the pinned revision
        head = prepare.git(git_dir, "log", "-1", "--format=%H %cs").stdout.decode().split()
        dest = args.cache / spec["name"]
        root = spec.get("benchmark_root") or "."
        archive = prepare.git(git_dir, "archive", "--format=tar", head[0], root)
        if archive.returncode:
            print(f"{spec['name']:16} git archive failed: {archive.stderr.decode().strip()}")
            continue
        dest.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(dest, filter="data")
        annotations = json.loads(
            (args.bench_dir / "annotations" / f"{spec['name']}.json").read_text()
        )
        targets = {t.split(":")[0] for q in annotations for t in q["relevant"]}
        missing = sorted(t for t in targets if not (dest / t).exists())
        print(
            f"{spec['name']:16} {head[0][:10]} ({head[1]})  annotated files missing: {len(missing)}"
        )


if __name__ == "__main__":
    main()
