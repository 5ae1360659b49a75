"""Write small PDNC-style novel folders (novel_text.txt, character_info.csv, quotation_info.csv) for
tests of the PDNC evaluations: handmade text, so the expected scores can be worked out by hand."""

from __future__ import annotations

import csv
from pathlib import Path

HEADER = [
    "quoteID",
    "quoteText",
    "subQuotationList",
    "quoteByteSpans",
    "speaker",
    "addressees",
    "quoteType",
    "referringExpression",
]


def dialogue_novel(
    folder: Path, *, crowd_speaker: str = "_group", names: tuple[str, str] = ("Anna", "Ben")
) -> Path:
    """Two people (Anna and Ben) each say 12 tagged lines; a crowd shouts 10 times (gold speaker
    ``crowd_speaker``)."""
    first, second = names
    folder.mkdir(parents=True, exist_ok=True)
    parts: list[str] = ["CHAPTER I\n\n"]
    rows: list[list[str]] = []

    def add(line: str, speaker: str, tag: str) -> None:
        start = sum(len(p) for p in parts) + 1
        quote = f'"{line}," {tag}.\n\n'
        parts.append(quote)
        rows.append(
            [
                f"Q{len(rows)}",
                line + ",",
                "[]",
                f"[[{start}, {start + len(line) + 1}]]",
                speaker,
                "[]",
                "Explicit",
                tag,
            ]
        )

    for i in range(12):
        add(f"Good morning number {i}", first, f"said {first}")
        add(f"Good evening number {i}", second, f"said {second}")
        if i < 10:
            add(f"Hurrah for the {i} heroes", crowd_speaker, "cried the crowd")
    parts.append(f"{first} and {second} walked home together, and {first} smiled at {second}.\n")
    (folder / "novel_text.txt").write_text("".join(parts), encoding="utf-8")
    with (folder / "character_info.csv").open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(["Character ID", "Main Name", "Aliases", "Gender", "Category"])
        writer.writerow(["0", first, f"{{'{first}'}}", "F", "major"])
        writer.writerow(["1", second, f"{{'{second}'}}", "M", "major"])
        writer.writerow(["2", "_group", "{'_group'}", "", "minor"])
    with (folder / "quotation_info.csv").open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out, quoting=csv.QUOTE_ALL)
        writer.writerow(HEADER)
        writer.writerows(rows)
    return folder
