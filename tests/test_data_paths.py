"""Every book path in the project's own data files (data/**/*.jsonl) points into ``../shared`` beside the
checkout, resolved the way the loaders resolve it (relative to the file's folder).

Tests that read these books skip when the shared data is absent, so a path written from a deeper working
copy (one ``../`` too many) would only show as skipped tests; this check needs no shared data."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from tests.conftest import ROOT

DATA_FILES = sorted((ROOT / "data").rglob("*.jsonl"))


def _book_paths(value: object) -> list[str]:
    """Every string under a key named ``book`` (at any depth)."""
    if isinstance(value, dict):
        found = [v for k, v in value.items() if k == "book" and isinstance(v, str)]
        return found + [p for v in value.values() for p in _book_paths(v)]
    if isinstance(value, list):
        return [p for v in value for p in _book_paths(v)]
    return []


@pytest.mark.parametrize("path", DATA_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_book_paths_point_into_the_shared_folder_beside_the_checkout(path: Path) -> None:
    shared = os.path.normpath(ROOT.parent / "shared")
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        for book in _book_paths(orjson.loads(line)):
            if Path(book).is_absolute() or not book.startswith(".."):
                continue  # not a path into ../shared (e.g. a bare novel name)
            resolved = os.path.normpath(path.parent / book)
            assert resolved.startswith(shared + os.sep), (
                f"{path.name}:{number}: {book} resolves to {resolved}"
            )
