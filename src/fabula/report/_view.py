"""The report's view model: plain dicts and lists computed from an `Analysis`, laid out for the template.

Chart geometry (bar widths, network layout, heatmap cells) is computed here in Python so that the HTML is
deterministic and needs no charting library: the report must open offline with nothing but the file.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fabula._words import counted
from fabula.analysis import Analysis, CharacterProfile
from fabula.book import TITLE_SMALL_WORDS, Book

PALETTE = (
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#8cd17d",
    "#499894", "#d37295", "#a0cbe8", "#ffbe7d", "#86bcb6",
)  # fmt: skip
SPEECH_BARS = 15
NETWORK_NODES = 12
HEATMAP_ROWS = 20
QUOTE_SEPARATOR = " … "


def build_view(analysis: Analysis) -> dict[str, Any]:
    """Everything the report template renders (all text still raw: the template escapes it)."""
    book = analysis.book
    profiles = analysis.characters
    index_of = {p.id: i for i, p in enumerate(profiles)}
    color_of = {p.id: PALETTE[i % len(PALETTE)] for i, p in enumerate(profiles)}
    quotes = sorted(book.quotes, key=lambda q: q.start)
    chapter_starts = [c.start for c in book.chapters]
    quote_rows: list[list[Any]] = []
    for quote in quotes:
        # _emphasis_ is kept: the page renders it in italics (report.js), every plain output drops it
        text = QUOTE_SEPARATOR.join(
            book.span_text(span, normalize=True, keep_emphasis=True) for span in quote.spans
        )
        speaker = index_of.get(quote.speaker_id or "", -1)
        addressees = [index_of[a] for a in quote.addressee_ids if a in index_of]
        quote_rows.append([speaker, _chapter_number(chapter_starts, quote.start), text, addressees])
    attributed = sum(1 for q in quotes if q.speaker_id in index_of)
    summary = analysis.summary()
    return {
        "title": display_title(book.meta.title) if book.meta.title else "Untitled",
        "author": book.meta.author,
        "facts": _facts(analysis, summary, attributed),
        "settings": _settings(analysis),
        "cast": [_cast_row(i, p, index_of) for i, p in enumerate(profiles)],
        "speech": _speech_bars(profiles, len(quotes), attributed, color_of),
        "network": _network(analysis, index_of, color_of),
        "heatmap": _heatmap(analysis, index_of),
        "panels": [_panel(i, p, index_of, book.chapters) for i, p in enumerate(profiles)],
        "speakers": [
            {"index": i, "name": p.name, "quotes": p.quote_count}
            for i, p in sorted(enumerate(profiles), key=lambda ip: (-ip[1].quote_count, ip[0]))
            if p.quote_count
        ],
        "unattributed": len(quotes) - attributed,
        "data": {
            "characters": [{"name": p.name, "color": color_of[p.id]} for p in profiles],
            "quotes": quote_rows,
        },
        "until": book.until is not None,
    }


def _facts(analysis: Analysis, summary: dict[str, Any], attributed: int) -> list[tuple[str, str]]:
    quotes = summary["quotes"]
    share = f" ({_share(attributed, quotes)} attributed)" if quotes else ""
    return [
        ("words", f"{summary['words']:,}"),
        ("chapters", f"{summary['chapters']:,}"),
        ("characters", f"{summary['characters']:,}"),
        ("quotations", f"{quotes:,}{share}"),
    ]


def _settings(analysis: Analysis) -> list[tuple[str, str]]:
    s = analysis.settings
    book = analysis.book
    if s.get("characters") == "gold":
        characters = (
            f"gold list ({Path(s['gold_characters']).name})" if s.get("gold_characters") else "gold list"
        )
    else:
        characters = "discovered by fabula"
    attribution = (
        f"LLM ({s['llm']})"
        if str(s.get("attribution") or "").startswith("llm")
        else f"{s.get('attribution') or 'ranker'} (no LLM)"
    )
    if book.until is None:
        position = "whole book"
    else:
        chapter = book.chapter_at(max(book.body.start, book.until - 1))
        where = f", in {chapter.title or f'chapter {chapter.id + 1}'}" if chapter else ""
        asked = s.get("until") or (f"chapter {s['until_chapter']}" if s.get("until_chapter") else "")
        position = f"up to {asked} (character {book.until:,}{where}); nothing later is shown"
    timings = analysis.timings
    total = sum(timings.values())
    stages = " · ".join(f"{name} {seconds:.1f} s" for name, seconds in timings.items())
    rows = [
        ("source", Path(s["source"]).name if s.get("source") else "(text)"),
        ("characters", characters),
        *_set_aside_row(book),
        ("quote attribution", attribution),
        ("reading position", position),
        ("run time", f"{total:.1f} s ({stages})" if timings else "n/a"),
        ("fabula", f"{s.get('fabula_version', '?')}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC"),
    ]
    return rows


def _set_aside_row(book: Book) -> list[tuple[str, str]]:
    """The names discovery left out of the cast (``book.set_aside``), where a reader missing one from the
    cast looks: beside how the characters were found (book.json lists them in full)."""
    if not book.set_aside:
        return []
    from fabula.characters import SET_ASIDE_REASON, set_aside_list

    return [("set aside", f"{set_aside_list(book)}: {SET_ASIDE_REASON}; book.json lists them")]


def _cast_row(index: int, p: CharacterProfile, index_of: dict[str, int]) -> dict[str, Any]:
    from fabula.characters import shown_aliases

    aliases = shown_aliases(p.name, p.aliases)
    return {
        "index": index,
        "name": p.name,
        "aliases": ", ".join(aliases[:4]) + (f" +{len(aliases) - 4}" if len(aliases) > 4 else ""),
        "gender": p.gender,
        "mentions": p.mention_count,
        "quotes": p.quote_count,
        "words": p.words_spoken,
        "first": p.first_chapter if p.first_chapter is not None else "",
        "partners": [{"index": index_of[x.id], "name": x.name} for x in p.partners[:3] if x.id in index_of],
    }


def _speech_bars(
    profiles: list[CharacterProfile], total: int, attributed: int, color_of: dict[str, str]
) -> dict[str, Any]:
    speakers = sorted((p for p in profiles if p.quote_count), key=lambda p: (-p.quote_count, p.id))
    top = speakers[:SPEECH_BARS]
    most = top[0].quote_count if top else 1
    bars = [
        {
            "name": p.name,
            "count": p.quote_count,
            "share": p.quote_count / total if total else 0.0,
            "width": round(100 * p.quote_count / most, 2),
            "color": color_of[p.id],
        }
        for p in top
    ]
    others = sum(p.quote_count for p in speakers[SPEECH_BARS:])
    return {"bars": bars, "others": others, "unattributed": total - attributed, "total": total}


def _network(analysis: Analysis, index_of: dict[str, int], color_of: dict[str, str]) -> dict[str, Any]:
    """A circular layout of the most talkative characters who have conversation partners."""
    talking = {cid for pair in analysis.conversations for cid in pair}
    chosen = [p for p in analysis.characters if p.id in talking][:NETWORK_NODES]
    size, radius = 460.0, 165.0
    centre = size / 2
    nodes: list[dict[str, Any]] = []
    position: dict[str, tuple[float, float]] = {}
    most_quotes = max((p.quote_count for p in chosen), default=1) or 1
    for k, p in enumerate(chosen):
        angle = -math.pi / 2 + 2 * math.pi * k / max(1, len(chosen))
        x, y = centre + radius * math.cos(angle), centre + radius * math.sin(angle)
        position[p.id] = (x, y)
        label_x = centre + (radius + 16) * math.cos(angle)
        label_y = centre + (radius + 16) * math.sin(angle)
        anchor = "middle" if abs(math.cos(angle)) < 0.3 else ("start" if math.cos(angle) > 0 else "end")
        nodes.append(
            {
                "index": index_of[p.id],
                "name": p.name,
                "x": round(x, 1),
                "y": round(y, 1),
                "r": round(6 + 12 * math.sqrt(p.quote_count / most_quotes), 1),
                "lx": round(label_x, 1),
                "ly": round(
                    label_y + (12 if math.sin(angle) > 0.3 else (-4 if math.sin(angle) < -0.3 else 4)), 1
                ),
                "anchor": anchor,
                "color": color_of[p.id],
                "quotes": p.quote_count,
            }
        )
    pairs = [(a, b, n) for (a, b), n in analysis.conversations.items() if a in position and b in position]
    heaviest = max((n for _, _, n in pairs), default=1)
    names = {p.id: p.name for p in chosen}
    edges = [
        {
            "x1": round(position[a][0], 1),
            "y1": round(position[a][1], 1),
            "x2": round(position[b][0], 1),
            "y2": round(position[b][1], 1),
            "width": round(0.8 + 7 * math.sqrt(n / heaviest), 2),
            "opacity": round(0.25 + 0.6 * n / heaviest, 2),
            "label": f"{names[a]} – {names[b]}: {n} lines",
        }
        for a, b, n in sorted(pairs, key=lambda t: (t[2], t[0], t[1]))
    ]
    return {"size": size, "nodes": nodes, "edges": edges}


def _heatmap(analysis: Analysis, index_of: dict[str, int]) -> dict[str, Any]:
    chapters = analysis.book.chapters
    n = max(1, len(chapters))
    rows_src = sorted(
        (p for p in analysis.characters if p.mention_count), key=lambda p: (-p.mention_count, p.id)
    )[:HEATMAP_ROWS]
    most = max((max(p.presence, default=0) for p in rows_src), default=1) or 1
    label_width, cell_h = 150, 18
    cell_w = max(4.0, min(24.0, 760 / n))
    rows = []
    for r, p in enumerate(rows_src):
        cells = []
        for c, count in enumerate(p.presence):
            title = chapters[c].title if c < len(chapters) and chapters[c].title else f"Chapter {c + 1}"
            cells.append(
                {
                    "x": round(label_width + c * cell_w, 2),
                    "opacity": round(0.08 + 0.92 * math.sqrt(count / most), 3) if count else 0,
                    "title": f"{p.name} — {title}: {counted(count, 'mention')}",
                }
            )
        rows.append({"index": index_of[p.id], "name": p.name, "y": r * cell_h, "cells": cells})
    return {
        "rows": rows,
        "cell_w": round(cell_w, 2),
        "cell_h": cell_h,
        "label_width": label_width,
        "width": round(label_width + n * cell_w + 4, 1),
        "height": len(rows) * cell_h + 22,
        "chapters": n,
        "ticks": [
            {"x": round(label_width + (c + 0.5) * cell_w, 1), "label": c + 1}
            for c in range(n)
            if n <= 30 or (c + 1) % (5 if n <= 100 else 10) == 0 or c == 0
        ],
    }


def _panel(index: int, p: CharacterProfile, index_of: dict[str, int], chapters: list[Any]) -> dict[str, Any]:
    first = ""
    if p.first_chapter is not None and 0 < p.first_chapter <= len(chapters):
        chapter = chapters[p.first_chapter - 1]
        first = f"chapter {p.first_chapter}" + (f" ({chapter.title})" if chapter.title else "")
    partners = [
        {"index": index_of[x.id], "name": x.name, "count": x.count} for x in p.partners if x.id in index_of
    ]
    return {
        "index": index,
        "name": p.name,
        "aliases": [
            f"{alias} ({count})" for alias, count in sorted(p.aliases.items(), key=lambda kv: (-kv[1], kv[0]))
        ],
        "stats": [
            ("gender", p.gender if p.gender_confidence <= 0 else f"{p.gender} ({p.gender_confidence:.0%})"),
            ("mentions", f"{p.mention_count:,}"),
            ("quotations", f"{p.quote_count:,} ({counted(p.words_spoken, 'word')})"),
            ("first appears", first or "—"),
            ("source", p.source + (f", {p.category}" if p.category else "")),
        ],
        "partners": partners,
        "profile": p.profile,
        "characteristic": p.lines,  # the sheet's characteristic lines (fabula.describe.characteristic_lines)
        "description": p.description,
        "in_brief": character_in_brief(p, first, [x.name for x in p.partners if x.id in index_of]),
        "quotes": p.quote_count,
    }


def character_in_brief(p: CharacterProfile, first: str, partners: list[str]) -> str:
    """A character in a sentence or two from the book's own facts (shown until a description is written):
    other names, gender, first appearance, how often named and heard, who they talk to most."""
    from fabula.characters import shown_aliases

    others = shown_aliases(p.name, p.aliases)[:3]
    sentence = p.name
    if p.gender in ("female", "male"):
        sentence += f" ({p.gender})"
    if others:
        sentence += f", also called {_joined(others)},"
    clauses = [f"first appears in {first}"] if first else []
    clauses.append(f"is named {counted(p.mention_count, 'time')}")
    if p.quote_count:
        clauses.append(f"speaks {counted(p.quote_count, 'quotation')} ({counted(p.words_spoken, 'word')})")
    else:
        clauses.append("has no quotation attributed")
    sentence += " " + _joined(clauses) + "."
    if partners:
        sentence += f" Talks most with {_joined(partners[:3])}."
    return sentence


def _share(part: int, whole: int) -> str:
    """``part / whole`` as a percentage that says 100 % only when all and 0 % only when none (2 of 1,270
    unattributed is 99.8 %, not a rounded 100 %)."""
    share = part / whole
    text = f"{share:.0%}"
    if (text == "100%" and part < whole) or (text == "0%" and part > 0):
        text = f"{share:.1%}"
        if text in ("100.0%", "0.0%"):
            text = ">99.9%" if part < whole and share > 0.5 else "<0.1%"
    return text


def _joined(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def display_title(title: str) -> str:
    """An all-capitals title as a title: ``ALICE'S ADVENTURES IN WONDERLAND`` -> ``Alice's Adventures in
    Wonderland``; any other title as written."""
    if not title.isupper():
        return title
    words = title.lower().split()
    return " ".join(
        w if 0 < i < len(words) - 1 and w in TITLE_SMALL_WORDS else w[:1].upper() + w[1:]
        for i, w in enumerate(words)
    )


def _chapter_number(chapter_starts: list[int], offset: int) -> int:
    import bisect

    return max(1, bisect.bisect_right(chapter_starts, offset))
