"""Where quote attribution goes wrong, by kind of scene: counts of scored quotes and errors from the
per-quote samples of ``fabula eval quotes --json Q`` (``Q.samples.jsonl``), read against the gold lists.

A scene is a run of gold quotes less than ``--gap`` characters apart. Kinds (a quote may be of several):

- by the scene's gold speakers: ``one speaker``, ``two-person`` (a ``flip`` is an error that gives the
  quote to the other one: turn-taking read out of step), ``multi-party`` (three or more);
- ``anaphoric``, and of those ``same-gender pronoun``: an anaphoric quote (PDNC: a pronoun names the speaker) in a scene with
  another speaker of the speaker's gender;
- ``explicit`` (a name tags the quote), and of those ``long explicit``: ``--long`` characters or more,
  where the tag may stand far from where the speech starts;
- ``kinship tag``: a speech tag after a closing mark inside or at the end of the quote names the speaker
  by kinship to someone else (``"…," said her mother``; `fabula.quotes._ranker.kinship_tag_at`);
- ``given to a neutral entry``: an error whose pick is a gold entry of neutral gender (PDNC's ``X``,
  which no quote in the 21 novels has as its speaker), counted among all the quotes.

    python scripts/quote_error_kinds.py ../shared/data/pdnc Q.samples.jsonl [--split tune|frozen|all]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from fabula.datasets import find_pdnc_novels, load_pdnc_novel, pdnc_split
from fabula.quotes._ranker import kinship_tag_at

_CLOSING_MARKS = "\"”’'"

KINDS = (
    "one speaker",
    "two-person",
    "two-person flip",
    "multi-party",
    "anaphoric",
    "same-gender pronoun",
    "explicit",
    "long explicit",
    "kinship tag",
    "given to a neutral entry",
)


def scenes(samples: list[dict[str, Any]], gap: int) -> list[list[dict[str, Any]]]:
    """Runs of quotes (in text order) whose spans are less than ``gap`` characters apart."""
    out: list[list[dict[str, Any]]] = []
    for sample in sorted(samples, key=lambda s: s["span"][0]):
        if out and sample["span"][0] - out[-1][-1]["span"][1] < gap:
            out[-1].append(sample)
        else:
            out.append([sample])
    return out


def kinds_of(
    sample: dict[str, Any], scene: list[dict[str, Any]], gender: dict[str, str | None], long: int, text: str
) -> list[str]:
    """The kinds of ``sample`` (see the module docstring); ``text`` is the novel's."""
    speakers = {s["gold_speaker_id"] for s in scene}
    found = ["one speaker" if len(speakers) == 1 else "two-person" if len(speakers) == 2 else "multi-party"]
    if len(speakers) == 2:
        other = (speakers - {sample["gold_speaker_id"]}).pop()
        if not sample["right"] and sample["predicted_speaker_id"] == other:
            found.append("two-person flip")
    if sample["type"] == "anaphoric":
        found.append("anaphoric")
    own = gender.get(sample["gold_speaker_id"]) or "unknown"
    if (
        sample["type"] == "anaphoric"
        and own != "unknown"
        and any(gender.get(s) == own for s in speakers - {sample["gold_speaker_id"]})
    ):
        found.append("same-gender pronoun")
    if sample["type"] == "explicit":
        found.append("explicit")
        if sample["span"][1] - sample["span"][0] >= long:
            found.append("long explicit")
    start, end = sample["span"]
    if any(kinship_tag_at(text, at + 1) for at in range(start, end) if text[at] in _CLOSING_MARKS):
        found.append("kinship tag")
    if not sample["right"] and gender.get(sample.get("predicted_speaker_id") or "") == "neutral":
        found.append("given to a neutral entry")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("pdnc", type=Path)
    parser.add_argument("samples", type=Path)
    parser.add_argument("--split", choices=["tune", "frozen", "all"], default="tune")
    parser.add_argument("--gap", type=int, default=400, help="characters between quotes that end a scene")
    parser.add_argument("--long", type=int, default=400, help="characters that make a quote long")
    args = parser.parse_args()
    by_novel: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with args.samples.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row.get("scored") and "item" in row:
                by_novel[row["item"]].append(row)
    folders = {f.name: f for f in find_pdnc_novels(args.pdnc)}
    total: Counter[str] = Counter()
    wrong: Counter[str] = Counter()
    novels = 0
    for name, samples in sorted(by_novel.items()):
        if name not in folders or (args.split != "all" and pdnc_split(name) != args.split):
            continue
        novels += 1
        novel = load_pdnc_novel(folders[name])
        gender: dict[str, str | None] = {c.id: c.gender for c in novel.characters}
        for scene in scenes(samples, args.gap):
            for sample in scene:
                for kind in kinds_of(sample, scene, gender, args.long, novel.book.text):
                    total[kind] += 1
                    wrong[kind] += not sample["right"]
    print(f"{args.split}: {novels} novels, scored quotes by kind (a quote may be of several kinds)")
    print("| kind | quotes | errors | error rate |\n|---|---:|---:|---:|")
    for kind in KINDS:
        if kind == "two-person flip":  # every flip is an error: its share of the two-person errors
            share = 100 * wrong[kind] / max(1, wrong["two-person"])
            print(f"| ... of which flips | | {wrong[kind]:,} | {share:.0f} % of the two-person errors |")
            continue
        rate = 100 * wrong[kind] / total[kind] if total[kind] else 0.0
        print(f"| {kind} | {total[kind]:,} | {wrong[kind]:,} | {rate:.1f} % |")
    print(f"all: {sum(total[k] for k in KINDS[:4] if k != 'two-person flip'):,} quotes")


if __name__ == "__main__":
    main()
