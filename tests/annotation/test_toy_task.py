"""A new component and a new task are each one declaration (issue 24's acceptance): a toy component
that needs the mentions and adds per-character name counts, and a toy task that asks the harness's book
service for that layer, declares its metric with its aggregation, and runs through `run_eval` with its
per-sample log."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import orjson
import pytest

from fabula.annotation import COMPONENTS, component, result_of
from fabula.book import Book
from fabula.tasks import TASKS, EvalItem, ItemOutcome, Task, get_task, log_path_for, run_eval, task
from tests.conftest import EXAMPLE_NOVEL


@pytest.fixture
def toy_task() -> Iterator[type[Task]]:
    @component("toy-name-counts", requires={"mentions"}, assigns={"toy_name_counts"})
    def name_counts(book: Book) -> dict[str, int]:
        counts: dict[str, int] = {}
        for m in book.mentions:
            if m.character_id and m.kind != "pronoun":
                counts[m.character_id] = counts.get(m.character_id, 0) + 1
        return counts

    @task("toy-named-share")
    class NamedShare(Task):
        """For each of the first chapters: the share of the book's top character's names in it."""

        description = "Toy: how much of each chapter's naming goes to the top character."
        metrics: ClassVar[list[str]] = ["top_share"]
        aggregation: ClassVar[dict[str, str]] = {"top_share": "mean"}

        def items(self) -> list[EvalItem]:
            return [EvalItem(f"chapter-{i}", {"novel": "alice"}, i) for i in range(1, 4)]

        def run_item(self, item: EvalItem, llm: Any) -> ItemOutcome:
            book = self.books.book(EXAMPLE_NOVEL, needs={"toy_name_counts"})
            counts: dict[str, int] = result_of(book, "toy-name-counts")
            top = max(counts, key=lambda c: counts[c])
            chapter = book.chapters[item.payload - 1]
            inside = [
                m for m in book.mentions if chapter.start <= m.start < chapter.end and m.kind != "pronoun"
            ]
            share = sum(m.character_id == top for m in inside) / len(inside) if inside else None
            samples = [{"mention": [m.start, m.end], "character": m.character_id} for m in inside]
            return ItemOutcome({"top_share": share}, prediction=top, samples=samples)

    yield NamedShare
    TASKS.remove("toy-named-share")
    COMPONENTS.remove("toy-name-counts")


def test_a_toy_component_and_a_toy_task_run_through_the_harness(toy_task: type[Task], tmp_path: Path) -> None:
    assert get_task("toy-named-share") is toy_task
    out = tmp_path / "toy.json"
    report = run_eval(toy_task(), json_path=out, progress=False)
    assert report.items == 3 and report.item_mean["top_share"] is not None
    assert 0 < report.item_mean["top_share"] <= 1
    header, *samples = [orjson.loads(line) for line in log_path_for(out, "samples").read_bytes().splitlines()]
    assert header["task"] == "toy-named-share"
    assert samples and {s["item"] for s in samples} <= {"chapter-1", "chapter-2", "chapter-3"}
    assert all(s["character"] for s in samples)


def test_a_task_declares_only_registered_aggregations() -> None:
    from fabula.errors import ConfigError

    with pytest.raises(ConfigError, match="aggregation"):

        @task("toy-bad-aggregation")
        class Bad(Task):
            metrics: ClassVar[list[str]] = ["x"]
            aggregation: ClassVar[dict[str, str]] = {"x": "no-such-aggregation"}

            def items(self) -> list[EvalItem]:
                return []

            def run_item(self, item: EvalItem, llm: Any) -> ItemOutcome:
                return ItemOutcome({})

    assert "toy-bad-aggregation" not in TASKS
