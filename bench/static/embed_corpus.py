"""Embed the corpus once with sleuth's MiniLM embedder (128 tokens): the fit's targets.

Writes shards of float16 vectors (``vectors/NNNNN.npy``, 2,048 rows each) beside
``corpus.jsonl``; a killed run resumes at the first missing shard. Also records where
the 128-token cut falls in each text (``cuts.npy``, characters), so the fit can use the
same prefix the model saw.

    python bench/static/embed_corpus.py --cache ~/.cache/sleuth-static
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from sleuth.embedding.minilm import MiniLMEmbedder

SHARD = 2048


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "sleuth-static")
    args = parser.parse_args()
    lines = (args.cache / "corpus.jsonl").read_text().splitlines()
    texts = [json.loads(line)["text"] for line in lines]
    embedder = MiniLMEmbedder()
    cuts = []
    for encoding in embedder.tokenizer.encode_batch(texts):
        offsets = [end for _, end in encoding.offsets if end > 0]
        cuts.append(max(offsets) if offsets else 0)
    np.save(args.cache / "cuts.npy", np.asarray(cuts, dtype=np.int32))
    out = args.cache / "vectors"
    out.mkdir(exist_ok=True)
    start = time.perf_counter()
    done = 0
    for shard, begin in enumerate(range(0, len(texts), SHARD)):
        path = out / f"{shard:05d}.npy"
        if path.exists():
            continue
        vectors = embedder.embed(texts[begin : begin + SHARD])
        np.save(path.with_suffix(".tmp.npy"), vectors.astype(np.float16))
        path.with_suffix(".tmp.npy").rename(path)
        done += len(vectors)
        rate = done / (time.perf_counter() - start)
        print(
            f"shard {shard}: {begin + len(vectors)}/{len(texts)}  {rate:.0f} chunks/s", flush=True
        )


if __name__ == "__main__":
    main()
