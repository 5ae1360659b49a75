"""Quote detection and attribution when a novel's speech marks are typeset another way.

PDNC's novels all mark speech with straight double quotes; novels in the wild also use curly doubles,
straight singles (British) and curly singles. This rewrites a PDNC novel's speech marks into each style
(one character for one, so every gold span keeps its offsets; pairs are assigned by alternation in
order, which is how straight marks pair) and scores each copy with the PDNC protocol (gold characters,
the default attribution method). Caveat: a nested quote the original wrote with single marks stays
single, so in the single styles it uses the same marks as the speech around it, which real books avoid
(they switch to double marks inside); the single-style rows are a lower bound.

    python benchmarks/bench_quote_styles.py --pdnc ../shared/data/pdnc --novel PrideAndPrejudice
"""

from __future__ import annotations

import argparse
import re
import shutil
import tempfile
from pathlib import Path

from fabula.characters import find_characters
from fabula.datasets import load_pdnc_novel
from fabula.quotes import attribute_quotes, detect_quotes
from fabula.tasks.pdnc_quotes import score_novel

STYLES = {
    "straight double (as shipped)": None,
    "curly double": ("\u201c", "\u201d"),
    "straight single": ("'", "'"),
    "curly single": ("\u2018", "\u2019"),
}


def restyled(text: str, marks: tuple[str, str]) -> str:
    """The text with every straight double mark replaced, alternately, by ``marks``; with curly single
    marks, apostrophes inside words become ’ as typeset books print them."""
    opening, closing = marks
    out: list[str] = []
    is_open = False
    for char in text:
        if char == '"':
            out.append(closing if is_open else opening)
            is_open = not is_open
        else:
            out.append(char)
    result = "".join(out)
    if opening == "\u2018":
        result = re.sub(r"(?<=\w)'(?=\w)", "\u2019", result)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pdnc", type=Path, default=Path("../shared/data/pdnc"))
    parser.add_argument("--novel", action="append", default=None, help="folder name (repeatable)")
    args = parser.parse_args()
    novels = args.novel or ["PrideAndPrejudice"]
    print("| novel | speech marks | accuracy | explicit | detection P | detection R | detection F1 |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name in novels:
        source = args.pdnc / name
        for style, marks in STYLES.items():
            with tempfile.TemporaryDirectory() as scratch:
                folder = Path(scratch) / name
                shutil.copytree(source, folder)
                if marks is not None:
                    text = (source / "novel_text.txt").read_text(encoding="utf-8")
                    (folder / "novel_text.txt").write_text(restyled(text, marks), encoding="utf-8")
                novel = load_pdnc_novel(folder)
                detect_quotes(novel.book)
                find_characters(novel.book, gold=novel.characters)
                attribute_quotes(novel.book)
                scores, _, _ = score_novel(novel, novel.book.quotes)
            cells = " | ".join(
                f"{100 * scores[k]:.1f}"
                for k in ("accuracy", "explicit", "detection_precision", "detection_recall", "detection_f1")
            )
            print(f"| {name} | {style} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
