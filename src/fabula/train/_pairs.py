"""RECIDENT's supervised pairwise rankers: (target, candidate, label) pairs from a recap data file, the
weighted cross-entropy of the paper, training a cross-encoder or a LoRA causal LM, and the trained model
as the recap method ``pairwise-model:DIR``.

- Cross-encoder (the paper's RoBERTa / SBERT pairwise): a sequence-pair classifier with two classes on
  ``[CLS] target [SEP] candidate [SEP]``, loss weighted per class by
  ``w_y = 2 (1/n_y)^alpha / sum_y' (1/n_y')^alpha`` (RECIDENT section 5; alpha 1 for SBERT, 0 for RoBERTa).
  Appendix B: 10 epochs, learning rate from [1e-5, 3e-5], batch 32, snippet length 128-256, linear decay
  with a warm-up ratio of 0.1.
- LoRA causal LM (the paper's Llama-2 pairwise): r 8, alpha 16, dropout 0.05 on q/k/v, learning rate
  3e-4, standard sampler. The paper gives no prompt for it; fabula's pair prompt below (fabula's own
  wording) asks for Yes or No, and the ranker's score is P(Yes) against P(No) at the answer.

A trained folder scores a candidate with the probability of "related"; the free selection is every
candidate at 0.5 or above.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from fabula.errors import BackendError, ConfigError, InputError
from fabula.recap import Ranker, Ranking, RecapContext, RecapTarget, register_ranker
from fabula.train._causal import META, ChatExample, load_tokenizer, prompt_ids, require_train
from fabula.train._loop import BEST, FitResult, LoopSettings, Progress, fit, seed_everything

PAIR_PROMPT = (  # fabula's wording (RECIDENT publishes no prompt for its fine-tuned Llama-2)
    "Passage A comes earlier in a novel than passage B.\n\n"
    "Passage A: {candidate}\n\n"
    "Passage B: {target}\n\n"
    "Is passage A a recap for passage B: does B directly continue the events of A, or does A show a "
    "direct cause of what happens in B? Answer Yes or No."
)
ANSWERS = ("No", "Yes")


@dataclass(slots=True)
class Pair:
    """One candidate of one annotated target, with its label (1 = related)."""

    id: str
    target: str
    candidate: str
    label: int
    novel: str


def recap_pairs(
    path: Path,
    *,
    exclude: Sequence[str] = (),
    only: Sequence[str] = (),
    negatives: int | None = None,
    seed: int = 0,
) -> list[Pair]:
    """Every (target, candidate) pair of the annotated targets of a recap data file (`fabula.recap`'s
    format); ``exclude``/``only`` name novels (the book's folder name, e.g. a PDNC novel's).

    ``negatives``: keep at most that many unrelated candidates per related one of each target, drawn
    with ``seed`` (not the paper, which trains on every pair with the weighted loss: a way to fit a CPU
    budget). None keeps them all."""
    from fabula.book import load_book
    from fabula.recap import read_records

    records = [r for r in read_records(path) if r.get("gold") is not None]
    if not records:  # a file as `fabula recap build` writes it: it blamed --exclude
        raise InputError("no annotated targets (with 'gold') in the file: annotate it first", path)
    known = {novel_name(r["book"]) for r in records}
    unknown = sorted(set(exclude) - known) + sorted(set(only) - known)
    if unknown:
        raise InputError(
            f"no annotated novel {', '.join(unknown)} (the file has {', '.join(sorted(known))})", path
        )
    books: dict[str, Any] = {}
    pairs: list[Pair] = []
    for record in records:
        novel = novel_name(record["book"])
        if novel in exclude or (only and novel not in only):
            continue
        if record["book"] not in books:
            if not Path(record["book"]).is_file():
                raise InputError("book not found", record["book"])
            books[record["book"]] = load_book(record["book"])
        book = books[record["book"]]
        target = book.span_text(tuple(record["target"]), normalize=True)
        gold = set(record["gold"])
        indices = list(range(len(record["candidates"])))
        if negatives is not None:
            unrelated = [i for i in indices if i not in gold]
            rng = random.Random(f"{seed}:{record['id']}")
            kept = set(rng.sample(unrelated, min(len(unrelated), negatives * max(1, len(gold)))))
            indices = [i for i in indices if i in gold or i in kept]
        for index in indices:
            span = record["candidates"][index]
            pairs.append(
                Pair(
                    f"{record['id']}#{index}",
                    target,
                    book.span_text(tuple(span), normalize=True),
                    int(index in gold),
                    novel,
                )
            )
    if not pairs:
        raise InputError("no annotated pairs left: --exclude leaves out every annotated novel", path)
    return pairs


def novel_name(book_path: str) -> str:
    """A book's novel name as the recap evaluation reports it (a PDNC folder name, else the file stem)."""
    path = Path(book_path)
    return path.parent.name if path.name == "novel_text.txt" else path.stem


