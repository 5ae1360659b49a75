"""Print the quotes that attribution gets wrong on PDNC novels, with the narration around them.

For each wrong quote of a scored speaker (>= 10 quotes) of the chosen gold type: the gold speaker and
PDNC's referring expression, the predicted speaker and the rule that produced it, and the paragraph
text. A summary counts errors by rule and, for explicit quotes, by whether the referring expression
was seen as a tag at all (missed) or resolved to the wrong character (misresolved). Used to find
speech-tag patterns and speech verbs the sieve misses.

    python scripts/diagnose_quotes.py ../shared/data/pdnc [--type explicit] [--method ranker]
        [--characters gold|predicted] [--limit 40] [NOVEL ...]
"""

from __future__ import annotations

import argparse
from collections import Counter

from fabula.datasets import find_pdnc_novels, load_pdnc_novel
from fabula.metrics import best_overlap
from fabula.quotes._registry import DEFAULT_METHOD
from fabula.tasks.pdnc_quotes import is_right, predict_quotes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pdnc")
    parser.add_argument("novels", nargs="*")
    parser.add_argument("--type", default="explicit", choices=["explicit", "anaphoric", "implicit", "all"])
    parser.add_argument("--method", default=None)
    parser.add_argument("--characters", default="gold", choices=["gold", "predicted"])
    parser.add_argument("--limit", type=int, default=30, help="examples printed per novel")
    args = parser.parse_args()
    by_rule: Counter[str] = Counter()
    words: Counter[str] = Counter()
    total_wrong = 0
    for folder in find_pdnc_novels(args.pdnc):
        if args.novels and folder.name not in args.novels:
            continue
        novel = load_pdnc_novel(folder)
        method = args.method or DEFAULT_METHOD
        predicted = predict_quotes(novel, characters=args.characters, method=method).quotes
        best = best_overlap(novel.quotes, predicted)
        gold_by_id = {c.id: c for c in novel.characters}
        predicted_by_id = {c.id: c for c in novel.book.characters}
        scored = novel.scored_speakers()
        shown = 0
        text = novel.book.text
        paragraphs = novel.book.paragraphs
        for index, gold in enumerate(novel.quotes):
            if gold.speaker_id not in scored or (args.type != "all" and gold.type != args.type):
                continue
            quote = best[index]
            if quote is not None and is_right(gold, quote, gold_by_id, predicted_by_id):
                continue
            total_wrong += 1
            rule = "undetected" if quote is None else quote.method or "none"
            by_rule[rule] += 1
            for word in gold.referring_expression.lower().split():
                words[word] += 1
            if shown >= args.limit:
                continue
            shown += 1
            who = None if quote is None or quote.speaker_id is None else predicted_by_id.get(quote.speaker_id)
            p = paragraphs.index_at(gold.start)
            lo = int(paragraphs.starts[p]) if p is not None else gold.start - 200
            hi = int(paragraphs.ends[p]) if p is not None else gold.end + 200
            passage = text[lo:hi].replace("\n", " ")
            if len(passage) > 400:
                passage = passage[:200] + " … " + passage[-200:]
            print(
                f"[{novel.name} {gold.id}] gold={gold.speaker!r} ref={gold.referring_expression!r} "
                f"pred={who.name if who else None!r} rule={rule}"
            )
            print(f"    {passage}")
    print(f"\n{total_wrong} wrong; by rule: {dict(by_rule.most_common())}")
    print(f"referring-expression words: {words.most_common(40)}")


if __name__ == "__main__":
    main()
