"""``fabula train describe`` end to end on a tiny random Llama built in the test: the loss falls on a fixed
fixture, the adapter saves and loads, ``--llm hf:OUT`` answers with what was learned, the dry run counts
tokens, and a run killed with SIGKILL resumes from its checkpoint and ends with the weights of an
uninterrupted run. Skipped without the ``train`` extra."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fabula.cli import app
from tests.conftest import ROOT
from tests.train.conftest import FIXTURE, tiny_llama, write_fixture

pytestmark = pytest.mark.slow  # each test loads torch and trains or loads a model: 10-60 s on a busy machine

# settings that let a one-layer model learn four descriptions in a few dozen steps
FAST = ["--lr", "1e-2", "--warmup", "0", "--grad-accum", "1", "--eval-steps", "20", "--save-steps", "20"]
SHORT = ["--max-input-tokens", "200", "--truncate-tokens", "150"]


def _train(base: Path, data: Path, out: Path, *extra: str) -> str:
    args = ["train", "describe", "--model", str(base), "--data", str(data), "--out", str(out), *SHORT, *extra]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    root = tmp_path_factory.mktemp("describe")
    base = tiny_llama(root / "base")
    out = root / "out"
    output = _train(base, write_fixture(root / "data"), out, *FAST, "--max-steps", "200")
    return base, out, output


def test_the_training_loss_falls_and_the_best_validation_checkpoint_is_kept(
    trained: tuple[Path, Path, str],
) -> None:
    _, out, output = trained
    meta = json.loads((out / "fabula-train.json").read_text())
    result = meta["result"]
    assert result["steps"] == 200 and result["last_loss"] < 0.5 * result["first_loss"]
    assert "loss" in output  # the progress line shows the loss
    losses = {int(k): v for k, v in result["val_losses"].items()}
    assert sorted(losses) == list(range(20, 201, 20))
    assert result["best_step"] == min(losses, key=lambda s: losses[s])
    assert meta["lora"]["r"] == 8 and meta["lora"]["alpha"] == 16 and meta["lora"]["dropout"] == 0.05
    assert meta["examples"] == {"train": 4, "val": 4}


def test_the_adapter_saves_and_loads_onto_the_base_model(trained: tuple[Path, Path, str]) -> None:
    import peft
    import torch
    import transformers

    base, out, _ = trained
    ids = torch.tensor([[1, 5, 6, 7, 8]])
    plain = transformers.AutoModelForCausalLM.from_pretrained(base, local_files_only=True)
    with torch.no_grad():
        before = plain(ids).logits
        adapted = peft.PeftModel.from_pretrained(plain, out / "adapter").eval()
        with_adapter = adapted(ids).logits
        merged_model = transformers.AutoModelForCausalLM.from_pretrained(out, local_files_only=True).eval()
        merged = merged_model(ids).logits.float()
    assert not torch.allclose(before, with_adapter, atol=1e-3)  # the adapter changes the model
    # and the merged model is base + adapter (trained on a GPU, it is written in bf16: 8 bits of mantissa)
    tolerance = 1e-4 if merged_model.dtype == torch.float32 else 2e-2 * float(with_adapter.abs().max())
    assert torch.allclose(with_adapter, merged, atol=tolerance)


def test_the_trained_folder_answers_as_an_hf_llm(trained: tuple[Path, Path, str]) -> None:
    from fabula.llm import GenerateOptions, get_llm
    from fabula.prompts import load_prompt

    prompt = load_prompt("describe/bookworm_description")  # what the BookWorm protocol asks at inference

    _, out, _ = trained
    llm = get_llm(f"hf:{out}", cache=False)
    right = 0
    for character, text, reference in FIXTURE:
        generation = llm.generate(
            prompt.render(character=character, context=text), GenerateOptions(max_tokens=12)
        )
        assert generation.error is None
        right += generation.text.split() == reference.split()
    assert right >= 3, "the fine-tuned model should repeat most descriptions it was trained on"


def test_dry_run_prints_examples_and_token_counts_without_training(tmp_path: Path) -> None:
    base = tiny_llama(tmp_path / "base")
    output = _train(base, write_fixture(tmp_path / "data"), tmp_path / "out", "--dry-run")
    rows = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    assert [r["split"] for r in rows] == ["train"] * 4 + ["val"] * 4
    first = rows[0]
    # "user : Describe character: Ada given the following context. Context: Ada sailed the ship . The sea
    # was calm . </s> assistant :"
    assert first["prompt_tokens"] == 23 and first["answer_tokens"] == 7  # "Ada is a brave sailor . </s>"
    assert not (tmp_path / "out").exists()


def test_a_killed_run_resumes_and_ends_with_the_weights_of_an_uninterrupted_run(tmp_path: Path) -> None:
    base = tiny_llama(tmp_path / "base")  # skips without the train extra, before torch is imported below
    from safetensors.torch import load_file

    data = write_fixture(tmp_path / "data")
    env = {
        **os.environ,
        # the checkout first, then what the caller's path held (packages installed beside the venv)
        "PYTHONPATH": os.pathsep.join(
            [str(ROOT / "src"), str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
        ),
        "OMP_NUM_THREADS": "1",
    }
    steps = [*FAST[:-2], "--save-steps", "5", "--max-steps", "60"]

    def command(out: Path) -> list[str]:
        args = ["train", "describe", "--model", str(base), "--data", str(data), "--out", str(out), *SHORT]
        return [sys.executable, "-m", "fabula", *args, *steps]

    out = tmp_path / "out"
    first = subprocess.Popen(command(out), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    state = out / "checkpoint" / "state.json"
    deadline = time.monotonic() + 300
    while not state.is_file() and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=30)
    assert first.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    killed_at = json.loads(state.read_text())["step"]
    assert 5 <= killed_at < 60
    second = subprocess.run(command(out), env=env, capture_output=True, text=True, timeout=600)
    assert second.returncode == 0, second.stderr
    resumed = int(second.stderr.split("resumed from step ")[1].split()[0])
    assert killed_at <= resumed < 60 and resumed % 5 == 0
    meta = json.loads((out / "fabula-train.json").read_text())
    assert meta["result"]["steps"] == 60 and meta["result"]["resumed_from"] == resumed
    assert (out / "model.safetensors").is_file() and (out / "tokenizer.json").is_file()
    # the same command never interrupted (in this process, one thread as the subprocesses) ends with the
    # same adapter: weights, optimizer, schedule, data order, the seeded LoRA init and every random state
    # (dropout) were restored
    whole = tmp_path / "whole"
    _train(base, data, whole, *steps)
    resumed_adapter = load_file(out / "adapter" / "adapter_model.safetensors")
    whole_adapter = load_file(whole / "adapter" / "adapter_model.safetensors")
    assert resumed_adapter.keys() == whole_adapter.keys()
    for name, weights in whole_adapter.items():
        assert (resumed_adapter[name] - weights).abs().max() <= 1e-6, name
    assert json.loads((whole / "fabula-train.json").read_text())["result"]["val_losses"] == pytest.approx(
        meta["result"]["val_losses"], abs=1e-6
    )