def class_weights(labels: Sequence[int], alpha: float) -> list[float]:
    """RECIDENT's weights for classes 0 and 1: ``2 (1/n_y)^alpha / sum (1/n_y')^alpha`` (alpha 0: equal)."""
    counts = [sum(1 for y in labels if y == c) for c in (0, 1)]
    if min(counts) == 0:
        raise InputError("the pairs need both related and unrelated candidates")
    raw = [(1.0 / n) ** alpha for n in counts]
    return [2.0 * r / sum(raw) for r in raw]


def pair_examples(pairs: Sequence[Pair]) -> list[ChatExample]:
    """The pairs as (prompt, Yes/No) chat examples for the LoRA variant."""
    return [
        ChatExample(p.id, PAIR_PROMPT.format(candidate=p.candidate, target=p.target), ANSWERS[p.label])
        for p in pairs
    ]


def train_cross_encoder(
    model_dir: Path,
    pairs: Sequence[Pair],
    out: Path,
    *,
    loop: LoopSettings,
    max_length: int,
    alpha: float,
    val: Sequence[Pair] = (),
    resume: bool = True,
    progress: Progress | None = None,
) -> FitResult:
    """Fine-tune a BERT-style encoder folder as a two-class pair classifier; the result (model, tokenizer,
    ``fabula-train.json``) is written to ``out``."""
    torch, transformers, _ = require_train()
    tokenizer = load_tokenizer(model_dir)
    seed_everything(loop.seed)  # the new classification head is drawn from the global generator
    try:
        # float32 whatever the checkpoint holds: transformers 5 keeps a half-precision checkpoint's dtype,
        # and AdamW steps on float16 weights lose most updates
        model = transformers.AutoModelForSequenceClassification.from_pretrained(
            model_dir, num_labels=2, local_files_only=True, torch_dtype=torch.float32
        )
    except (OSError, ValueError) as exc:
        raise BackendError(f"transformers cannot load this encoder ({exc})", model_dir) from exc
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model.to(device)
    weights = class_weights([p.label for p in pairs], alpha)
    weight = torch.tensor(weights, dtype=torch.float32, device=device)

    def logits(batch: Sequence[Pair]) -> Any:
        encoded = tokenizer(
            [p.target for p in batch],
            [p.candidate for p in batch],
            truncation=True,
            max_length=max_length,
            padding=True,
            return_tensors="pt",
        ).to(device)
        return model(**encoded).logits

    def loss_of(model_: Any, batch: list[Pair]) -> Any:
        labels = torch.tensor([p.label for p in batch], dtype=torch.long, device=device)
        return torch.nn.functional.cross_entropy(logits(batch), labels, weight=weight)

    def validate() -> float:
        total = 0.0
        for first in range(0, len(val), 32):
            batch = list(val[first : first + 32])
            labels = torch.tensor([p.label for p in batch], dtype=torch.long, device=device)
            total += float(
                torch.nn.functional.cross_entropy(logits(batch), labels, weight=weight, reduction="sum")
            )
        return total / len(val)

    def save(folder: Path) -> None:
        model.save_pretrained(folder)

    def load(folder: Path) -> None:
        from safetensors.torch import load_file

        model.load_state_dict(load_file(folder / "model.safetensors", device=device))

    fingerprint = {
        "base": str(model_dir.resolve()),
        "max_length": max_length,
        "alpha": alpha,
        "pairs": [p.id for p in pairs],
    }
    result = fit(
        model,
        list(pairs),
        loss_of,
        loop,
        out,
        save=save,
        load=load,
        validate=validate if val else None,
        resume=resume,
        fingerprint=fingerprint,
        progress=progress,
    )
    load(out / BEST)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    meta = {
        "recipe": "recap-pairwise",
        "kind": "cross-encoder",
        "base": str(model_dir.resolve()),
        "max_length": max_length,
        "alpha": alpha,
        "class_weights": weights,
        "settings": asdict(loop),
        "examples": {
            "train": len(pairs),
            "related": sum(p.label for p in pairs),
            "novels": sorted({p.novel for p in pairs}),
        },
        "result": asdict(result),
    }
    (out / META).write_text(json.dumps(meta, indent=1), encoding="utf-8")
    return result


