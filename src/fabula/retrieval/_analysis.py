"""Text analysis for the sparse retrievers (BM25, TF-IDF): one analyzer so both see the same terms.

English: lower-cased words of two or more letters/digits (``\\w\\w+``, as Lucene and bm25s do),
Lucene's English stop words removed, Snowball-stemmed with PyStemmer. Chinese: jieba words (precise
mode) with bm25s's Chinese stop words; Latin words inside Chinese text get the English treatment.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from types import ModuleType

from fabula.errors import ConfigError

_EN_WORD = re.compile(r"(?u)\b\w\w+\b")
_HAS_WORD_CHAR = re.compile(r"\w")


def _stopword_lists() -> ModuleType:
    """bm25s's stop-word lists: plain tuples in ``bm25s/stopwords.py``, read without running the
    ``bm25s`` package's ``__init__``, which imports scipy (half a second of every ``fabula analyze``,
    whose characteristic lines need only the lists). Falls back to the plain import."""
    loaded = sys.modules.get("bm25s.stopwords")
    if loaded is not None:
        return loaded
    found = importlib.util.find_spec("bm25s")  # a top-level package: found, not imported
    if found is not None and found.submodule_search_locations:
        path = Path(next(iter(found.submodule_search_locations))) / "stopwords.py"
        spec = importlib.util.spec_from_file_location("_fabula_bm25s_stopwords", path)
        if spec is not None and spec.loader is not None and path.is_file():
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
    import bm25s.stopwords

    return bm25s.stopwords


@lru_cache(maxsize=4)
def _stopwords(name: str | None) -> frozenset[str]:
    if name is None:
        return frozenset()
    lists = _stopword_lists()
    table = {
        "en": lists.STOPWORDS_EN,
        "en_plus": lists.STOPWORDS_EN_PLUS,
        "zh": lists.STOPWORDS_CHINESE,
    }
    if name not in table:
        raise ConfigError(f"unknown stop word list {name!r} (choose from {', '.join(table)})")
    return frozenset(table[name])


class Analyzer:
    """Turns text into index terms. ``stopwords``: "en", "en_plus", "zh" or None; ``stem``: English stems."""

    def __init__(self, language: str = "en", *, stem: bool = True, stopwords: str | None = "default") -> None:
        if language not in ("en", "zh"):
            raise ConfigError(f"retrieval supports languages 'en' and 'zh', not {language!r}")
        self.language = language
        self.stem = stem
        self.stopwords_name = (language if stopwords == "default" else stopwords) or None
        self._stop = _stopwords(self.stopwords_name)
        if language == "zh":  # Chinese text may also contain English words
            self._stop = self._stop | _stopwords("en")
        self._stemmer = None
        if stem:
            import Stemmer

            self._stemmer = Stemmer.Stemmer("english")
        self._stem_cache: dict[str, str] = {}

    def settings(self) -> dict[str, object]:
        return {"language": self.language, "stem": self.stem, "stopwords": self.stopwords_name}

    def __call__(self, text: str) -> list[str]:
        return self.analyze_many([text])[0]

    def analyze_many(self, texts: Iterable[str]) -> list[list[str]]:
        """Terms of each text; stems are computed once per distinct word."""
        words = [self._words(text) for text in texts]
        if self._stemmer is None:
            return words
        cache = self._stem_cache
        new = {w for doc in words for w in doc if w not in cache}
        if new:
            ordered = sorted(new)
            cache.update(zip(ordered, self._stemmer.stemWords(ordered), strict=True))
        return [[cache[w] for w in doc] for doc in words]

    def _words(self, text: str) -> list[str]:
        stop = self._stop
        if self.language == "zh":
            import jieba

            jieba.setLogLevel(60)
            out: list[str] = []
            for word in jieba.lcut(text.lower()):
                word = word.strip()
                if word and _HAS_WORD_CHAR.search(word) and word not in stop:
                    out.extend(w for w in _EN_WORD.findall(word) or [word] if w not in stop)
            return out
        return [w for w in _EN_WORD.findall(text.lower()) if w not in stop]
