"""What `fabula serve` shows at a checkpoint is exactly what a fresh analysis of the book truncated there
gives, whatever the server reused to get it (the checkpoint's analysis for its recap, the folder the
look-ahead process wrote, read back): the cast, mentions, quotes with speakers, profiles, character sheets and the
recap, at several positions of a real novel. Any later text that reached an answer would make it differ
from the fresh analysis, which never sees that text."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from fabula.analysis import Analysis
from fabula.book import load_book
from fabula.describe import character_sheet
from fabula.pipeline import analyze_book
from fabula.recap import _rankers, recap
from fabula.serve import Library, Position
from tests.conftest import pdnc_novel_dir


def _layers(analysis: Analysis) -> dict[str, Any]:
    book = analysis.book
    return {
        "text": book.text,
        "characters": [dataclasses.asdict(c) for c in book.characters],
        "mentions": [dataclasses.asdict(m) for m in book.mentions],
        "quotes": [dataclasses.asdict(q) for q in book.quotes],
        "profiles": [p.to_dict() for p in analysis.characters],
        "sheets": [character_sheet(analysis, p).to_dict() for p in analysis.characters[:3]],
    }


@pytest.mark.slow
def test_checkpoints_equal_a_fresh_analysis_of_the_truncated_book(tmp_path: Path) -> None:
    source = pdnc_novel_dir("DaisyMiller") / "novel_text.txt"
    library = Library([source], cache=tmp_path / "cache")
    served = next(iter(library.books.values()))
    whole = load_book(source)
    try:
        served.book()
        grid = served._checkpoints
        # a jump, the checkpoint right after it (the look-ahead's), a far jump back and the end
        picks = [grid[len(grid) // 3], grid[len(grid) // 3 + 1], grid[len(grid) // 8], grid[-1]]
        answers = {}
        served_sheets = {}
        for point in picks:
            position = Position(point, point)
            analysis = served.analysis(position)
            answers[point] = (_layers(analysis), served.recap(position))
            if point == picks[1]:  # made ahead by the helper: the sheets come from its folder
                assert (served._folder(point) / "sheets.json").is_file()
            served_sheets[point] = [served.sheet(position, p.id) for p in analysis.characters[:4]]
            if point == picks[0]:  # let the look-ahead finish the next checkpoint, analysis and recap
                served._background.submit(lambda: None).result(timeout=300)
                ahead = served._analyses[picks[1]].result()
                assert ahead.settings.get("from") == str(served._folder(picks[1]))  # the helper's folder
        fresh_recaps = {}
        for point in picks:
            fresh = analyze_book(whole.truncated(point))
            assert answers[point][0] == _layers(fresh), point
            assert served_sheets[point] == [character_sheet(fresh, p).to_dict() for p in fresh.characters[:4]]
            _rankers._TERMS.clear()  # the recap's sentence terms too from scratch, nothing reused
            fresh_recaps[point] = recap(whole, point).to_dict()
            assert answers[point][1] == fresh_recaps[point], point
        assert answers[picks[0]][0]["characters"] != answers[picks[3]][0]["characters"]
    finally:
        library.close()
    # a restarted server: the analysis comes back from its folder, the recap (removed) is made again
    (served._folder(picks[0]) / "recap.json").unlink()
    library = Library([source], cache=tmp_path / "cache")
    again = next(iter(library.books.values()))
    try:
        again.book()
        position = Position(picks[0], picks[0])
        assert again.analysis(position).settings.get("from") == str(again._folder(picks[0]))
        assert again.recap(position) == fresh_recaps[picks[0]]
    finally:
        library.close()


def test_a_recap_on_the_checkpoint_s_analysis_equals_a_fresh_one() -> None:
    """`recap` on a book already cut at the position and annotated (what the server passes) uses its
    characters as they are — and gives the recap of the whole book at that position."""
    source = pdnc_novel_dir("DaisyMiller") / "novel_text.txt"
    whole = load_book(source)
    for percent in (35, 80):
        point = whole.body.start + (whole.body.end - whole.body.start) * percent // 100
        point = int(whole.sentences.ends[whole.sentences.index_at(point) - 1])  # a sentence end
        analysed = analyze_book(whole.truncated(point))
        annotated = analysed.book.annotations["characters"]
        assert recap(analysed.book, point).to_dict() == recap(whole, point).to_dict()
        assert analysed.book.annotations["characters"] is annotated  # nothing was found again
