"""What `fabula serve` shows at a checkpoint is exactly what a fresh analysis of the book truncated there
gives, whatever the server reused to get it (the checkpoint's analysis for its recap, the folder the
look-ahead process wrote, read back, the whole book's prefix-stable layers): the cast, mentions, quotes
with speakers, profiles, character sheets and the recap, at several positions of a real novel, and the
reused layers at many cuts inside quotations, names, pronouns and paragraphs. Any later text that reached
an answer would make it differ from the fresh analysis, which never sees that text."""

from __future__ import annotations

import dataclasses
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
from scripts.format_variants import VARIANTS

from fabula.analysis import Analysis
from fabula.book import Book, PrefixLayers, book_from_text, load_book
from fabula.characters._discover._candidates import _candidates, lowercase_words
from fabula.characters._pronouns import pronoun_matches
from fabula.characters._text import dialogue_regions
from fabula.describe import character_sheet
from fabula.pipeline import analyze_book
from fabula.quotes import detect_quote_style, detect_quotes
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
        served._loader.join(
            timeout=300
        )  # the prefix-stable layers made: every checkpoint is cut through them
        assert served._layers is not None
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
        # the server writes an analysis once no request has come for a moment, and closing drops a write
        # not yet made: wait for the one the restarted server below reads back
        folder = served._folder(picks[0])
        assert folder is not None
        deadline = time.monotonic() + 60
        while not served._complete(folder):
            assert time.monotonic() < deadline, "the first checkpoint's analysis was never written"
            time.sleep(0.05)
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


# --- prefix-stable layers (`fabula.book.PrefixLayers`): the local work of a cut is the whole book's --------


