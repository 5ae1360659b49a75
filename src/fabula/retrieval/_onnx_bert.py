"""A BERT sentence-embedding model (e.g. all-MiniLM-L6-v2) run through onnxruntime, with no torch.

The ONNX graph is built here, in memory, from the model folder a package ships (``config.json``,
``model.safetensors``, ``tokenizer.json``, ``sentence_bert_config.json``): the standard BERT encoder
(embeddings, post-LayerNorm self-attention and GELU feed-forward layers) followed by sentence-
transformers' mean pooling and L2 normalisation. Why build it rather than export it: ``torch.onnx``
needs torch (~1 GB) and broke between transformers releases (``BertModel.forward`` changed its
positional arguments in v5), while the graph of a BERT encoder is small and fixed; onnxruntime then
fuses and runs it (2x faster than sentence-transformers on torch on this CPU, docs/benchmarks.md).
Tokenisation is Hugging Face ``tokenizers`` with the model's own ``tokenizer.json``, truncated at the
model's ``max_seq_length`` as sentence-transformers does, each batch padded to its longest text.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
OPSET = 17  # LayerNormalization is an operator from opset 17


def _config(folder: Path) -> dict[str, Any]:
    config: dict[str, Any] = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    if config.get("model_type") != "bert" or config.get("hidden_act", "gelu") != "gelu":
        raise ValueError(f"not a BERT model with GELU ({config.get('model_type')!r})")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise ValueError("only absolute position embeddings are supported")
    pooling = folder / "1_Pooling" / "config.json"
    if pooling.is_file() and not json.loads(pooling.read_text(encoding="utf-8")).get(
        "pooling_mode_mean_tokens", False
    ):
        raise ValueError("only mean pooling is supported")
    return config


def max_seq_length(folder: Path, config: dict[str, Any]) -> int:
    """The truncation length sentence-transformers uses (its config), else the model's limit."""
    st_config = folder / "sentence_bert_config.json"
    if st_config.is_file():
        length = json.loads(st_config.read_text(encoding="utf-8")).get("max_seq_length")
        if isinstance(length, int) and length > 0:
            return min(length, int(config["max_position_embeddings"]))
    return int(config["max_position_embeddings"])


