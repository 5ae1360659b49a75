"""The Project Dialogism Novel Corpus (Vishnubhotla et al., LREC 2022), read from a local directory.

A PDNC directory holds one folder per novel with ``novel_text.txt``, ``quotation_info.csv`` and
``character_info.csv``. Quote spans are character offsets into the text (the texts are ASCII).
Speakers are resolved to character ids through the alias table, since the ``speaker`` column
sometimes holds an alias rather than the main name.
"""

from __future__ import annotations

import ast
import csv
import io
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from fabula.book import Book, Character, Span, load_book, trim_span
from fabula.characters import is_pseudo_name, load_character_list
from fabula.errors import InputError

PSEUDO_SPEAKERS = frozenset({"_narr", "_group", "_unknowable"})
MIN_SPEAKER_QUOTES = 10  # the standard PDNC evaluation scores speakers with at least 10 quotes
# quotes whose speaker character_info.csv lacks: a few are named in a warning, more fail the novel
MAX_UNRESOLVED_SHARE = 0.02
MAX_UNRESOLVED_QUOTES = 5

log = logging.getLogger(__name__)

# The project's validation split is fixed on PDNC's 21 novels (their sorted folder names): every third,
# indices 2, 5, ..., 20, is frozen (never inspected one by one), the other 14 are for tuning. It is named
# here, not recomputed from whatever novels a run or a report holds, so a partial run keeps the same split.
PDNC_NOVELS: tuple[str, ...] = (
    "ARoomWithAView",
    "AlicesAdventuresInWonderland",
    "AnneOfGreenGables",
    "DaisyMiller",
    "Emma",
    "HowardsEnd",
    "NightAndDay",
    "NorthangerAbbey",
    "Persuasion",
    "PrideAndPrejudice",
    "SenseAndSensibility",
    "TheAgeOfInnocence",
    "TheAwakening",
    "TheGambler",
    "TheInvisibleMan",
    "TheManWhoWasThursday",
    "TheMysteriousAffairAtStyles",
    "ThePictureOfDorianGray",
    "TheSignOfTheFour",
    "TheSportOfTheGods",
    "TheSunAlsoRises",
)
VALIDATION_EVERY = 3
PDNC_FROZEN: frozenset[str] = frozenset(PDNC_NOVELS[VALIDATION_EVERY - 1 :: VALIDATION_EVERY])
PDNC_TUNE: frozenset[str] = frozenset(PDNC_NOVELS) - PDNC_FROZEN


def pdnc_split(name: str) -> Literal["tune", "frozen"] | None:
    """Which half of the validation split the PDNC novel ``name`` (its folder name) is in; None for a
    novel that is not one of PDNC's 21."""
    if name in PDNC_FROZEN:
        return "frozen"
    return "tune" if name in PDNC_TUNE else None


@dataclass(slots=True)
class GoldQuote:
    id: str
    spans: list[Span]
    text: str
    speaker: str  # the speaker as written in the CSV
    speaker_id: str | None  # resolved gold character id (None for pseudo-speakers / unresolvable)
    addressees: list[str]
    type: str  # "explicit" / "anaphoric" / "implicit"
    referring_expression: str

    @property
    def start(self) -> int:
        return self.spans[0].start

    @property
    def end(self) -> int:
        return self.spans[-1].end


@dataclass(slots=True)
class PdncNovel:
    name: str
    path: Path
    book: Book
    characters: list[Character]
    quotes: list[GoldQuote]
    quote_counts: dict[str, int] = field(default_factory=dict)  # character id -> number of quotes
    # speaker as written -> quotes, for speakers character_info.csv does not list (left out of scoring)
    unresolved: dict[str, int] = field(default_factory=dict)

    def check_speakers(self, max_share: float = MAX_UNRESOLVED_SHARE) -> None:
        """`InputError` when more than ``max_share`` of the quotes (and more than a handful) name a speaker
        that ``character_info.csv`` does not list: scoring would quietly drop them all."""
        lost = sum(self.unresolved.values())
        if lost > max(MAX_UNRESOLVED_QUOTES, max_share * len(self.quotes)):
            raise InputError(
                f"{lost} of {len(self.quotes)} quotes name a speaker missing from character_info.csv "
                f"({_named(self.unresolved)}); add them there, or scoring would leave them out",
                self.path / "quotation_info.csv",
            )

    def scored_speakers(self, min_quotes: int = MIN_SPEAKER_QUOTES) -> set[str]:
        """Character ids of speakers with at least ``min_quotes`` quotes (the evaluated ones);
        pseudo-speakers (``_narr``, ``_group``, ``_unknowable``) are never scored."""
        pseudo = self.pseudo_ids()
        return {cid for cid, n in self.quote_counts.items() if n >= min_quotes and cid not in pseudo}

    def pseudo_ids(self) -> set[str]:
        """Ids of gold "characters" that are PDNC annotations, not people (``_group``, ``_narr``, ...)."""
        return {c.id for c in self.characters if is_pseudo_speaker(c.name)}

    def pseudo_speaker_quotes(self) -> list[GoldQuote]:
        """Gold quotes whose speaker is a pseudo-speaker (left out of attribution scoring)."""
        pseudo = self.pseudo_ids()
        return [q for q in self.quotes if is_pseudo_speaker(q.speaker) or q.speaker_id in pseudo]


