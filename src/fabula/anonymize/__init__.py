"""Name-replacement anonymization (GANDALF): give every character of a book new, consistent names.

>>> mapping = plan_mapping(book, book.characters, seed=0)     # doctest: +SKIP
>>> new_text = mapping.apply_to_book(book)                    # doctest: +SKIP
"""

from fabula.anonymize._anonymize import NameMapping, anonymize_book, plan_mapping

__all__ = ["NameMapping", "anonymize_book", "plan_mapping"]
