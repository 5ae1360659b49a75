"""Multiple-choice questions about novels: LFED's CSV (Yu et al., LREC-COLING 2024) and a generic JSONL.

LFED: ``名字,题目,选项1,选项2,选项3,选项4,答案`` (novel, question, four options, answer letter), shipped as
GBK (``LFED.csv``) and UTF-8 (``LFED.utf8.csv``); the encoding is detected. Generic JSONL, one question a
line: ``{"id", "book": path relative to the file (optional), "question", "options": [...], "answer":
letter or 0-based index, "category" (optional), "novel" (optional)}``.

A malformed row (an empty option, an answer outside the options, a missing field) is reported with its
line number and skipped; it never stops the others from loading (`McqSet.problems`).
"""

from __future__ import annotations

import csv
import io
import string
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from fabula.errors import InputError

LETTERS = string.ascii_uppercase
_LFED_COLUMNS = ("名字", "题目", "选项1", "选项2", "选项3", "选项4", "答案")


@dataclass(frozen=True, slots=True)
class McqQuestion:
    """One question: ``answer`` is the index of the right option (0 = A)."""

    id: str
    question: str
    options: tuple[str, ...]
    answer: int
    novel: str = ""
    category: str | None = None
    book: Path | None = None
    line: int = 0  # where it was read (1-based), for messages

    @property
    def answer_letter(self) -> str:
        return LETTERS[self.answer]

    @property
    def language(self) -> str:
        """``zh`` when the question is written in Chinese (CJK ideographs), else ``en``."""
        text = self.question + "".join(self.options)
        cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
        return "zh" if cjk >= max(2, len(text) // 10) else "en"


@dataclass(slots=True)
class McqSet:
    """The questions of one file and the rows that could not be read (``"LINE: problem"``)."""

    path: Path
    questions: list[McqQuestion] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def load_mcq(path: str | Path) -> McqSet:
    """Questions from an LFED CSV (``.csv``) or a JSONL file (``.jsonl``/``.json``)."""
    path = Path(path)
    if not path.is_file():
        raise InputError("no such file", path)
    if path.suffix.lower() == ".csv":
        return _load_lfed(path)
    if path.suffix.lower() in (".jsonl", ".json"):
        return _load_jsonl(path)
    raise InputError("expected an LFED .csv or a .jsonl question file", path)


def _decode(path: Path) -> str:
    """UTF-8 (with or without BOM), else GBK/GB18030 (LFED's original file)."""
    raw = path.read_bytes()
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise InputError("not UTF-8 or GBK text", path)


def _load_lfed(path: Path) -> McqSet:
    rows = _csv_rows(path)
    if not rows:
        raise InputError("empty file", path)
    header = [cell.strip() for cell in rows[0][2]]
    if tuple(header[: len(_LFED_COLUMNS)]) != _LFED_COLUMNS:
        raise InputError(f"not an LFED file: expected the columns {','.join(_LFED_COLUMNS)}", path)
    result = McqSet(path)
    swallowed = 0  # lines a quoted field ran over: rows the file meant but the reader never saw
    for number, last, row in rows[1:]:
        if not any(cell.strip() for cell in row):
            continue
        if last > number:  # LFED's fields hold no line breaks: a quote that was never closed
            swallowed += last - number + 1
            result.problems.append(
                f"{number}: a quoted field runs on to line {last} (an unclosed quote?), so lines "
                f"{number}-{last} are not read as rows"
            )
            continue
        try:
            novel, question, *options, answer = (cell.strip() for cell in row[: len(_LFED_COLUMNS)])
            if len(row) < len(_LFED_COLUMNS):
                raise ValueError(f"expected {len(_LFED_COLUMNS)} columns, found {len(row)}")
            result.questions.append(
                _question(f"lfed-{number - 1}", question, options, answer, novel=novel, line=number)
            )
        except ValueError as exc:
            result.problems.append(f"{number}: {exc}")
    lines = rows[-1][1] - 1
    if swallowed > max(1, lines // 10):
        raise InputError(
            f"{swallowed} of {lines} rows are swallowed by unclosed quotes ({result.problems[0]})", path
        )
    return _checked(result)


def _csv_rows(path: Path) -> list[tuple[int, int, list[str]]]:
    """``(first line, last line, cells)`` of each CSV row; `InputError` with the line for what the csv
    module refuses (a field over its 128 KB limit: an unclosed quote swallowing the rest of the file)."""
    reader = csv.reader(io.StringIO(_decode(path), newline=""))
    rows: list[tuple[int, int, list[str]]] = []
    try:
        for row in reader:
            rows.append((rows[-1][1] + 1 if rows else 1, reader.line_num, row))
    except csv.Error as exc:
        start = rows[-1][1] + 1 if rows else 1
        raise InputError(f"line {start}: {exc} (an unclosed quote?)", path) from exc
    return rows


def _load_jsonl(path: Path) -> McqSet:
    result = McqSet(path)
    for number, line in enumerate(_decode(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = orjson.loads(line)
            if not isinstance(record, dict):
                raise ValueError("expected a JSON object")
            options = record.get("options")
            if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
                raise ValueError("'options' must be a list of strings")
            book = record.get("book")
            if book is not None and not isinstance(book, str):
                raise ValueError("'book' must be a path")
            result.questions.append(
                _question(
                    str(record.get("id") or f"q{number}"),
                    str(record.get("question") or ""),
                    options,
                    record.get("answer"),
                    novel=str(record.get("novel") or (Path(book).stem if book else "")),
                    category=record.get("category") if isinstance(record.get("category"), str) else None,
                    book=(path.parent / book) if book else None,
                    line=number,
                )
            )
        except orjson.JSONDecodeError as exc:
            result.problems.append(f"{number}: not JSON ({exc.args[0].split(':')[0]})")
        except ValueError as exc:
            result.problems.append(f"{number}: {exc}")
    return _checked(result)


def _checked(result: McqSet) -> McqSet:
    """``result``, unless no row could be read (then the first problem says why)."""
    if not result.questions:
        first = f" ({result.problems[0]})" if result.problems else ""
        raise InputError(f"no readable question{first}", result.path)
    return result


def _question(
    id: str, question: str, options: list[str], answer: Any, *, line: int, **extra: Any
) -> McqQuestion:
    """A checked question; `ValueError` says what is wrong with the row."""
    if not question.strip():
        raise ValueError("empty question")
    if len(options) < 2:
        raise ValueError("fewer than two options")
    for index, option in enumerate(options):
        if not option.strip():
            raise ValueError(f"option {LETTERS[index]} is empty")
    index = _answer_index(answer, len(options))
    return McqQuestion(id, question.strip(), tuple(o.strip() for o in options), index, line=line, **extra)


def _answer_index(answer: Any, count: int) -> int:
    if isinstance(answer, bool):
        raise ValueError(f"answer {answer!r} is not a letter or an index")
    if isinstance(answer, int):
        index = answer
    elif isinstance(answer, str) and len(answer.strip()) == 1 and answer.strip().upper() in LETTERS:
        index = LETTERS.index(answer.strip().upper())
    else:
        raise ValueError(f"answer {answer!r} is not a letter or an index")
    if not 0 <= index < count:
        raise ValueError(f"answer {answer!r} is outside the {count} options")
    return index