def is_pseudo_speaker(name: str) -> bool:
    """PDNC's pseudo-speakers (`PSEUDO_SPEAKERS`) and other annotation names (``Narr``, ``_x``)."""
    return name in PSEUDO_SPEAKERS or is_pseudo_name(name)


def find_pdnc_novels(root: str | Path) -> list[Path]:
    """Novel folders under a PDNC directory (those holding novel_text.txt), sorted by name."""
    base = Path(root)
    if not base.is_dir():
        raise InputError("PDNC directory not found", base)
    folders = sorted(p.parent for p in base.glob("*/novel_text.txt"))
    if not folders:
        raise InputError("no PDNC novels (folders with novel_text.txt) in this directory", base)
    return folders


def load_pdnc_novel(folder: str | Path) -> PdncNovel:
    """Load one PDNC novel: the Book, its gold characters and gold quotes."""
    folder = Path(folder)
    book = load_book(folder / "novel_text.txt")
    characters = load_character_list(folder / "character_info.csv")
    by_name: dict[str, str] = {}
    for character in characters:
        for name in character.all_names():
            by_name.setdefault(name, character.id)
    quotes: list[GoldQuote] = []
    counts: dict[str, int] = {}
    unresolved: dict[str, int] = {}
    qpath = folder / "quotation_info.csv"
    for row_number, row in _quotation_rows(qpath):
        spans = _row_spans(row, row_number, len(book.text), qpath)
        try:
            addressees = ast.literal_eval(row.get("addressees") or "[]")
        except (ValueError, SyntaxError, TypeError) as exc:
            raise InputError(f"row {row_number}: malformed addressees", qpath) from exc
        if not isinstance(addressees, list | tuple | set):
            raise InputError(f"row {row_number}: addressees must be a list", qpath)
        spans = sorted(_trim(book.text, s) for s in spans)
        speaker = (row["speaker"] or "").strip()
        speaker_id = by_name.get(speaker)
        quote = GoldQuote(
            id=row["quoteID"] or f"row{row_number}",
            spans=spans,
            text=row["quoteText"] or "",
            speaker=speaker,
            speaker_id=speaker_id,
            addressees=[str(a) for a in addressees],
            type=(row["quoteType"] or "").strip().lower(),
            referring_expression=row.get("referringExpression") or "",
        )
        quotes.append(quote)
        if speaker_id is not None:
            counts[speaker_id] = counts.get(speaker_id, 0) + 1
        elif not is_pseudo_speaker(speaker):
            unresolved[speaker] = unresolved.get(speaker, 0) + 1
    quotes.sort(key=lambda q: q.start)
    if unresolved:
        log.warning(
            "%s: %d of %d quotes name a speaker missing from character_info.csv (%s): they are left out of "
            "attribution scoring",
            folder / "quotation_info.csv",
            sum(unresolved.values()),
            len(quotes),
            _named(unresolved),
        )
    return PdncNovel(folder.name, folder, book, characters, quotes, counts, unresolved)


def _named(counts: dict[str, int]) -> str:
    """``'Name' ×12, 'Other' ×3`` for the five commonest, then how many more."""
    common = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    text = ", ".join(f"{name!r} ×{n}" for name, n in common[:5])
    return text + (f" and {len(common) - 5} more" if len(common) > 5 else "")


REQUIRED_COLUMNS = ("quoteID", "quoteText", "quoteByteSpans", "speaker", "quoteType")


def _quotation_rows(path: Path) -> list[tuple[int, dict[str, str]]]:
    """The rows of a quotation_info.csv with their row numbers; InputError (one line, naming the file)
    for an unreadable, non-UTF-8, empty or header-only file, or one without the columns PDNC has."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror or exc})", path) from exc
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 text (invalid byte at offset {exc.start})", path) from exc
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = reader.fieldnames
    if not header:
        raise InputError("empty file: no header and no quotes", path)
    missing = [c for c in REQUIRED_COLUMNS if c not in header]
    if missing:
        raise InputError(
            f"missing column(s) {', '.join(missing)} (PDNC's columns include {', '.join(REQUIRED_COLUMNS)})",
            path,
        )
    try:
        rows = list(enumerate(reader, start=2))  # row 1 is the header
    except csv.Error as exc:
        raise InputError(f"line {reader.line_num}: malformed CSV ({exc})", path) from exc
    if not rows:
        raise InputError("no quotes (only a header)", path)
    return rows


def _row_spans(row: dict[str, str], row_number: int, text_length: int, where: Path) -> list[Span]:
    """The quote's spans, checked to lie inside the novel's text."""
    try:
        pairs = ast.literal_eval(row["quoteByteSpans"] or "")
        spans = [(int(a), int(b)) for a, b in pairs]
    except (ValueError, SyntaxError, TypeError) as exc:
        raise InputError(f"row {row_number}: malformed quoteByteSpans", where) from exc
    if not spans:
        raise InputError(f"row {row_number}: a quote with no spans", where)
    for start, end in spans:
        if not 0 <= start <= end <= text_length:
            raise InputError(
                f"row {row_number}: span [{start}, {end}] lies outside the novel's text "
                f"({text_length} characters; is novel_text.txt the right text?)",
                where,
            )
    return [Span(a, b) for a, b in spans]


def _trim(text: str, span: Span) -> Span:
    """PDNC spans sometimes include surrounding white space; trim it."""
    return Span(*trim_span(text, span.start, span.end))
