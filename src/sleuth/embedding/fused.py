"""The packaged MiniLM graph rewritten to onnxruntime's fused transformer operators.

The packaged model was exported one small operator at a time: each layer's attention is
about thirty nodes (three products, reshapes, transposes, a mask built from slices and
comparisons, a softmax guarded against NaN), and onnxruntime's own fusions do not
recognise that form. A short text spends as long in those small nodes as in the
products, so the same weights are rewired here into the operators onnxruntime runs
as one kernel each: per layer ``Attention`` (query, key and value in one product),
a product, ``SkipLayerNormalization``, a product, ``BiasGelu``, a product,
``SkipLayerNormalization`` -- 46 nodes where the export has 315 after folding.

The arithmetic is the same (vectors agree to 1e-7), so vectors of either graph mix in
one index. The weights stay int8 with their scales; onnxruntime folds them into float
when the session is built, as it does for the packaged graph. The embedding lookup and
its layer norm are kept as exported. Nothing is written to disk: the rewrite takes a
fraction of a second and is redone for each session a process builds (one for
questions, one for batches).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Attention heads of all-MiniLM-L6-v2 (hidden size 384, 32 per head).
HEADS = 12

_LAYER_BIAS = re.compile(
    r"^(?P<prefix>.*encoder\.layer\.)(?P<index>\d+)\.attention\.self\.query\.bias$"
)


class FusionError(ValueError):
    """The graph is not the form this rewrite reads: the caller keeps the export."""


def fused_model(model_path: str) -> bytes:
    """The fused graph of the model at ``model_path``, serialised for
    ``onnxruntime.InferenceSession``."""
    import onnx

    model = onnx.load(model_path)
    return _Rewrite(model).build().SerializeToString()


class _Rewrite:
    def __init__(self, model) -> None:  # model: onnx.ModelProto
        self.model = model
        graph = model.graph
        self.initializers = {tensor.name: tensor for tensor in graph.initializer}
        self.inputs = {value.name for value in graph.input}
        self.producer = {name: node for node in graph.node for name in node.output}
        self.consumers: dict[str, list] = {}
        for node in graph.node:
            for name in node.input:
                self.consumers.setdefault(name, []).append(node)
        self.kept: set[int] = set()  # ids of exported nodes carried over
        self.nodes: list = []  # new nodes, in order

    def build(self):  # -> onnx.ModelProto
        from onnx import TensorProto, helper

        graph = self.model.graph
        if len(graph.output) != 1:
            raise FusionError("expected one output")
        output = graph.output[0].name
        layers = self._layers()
        if not layers:
            raise FusionError("no encoder layers found")
        prefix = layers[0][0]

        embedded = self._layer_norm_output(prefix.replace("encoder.layer.", "embeddings.LayerNorm"))
        self._keep(embedded)
        self._node("Cast", ["attention_mask"], ["fused_mask"], to=TensorProto.INT32)
        hidden = exported = embedded
        for prefix, index in layers:
            layer = f"{prefix}{index}."
            hidden = self._layer(layer, hidden, exported)
            exported = self._layer_norm_output(f"{layer}output.LayerNorm")
        if exported != output:
            raise FusionError(f"the last layer's output is not the model's ({output})")
        self.nodes[-1].output[0] = output

        kept = [node for node in graph.node if id(node) in self.kept]
        used = {name for node in kept + self.nodes for name in node.input}
        fused = helper.make_graph(
            kept + self.nodes,
            graph.name + "_fused",
            list(graph.input),
            list(graph.output),
            [tensor for name, tensor in self.initializers.items() if name in used],
        )
        opsets = [opset for opset in self.model.opset_import if opset.domain != "com.microsoft"]
        model = helper.make_model(
            fused, opset_imports=[*opsets, helper.make_opsetid("com.microsoft", 1)]
        )
        model.ir_version = self.model.ir_version
        return model

    def _layers(self) -> list[tuple[str, int]]:
        found = []
        for name in self.initializers:
            match = _LAYER_BIAS.match(name)
            if match:
                found.append((match["prefix"], int(match["index"])))
        found.sort(key=lambda layer: layer[1])
        if [index for _, index in found] != list(range(len(found))):
            raise FusionError("encoder layers are not numbered 0..n-1")
        return found

    def _layer(self, layer: str, hidden: str, exported: str) -> str:
        """One encoder layer from ``hidden``, which stands for the export's tensor
        ``exported``; returns the name of the layer's output."""
        query, key, value = (
            self._product(f"{layer}attention.self.{part}.bias", exported)
            for part in ("query", "key", "value")
        )
        tag = layer.replace(".", "_")
        self._node("Concat", [query, key, value], [tag + "qkv_w"], axis=1)
        self._node(
            "Concat",
            [f"{layer}attention.self.{part}.bias" for part in ("query", "key", "value")],
            [tag + "qkv_b"],
            axis=0,
        )
        self._node(
            "Attention",
            [hidden, tag + "qkv_w", tag + "qkv_b", "fused_mask"],
            [tag + "context"],
            domain="com.microsoft",
            num_heads=HEADS,
        )
        attended = self._dense_norm(
            f"{layer}attention.output", tag + "context", hidden, tag + "attended"
        )
        inner_weight = self._product(
            f"{layer}intermediate.dense.bias",
            self._layer_norm_output(f"{layer}attention.output.LayerNorm"),
        )
        self._node("MatMul", [attended, inner_weight], [tag + "inner"])
        self._node(
            "BiasGelu",
            [tag + "inner", f"{layer}intermediate.dense.bias"],
            [tag + "gelu"],
            domain="com.microsoft",
        )
        return self._dense_norm(f"{layer}output", tag + "gelu", attended, tag + "out")

    def _dense_norm(self, block: str, source: str, residual: str, target: str) -> str:
        """``LayerNorm(source @ W + b + residual)`` of the block named ``block``."""
        weight = self._product(f"{block}.dense.bias", None)
        product = target + "_product"
        self._node("MatMul", [source, weight], [product])
        norm = self._layer_norm(f"{block}.LayerNorm")
        self._node(
            "SkipLayerNormalization",
            [
                product,
                residual,
                f"{block}.LayerNorm.weight",
                f"{block}.LayerNorm.bias",
                f"{block}.dense.bias",
            ],
            [target],
            domain="com.microsoft",
            epsilon=_epsilon(norm),
        )
        return target

    def _product(self, bias: str, expected_input: str | None) -> str:
        """The weight of the product the bias ``bias`` is added to (its constant cone
        carried over); checks the product reads ``expected_input`` when given."""
        if bias not in self.initializers:
            raise FusionError(f"missing {bias}")
        adds = [node for node in self.consumers.get(bias, []) if node.op_type == "Add"]
        if len(adds) != 1:
            raise FusionError(f"{bias} is not added once")
        (other,) = [name for name in adds[0].input if name != bias]
        product = self.producer.get(other)
        if product is None or product.op_type != "MatMul":
            raise FusionError(f"{bias} does not follow a product")
        if expected_input is not None and product.input[0] != expected_input:
            raise FusionError(f"{bias}: the product reads {product.input[0]}")
        weight = product.input[1]
        self._keep(weight, constant=True)
        return weight

    def _layer_norm(self, block: str):  # -> onnx.NodeProto
        nodes = [
            node
            for node in self.consumers.get(f"{block}.weight", [])
            if node.op_type in ("LayerNormalization", "SkipLayerNormalization")
        ]
        if len(nodes) != 1:
            raise FusionError(f"no single layer norm for {block}")
        return nodes[0]

    def _layer_norm_output(self, block: str) -> str:
        return self._layer_norm(block).output[0]

    def _keep(self, name: str, constant: bool = False) -> None:
        """Carry over the exported nodes that compute ``name``."""
        stack = [name]
        while stack:
            current = stack.pop()
            if current in self.initializers or current == "":
                continue
            if current in self.inputs:
                if constant:
                    raise FusionError(f"{name} depends on an input")
                continue
            node = self.producer.get(current)
            if node is None:
                raise FusionError(f"nothing computes {current}")
            if id(node) not in self.kept:
                self.kept.add(id(node))
                stack.extend(node.input)

    def _node(self, op: str, inputs: Iterable[str], outputs: list[str], **attributes) -> None:
        from onnx import helper

        self.nodes.append(helper.make_node(op, list(inputs), outputs, **attributes))


def _epsilon(node) -> float:
    for attribute in node.attribute:
        if attribute.name == "epsilon":
            return attribute.f
    return 1e-5  # the operator's default
