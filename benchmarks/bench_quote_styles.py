"""Quote detection and attribution when a novel's speech marks are typeset another way.

PDNC's novels all mark speech with straight double quotes; novels in the wild also use curly doubles,
straight singles (British) and curly singles. This rewrites a PDNC novel's speech marks into each style
with `scripts/format_variants.py`'s converters (one character for one, so every gold span keeps its
offsets; marks pair within each paragraph) and scores each copy with the PDNC protocol (gold
characters, the default attribution method). In the single styles a quote inside a speech that the
source wrote in single marks takes double marks, as British books print it, when it reads as one (it
opens before a capital); any other stays a single mark, the speech's own, so those rows are a slight
lower bound. With curly single marks every apostrophe is ’, the closing mark's character (``don’t``,
a dropped letter's ``goin’``).

    python benchmarks/bench_quote_styles.py --pdnc ../shared/data/pdnc --novel PrideAndPrejudice
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from fabula.characters import find_characters
from fabula.datasets import load_pdnc_novel
from fabula.quotes import attribute_quotes, detect_quotes
from fabula.tasks.pdnc_quotes import score_novel

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from format_variants import VARIANTS  # a sibling folder's converters

STYLES: dict[str, Callable[[str], str] | None] = {
    "straight double (as shipped)": None,
    "curly double": VARIANTS["curly"],
    "straight single": VARIANTS["single-straight"],
    "curly single": VARIANTS["single"],
}


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
        for style, restyled in STYLES.items():
            with tempfile.TemporaryDirectory() as scratch:
                folder = Path(scratch) / name
                shutil.copytree(source, folder)
                if restyled is not None:
                    text = (source / "novel_text.txt").read_text(encoding="utf-8")
                    (folder / "novel_text.txt").write_text(restyled(text), encoding="utf-8")
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
