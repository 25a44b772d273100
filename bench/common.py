"""Small pieces every benchmark script shares (imported from the scripts' own folder)."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from sleuth.benchmark import export_root


def first_overlap(results: list, spans: Iterable[Sequence]) -> int | None:
    """The place (1-based) of the first result whose file is a span's and whose lines
    overlap it, or None; ``spans`` are (path, first line, last line)."""
    spans = list(spans)
    for place, result in enumerate(results, 1):
        for path, start, end in spans:
            if result.path == path and result.start_line <= end and result.end_line >= start:
                return place
    return None


def set_knobs(assignments: list[str]) -> None:
    """Change priors or signals of the ranking (``NAME=VALUE`` each, ``--set``) for this
    process: exploration, never a default."""
    from sleuth.search.ranking import signals

    for assignment in assignments:
        name, _, value = assignment.partition("=")
        target = signals.PRIORS if name in signals.PRIORS else signals.SIGNALS
        if name not in target:
            raise SystemExit(f"no prior or signal named {name!r}")
        if value.lower() in ("true", "false"):
            target[name] = value.lower() == "true"
        elif isinstance(target[name], str):
            target[name] = value
        else:
            target[name] = float(value)


def bench_module(bench_dir: Path, name: str) -> ModuleType:
    """A module of the shared benchmark folder (``score``, ``prepare``), loaded from its
    file: the folder is not a package, and its helpers are the benchmark's own rules."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", bench_dir / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def percentile(values: list[float], share: float) -> float:
    """The value at ``share`` (0..1) of the sorted values, nearest rank; 0.0 for none."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else 0.0


def emit(result: Any, out: Path | None, indent: int = 2) -> None:
    """Print the result as JSON, and write it to ``out`` when given."""
    text = json.dumps(result, indent=indent)
    print(text)
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n")


def indexed_trees(folders: list[Path]) -> list[Path]:
    """Every indexed tree under the folders (the folder holding ``.sleuth/meta.db``)."""
    found = {meta.parent.parent for folder in folders for meta in folder.rglob(".sleuth/meta.db")}
    return sorted(found)


def bench_roots(bench_dir: Path, cache: Path, names: list[str]) -> dict[str, Path]:
    """repo name -> the folder its index lives in (the export's ``benchmark_root``)."""
    specs = {s["name"]: s for s in json.loads((bench_dir / "repos.json").read_text())}
    return {name: export_root(cache, specs[name]) for name in names}


def annotated_tasks(
    bench_dir: Path, split: str, repos: set[str] | None
) -> tuple[ModuleType, dict[str, dict], dict[str, list[dict]]]:
    """The benchmark's scorer module, its repository specs, and the annotated questions
    of the split (or of ``repos`` within it) by repository, read by the scorer's own
    functions."""
    score = bench_module(bench_dir, "score")
    specs = score.load_specs(bench_dir / "repos.json")
    names = score.read_split(bench_dir / split)
    if repos:
        names &= repos
    by_repo: dict[str, list[dict]] = {}
    for task in score.load_tasks(bench_dir / "annotations", specs, names):
        by_repo.setdefault(task["repo"], []).append(task)
    return score, specs, by_repo
