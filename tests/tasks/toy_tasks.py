"""Toy tasks registered from outside fabula, as a new task module would be: one module, no CLI or
harness edit. ``toy-sums`` scores fixed answers (no model); ``toy-llm`` asks a model each question."""

from __future__ import annotations

from typing import Any, ClassVar

from fabula.llm import LLM, GenerateOptions
from fabula.tasks import EvalItem, ItemOutcome, Task, TaskOption, task

QUESTIONS = [  # (a, b, op, the toy method's answer): the method is wrong on items 2 and 5
    (1, 2, "add", 3),
    (2, 3, "add", 6),
    (4, 5, "add", 9),
    (2, 2, "mul", 4),
    (3, 3, "mul", 8),
    (2, 5, "mul", 10),
]


def _items() -> list[EvalItem]:
    return [
        EvalItem(f"q{i}", {"category": op, "level": "1" if a < 3 else "2"}, (a, b, op, answer))
        for i, (a, b, op, answer) in enumerate(QUESTIONS)
    ]


def _truth(a: int, b: int, op: str) -> int:
    return a + b if op == "add" else a * b


@task("toy-sums")
class ToySums(Task):
    description = "Toy arithmetic with fixed answers (a test of the harness)."
    metrics: ClassVar[list[str]] = ["accuracy"]
    counts: ClassVar[list[str]] = ["items"]
    group_by: ClassVar[list[str]] = ["category", "level"]
    options: ClassVar[list[TaskOption]] = [
        TaskOption("label", str, default="x", choices=("x", "y"), help="A setting with choices."),
    ]

    def items(self) -> list[EvalItem]:
        return _items()

    def run_item(self, item: EvalItem, llm: LLM | None) -> ItemOutcome:
        a, b, op, answer = item.payload
        return ItemOutcome({"accuracy": float(answer == _truth(a, b, op))}, prediction=answer)


class Interrupt:
    """Raise KeyboardInterrupt right after this item's model call (a run cut off mid-item)."""

    after_item: str | None = None


@task("toy-llm")
class ToyLlm(Task):
    description = "Toy arithmetic asked of a model (a test of logs and resuming)."
    metrics: ClassVar[list[str]] = ["accuracy"]
    group_by: ClassVar[list[str]] = ["category"]
    llm = "required"
    parallel_items = False
    options: ClassVar[list[TaskOption]] = []

    def items(self) -> list[EvalItem]:
        return _items()

    def run_item(self, item: EvalItem, llm: LLM | None) -> ItemOutcome:
        assert llm is not None
        a, b, op, _answer = item.payload
        generation = llm.generate(
            f"What is {a} {op} {b}? Answer with a number.", GenerateOptions(max_tokens=8)
        )
        if Interrupt.after_item == item.id:
            raise KeyboardInterrupt
        parsed: Any = int(generation.text) if generation.text.strip().isdigit() else None
        return ItemOutcome({"accuracy": float(parsed == _truth(a, b, op))}, prediction=parsed)


def answer(messages: list[dict[str, str]]) -> str:
    """The scripted server's answers: right for additions, 0 for products."""
    words = messages[-1]["content"].split()
    a, op, b = int(words[2]), words[3], int(words[4].rstrip("?"))
    return str(a + b) if op == "add" else "0"


@task("toy-batch")
class ToyBatch(Task):
    """Each item asks two questions at once (generate_many), items run concurrently."""

    description = "Toy arithmetic, two questions an item (a test of concurrency and call records)."
    metrics: ClassVar[list[str]] = ["accuracy"]
    llm = "required"

    def items(self) -> list[EvalItem]:
        return _items()

    def run_item(self, item: EvalItem, llm: LLM | None) -> ItemOutcome:
        assert llm is not None
        a, b, op, _answer = item.payload
        prompts = [
            f"What is {a} {op} {b}? Answer with a number.",
            f"What is {b} {op} {a}? Reply with a number.",
        ]
        answers = [g.text for g in llm.generate_many(prompts, GenerateOptions(max_tokens=8))]
        right = all(text.strip() == str(_truth(a, b, op)) for text in answers)
        return ItemOutcome({"accuracy": float(right)}, prediction=answers)
