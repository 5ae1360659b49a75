"""Evaluation data sets read from disk (never downloaded): PDNC, LFED, BookWorm's book lists."""

from fabula.datasets._bookworm import (
    BOOKWORM_SPLITS,
    BOOKWORM_TASKS,
    BookwormBook,
    BookwormReference,
    bookworm_references,
    bookworm_split,
    read_bookworm_list,
)
from fabula.datasets._mcq import McqQuestion, McqSet, load_mcq
from fabula.datasets._pdnc import (
    MIN_SPEAKER_QUOTES,
    PDNC_FROZEN,
    PDNC_NOVELS,
    PDNC_TUNE,
    PSEUDO_SPEAKERS,
    GoldQuote,
    PdncNovel,
    find_pdnc_novels,
    is_pseudo_speaker,
    load_pdnc_novel,
    pdnc_split,
)

__all__ = [
    "BOOKWORM_SPLITS",
    "BOOKWORM_TASKS",
    "MIN_SPEAKER_QUOTES",
    "PDNC_FROZEN",
    "PDNC_NOVELS",
    "PDNC_TUNE",
    "PSEUDO_SPEAKERS",
    "BookwormBook",
    "BookwormReference",
    "GoldQuote",
    "McqQuestion",
    "McqSet",
    "PdncNovel",
    "bookworm_references",
    "bookworm_split",
    "find_pdnc_novels",
    "is_pseudo_speaker",
    "load_mcq",
    "load_pdnc_novel",
    "pdnc_split",
    "read_bookworm_list",
]
