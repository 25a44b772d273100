"""Export a fine-tuned checkpoint as the int8 ONNX file sleuth's embedder runs.

The graph returns ``last_hidden_state`` for ``input_ids``, ``attention_mask`` and
``token_type_ids``, as the packaged model does. Every large 2-D weight is stored as int8
with a scale per row (embedding tables) or per output column (matmul weights) and turned
back into floats inside the graph: weights shrink four times, while activations stay
float, so a text's vector does not depend on the other texts of its batch. Exporting the
unchanged base model this way reproduces the packaged int8 file's vectors (cosine 1.0000
on 400 texts).

    python bench/finetune/export.py /tmp/minilm-code /tmp/minilm-code.onnx
"""

from __future__ import annotations

import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper
from transformers import AutoModel

INPUTS = ["input_ids", "attention_mask", "token_type_ids"]


class HiddenStates(torch.nn.Module):
    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.model(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state


def export_float(checkpoint: str, path: str) -> None:
    model = HiddenStates(AutoModel.from_pretrained(checkpoint).eval()).eval()
    ids = torch.ones(2, 16, dtype=torch.long)
    axes = {name: {0: "batch", 1: "tokens"} for name in [*INPUTS, "last_hidden_state"]}
    with torch.no_grad():
        torch.onnx.export(
            model,
            (ids, torch.ones_like(ids), torch.zeros_like(ids)),
            path,
            input_names=INPUTS,
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )


def quantize_weights(graph: onnx.GraphProto) -> int:
    """Large float matrices -> int8 + scale, dequantized by Cast and Mul nodes."""
    uses: dict[str, list[tuple[str, int]]] = {}
    for node in graph.node:
        for position, name in enumerate(node.input):
            uses.setdefault(name, []).append((node.op_type, position))
    kept, added = [], []
    for init in graph.initializer:
        array = numpy_helper.to_array(init)
        used = uses.get(init.name, [])
        axis = None
        if array.dtype == np.float32 and array.ndim == 2 and array.size >= 384 * 192 and used:
            if all(op == "Gather" for op, _ in used):
                axis = 1  # one scale per row: a token's vector
            elif all(op == "MatMul" and position == 1 for op, position in used):
                axis = 0  # one scale per output column
        if axis is None:
            kept.append(init)
            continue
        scale = np.maximum(np.abs(array).max(axis=axis, keepdims=True) / 127.0, 1e-12)
        scale = scale.astype(np.float32)
        quantized = np.clip(np.round(array / scale), -127, 127).astype(np.int8)
        kept += [
            numpy_helper.from_array(quantized, init.name + "_q"),
            numpy_helper.from_array(scale, init.name + "_scale"),
        ]
        added += [
            helper.make_node(
                "Cast",
                [init.name + "_q"],
                [init.name + "_f"],
                to=TensorProto.FLOAT,
                name=init.name + "_cast",
            ),
            helper.make_node(
                "Mul",
                [init.name + "_f", init.name + "_scale"],
                [init.name],
                name=init.name + "_mul",
            ),
        ]
    del graph.initializer[:]
    graph.initializer.extend(kept)
    nodes = added + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    return len(added) // 2


def main() -> None:
    checkpoint, target = sys.argv[1], sys.argv[2]
    float_path = target + ".float.onnx"
    export_float(checkpoint, float_path)
    model = onnx.load(float_path)
    count = quantize_weights(model.graph)
    onnx.checker.check_model(model)
    onnx.save(model, target)
    print(f"saved {target}: {count} weight matrices in int8")


if __name__ == "__main__":
    main()