def build_graph(folder: Path) -> bytes:
    """The serialized ONNX model: ``input_ids``, ``attention_mask`` (int64 [batch, tokens]) ->
    ``embedding`` (float32 [batch, hidden], mean-pooled over the mask and L2-normalised)."""
    from onnx import TensorProto, helper, numpy_helper
    from safetensors.numpy import load_file

    config = _config(folder)
    weights = {k.removeprefix("bert."): v for k, v in load_file(str(folder / "model.safetensors")).items()}
    hidden, heads = int(config["hidden_size"]), int(config["num_attention_heads"])
    head_size, eps = hidden // heads, float(config.get("layer_norm_eps", 1e-12))
    nodes: list[Any] = []
    initializers: list[Any] = []

    def const(name: str, value: Any) -> str:
        initializers.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(op: str, inputs: list[str], name: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
        return name

    def weight(key: str) -> str:
        return const(key, weights[key].astype(np.float32))

    def linear(x: str, prefix: str, out: str) -> str:  # torch Linear: x @ W.T + b
        w = const(
            prefix + ".weight.T", np.ascontiguousarray(weights[prefix + ".weight"].T.astype(np.float32))
        )
        return node("Add", [node("MatMul", [x, w], out + ".mm"), weight(prefix + ".bias")], out)

    def layer_norm(x: str, prefix: str, out: str) -> str:
        return node(
            "LayerNormalization",
            [x, weight(prefix + ".weight"), weight(prefix + ".bias")],
            out,
            axis=-1,
            epsilon=eps,
        )

    # embeddings: word + position + token type 0, then LayerNorm
    length = node("Gather", [node("Shape", ["input_ids"], "ids_shape"), const("one", np.int64(1))], "length")
    positions = node("Range", [const("zero", np.int64(0)), length, const("step", np.int64(1))], "positions")
    words = node("Gather", [weight("embeddings.word_embeddings.weight"), "input_ids"], "words")
    placed = node("Gather", [weight("embeddings.position_embeddings.weight"), positions], "placed")
    type0 = const("type0", weights["embeddings.token_type_embeddings.weight"][0].astype(np.float32))
    summed = node("Add", [node("Add", [words, placed], "emb_wp"), type0], "emb_sum")
    x = layer_norm(summed, "embeddings.LayerNorm", "emb")

    # the attention mask as an additive bias [batch, 1, 1, tokens]; the mask as float for pooling
    mask = node("Cast", ["attention_mask"], "mask_f", to=TensorProto.FLOAT)
    inverted = node("Sub", [const("one_f", np.float32(1.0)), mask], "mask_inv")
    bias = node("Mul", [inverted, const("neg", np.float32(-1e4))], "mask_bias2")
    bias = node("Unsqueeze", [bias, const("axes_12", np.array([1, 2], dtype=np.int64))], "mask_bias")
    split_heads = const("split_heads", np.array([0, 0, heads, head_size], dtype=np.int64))
    merge_heads = const("merge_heads", np.array([0, 0, hidden], dtype=np.int64))
    scale = const("scale", np.float32(1.0 / np.sqrt(head_size)))
    sqrt2 = const("sqrt2", np.float32(np.sqrt(2.0)))
    half = const("half", np.float32(0.5))

    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}"

        def heads_of(x: str, kind: str, perm: list[int], p: str = p, i: int = i) -> str:
            projected = linear(x, f"{p}.attention.self.{kind}", f"l{i}.{kind}")
            shaped = node("Reshape", [projected, split_heads], f"l{i}.{kind}.heads")
            return node("Transpose", [shaped], f"l{i}.{kind}.t", perm=perm)

        q = heads_of(x, "query", [0, 2, 1, 3])
        k = heads_of(x, "key", [0, 2, 3, 1])  # transposed for q @ k
        v = heads_of(x, "value", [0, 2, 1, 3])
        scores = node("Mul", [node("MatMul", [q, k], f"l{i}.qk"), scale], f"l{i}.scaled")
        probs = node("Softmax", [node("Add", [scores, bias], f"l{i}.masked")], f"l{i}.probs", axis=-1)
        context = node(
            "Transpose", [node("MatMul", [probs, v], f"l{i}.ctx")], f"l{i}.ctx.t", perm=[0, 2, 1, 3]
        )
        context = node("Reshape", [context, merge_heads], f"l{i}.ctx.merged")
        attended = linear(context, f"{p}.attention.output.dense", f"l{i}.attn_out")
        x = layer_norm(
            node("Add", [attended, x], f"l{i}.attn_res"), f"{p}.attention.output.LayerNorm", f"l{i}.a"
        )
        inner = linear(x, f"{p}.intermediate.dense", f"l{i}.inner")
        erf = node("Erf", [node("Div", [inner, sqrt2], f"l{i}.gelu.div")], f"l{i}.gelu.erf")
        gelu = node(
            "Mul",
            [node("Mul", [inner, half], f"l{i}.gelu.half"), node("Add", [erf, "one_f"], f"l{i}.gelu.1p")],
            f"l{i}.gelu",
        )
        out = linear(gelu, f"{p}.output.dense", f"l{i}.out")
        x = layer_norm(node("Add", [out, x], f"l{i}.out_res"), f"{p}.output.LayerNorm", f"l{i}.o")

    # mean pooling over the real tokens, then L2 normalisation
    mask3 = node("Unsqueeze", [mask, const("axis_2", np.array([2], dtype=np.int64))], "mask3")
    axis1 = const("axis_1", np.array([1], dtype=np.int64))
    total = node("ReduceSum", [node("Mul", [x, mask3], "masked_x"), axis1], "token_sum", keepdims=0)
    count = node(
        "Max",
        [node("ReduceSum", [mask3, axis1], "token_count", keepdims=0), const("tiny", np.float32(1e-9))],
        "count",
    )
    pooled = node("Div", [total, count], "pooled")
    norm = node("ReduceL2", [pooled], "norm", axes=[-1], keepdims=1)  # axes: an attribute until opset 18
    norm = node("Max", [norm, const("tiny_norm", np.float32(1e-12))], "norm_safe")
    node("Div", [pooled, norm], "embedding")

    graph = helper.make_graph(
        nodes,
        "bert_sentence_embedding",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, ["batch", hidden])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="fabula")
    model.ir_version = 8
    return bytes(model.SerializeToString())


class OnnxBertEncoder:
    """Texts -> L2-normalised vectors with the graph above on onnxruntime (CPU)."""

    def __init__(self, folder: Path, threads: int | None = None) -> None:
        import onnxruntime
        from tokenizers import Tokenizer

        config = _config(folder)
        self.max_length = max_seq_length(folder, config)
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.max_length)
        pad_id = int(config.get("pad_token_id") or 0)
        self.tokenizer.enable_padding(pad_id=pad_id, pad_token=self.tokenizer.id_to_token(pad_id) or "[PAD]")
        options = onnxruntime.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads  # else onnxruntime's default: one per physical core
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.session = onnxruntime.InferenceSession(
            build_graph(folder), options, providers=["CPUExecutionProvider"]
        )

    def encode(self, texts: list[str]) -> F32:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        batch = self.tokenizer.encode_batch(texts)
        ids = np.asarray([e.ids for e in batch], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in batch], dtype=np.int64)
        (vectors,) = self.session.run(["embedding"], {"input_ids": ids, "attention_mask": mask})
        return np.asarray(vectors, dtype=np.float32)