def _cuts(book: Book, count: int, seed: int = 29) -> list[int]:
    """Cut points of every kind, ``count`` of each: just inside a quotation's opening mark, in mid-speech,
    just before its closing mark, inside a word of a capitalised name and inside a pronoun ("he|r"), in a
    paragraph, at a paragraph's start and end, and just after a blank line."""
    rng = random.Random(seed)
    text, body = book.text, book.body
    # the speeches as the detector reads them, a character either side (a mark, or a dash's space, or none)
    quotes = [
        (span.start - 1 - body.start, span.end + 1 - body.start)
        for quote in detect_quotes(book.truncated(len(text)))
        for span in quote.spans
    ]
    names = [
        m.span()
        for m in re.finditer(r"(?:Mr\.|Mrs\.|Miss) ?[A-Z][a-z]+|[A-Z][a-z]{3,}", text[body.start : body.end])
    ]
    pronouns = [
        m.span()
        for m in re.finditer(r"\b(?:her|hers|herself|his|him|himself|she)\b", text[body.start : body.end])
    ]
    blank = [m.end() for m in re.finditer(r"\n[ \t]*\n", text[body.start : body.end])]
    paragraphs = book.paragraphs.pairs()

    def some(items: list[Any]) -> list[Any]:
        return rng.sample(items, min(count, len(items)))

    points = [body.start + s + 1 for s, _ in some(quotes)]
    points += [body.start + (s + e) // 2 for s, e in some(quotes)]
    points += [body.start + e - 1 for _, e in some(quotes)]
    points += [body.start + s + rng.randrange(1, max(2, e - s)) for s, e in some(names)]
    points += [rng.randrange(s, e) for s, e in some(paragraphs)]
    points += [x for s, e in some(paragraphs) for x in (s, e)]
    points += [body.start + b for b in some(blank)]
    points += [body.start + s + 1 for s, _ in some(pronouns)]
    return sorted({p for p in points if body.start < p < body.end})


def _local_layers(book: Book) -> dict[str, Any]:
    """What the components compute from the text alone, the parts `PrefixLayers` carries over."""
    quotes = detect_quotes(book)
    return {  # dataclasses compare field by field
        "quotes": quotes,
        "candidates": _candidates(book, dialogue_regions(book)),
        "lowercase": list(lowercase_words(book).items()),  # the counts in their order of first appearance
        "pronouns": pronoun_matches(book),
    }


def _variants() -> dict[str, Book]:
    """Real text in each quotation convention the scan reuses: double marks (a novel as it is), British
    single marks, em-dash dialogue and dialogue with no marks (the same novel's marks rewritten by
    `scripts/format_variants.py`: the novel's marks are straight ones), and one whose opening reads as
    single-mark dialogue while the whole book reads as double (the cut's own convention then differs from
    the whole book's, so nothing of the quotation scan may carry over)."""
    text = (pdnc_novel_dir("DaisyMiller") / "novel_text.txt").read_text(encoding="utf-8")
    single = VARIANTS["single"](text)
    head = len(text) // 6
    mixed = single[:head] + text[head:]
    books = {
        "double": load_book(pdnc_novel_dir("DaisyMiller") / "novel_text.txt"),
        "single": book_from_text(single),
        "dash": book_from_text(VARIANTS["dash"](text)),
        "unmarked": book_from_text(VARIANTS["unmarked"](text)),
        "mixed": book_from_text(mixed),
    }
    for kind in ("single", "dash", "unmarked"):  # each copy reads as its convention, not as the novel's
        assert detect_quote_style(books[kind]).kind == kind
    assert (
        detect_quote_style(books["mixed"].truncated(books["mixed"].body.start + head // 2)).kind == "single"
    )
    return books


@pytest.mark.parametrize("count", [1, pytest.param(6, marks=pytest.mark.slow)])
def test_a_cut_through_prefix_layers_finds_what_a_plain_cut_finds(count: int) -> None:
    """At ``count`` cuts of each kind per convention (inside quotations, names, pronouns and paragraphs),
    the quotations, name candidates, lowercase word counts and pronouns of a cut made through
    `PrefixLayers` equal those of a plain `Book.truncated` cut; and most of those cuts did reuse the
    whole book's work."""
    for style, whole in _variants().items():
        layers = PrefixLayers(whole)
        reused = 0
        cuts = _cuts(whole, count, seed=count)
        for cut in cuts:
            through = layers.truncated(cut)
            assert _local_layers(through) == _local_layers(whole.truncated(cut)), (style, cut)
            reused += layers.settled(through) > whole.body.start
        assert len(cuts) >= 6 * count and reused > 0.8 * len(cuts), style


def test_the_comparison_catches_a_cut_that_trusts_the_whole_book_too_far(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The check above can fail. Taken as settled up to the cut itself, the whole book's name runs,
    words and pronouns that run over the cut (or whose reading looked past it) are kept; with the cut
    paragraph's quotations also taken from the whole book, a quotation the cut interrupts is kept whole.
    Either way the layers differ from a plain cut's (the quotation scan's own rule, all paragraphs but
    the cut one, holds even when everything before the cut is taken as settled)."""
    from fabula.quotes import _detect

    whole = load_book(pdnc_novel_dir("DaisyMiller") / "novel_text.txt")
    cuts = _cuts(whole, 2)
    plain = {cut: _local_layers(whole.truncated(cut)) for cut in cuts}

    def differing() -> set[str]:
        layers = PrefixLayers(whole)
        differ: set[str] = set()
        for cut in cuts:
            try:
                through = _local_layers(layers.truncated(cut))
            except IndexError:  # a quotation reaching past the cut's text
                differ.add("quotes")
                continue
            differ.update(key for key, value in through.items() if value != plain[cut][key])
        return differ

    assert differing() == set()
    monkeypatch.setattr(PrefixLayers, "settled", lambda self, book: len(book.text))
    assert differing() == {"candidates", "lowercase", "pronouns"}
    settled_paragraphs = _detect._settled_paragraphs
    monkeypatch.setattr(
        _detect, "_settled_paragraphs", lambda book, settled: settled_paragraphs(book, settled) + 1
    )
    assert "quotes" in differing()


@pytest.mark.slow
def test_analyses_cut_through_prefix_layers_equal_fresh_ones() -> None:
    """The whole analysis (cast, mentions, quotes with speakers, profiles) of cuts made through one
    `PrefixLayers`, one after another as a reader moves (the quote lines of earlier cuts kept meanwhile),
    then back again (what later cuts kept through `text_memo` reaching earlier ones), equals a fresh
    analysis of a plain cut, in the middle of quotations and paragraphs alike."""
    whole = load_book(pdnc_novel_dir("DaisyMiller") / "novel_text.txt")
    layers = PrefixLayers(whole)
    cuts = _cuts(whole, 1, seed=3)
    for cut in cuts + cuts[-2::-1]:
        assert _layers(analyze_book(layers.truncated(cut))) == _layers(analyze_book(whole.truncated(cut))), (
            cut
        )


def _tag_cuts(whole: Book, count: int) -> list[tuple[int, int]]:
    """``count`` pairs of cuts: right after a quotation's closing mark with its tag after the cut (``..., "|
    he asked``: the cut's last paragraph, its narration clipped), and at the end of the paragraph after
    that one (the same quotation with its tag in full)."""
    text = whole.text
    found = [m.start() + 2 for m in re.finditer(r'[,!?]["”]\s+(?:he|she|said)\s+\w+', text)]
    pairs = []
    for cut in found[:: max(1, len(found) // count)][:count]:
        paragraph = whole.paragraphs.index_before(cut)
        later = int(whole.paragraphs.ends[min(paragraph + 1, len(whole.paragraphs) - 1)])
        pairs.append((cut, later))
    return pairs


def _through_one_store(whole: Book, order: list[int]) -> dict[int, dict[str, Any]]:
    layers = PrefixLayers(whole)
    return {cut: _layers(analyze_book(layers.truncated(cut))) for cut in order}


def test_text_kept_across_cuts_equals_a_plain_cut_in_any_order() -> None:
    """The values one book's cuts share through `fabula.book.text_memo` (the sieve's tag clauses, the
    ranker's tag gender, words of address and tag verbs) give every cut exactly a fresh analysis of a plain
    cut, whichever cut computed them first: a cut with a quotation's tag just past it, then one that holds
    the tag (the clipped narration must not carry over), and late cuts before early ones."""
    whole = load_book(pdnc_novel_dir("DaisyMiller") / "novel_text.txt")
    (early, later), *_ = _tag_cuts(whole, 3)
    late = int(whole.paragraphs.ends[int(len(whole.paragraphs) * 0.6)])
    order = [late, early, later, early - 500]
    through = _through_one_store(whole, order)
    for cut in order:
        assert through[cut] == _layers(analyze_book(whole.truncated(cut))), cut


def _turn_values(book: Book) -> list[Any]:
    """The ranker's per-turn values of the text alone that `text_memo` keeps: tag gender, words of address."""
    from fabula.annotation import annotate
    from fabula.quotes._ranker import _StaticBook
    from fabula.quotes._rules import run_sieve

    annotate(book, {"characters"})
    context, turns = run_sieve(book)
    statics = _StaticBook.of(context, turns)
    return [(statics.tag_genders[i], statics.address_gender(book.text, turns, i)) for i in range(len(turns))]


def test_the_comparison_catches_text_kept_past_a_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks can fail. Kept without their guards, what a cut computed with a quotation's tag cut off
    reaches the later cut that holds the tag: the sieve's clauses of a quotation in the cut's last
    paragraph (whose narration the cut clips) change later analyses, and the ranker's tag gender (read
    past the cut's end) later turns' values."""
    from fabula.quotes import _ranker, _rules

    whole = load_book(pdnc_novel_dir("DaisyMiller") / "novel_text.txt")
    order = [cut for pair in _tag_cuts(whole, 3) for cut in pair]
    fresh = {cut: _layers(analyze_book(whole.truncated(cut))) for cut in order}
    values = {cut: _turn_values(whole.truncated(cut)) for cut in order}
    assert _through_one_store(whole, order) == fresh
    layers = PrefixLayers(whole)
    assert all(_turn_values(layers.truncated(cut)) == values[cut] for cut in order)

    kept = _ranker._text_kept
    with monkeypatch.context() as patched:
        patched.setattr(
            _ranker,
            "_text_kept",
            lambda memo, key, end, text, compute, turn: kept(memo, key, 0, text, compute, turn),
        )
        layers = PrefixLayers(whole)
        assert [cut for cut in order if _turn_values(layers.truncated(cut)) != values[cut]] != []
    context = _rules._context
    monkeypatch.setattr(
        _rules,
        "_context",
        lambda book: dataclasses.replace(context(book), last_paragraph=len(book.text) + 10**6),
    )
    through = _through_one_store(whole, order)
    assert [cut for cut in order if through[cut] != fresh[cut]] != []


def test_text_values_kept_for_the_whole_book_serve_every_cut() -> None:
    """`keep_text_values` (what ``fabula serve`` computes for the whole book when it loads it) fills the
    store's text values; the first analyses cut through it then equal fresh ones, late and early alike,
    and find most of their quotations' clauses made."""
    from fabula.book import text_memo
    from fabula.quotes import keep_text_values

    whole = load_book(pdnc_novel_dir("DaisyMiller") / "novel_text.txt")
    layers = PrefixLayers(whole)
    keep_text_values(layers.truncated(whole.body.end))
    clauses = text_memo(layers.truncated(whole.body.end), "quotes.clauses")
    assert clauses is not None and len(clauses) > 500
    made = len(clauses)
    late = int(whole.paragraphs.ends[int(len(whole.paragraphs) * 0.9)])
    early = _tag_cuts(whole, 1)[0][0]  # a quotation's tag just past the cut
    for cut in (late, early):
        assert _layers(analyze_book(layers.truncated(cut))) == _layers(analyze_book(whole.truncated(cut))), (
            cut
        )
    assert len(clauses) - made < 0.05 * made  # the cuts found nearly all made
    keep_text_values(whole.truncated(whole.body.end))  # a plain cut: nothing to keep, nothing changes
