"""List the comments and docstrings of the code that contain a name from the shared novels' gold character
lists (PDNC ``character_info.csv``: main names and aliases), so they can be replaced with invented examples
(the project's rule: rules are explained in general terms, never by a particular novel's characters).

A hit is a full alias of two or more words ("Jane Doe", "Mr. Doe") or a single-word alias that
is not an ordinary English word or title; string literals other than docstrings (test fixtures, data) are
not looked at.

    python scripts/gold_names_in_code.py ../shared/data/pdnc src scripts benchmarks
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import csv
import io
import re
import sys
import tokenize
from pathlib import Path

_TITLES = {"mr", "mrs", "miss", "ms", "dr", "sir", "lady", "lord", "madame", "monsieur", "captain", "colonel",
           "mr.", "mrs.", "dr.", "the", "of", "de", "st", "st.", "old", "young", "aunt", "uncle", "mother",
           "father", "cousin", "little", "big", "general", "major", "professor", "king", "queen"}  # fmt: skip
_COMMON = {"will", "may", "mark", "rose", "grace", "hope", "faith", "joy", "guy", "bill", "frank", "jack",
           "john", "mary", "james", "henry", "george", "william", "charles", "thomas", "robert", "edward",
           "elizabeth", "jane", "ann", "anne", "alice", "emma", "harry", "tom", "dick", "smith", "brown",
           "i", "a", "an", "and", "to", "in", "on", "at", "by", "for", "with", "mrs", "mr"}  # fmt: skip


def gold_names(pdnc: Path) -> set[str]:
    """Every main name and alias of every gold list, and their single words that are distinctive."""
    names: set[str] = set()
    for path in sorted(pdnc.glob("*/character_info.csv")):
        with path.open(encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                aliases = {row["Main Name"]}
                with contextlib.suppress(ValueError, SyntaxError):
                    aliases |= set(ast.literal_eval(row["Aliases"]))
                for alias in aliases:
                    alias = alias.strip()
                    words = alias.split()
                    if len(words) >= 2 and sum(w.lower() not in _TITLES for w in words) >= 1:
                        names.add(alias)
                    for word in words:
                        if len(word) > 3 and word.lower() not in _TITLES | _COMMON and word[0].isupper():
                            names.add(word)
    return names


def texts(path: Path) -> list[tuple[int, str]]:
    """(first line, text) of the comments and of the string statements (docstrings) of a Python file."""
    source = path.read_text(encoding="utf-8")
    out = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            out.append((node.lineno, ast.get_source_segment(source, node) or ""))
    return sorted(out)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("pdnc", type=Path)
    parser.add_argument("roots", type=Path, nargs="+")
    args = parser.parse_args()
    names = gold_names(args.pdnc)
    if not names:
        sys.exit(f"no character_info.csv under {args.pdnc}")
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(names, key=len, reverse=True))) + r")\b")
    hits = 0
    for root in args.roots:
        for path in sorted(root.rglob("*.py")) if root.is_dir() else [root]:
            for line, text in texts(path):
                for offset, part in enumerate(text.splitlines()):
                    found = sorted(set(pattern.findall(part)))
                    if found:
                        hits += 1
                        print(f"{path}:{line + offset}: {', '.join(found)}: {part.strip()[:120]}")
    print(f"{hits} lines", file=sys.stderr)


if __name__ == "__main__":
    main()
