"""``fabula train describe``: (character, context, reference) examples for BookWorm's fine-tuning.

Two data formats, told apart line by line:

- the BookWorm release's processed split files (what its ``finetune.py`` reads): JSONL with
  ``character``, ``input`` (the book's text) and ``description``; ``--data`` is the folder holding
  ``train.jsonl`` and ``val.jsonl``, or one of those files (its sibling ``val.jsonl`` is the validation set);
- fabula's describe JSONL (`fabula eval describe`'s format): ``id``, ``book`` (relative to the file),
  ``character``, ``aliases``, ``reference``, optional ``until``; validation is ``--val FILE`` or, without it,
  every tenth novel (at least one) held out.

Prompt and context are exactly what BookWorm's protocol gives the model at inference (`fabula.describe`,
``--protocol bookworm``): the released description prompt, and the paragraphs of a context strategy
(``lead``, ``bm25``, ``coref`` — ``mentions`` is accepted for ``coref``: fabula's mention layer) cut to
whole paragraphs within ``truncate_tokens`` (7,600) of the model's own tokenizer. A fine-tuned model thus
reads in training what ``fabula eval describe --protocol bookworm --llm hf:OUT`` gives it. Examples whose
character the mention layer cannot find (``coref``) are dropped and counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fabula._jsonl import read_jsonl
from fabula.errors import ConfigError, InputError
from fabula.train._causal import ChatExample, count_tokens

PROMPT = "describe/bookworm_description"  # the release's prompts/description_prompt.txt, as package data
CONTEXTS = ("lead", "bm25", "coref", "mentions")


@dataclass(slots=True)
class DescribeRecord:
    """One reference description: the character, where the book text comes from, the reference."""

    id: str
    character: str
    reference: str
    aliases: list[str] = field(default_factory=list)
    text: str | None = None  # the release's format: the book's text itself
    book: Path | None = None  # fabula's format: the book file
    until: str | None = None
    novel: str = ""


def read_describe_data(
    path: Path, val_path: Path | None = None
) -> tuple[list[DescribeRecord], list[DescribeRecord]]:
    """(train, validation) records from ``path`` (file or folder) and the optional ``val_path``."""
    if path.is_dir():
        train_file, sibling = path / "train.jsonl", path / "val.jsonl"
        if not train_file.is_file():
            raise InputError("no train.jsonl in the folder (the BookWorm split format)", path)
    else:
        train_file, sibling = path, path.with_name("val.jsonl")
    train = _read(train_file)
    if val_path is not None:
        return train, _read(val_path)
    if train_file.name == "train.jsonl" and sibling.is_file():
        return train, _read(sibling)
    return hold_out(train)


def hold_out(records: list[DescribeRecord]) -> tuple[list[DescribeRecord], list[DescribeRecord]]:
    """Every tenth novel (in name order, at least one) as validation; one novel: no validation."""
    novels = sorted({r.novel for r in records})
    if len(novels) < 2:
        return records, []
    held = set(novels[9::10]) or {novels[-1]}
    return [r for r in records if r.novel not in held], [r for r in records if r.novel in held]


def _read(path: Path) -> list[DescribeRecord]:
    records = []
    for number, raw in read_jsonl(path):
        try:
            records.append(_record(raw, path, number))
        except (TypeError, ValueError, KeyError) as exc:
            raise InputError(f"line {number}: {exc}", path) from exc
    if not records:
        raise InputError("no examples in the file", path)
    return records


def _record(raw: dict[str, Any], path: Path, number: int) -> DescribeRecord:
    if "input" in raw and "description" in raw:  # the BookWorm release's processed format
        for key in ("character", "input", "description"):
            if not isinstance(raw[key], str) or not raw[key].strip():
                raise ValueError(f"{key!r} must be a non-empty string")
        book_id = str(raw.get("id", raw.get("book_id", "")))
        return DescribeRecord(
            id=f"{book_id or number}:{raw['character']}",
            character=raw["character"],
            reference=raw["description"],
            text=raw["input"],
            novel=book_id or str(raw.get("title", number)),
        )
    for key in ("book", "character", "reference"):
        if key not in raw:
            raise ValueError(
                f"missing key {key!r} (need the BookWorm keys character/input/description or fabula's id/book/character/reference)"
            )
    book = (path.parent / str(raw["book"])).resolve()
    novel = str(raw.get("novel") or (book.parent.name if book.stem == "novel_text" else book.stem))
    return DescribeRecord(
        id=str(raw.get("id", number)),
        character=str(raw["character"]),
        reference=str(raw["reference"]),
        aliases=[str(a) for a in raw.get("aliases", [])],
        book=book,
        until=None if raw.get("until") is None else str(raw["until"]),
        novel=novel,
    )


class ExampleBuilder:
    """Turns records into BookWorm protocol prompts with one context strategy; books are read once."""

    def __init__(self, tokenizer: Any, context: str, truncate_tokens: int) -> None:
        if context not in CONTEXTS:
            raise ConfigError(f"unknown context {context!r} (choose from {', '.join(CONTEXTS)})", "--context")
        from fabula.prompts import load_prompt

        self.tokenizer, self.truncate_tokens = tokenizer, truncate_tokens
        self.context = "coref" if context == "mentions" else context
        self.prompt = load_prompt(PROMPT)
        self._books: dict[str, Any] = {}
        self.unresolved: list[str] = []

    def count(self, text: str) -> int:
        return count_tokens(self.tokenizer, text)

    def build(self, records: list[DescribeRecord]) -> list[ChatExample]:
        examples = []
        for record in records:
            example = self.example(record)
            if example is None:
                self.unresolved.append(record.id)
            else:
                examples.append(example)
        return examples

    def example(self, record: DescribeRecord) -> ChatExample | None:
        """The record's prompt and reference, or None when its character is not found in the book."""
        from fabula.describe import context_paragraphs, truncate_paragraphs

        book = self._book(record)
        paragraphs: list[str] = []
        for name in [record.character, *record.aliases]:
            try:
                paragraphs = context_paragraphs(book, name, self.context)
            except ConfigError:  # coref: no character of that name
                continue
            break
        else:
            return None
        context = truncate_paragraphs(paragraphs, self.count, self.truncate_tokens)
        prompt = self.prompt.render(character=record.character, context=context)
        return ChatExample(
            record.id, prompt, record.reference, {"novel": record.novel, "context": self.context}
        )

    def _book(self, record: DescribeRecord) -> Any:
        from fabula.book import book_from_text, load_book, resolve_position
        from fabula.characters import find_characters

        key = (
            f"{record.book}@{record.until}"
            if record.book is not None
            else f"text:{record.novel}:{hash(record.text)}"
        )
        if key not in self._books:
            if record.book is not None:
                if not record.book.is_file():
                    raise InputError("book not found", record.book)
                book = load_book(record.book)
                offset = resolve_position(book, record.until)
                if offset is not None:
                    book = book.truncated(offset)
            else:
                book = book_from_text(record.text or "")
            if self.context == "coref":
                find_characters(book)
            self._books[key] = book
        return self._books[key]


def token_counts(tokenizer: Any, example: ChatExample, max_tokens: int) -> dict[str, int]:
    """Prompt and answer tokens of an example as trained (after the chat template), and whether cut."""
    from fabula.train._causal import encode_example

    ids, labels = encode_example(tokenizer, example, max_tokens)
    answer = sum(1 for label in labels if label != -100)
    return {"prompt_tokens": len(ids) - answer, "answer_tokens": answer, "total": len(ids)}
