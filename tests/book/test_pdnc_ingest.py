"""Loading every PDNC novel keeps the text identical, so every gold quote span still points at its words."""

from __future__ import annotations

import ast
import csv

import pytest

from fabula.book import load_book
from tests.conftest import PDNC_DIR

NOVELS = sorted(p.name for p in PDNC_DIR.glob("*/")) if PDNC_DIR.is_dir() else []


@pytest.mark.skipif(not NOVELS, reason=f"PDNC data not found at {PDNC_DIR}")
@pytest.mark.parametrize("novel", NOVELS)
def test_text_identical_and_quote_spans_hold(novel: str) -> None:
    path = PDNC_DIR / novel / "novel_text.txt"
    book = load_book(path)
    assert book.text == path.read_bytes().decode("utf-8")
    with (PDNC_DIR / novel / "quotation_info.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            subs = ast.literal_eval(row["subQuotationList"])
            spans = ast.literal_eval(row["quoteByteSpans"])
            for sub, (start, end) in zip(subs, spans, strict=True):
                assert book.text[start:end].strip() == sub.strip()
