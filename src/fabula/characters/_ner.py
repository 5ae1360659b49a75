"""Optional spaCy NER evidence: how often each name is tagged PERSON (for) or GPE/LOC/ORG (against).

spaCy is never required: it is imported only when the user names a pipeline (``--ner-model``), and
the pipeline must already be installed (a package name like ``en_core_web_sm`` or a path).
"""

from __future__ import annotations

from collections import Counter

from fabula.book import Book
from fabula.errors import ConfigError

_AGAINST = {"GPE", "LOC", "ORG", "FAC", "NORP"}


def person_evidence(book: Book, model: str) -> tuple[Counter[str], Counter[str]]:
    """Counts of entity texts (honorifics stripped) tagged PERSON, and tagged as places/organisations."""
    try:
        import spacy
    except ImportError as exc:
        raise ConfigError("spaCy is not installed (pip install 'fabula[ner]')", "--ner-model") from exc
    try:
        nlp = spacy.load(model, disable=["parser", "lemmatizer", "attribute_ruler", "tagger"])
    except OSError as exc:
        raise ConfigError(
            f"cannot load spaCy pipeline {model!r} (install it, or give a path)", "--ner-model"
        ) from exc
    from fabula.characters._text import split_honorific

    persons: Counter[str] = Counter()
    against: Counter[str] = Counter()
    paragraphs = [book.text[s:e] for s, e in book.paragraphs.pairs() if e > s]
    for doc in nlp.pipe(paragraphs, batch_size=64):
        for ent in doc.ents:
            name = split_honorific(" ".join(ent.text.split()))[1].removesuffix("'s").removesuffix("’s")
            if ent.label_ == "PERSON":
                persons[name] += 1
            elif ent.label_ in _AGAINST:
                against[name] += 1
    return persons, against
