"""Quote attribution on novels whose speech verbs the lexicon lacks: lexicon folds held out, with and without
the verbs each book's own tags teach (`fabula.characters.learned_speech_verbs`).

The lexicon (`fabula.characters.SPEECH_VERBS`) was written with the shared novels at hand, so they
cannot show what a novel with other verbs loses. This script makes such novels: the lexicon's forms
beyond a core of the commonest (`CORE`: say, ask, reply, answer, cry, exclaim, return, continue, add,
went) are grouped by stem into ``--folds`` folds; each fold in turn is taken out of the lexicon that
attribution reads, and every novel is attributed with gold characters (the ranker, as `fabula eval
quotes`), once with the book-learned verbs and once without. Discovery keeps the whole lexicon here
(and learns as it always does). The table gives macro accuracy / explicit accuracy (%) on the tuning and frozen novels, for the whole
lexicon, for `CORE` alone (a novel that shares only the commonest verbs with the lexicon), for each
fold out, and averaged over the folds.

    python scripts/speech_verb_holdout.py ../shared/data/pdnc [--folds 5] [--min-uses 3] [--novel NAME ...]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from statistics import mean

from fabula.characters import SPEECH_VERBS
from fabula.characters import _speech_verbs as _verbs
from fabula.datasets import find_pdnc_novels, load_pdnc_novel, pdnc_split
from fabula.quotes import _rules
from fabula.tasks.pdnc_quotes import predict_quotes, score_novel

CORE = frozenset(
    {"said", "says", "say", "saying", "asked", "asks", "ask", "replied", "replies", "reply", "answered",
     "answers", "answer", "cried", "cries", "exclaimed", "returned", "continued", "added", "went"}
)  # fmt: skip


def verb_folds(folds: int) -> list[frozenset[str]]:
    """The lexicon's forms beyond `CORE`, grouped by their first five letters (a verb's forms go
    together: "whispered", "whispers", "whispering") and dealt into ``folds`` folds in sorted order."""
    stems: dict[str, set[str]] = defaultdict(set)
    for verb in SPEECH_VERBS - CORE:
        stems[verb[:5]].add(verb)
    dealt: list[set[str]] = [set() for _ in range(folds)]
    for i, stem in enumerate(sorted(stems)):
        dealt[i % folds] |= stems[stem]
    return [frozenset(f) for f in dealt]


@contextmanager
def attribution_lexicon(verbs: frozenset[str], min_uses: int | None) -> Iterator[None]:
    """Attribution reads ``verbs`` as the lexicon, and learns the book's own with ``min_uses`` (None: not
    at all), for the duration."""
    saved = (_rules.SPEECH_VERBS, _verbs.SPEECH_VERBS, _verbs.MIN_TAG_USES, _rules.learned_speech_verbs)
    _rules.SPEECH_VERBS = _verbs.SPEECH_VERBS = verbs
    _verbs.learned_speech_verbs.cache_clear()  # learned under another lexicon
    if min_uses is None:
        _rules.learned_speech_verbs = lambda text: ()
    else:
        _verbs.MIN_TAG_USES = min_uses
    try:
        yield
    finally:
        _rules.SPEECH_VERBS, _verbs.SPEECH_VERBS, _verbs.MIN_TAG_USES, _rules.learned_speech_verbs = saved
        _verbs.learned_speech_verbs.cache_clear()


def run(folders: list[Path]) -> dict[str, list[tuple[float | None, float | None]]]:
    """(accuracy, explicit accuracy) of each novel, by split."""
    rows: dict[str, list[tuple[float | None, float | None]]] = defaultdict(list)
    for folder in folders:
        novel = load_pdnc_novel(folder)
        scores, _, _ = score_novel(novel, predict_quotes(novel, characters="gold", method="ranker").quotes)
        rows[pdnc_split(folder.name) or "tune"].append((scores["accuracy"], scores["explicit"]))
    return rows


def _macro(rows: list[tuple[float | None, float | None]]) -> tuple[float, float] | None:
    if not rows:
        return None
    columns = [[100 * v for v in column if v is not None] for column in zip(*rows, strict=True)]
    return (mean(columns[0]) if columns[0] else 0.0, mean(columns[1]) if columns[1] else 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdnc")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--min-uses", type=int, default=_verbs.MIN_TAG_USES, help="`MIN_TAG_USES` to try")
    parser.add_argument("--novel", action="append", help="only this novel (repeatable)")
    args = parser.parse_args()
    folders = [f for f in find_pdnc_novels(args.pdnc) if not args.novel or f.name in args.novel]
    arms: list[tuple[str, frozenset[str], int | None]] = [
        ("whole lexicon, nothing learned", SPEECH_VERBS, None),
        (f"whole lexicon, learned ({args.min_uses} uses)", SPEECH_VERBS, args.min_uses),
        (f"core only ({len(CORE)} forms), nothing learned", CORE, None),
        (f"core only, learned ({args.min_uses} uses)", CORE, args.min_uses),
    ]
    for i, fold in enumerate(verb_folds(args.folds)):
        arms.append((f"fold {i} out ({len(fold)} forms), nothing learned", SPEECH_VERBS - fold, None))
        arms.append((f"fold {i} out, learned ({args.min_uses} uses)", SPEECH_VERBS - fold, args.min_uses))
    print("| lexicon | tune: accuracy / explicit | frozen: accuracy / explicit | s |")
    print("|---|---|---|---:|")
    means: dict[tuple[bool, str], list[tuple[float, float]]] = defaultdict(list)
    for name, verbs, min_uses in arms:
        started = time.perf_counter()
        with attribution_lexicon(verbs, min_uses):
            rows = run(folders)
        cells = []
        for split in ("tune", "frozen"):
            macro = _macro(rows[split])
            cells.append("-" if macro is None else f"{macro[0]:.2f} / {macro[1]:.2f}")
            if macro is not None and name.startswith("fold"):
                means[(min_uses is not None, split)].append(macro)
        print(f"| {name} | {cells[0]} | {cells[1]} | {time.perf_counter() - started:.0f} |", flush=True)
    for learned in (False, True):
        cells = []
        for split in ("tune", "frozen"):
            got = means[(learned, split)]
            cells.append(f"{mean(a for a, _ in got):.2f} / {mean(e for _, e in got):.2f}" if got else "-")
        label = f"learned ({args.min_uses} uses)" if learned else "nothing learned"
        print(f"| **mean over the folds, {label}** | {cells[0]} | {cells[1]} | |")


if __name__ == "__main__":
    main()
