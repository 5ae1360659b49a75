"""Evaluation data sets read from disk (never downloaded): PDNC, LFED."""

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
    "MIN_SPEAKER_QUOTES",
    "PDNC_FROZEN",
    "PDNC_NOVELS",
    "PDNC_TUNE",
    "PSEUDO_SPEAKERS",
    "GoldQuote",
    "McqQuestion",
    "McqSet",
    "PdncNovel",
    "find_pdnc_novels",
    "is_pseudo_speaker",
    "load_mcq",
    "load_pdnc_novel",
    "pdnc_split",
]
