"""Regular-expression character classes of the latin-script letters, by case.

Names in novels are not all English: "Łukasz", "Dvořák", "Şafak", "Nguyễn Văn". Python's ``re`` has no
``\\p{Lu}``/``\\p{Ll}``, and an ``[A-ZÀ-Ö...]`` class that stops at latin-1 drops every name with a
letter past it (the run stops inside the word, and the word is lost). The third-party ``regex`` module
has the Unicode classes, but it would be a dependency of the default path for two character classes;
these are built once from `unicodedata`'s case data instead, over the latin blocks (basic latin, latin-1
Supplement, latin Extended-A and -B, latin Extended Additional), as ranges ready to go between ``[`` and
``]``.
"""

from __future__ import annotations

from collections.abc import Callable

#: the latin-script letters past ASCII: latin-1 Supplement's letters, latin Extended-A and -B, latin Extended
#: Additional (Vietnamese and other stacked diacritics)
_LATIN_BLOCKS = (range(0x00C0, 0x0250), range(0x1E00, 0x1F00))


def _ranges(test: Callable[[str], bool]) -> str:
    """The latin-script letters past ASCII for which ``test`` holds, as character-class ranges ("À-ÖØ-Þ...")."""
    points = [p for block in _LATIN_BLOCKS for p in block if test(chr(p))]
    out: list[str] = []
    start = previous = points[0]
    for p in [*points[1:], -1]:
        if p == previous + 1:
            previous = p
            continue
        out.append(chr(start) if start == previous else f"{chr(start)}-{chr(previous)}")
        start = previous = p
    return "".join(out)


#: uppercase latin-script letters, for use inside ``[...]``: ``A-Z``, ``À-Ö``, ``Ø-Þ``, ``Ā``, ``Ł``, ...
LATIN_UPPER = "A-Z" + _ranges(str.isupper)
#: lowercase latin-script letters, for use inside ``[...]``: ``a-z``, ``ß-ö``, ``ø-ÿ``, ``ā``, ``ł``, ...
LATIN_LOWER = "a-z" + _ranges(str.islower)
