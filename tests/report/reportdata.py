"""An `Analysis` of the hand-annotated book, for report tests."""

from __future__ import annotations

from fabula.pipeline import Analysis, build_profiles
from tests.pipeline.handmade import handmade_book


def handmade_analysis() -> Analysis:
    book = handmade_book()
    profiles, conversations = build_profiles(book)
    settings = {
        "fabula_version": "test",
        "source": "handmade.txt",
        "characters": "discovered",
        "attribution": "rules",
        "llm": None,
    }
    return Analysis(book, profiles, conversations, settings, {"read": 0.01, "quotes": 0.02})
