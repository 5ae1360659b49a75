"""The quotation-attribution paper's protocol end to end against a loopback server playing a perfect model.

The server reads each prompt the way a model would have to: for every ``|n|"…"|n|`` in the passage it
looks the quotation part up among the novel's gold quotes (by its words) and answers the gold speaker's
canonical name, as a Python dict like Llama-3's. With gold spans and the gold names list a perfect model
must score 100 % on All / Explicit / Other; the run also shows the protocol's cost in prompts and time.
With ``--characters predicted`` the answers are the gold names, which fabula's own cast may not hold.

    python benchmarks/bench_michel_loopback.py DaisyMiller AlicesAdventuresInWonderland [--characters predicted]
"""

from __future__ import annotations

import argparse
import re
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from fabula.datasets import load_pdnc_novel
from fabula.llm import get_llm
from fabula.llm.testing import ScriptedOpenAIServer
from fabula.tasks import run_eval
from fabula.tasks.pdnc_quotes import QuotesTask, table1_line

PDNC = Path(__file__).resolve().parent.parent / "../shared/data/pdnc"


def _words(text: str) -> str:
    return " ".join(re.sub(r"_", " ", text).split())


def _after(text: str) -> str:
    """The first five words after a quotation part (quote marks and id markers left out): tells apart two
    parts with the same words ("Yes," said by two people)."""
    return " ".join(_words(re.sub(r"\|\d+\|", " ", text).replace('"', " ")).split()[:5])


def oracle(novels: list[str]) -> Callable[[list[dict[str, str]]], str]:
    """An answerer giving each marked part's gold speaker (looked up by the part's words)."""
    speaker_of: dict[tuple[str, str], str] = {}
    for name in novels:
        novel = load_pdnc_novel(PDNC / name)
        by_id = {c.id: c.name for c in novel.characters}
        text = novel.book.text
        for quote in novel.quotes:
            for span in quote.spans:
                key = (_words(text[span.start : span.end]), _after(text[span.end : span.end + 200]))
                speaker_of.setdefault(key, by_id.get(quote.speaker_id or "", "?"))
                speaker_of.setdefault((key[0], ""), by_id.get(quote.speaker_id or "", "?"))

    def answer(messages: list[dict[str, str]]) -> str:
        prompt = messages[-1]["content"]
        passage = prompt.split("**Passage:**\n---\n", 1)[1].split("\n---\n\n**", 1)[0]
        out = {}
        for match in re.finditer(r"\|(\d+)\|\"?(.*?)\"?\|\1\|", passage, flags=re.S):
            key = (_words(match.group(2).strip('"')), _after(passage[match.end() : match.end() + 200]))
            out[match.group(1)] = speaker_of.get(key) or speaker_of.get((key[0], ""), "?")
        return str(out)

    return answer


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("novels", nargs="+")
    parser.add_argument("--characters", default="gold", choices=("gold", "predicted"))
    parser.add_argument("--strategy", default="incremental", choices=("incremental", "normal"))
    args = parser.parse_args()
    with ScriptedOpenAIServer(oracle(args.novels)) as server, tempfile.TemporaryDirectory() as tmp:
        llm = get_llm(f"openai:oracle@{server.url}", cache=False)
        task = QuotesTask(
            pdnc=PDNC, method="llm", novel=args.novels, characters=args.characters, strategy=args.strategy
        )
        started = time.perf_counter()
        report = run_eval(task, llm=llm, json_path=Path(tmp) / "r.json", progress=False)
        seconds = time.perf_counter() - started
        prompts = server.requests
    for name, scores in report.novels.items():
        cells = " / ".join(f"{100 * scores[k]:.1f}" for k in ("accuracy", "explicit", "other"))
        print(f"{name}: All / Explicit / Other {cells} ({scores['scored']} parts)")
    print(table1_line(report))
    print(f"{prompts} prompts, {seconds:.1f} s")


if __name__ == "__main__":
    main()
