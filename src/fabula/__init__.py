"""fabula: read a whole novel and understand its characters.

The public API is re-exported here from small private modules; see the README for the CLI.
"""

from fabula._version import __version__
from fabula.book import Book, Character, Mention, Quote, Span, SpanLayer, load_book, resolve_position
from fabula.errors import FabulaError, InputError

__all__ = [
    "Book",
    "Character",
    "FabulaError",
    "InputError",
    "Mention",
    "Quote",
    "Span",
    "SpanLayer",
    "__version__",
    "load_book",
    "resolve_position",
]
