"""The learned ranker on two cores (`fabula.quotes._ranker._rank_on_two_cores`): the later conversations'
first pass and beam in a forked child give the attributions of one core, wherever the book is cut, whether
or not the child's first conversations must be decoded again here, and when the child fails before or
during its beam; no child is left behind. Run in a fresh interpreter: the test runner's process has other
threads alive, beside which nothing forks."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import pdnc_novel_dir

needs_fork = pytest.mark.skipif(
    not sys.platform.startswith("linux") or len(os.sched_getaffinity(0)) < 2,
    reason="no second core here (one core or not Linux): the ranker runs on one",
)

_SCRIPT = textwrap.dedent(
    """
    import os, sys
    from fabula.annotation import annotate
    from fabula.book import load_book
    import fabula.quotes._ranker as ranker

    path, mode, gated = sys.argv[1], sys.argv[2], sys.argv[3] == "gated"
    weights, _ = ranker.load_model()
    if gated:  # gated weights that are not 0: each turn scored with plain + its gate times gated
        import numpy as np

        width = len(ranker.FEATURES)
        weights = np.concatenate([weights[:width], np.random.default_rng(3).normal(0.0, 0.5, width)])
    here = os.getpid()
    ranker.FORK_TURNS = 0

    def ranked():
        book = load_book(path)
        annotate(book, {"mentions"})
        quotes = ranker.rank_speakers(book, weights)
        return [(q.start, q.end, q.speaker_id, q.confidence, q.method, q.mention) for q in quotes]

    os.environ["FABULA_FORK"] = "0"
    one_core = ranked()
    os.environ["FABULA_FORK"] = "1"
    forks, here_decoded = [], []
    fork_talk, decode = ranker.fork_talk, ranker._decode_conversation
    ranker.fork_talk = lambda fn: forks.append(fn) or fork_talk(fn)

    def counted(context, turns, conversation, width, stats):
        if os.getpid() == here:
            here_decoded.append(conversation.start)
        elif mode == "the child dies in its beam":
            os._exit(1)
        return decode(context, turns, conversation, width, stats)

    ranker._decode_conversation = counted
    if mode == "the child fails at once":
        later = ranker._later_conversations
        ranker._later_conversations = lambda *args: 1 / 0 if os.getpid() != here else later(*args)
    book = load_book(path)
    annotate(book, {"mentions"})
    turns = ranker.run_sieve(book)[1]
    starts = [i for i in range(1, len(turns)) if turns[i].conversation != turns[i - 1].conversation]
    same, again = [], 0
    for cut in starts[:8] if mode == "cuts" else starts[len(starts) // 2 :][:1]:
        ranker._conversation_cut = lambda turns, near: cut
        here_decoded.clear()
        same.append(ranked() == one_core)
        again += sum(start >= cut for start in here_decoded)  # the child's conversations decoded here
    print(len(same), len(forks), all(same), again)
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        print("no child left")
    """
)


def _run(mode: str, weights: str = "shipped") -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(pdnc_novel_dir("DaisyMiller") / "novel_text.txt"), mode, weights],
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1"},  # numpy's BLAS threads would stop every fork
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return done.stdout.split()


@needs_fork
def test_two_cores_attribute_as_one_wherever_the_book_is_cut() -> None:
    """Eight cuts (the first eight conversation starts): each forks, each gives one core's attributions, and
    at some the child's first conversation read a speaker before the cut that the parent's beam changed,
    so it was decoded again here (the check that makes the child's work exact)."""
    cuts, forks, same, again, *rest = _run("cuts")
    assert (cuts, forks, same) == ("8", "8", "True")
    assert 0 < int(again) < 8 * 2  # decoded again: a few of the child's first conversations, no more
    assert rest == ["no", "child", "left"]


@needs_fork
def test_two_cores_attribute_as_one_with_gated_weights() -> None:
    """The same with gated weights (`sparse_gates`): each process scores its turns with their own gates."""
    cuts, forks, same, _, *rest = _run("cuts", "gated")
    assert (cuts, forks, same) == ("8", "8", "True")
    assert rest == ["no", "child", "left"]


@needs_fork
@pytest.mark.parametrize("mode", ["the child fails at once", "the child dies in its beam"])
def test_a_failing_child_costs_time_not_correctness(mode: str) -> None:
    """The parent computes what the child did not send: every turn's first pass, or every later
    conversation (all decoded here), with one core's result."""
    cuts, forks, same, again, *rest = _run(mode)
    assert (cuts, forks, same) == ("1", "1", "True")
    assert int(again) > 1  # the later conversations, decoded here
    assert rest == ["no", "child", "left"]
