"""The `Book` core: original text plus character-offset span layers, and how to load one."""

from fabula.book._decode import DEFAULT_MAX_BYTES, MAX_BYTES_OPTION, decode_bytes, format_size, read_book_file
from fabula.book._load import (
    GENERIC_FILE_STEMS,
    TITLE_SMALL_WORDS,
    book_from_text,
    load_book,
    prose_problem,
    read_ahead_record,
    title_from_file_name,
)
from fabula.book._mentions import MentionIndex
from fabula.book._model import (
    EMPHASIS,
    Annotation,
    Book,
    BookMeta,
    Chapter,
    Character,
    Gender,
    Mention,
    MentionKind,
    Quote,
    QuoteType,
    normalize_text,
    strip_emphasis,
)
from fabula.book._position import resolve_position
from fabula.book._prefix import (
    BLANK_LINE,
    READ_REACH,
    PrefixLayers,
    prefix_layers,
    prefix_stable,
    text_memo,
)
from fabula.book._segment import detect_language, split_sentences
from fabula.book._serialize import book_from_dict, book_to_dict, book_to_json, load_book_json, save_book
from fabula.book._spans import Span, SpanLayer, trim_span
from fabula.book._structure import line_feed_view, plain_view

__all__ = [
    "BLANK_LINE",
    "DEFAULT_MAX_BYTES",
    "EMPHASIS",
    "GENERIC_FILE_STEMS",
    "MAX_BYTES_OPTION",
    "READ_REACH",
    "TITLE_SMALL_WORDS",
    "Annotation",
    "Book",
    "BookMeta",
    "Chapter",
    "Character",
    "Gender",
    "Mention",
    "MentionIndex",
    "MentionKind",
    "PrefixLayers",
    "Quote",
    "QuoteType",
    "Span",
    "SpanLayer",
    "book_from_dict",
    "book_from_text",
    "book_to_dict",
    "book_to_json",
    "decode_bytes",
    "detect_language",
    "format_size",
    "line_feed_view",
    "load_book",
    "load_book_json",
    "normalize_text",
    "plain_view",
    "prefix_layers",
    "prefix_stable",
    "prose_problem",
    "read_ahead_record",
    "read_book_file",
    "resolve_position",
    "save_book",
    "split_sentences",
    "strip_emphasis",
    "text_memo",
    "title_from_file_name",
    "trim_span",
]
