"""Reading JSON-lines data files (question sets, recap targets, description references, training data).

Every data reader of fabula wants the same thing from such a file: each non-blank line is one JSON
object, and a problem is one `InputError` naming the file and the line, raised before anything is used
(no partial data set). The checks of each record's fields stay with the reader that knows the format.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from fabula.errors import InputError


def read_jsonl(path: Path, what: str = "the data file") -> list[tuple[int, dict[str, Any]]]:
    """(line number, object) of every non-blank line of ``path``; ``what`` names the file in the error
    when it cannot be read ("cannot read the data file (No such file or directory)")."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputError(f"cannot read {what} ({reason})", path) from exc
    return list(jsonl_objects(text.splitlines(), path))


def jsonl_objects(lines: Iterable[str], path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) of every non-blank line of an already decoded file."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise InputError(f"line {number} is not JSON ({exc})", path) from exc
        if not isinstance(record, dict):
            raise InputError(f"line {number} is not a JSON object", path)
        yield number, record
