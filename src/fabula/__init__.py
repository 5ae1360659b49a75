"""fabula: read a whole novel and understand its characters.

The public API is re-exported here from small private modules; see the README for the CLI.

The re-exports are loaded on first use (PEP 562): ``import fabula`` itself imports nothing heavy, so the
``fabula`` command's start-up (its imports take a second or more on a busy machine) happens inside the
CLI's own guard, where Ctrl-C is one line and status 130 rather than a traceback from an import.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fabula._lazy import lazy_exports
from fabula._version import __version__

if TYPE_CHECKING:
    from fabula.book import Book, Character, Mention, Quote, Span, SpanLayer, load_book, resolve_position
    from fabula.errors import FabulaError, InputError

_EXPORTS = {
    "Book": "fabula.book",
    "Character": "fabula.book",
    "Mention": "fabula.book",
    "Quote": "fabula.book",
    "Span": "fabula.book",
    "SpanLayer": "fabula.book",
    "load_book": "fabula.book",
    "resolve_position": "fabula.book",
    "FabulaError": "fabula.errors",
    "InputError": "fabula.errors",
}

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


__getattr__, __dir__ = lazy_exports("fabula", _EXPORTS, globals())  # ``fabula.Book`` etc. on first use
