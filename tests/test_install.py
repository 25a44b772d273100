"""The install carries everything: model, tokenizer, grammars; nothing is fetched."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from sleuth.embedding import DEFAULT_MODEL_ID, load_embedder
from sleuth.languages import GRAMMARS, parser_for


def test_every_grammar_loads_offline() -> None:
    missing = [lang for lang in GRAMMARS if parser_for(lang) is None]
    assert missing == []


def test_model_and_tokenizer_load_from_the_package_without_network() -> None:
    code = (
        "import socket\n"
        "def refuse(*a, **k): raise OSError('network used')\n"
        "socket.socket.connect = refuse\n"
        "socket.create_connection = refuse\n"
        "from sleuth.embedding import load_embedder\n"
        "v = load_embedder().embed(['retry a failed upload'])\n"
        "print(v.shape[1])\n"
    )
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "no_proxy": "*"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "384"


def test_embeddings_are_unit_length_and_meaningful() -> None:
    embedder = load_embedder(DEFAULT_MODEL_ID)
    vectors = embedder.embed(
        [
            "retry the upload after a failure",
            "def retry_failed_upload(upload): try again when sending fails",
            "render the page footer html",
        ]
    )
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    # input order is kept although batches run sorted by length
    again = embedder.embed(["render the page footer html"])
    assert np.allclose(again[0], vectors[2], atol=1e-3)


def test_vector_library_then_model_runtime_import_order_is_safe() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "import usearch.index, onnxruntime; print('ok')"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok"