class PairScorer:
    """A ``fabula train recap-pairwise`` folder: P(related) of (target, candidate) pairs."""

    def __init__(self, folder: Path) -> None:
        meta_path = folder / META
        try:
            self.meta = json.loads(meta_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConfigError(
                "not a folder written by fabula train recap-pairwise (no readable fabula-train.json)", folder
            ) from exc
        if self.meta.get("recipe") != "recap-pairwise":
            raise ConfigError(
                f"this folder was trained for {self.meta.get('recipe')!r}, not recap-pairwise", folder
            )
        torch, transformers, _ = require_train()
        self._torch = torch
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.tokenizer = load_tokenizer(folder)
        self.kind = self.meta["kind"]
        auto = (
            transformers.AutoModelForSequenceClassification
            if self.kind == "cross-encoder"
            else transformers.AutoModelForCausalLM
        )
        try:
            self.model = auto.from_pretrained(folder, local_files_only=True)
        except (OSError, ValueError) as exc:
            raise BackendError(f"transformers cannot load this model ({exc})", folder) from exc
        self.model.to(self.device)
        self.model.eval()
        self.lock = threading.Lock()
        if self.kind == "causal-lm":
            self.answer_ids = [
                int(self.tokenizer(a, add_special_tokens=False)["input_ids"][0]) for a in ANSWERS
            ]

    def probabilities(self, target: str, candidates: Sequence[str], batch_size: int = 16) -> list[float]:
        """P(related) of each candidate for the target."""
        torch = self._torch
        out: list[float] = []
        with self.lock, torch.no_grad():
            if self.kind == "cross-encoder":
                for first in range(0, len(candidates), batch_size):
                    batch = list(candidates[first : first + batch_size])
                    encoded = self.tokenizer(
                        [target] * len(batch),
                        batch,
                        truncation=True,
                        max_length=int(self.meta["max_length"]),
                        padding=True,
                        return_tensors="pt",
                    ).to(self.device)
                    probs = torch.softmax(self.model(**encoded).logits.float(), dim=-1)[:, 1]
                    out.extend(float(p) for p in probs)
                return out
            for candidate in candidates:
                prompt = PAIR_PROMPT.format(candidate=candidate, target=target)
                ids = prompt_ids(self.tokenizer, prompt)[: int(self.meta["max_tokens"])]
                logits = self.model(torch.tensor([ids], device=self.device)).logits[0, -1].float()
                pair = torch.softmax(logits[self.answer_ids], dim=-1)
                out.append(float(pair[1]))
        return out


_SCORERS: dict[str, PairScorer] = {}
_SCORERS_LOCK = threading.Lock()


def pair_scorer(folder: str | Path) -> PairScorer:
    """The scorer of a trained folder, loaded once per process."""
    path = Path(folder).expanduser()
    if not path.is_dir():
        raise ConfigError("model folder not found (pairwise-model:DIR)", path)
    key = str(path.resolve())
    with _SCORERS_LOCK:
        if key not in _SCORERS:
            _SCORERS[key] = PairScorer(path)
        return _SCORERS[key]


@register_ranker("pairwise-model")
class PairwiseModelRanker(Ranker):
    """A model trained by ``fabula train recap-pairwise`` (``--method pairwise-model:DIR``): each candidate
    scored by the model's P(related); the free selection is every candidate at 0.5 or more."""

    def __init__(self, *, model: str = "") -> None:
        if not model:
            raise ConfigError("say which trained folder: --method pairwise-model:DIR", "--method")
        self.scorer = pair_scorer(model)

    def rank(self, context: RecapContext, target: RecapTarget) -> Ranking:
        texts = [context.text(c) for c in target.candidates]
        probs = self.scorer.probabilities(context.text(target.target), texts) if texts else []
        selected = [i for i in range(len(probs) - 1, -1, -1) if probs[i] >= 0.5]
        return Ranking(probs, selected, log={"kept": len(selected)})
