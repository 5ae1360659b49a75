"""``fabula train recap-pairwise`` on models built in the test: RECIDENT's class weights by hand, a tiny
random BERT cross-encoder that learns one target's related candidate and then ranks it first as the recap
method ``pairwise-model:DIR`` (through ``fabula eval recap`` too), the LoRA variant on a tiny Llama, and
the one-line errors. Skipped without the ``train`` extra."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fabula.cli import app
from fabula.errors import ConfigError, InputError
from tests.conftest import run_cli
from tests.recap.conftest import SENTENCES
from tests.train.conftest import needs_train_extra, tiny_llama

GOLD = 2  # the candidate about the strawberries at Donwell, which the target returns to


def test_class_weights_follow_the_papers_formula() -> None:
    from fabula.train import class_weights

    labels = [0] * 8 + [1] * 2
    # alpha 1: 2 * (1/n_y) / (1/8 + 1/2) -> 2 * 0.125 / 0.625 and 2 * 0.5 / 0.625
    assert class_weights(labels, 1.0) == pytest.approx([0.4, 1.6])
    assert class_weights(labels, 0.0) == pytest.approx([1.0, 1.0])  # RoBERTa: unweighted
    assert class_weights(labels, 0.5) == pytest.approx(
        [2 * 8**-0.5 / (8**-0.5 + 2**-0.5), 2 * 2**-0.5 / (8**-0.5 + 2**-0.5)]
    )
    with pytest.raises(InputError):
        class_weights([0, 0, 0], 1.0)


def _data(folder: Path) -> Path:
    """The hand book of tests/recap as a file, and one annotated target over its five candidates."""
    from fabula.book import load_book

    folder.mkdir(parents=True, exist_ok=True)
    book_path = folder / "mill.txt"
    book_path.write_text("\n\n".join(SENTENCES) + "\n", encoding="utf-8")
    text = load_book(book_path).text

    def span(first: int, last: int) -> list[int]:
        start = text.index(SENTENCES[first])
        return [start, text.index(SENTENCES[last]) + len(SENTENCES[last])]

    record = {
        "id": "mill-1",
        "book": "mill.txt",
        "target": span(11, 12),
        "candidates": [span(i, i + 1) for i in range(0, 10, 2)],
        "gap": 1,
        "gold": [GOLD],
    }
    data = folder / "gold.jsonl"
    data.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return data


def _tiny_bert(folder: Path, dropout: float = 0.0) -> Path:
    """A random one-layer BERT encoder with a word vocabulary of the hand book (no download)."""
    needs_train_extra()
    import torch
    import transformers

    words = sorted({w.strip(".,").lower() for s in SENTENCES for w in s.split()} | {".", ","})
    folder.mkdir(parents=True)
    (folder / "vocab.txt").write_text(
        "\n".join(["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words]) + "\n"
    )
    transformers.BertTokenizerFast(vocab_file=str(folder / "vocab.txt")).save_pretrained(folder)
    torch.manual_seed(0)
    config = transformers.BertConfig(
        vocab_size=len(words) + 5,
        hidden_size=16,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=128,
        initializer_range=0.3,  # large random weights, so a few steps can fit five pairs (cf. conftest)
        # no dropout by default: the logged training loss is then the loss on all five pairs
        hidden_dropout_prob=dropout,
        attention_probs_dropout_prob=dropout,
    )
    transformers.BertModel(config).save_pretrained(folder)
    return folder


def _invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args))


@pytest.mark.slow
def test_a_cross_encoder_learns_the_related_candidate_and_ranks_it_first(tmp_path: Path) -> None:
    from fabula.recap import create_ranker
    from fabula.tasks.recident import RecapTask

    data = _data(tmp_path / "data")
    base = _tiny_bert(tmp_path / "bert")
    out = tmp_path / "ce"
    result = _invoke(
        "train", "recap-pairwise", "--model", str(base), "--data", str(data), "--out", str(out),
        "--epochs", "60", "--lr", "3e-3", "--batch-size", "5", "--max-length", "64",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "fabula-train.json").read_text())
    assert meta["kind"] == "cross-encoder" and meta["class_weights"] == pytest.approx([0.4, 1.6])
    assert meta["result"]["last_loss"] < 0.5 * meta["result"]["first_loss"]
    task = RecapTask(data=data, method=f"pairwise-model:{out}")
    context, target = task.target(task.items()[0].payload)
    ranking = create_ranker(f"pairwise-model:{out}").rank(context, target)
    assert ranking.order()[0] == GOLD and ranking.selected is not None and GOLD in ranking.selected
    assert all(0.0 <= s <= 1.0 for s in ranking.scores)
    report = tmp_path / "report.json"
    assert (
        run_cli("eval", "recap", "--data", data, "--method", f"pairwise-model:{out}", "--json", report) == 0
    )
    assert json.loads(report.read_text())["mean"]["recall_at_5"] == 1.0  # 5 candidates: all in the top 5


@pytest.mark.slow
def test_a_stopped_cross_encoder_run_resumes_to_the_weights_of_an_uninterrupted_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stopped after step 7 of 15 (checkpoints every 2 steps), the same command resumes from step 6 and ends
    bitwise where an uninterrupted run ends: dropout's random state, the shuffled order of the pairs in
    batches of 2, the optimizer, the schedule and the seeded new classifier head are all restored."""
    base = _tiny_bert(tmp_path / "bert", dropout=0.2)
    from safetensors.torch import load_file

    import fabula.train._pairs as pairs_module

    data = _data(tmp_path / "data")
    args = ["--epochs", "6", "--lr", "3e-3", "--batch-size", "2", "--max-length", "64", "--save-steps", "2"]

    def train(out: Path) -> Any:
        return _invoke(
            "train", "recap-pairwise", "--model", str(base), "--data", str(data), "--out", str(out), *args
        )

    assert train(tmp_path / "whole").exit_code == 0

    class Stop(Exception):
        """Stands in for a kill between two steps."""

    fit = pairs_module.fit

    def stopping_fit(*a: Any, **k: Any) -> Any:
        def progress(step: int, total: int, note: str) -> None:
            if step == 7:
                raise Stop

        return fit(*a, **{**k, "progress": progress})

    monkeypatch.setattr(pairs_module, "fit", stopping_fit)
    assert isinstance(train(tmp_path / "resumed").exception, Stop)
    monkeypatch.setattr(pairs_module, "fit", fit)
    again = train(tmp_path / "resumed")
    assert again.exit_code == 0 and "resumed from step 6" in again.output
    whole = load_file(tmp_path / "whole" / "model.safetensors")
    resumed = load_file(tmp_path / "resumed" / "model.safetensors")
    assert whole.keys() == resumed.keys()
    assert all((whole[k] - resumed[k]).abs().max() <= 1e-6 for k in whole)


