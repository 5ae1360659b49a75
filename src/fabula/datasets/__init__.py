"""Evaluation data sets read from disk (never downloaded): PDNC, LFED."""

from fabula.datasets._pdnc import GoldQuote, PdncNovel, find_pdnc_novels, load_pdnc_novel

__all__ = ["GoldQuote", "PdncNovel", "find_pdnc_novels", "load_pdnc_novel"]
