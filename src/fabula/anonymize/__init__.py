"""Name-replacement anonymization (GANDALF): give every character of a book new, consistent names.

>>> mapping = plan_mapping(book, book.characters, seed=0)     # doctest: +SKIP
>>> new_text = mapping.apply_to_book(book)                    # doctest: +SKIP
"""

from fabula.anonymize._anonymize import (
    MODES,
    AnonymizedBook,
    Anonymizer,
    NameMapping,
    OffsetMap,
    Rewrite,
    anonymize_book,
    anonymized_copy,
    draw_person_name,
    free_names,
    name_words,
    person_mapping,
    plan_mapping,
    remaining_names,
)

__all__ = [
    "MODES",
    "AnonymizedBook",
    "Anonymizer",
    "NameMapping",
    "OffsetMap",
    "Rewrite",
    "anonymize_book",
    "anonymized_copy",
    "draw_person_name",
    "free_names",
    "name_words",
    "person_mapping",
    "plan_mapping",
    "remaining_names",
]