@pytest.mark.slow
def test_the_lora_variant_trains_a_causal_lm_that_scores_pairs(tmp_path: Path) -> None:
    from fabula.recap import create_ranker
    from fabula.tasks.recident import RecapTask
    from fabula.train import PAIR_PROMPT

    data = _data(tmp_path / "data")
    base = tiny_llama(tmp_path / "llama", texts=(PAIR_PROMPT, *SENTENCES, "Yes No"))
    out = tmp_path / "lora"
    result = _invoke(
        "train", "recap-pairwise", "--model", str(base), "--data", str(data), "--out", str(out),
        "--epochs", "4", "--lr", "1e-2",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    meta = json.loads((out / "fabula-train.json").read_text())
    assert meta["kind"] == "causal-lm" and meta["recipe"] == "recap-pairwise"
    assert meta["lora"]["targets"] == ["q_proj", "k_proj", "v_proj"] and meta["settings"]["lr"] == 1e-2
    task = RecapTask(data=data, method=f"pairwise-model:{out}")
    context, target = task.target(task.items()[0].payload)
    ranking = create_ranker(f"pairwise-model:{out}").rank(context, target)
    assert len(ranking.scores) == 5 and all(0.0 <= s <= 1.0 for s in ranking.scores)


def test_bad_requests_are_one_line_errors(tmp_path: Path) -> None:
    from fabula.recap import create_ranker
    from fabula.train import recap_pairs

    data = _data(tmp_path / "data")
    with pytest.raises(InputError, match="no annotated novel Nowhere"):
        recap_pairs(data, exclude=["Nowhere"])
    with pytest.raises(InputError, match="leaves out every annotated novel"):
        recap_pairs(data, exclude=["mill"])
    unannotated = tmp_path / "data" / "built.jsonl"  # as `fabula recap build` writes it: it blamed --exclude
    unannotated.write_text(
        json.dumps({**json.loads(data.read_text()), "gold": None}) + "\n", encoding="utf-8"
    )
    with pytest.raises(InputError, match=r"no annotated targets \(with 'gold'\) in the file"):
        recap_pairs(unannotated)
    with pytest.raises(ConfigError, match="pairwise-model:DIR"):
        create_ranker("pairwise-model")
    with pytest.raises(ConfigError, match="not found"):
        create_ranker(f"pairwise-model:{tmp_path / 'missing'}")
    with pytest.raises(ConfigError, match=r"fabula-train\.json"):
        create_ranker(f"pairwise-model:{tmp_path / 'data'}")
