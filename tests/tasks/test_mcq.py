"""`fabula eval mcq` (LFED protocol) end to end against the loopback OpenAI server, plus its parts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fabula.datasets import load_mcq
from fabula.errors import InputError
from fabula.llm import get_llm
from fabula.llm.testing import ScriptedOpenAIServer
from fabula.prompts import majority_letter, mcq_prompt, option_letters
from fabula.tasks import run_eval
from fabula.tasks._mcq_categories import categorize
from fabula.tasks.lfed import LiteraryMcq
from tests.conftest import SHARED_DATA, run_cli

LFED = SHARED_DATA / "lfed" / "LFED.utf8.csv"
LFED_GBK = SHARED_DATA / "lfed" / "LFED.csv"


def _write_jsonl(path: Path, rows: list[dict[str, object] | str]) -> Path:
    path.write_text(
        "".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows),
        encoding="utf-8",
    )
    return path


def _questions(tmp_path: Path) -> Path:
    rows: list[dict[str, object] | str] = [
        {
            "id": f"{novel}-{i}",
            "novel": novel,
            "question": f"关于《{novel}》这本小说，第{i}题问什么？",
            "options": ["甲", "乙", "丙", "丁"],
            "answer": "ABCD"[i % 4],
        }
        for novel in ("红楼梦", "围城", "活着")
        for i in range(3)
    ]
    return _write_jsonl(tmp_path / "q.jsonl", rows)


# --- loading -------------------------------------------------------------------------------------


def test_malformed_rows_are_reported_with_their_line_and_skipped(tmp_path: Path) -> None:
    path = _write_jsonl(
        tmp_path / "bad.jsonl",
        [
            {"id": "ok", "question": "Who?", "options": ["a", "b", "c", "d"], "answer": "B"},
            {"id": "empty", "question": "Who?", "options": ["a", "", "c", "d"], "answer": "A"},
            {"id": "outside", "question": "Who?", "options": ["a", "b", "c", "d"], "answer": "E"},
            {"id": "index", "question": "Who?", "options": ["a", "b", "c", "d"], "answer": 7},
            "{not json",
        ],
    )
    loaded = load_mcq(path)
    assert [q.id for q in loaded.questions] == ["ok"] and loaded.questions[0].answer == 1
    assert loaded.problems[0].startswith("2: option B is empty")
    assert loaded.problems[1].startswith("3: answer 'E'")
    assert loaded.problems[2].startswith("4: answer 7 is outside the 4 options")
    assert loaded.problems[3].startswith("5: not JSON")
    summary = LiteraryMcq(data=path).summary(None)  # type: ignore[arg-type]
    assert summary[0].startswith("categories (approx_category) are approximate: ")
    assert summary[1] == "skipped 4 malformed rows:" and summary[2].startswith("  line 2: option B")


def test_a_file_with_no_readable_question_is_an_error(tmp_path: Path) -> None:
    path = _write_jsonl(tmp_path / "bad.jsonl", ["[1, 2]"])
    with pytest.raises(InputError, match=r"bad\.jsonl: no readable question \(1: expected a JSON object\)"):
        load_mcq(path)


def test_lfed_loads_from_utf8_and_from_the_gbk_original() -> None:
    if not LFED.is_file() or not LFED_GBK.is_file():
        pytest.skip(f"LFED not found at {LFED.parent} (the shared data directory is absent)")
    utf8, gbk = load_mcq(LFED), load_mcq(LFED_GBK)
    assert len(utf8.questions) >= 1290 and [q.question for q in utf8.questions] == [
        q.question for q in gbk.questions
    ]
    first = utf8.questions[0]
    assert first.novel == "情书" and first.answer_letter == "B" and first.language == "zh"


# --- prompts and extraction ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "letters", "choice"),
    [
        ("B", ["B"], "B"),
        ("答案是C。", ["C"], "C"),
        ("Answer: (D).", ["D"], "D"),
        ("Ｂ", ["B"], "B"),
        ("A man with a wooden leg, so the answer is C", ["C"], "C"),
        ("B or C? I think C; C is best", ["B", "C", "C", "C"], "C"),
        ("A or B", ["A", "B"], "A"),  # a tie goes to the first named
        ("E", [], None),  # not one of four options
        ("I do not know", [], None),
    ],
)
def test_answer_extraction_filters(answer: str, letters: list[str], choice: str | None) -> None:
    assert option_letters(answer, 4) == letters
    if choice is None:
        with pytest.raises(ValueError, match="no option letter"):
            majority_letter(answer, 4)
    else:
        assert majority_letter(answer, 4) == choice


def test_chinese_prompts_are_well_formed() -> None:
    for style in ("short", "long"):
        text = mcq_prompt(
            novel="围城",
            question="方鸿渐是谁？",
            options=["甲", "乙", "丙", "丁"],
            language="zh",
            style=style,
            examples=[("活着", "例题？", ["一", "二", "三", "四"], "C")],
        )
        assert (
            "《围城》" in text and "例题：" in text and "《活着》\n例题？" in text and "正确答案是：C" in text
        )
        assert text.rstrip().endswith("正确答案是：")  # the paper's suffix ends the prompt
        assert "A. 甲\nB. 乙\nC. 丙\nD. 丁" in text and "$" not in text


# --- the task on the scripted server -------------------------------------------------------------


def _question_text(messages: list[dict[str, str]]) -> str:
    return messages[-1]["content"].rsplit("\n\n", 1)[-1]


def test_each_extraction_branch(tmp_path: Path) -> None:
    rows: list[dict[str, object] | str] = [
        {
            "id": "single",
            "novel": "N1",
            "question": "Q single?",
            "options": ["a", "b", "c", "d"],
            "answer": "B",
        },
        {
            "id": "several",
            "novel": "N1",
            "question": "Q several?",
            "options": ["a", "b", "c", "d"],
            "answer": "C",
        },
        {
            "id": "retry",
            "novel": "N2",
            "question": "Q retry?",
            "options": ["a", "b", "c", "d"],
            "answer": "D",
        },
        {
            "id": "never",
            "novel": "N2",
            "question": "Q never?",
            "options": ["a", "b", "c", "d"],
            "answer": "A",
        },
    ]
    data = _write_jsonl(tmp_path / "q.jsonl", rows)
    asked: dict[str, int] = {}

    def answer(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"]
        key = re.search(r"Q (\w+)\?", text)[1]  # type: ignore[index]
        asked[key] = asked.get(key, 0) + 1
        directly = "please output the answer directly" in text
        return {
            "single": "B",
            "several": "I'd say C, not B. C.",
            "retry": "D" if directly else "Hmm, hard to say.",
            "never": "no idea",
        }[key]

    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        report = run_eval(LiteraryMcq(data=data), llm=llm, json_path=tmp_path / "r.json", progress=False)
    lines = (tmp_path / "r.items.jsonl").read_text().splitlines()
    logs = {r["id"]: r for r in map(json.loads, lines) if "id" in r}
    assert logs["single"]["prediction"] == "B" and logs["single"]["details"]["first_try"] == 1
    assert logs["several"]["prediction"] == "C"
    assert logs["retry"]["prediction"] == "D" and logs["retry"]["details"]["retried"] == 1
    assert logs["never"]["prediction"] is None and logs["never"]["details"]["failed"] == 1
    assert asked == {"single": 1, "several": 1, "retry": 2, "never": 3}  # at most three runs, then wrong
    assert report.mean["accuracy"] == pytest.approx(0.75)


def test_few_shot_examples_never_come_from_the_question_s_own_novel(tmp_path: Path) -> None:
    data = _questions(tmp_path)
    prompts: list[str] = []

    def answer(messages: list[dict[str, str]]) -> str:
        prompts.append(messages[-1]["content"])
        return "A"

    with ScriptedOpenAIServer(answer) as server:
        run_eval(
            LiteraryMcq(data=data, shots=3),
            llm=get_llm(f"openai:m@{server.url}", cache=False),
            progress=False,
        )
    assert len(prompts) == 9
    for prompt in prompts:
        own = re.search(r"关于《(.+?)》", prompt.rsplit("例题：", 1)[1].rsplit("\n\n", 1)[1])[1]  # type: ignore[index]
        examples = prompt.split("例题：", 1)[1].rsplit("\n\n", 1)[0]
        assert examples.count("正确答案是：") == 3
        assert f"《{own}》" not in examples
        titles = re.findall(r"^《(.+?)》$", examples, flags=re.M)
        assert len(titles) == 3 and len(set(titles)) == 2  # both other novels before a second from either


def test_cli_report_per_category_and_a_rerun_makes_no_model_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FABULA_CACHE_DIR", str(tmp_path / "cache"))
    data = _questions(tmp_path)
    out = tmp_path / "mcq.json"
    with ScriptedOpenAIServer("答案：A") as server:
        args = ["eval", "mcq", "--data", data, "--llm", f"openai:m@{server.url}", "--json", out]
        assert run_cli(*args) == 0
        first = server.requests
        assert first == 9
        assert run_cli(*args) == 0
        assert server.requests == first  # served from the LLM cache
    report = json.loads(out.read_text())
    assert report["task"] == "mcq" and report["mean"]["accuracy"] == pytest.approx(3 / 9)
    assert set(report["novels"]) == {"红楼梦", "围城", "活着"}
    assert "approx_category" in report["groups"] and "approximate" in report["settings"]["category_source"]
    assert (tmp_path / "mcq.items.jsonl").is_file()


def test_keyword_categories_on_sample_questions() -> None:
    assert categorize("关于《神雕侠侣》这本小说，如果杨过没有断臂，会怎样？") == "counterfactual"
    assert categorize("关于《情书》这本小说，女藤井树和渡边博子是什么关系") == "character relationships"
    assert categorize("关于《围城》这本小说，方鸿渐的性格特点是") == "characterization"
    assert categorize("关于《活着》这本小说，小说采用了什么叙述视角") == "literary style"
    assert categorize("关于《活着》这本小说，福贵最后和谁生活在一起") == "plot"


@pytest.mark.slow
def test_the_whole_lfed_set_end_to_end_and_a_rerun_makes_no_model_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not LFED.is_file():
        pytest.skip(f"LFED not found at {LFED} (the shared data directory is absent)")
    monkeypatch.setenv("FABULA_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "lfed.json"
    with ScriptedOpenAIServer("答案：B") as server:
        args = ["eval", "mcq", "--data", LFED, "--llm", f"openai:m@{server.url}", "--json", out]
        assert run_cli(*args) == 0
        first = server.requests
        assert run_cli(*args) == 0
        assert server.requests == first
    report = json.loads(out.read_text())
    assert report["items"] == len(load_mcq(LFED).questions) == first
    assert 0.15 < report["mean"]["accuracy"] < 0.40  # "always B" scores the share of B answers
    assert len(report["groups"]["approx_category"]) == 8


def test_loglik_picks_the_option_letter_the_model_finds_most_likely(tmp_path: Path) -> None:
    rows: list[dict[str, object] | str] = [
        {"id": "q1", "novel": "N", "question": "Who?", "options": ["a", "b", "c", "d"], "answer": "C"},
    ]
    data = _write_jsonl(tmp_path / "q.jsonl", rows)
    likely = {"A": -3.0, "B": -2.0, "C": -0.5, "D": -4.0}

    def logprobs(words: list[str]) -> list[float]:
        # every prompt word -1; a final option letter gets its scripted log-probability
        values = [-1.0] * (len(words) - 1)
        if words[-1] in likely and words[-2].endswith(("is:", "答案是：")):
            values[-1] = likely[words[-1]]
        return values

    with ScriptedOpenAIServer("unused", logprobs=logprobs) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        report = run_eval(
            LiteraryMcq(data=data, method="loglik"), llm=llm, json_path=tmp_path / "r.json", progress=False
        )
        # the check of the server's values, the prompt, then the prompt followed by each of the 4 letters
        assert server.requests == 6
    record = next(
        json.loads(line) for line in (tmp_path / "r.items.jsonl").read_text().splitlines() if '"q1"' in line
    )
    assert record["prediction"] == "C"
    assert record["details"]["option_logprobs"]["C"] == pytest.approx(-0.5)
    assert report.mean["accuracy"] == 1.0


def test_anonymized_questions_options_and_passages_use_the_book_s_new_names(tmp_path: Path) -> None:
    from fabula.anonymize import Anonymizer
    from tests.conftest import EXAMPLE_NOVEL

    rows: list[dict[str, object] | str] = [
        {
            "id": "q1",
            "novel": "Alice in Wonderland",
            "book": str(EXAMPLE_NOVEL),
            "question": "Whom does Alice follow down the rabbit-hole?",
            "options": ["The White Rabbit", "Alice's sister", "The Hatter", "Dinah"],
            "answer": "A",
        }
    ]
    data = _write_jsonl(tmp_path / "q.jsonl", rows)
    prompts: list[str] = []

    def answer(messages: list[dict[str, str]]) -> str:
        prompts.append(messages[-1]["content"])
        return "A"

    task = LiteraryMcq(data=data)
    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        report = run_eval(task, llm=llm, progress=False, anonymize=Anonymizer(seed=5))
    assert report.mean["accuracy"] == 1.0 and report.settings["anonymized"] == {"seed": 5}
    (copy,) = task.books.copies()
    alice = copy.mapping.names["Alice"]
    (prompt,) = prompts
    assert "Alice" not in prompt and f"Whom does {alice} follow" in prompt and f"{alice}'s sister" in prompt
    assert "Alice" not in copy.book.text[copy.book.body.start : copy.book.body.end]


def test_anonymized_lfed_is_refused_in_one_line(tmp_path: Path) -> None:
    from fabula.anonymize import Anonymizer
    from fabula.errors import ConfigError

    with ScriptedOpenAIServer("A") as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        with pytest.raises(ConfigError, match=r"needs each question's book .* 9 of 9 questions have none"):
            run_eval(LiteraryMcq(data=_questions(tmp_path)), llm=llm, anonymize=Anonymizer(), progress=False)


def test_limit_asks_the_first_questions_and_checks_only_those(tmp_path: Path) -> None:
    from fabula.anonymize import Anonymizer
    from fabula.errors import ConfigError

    data = _questions(tmp_path)
    with ScriptedOpenAIServer("答案：A") as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        with pytest.raises(ConfigError, match=r"2 of 2 questions have none"):
            run_eval(LiteraryMcq(data=data), llm=llm, anonymize=Anonymizer(), progress=False, limit=2)
        report = run_eval(LiteraryMcq(data=data, shots=1), llm=llm, progress=False, limit=2)
        assert server.requests == 2
    assert report.items == 2 and report.settings["limit"] == 2
    assert set(report.novels) == {"红楼梦"}  # the first two questions are both about it


# --- the paper's protocol on the loopback server ----------------------------------------------------

PAPER_SHORT = "Select the desired answer based on the given question"
PAPER_LONG = (
    "Give you a multiple-choice question about a fiction, and you need to provide an answer. The provided "
    "string can be divided into three parts: the first part represents the title of the fiction, the second "
    "part is a question about the fiction, the third part includes four answer choices. Please only output "
    "the answer indicator (e.g., A, B, C or D)."
)
PAPER_SUFFIX = "the correct answer is:"
PAPER_REASK = (
    "According to the above question, please output the answer directly and do not output any rationals."
)


@pytest.mark.parametrize(("style", "instruction"), [("short", PAPER_SHORT), ("long", PAPER_LONG)])
def test_the_prompts_received_are_the_paper_s_wording(tmp_path: Path, style: str, instruction: str) -> None:
    data = _write_jsonl(
        tmp_path / "q.jsonl",
        [
            {
                "id": "q",
                "novel": "围城",
                "question": "方鸿渐是谁？",
                "options": ["甲", "乙", "丙", "丁"],
                "answer": "B",
            }
        ],
    )
    with ScriptedOpenAIServer("no idea") as server:  # never a letter: all three runs are made
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        report = run_eval(LiteraryMcq(data=data, prompt=style, prompt_language="en"), llm=llm, progress=False)
        received = [body["messages"][-1]["content"] for body in server.bodies]
    body = '"围城"\n方鸿渐是谁？\nA. 甲\nB. 乙\nC. 丙\nD. 丁\n'
    assert received == [
        f"{instruction}\n\n{body}{PAPER_SUFFIX}",
        f"{instruction}\n\n{body}{PAPER_REASK}",
        f"{instruction}\n\n{body}{PAPER_REASK}",
    ]
    assert report.settings["prompt_languages"] == ["en"]
    assert report.settings["prompt_templates"][0] == f"mcq/{style}_en@2"
    # the default for a Chinese question: fabula's Chinese rendering, recorded as such
    zh = LiteraryMcq(data=data, prompt=style).settings
    assert zh["prompt_languages"] == ["zh"] and zh["prompt_templates"][0] == f"mcq/{style}_zh@2"


def _lfed_or_generated(tmp_path: Path) -> Path:
    """200 LFED questions when the shared data is there, else 200 generated ones (answers spread over A-D)."""
    if LFED.is_file():
        return LFED
    rows: list[dict[str, object] | str] = [
        {
            "id": f"g{i}",
            "novel": f"N{i % 7}",
            "question": f"问题{i}？",
            "options": ["甲", "乙", "丙", "丁"],
            "answer": "ABCD"[(i * 7) % 11 % 4],
        }
        for i in range(200)
    ]
    return _write_jsonl(tmp_path / "g.jsonl", rows)


def test_an_english_because_answer_scores_exactly_the_share_of_a_and_a_rerun_makes_no_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FABULA_CACHE_DIR", str(tmp_path / "cache"))
    data = _lfed_or_generated(tmp_path)
    out = tmp_path / "mcq.json"
    with ScriptedOpenAIServer("The answer is A because the hero leaves home.") as server:
        args = [
            "eval",
            "mcq",
            "--data",
            data,
            "--llm",
            f"openai:m@{server.url}",
            "--json",
            out,
            "--limit",
            "200",
        ]
        assert run_cli(*args) == 0
        assert server.requests == 200  # one run per question: the answer is read at the first
        assert run_cli(*args, "--no-resume") == 0
        assert server.requests == 200  # the re-run is served from the LLM cache
    questions = load_mcq(data).questions[:200]
    share_of_a = sum(q.answer_letter == "A" for q in questions) / len(questions)
    items = [json.loads(line) for line in (tmp_path / "mcq.items.jsonl").read_text().splitlines()]
    predictions = [r["prediction"] for r in items if "id" in r]
    assert predictions == ["A"] * 200
    accuracy = sum(r["scores"]["accuracy"] for r in items if "id" in r) / 200
    assert accuracy == pytest.approx(share_of_a)
    assert json.loads(out.read_text())["mean"]["accuracy"] == pytest.approx(share_of_a)


def test_few_shot_1_to_5_averages_the_five_runs(tmp_path: Path) -> None:
    data = _questions(tmp_path)
    shots_seen: list[int] = []

    def answer(messages: list[dict[str, str]]) -> str:
        text = messages[-1]["content"]
        shots = text.count("正确答案是：") - 1
        shots_seen.append(shots)
        return "A" if shots % 2 else "B"  # right for A-questions at odd n, for B-questions at even n

    with ScriptedOpenAIServer(answer) as server:
        llm = get_llm(f"openai:m@{server.url}", cache=False)
        report = run_eval(LiteraryMcq(data=data, shots="1-5"), llm=llm, progress=False)
    assert sorted(set(shots_seen)) == [1, 2, 3, 4, 5] and len(shots_seen) == 9 * 5
    answers = [q.answer_letter for q in load_mcq(data).questions]
    per_n = {n: sum(a == ("A" if n % 2 else "B") for a in answers) / 9 for n in range(1, 6)}
    for n, value in per_n.items():
        assert report.mean[f"accuracy_{n}shot"] == pytest.approx(value)
    assert report.mean["accuracy"] == pytest.approx(sum(per_n.values()) / 5)


def test_the_category_agreement_quoted_in_reports_is_measured_on_the_hand_labels() -> None:
    import csv

    from fabula.tasks._mcq_categories import HELD_OUT_AGREEMENT

    if not LFED.is_file():
        pytest.skip(f"LFED not found at {LFED} (the shared data directory is absent)")
    questions = {q.id: q for q in load_mcq(LFED).questions}
    path = Path(__file__).parents[2] / "data" / "lfed" / "category_check.tsv"
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    agree = sum(
        categorize(questions[r["id"]].question, questions[r["id"]].options) == r["category"] for r in rows
    )
    assert (agree, len(rows)) == HELD_OUT_AGREEMENT


def _lfed_file(path: Path, rows: list[str]) -> Path:
    header = "名字,题目,选项1,选项2,选项3,选项4,答案"
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def test_an_unclosed_quote_in_lfed_is_reported_and_a_large_loss_fails(tmp_path: Path) -> None:
    """An unclosed quote makes the csv module read every following line into one field: the rows it
    swallowed are counted and named, and when they are many the file is refused instead of scored."""
    good = [f"围城,第{i}题问什么？,甲,乙,丙,丁,A" for i in range(40)]
    few = list(good)
    few[37] = '围城,"第37题问什么？,甲,乙,丙,丁,A'  # swallows the last three rows
    loaded = load_mcq(_lfed_file(tmp_path / "few.csv", few))
    assert len(loaded.questions) == 37
    assert loaded.problems == [
        "39: a quoted field runs on to line 41 (an unclosed quote?), so lines 39-41 are not read as rows"
    ]
    many = list(good)
    many[10] = '围城,"第10题问什么？,甲,乙,丙,丁,A'
    with pytest.raises(InputError, match=r"30 of 40 rows are swallowed by unclosed quotes \(12: a quoted"):
        load_mcq(_lfed_file(tmp_path / "many.csv", many))


def test_an_lfed_field_over_the_csv_limit_is_one_line(tmp_path: Path) -> None:
    rows = [f"围城,第{i}题问什么？,甲,乙,丙,丁,A" for i in range(3)]
    rows[1] = '围城,"' + "很长" * 70_000 + '",甲,乙,丙,丁,A'
    with pytest.raises(InputError, match=r"huge\.csv: line 3: field larger than field limit"):
        load_mcq(_lfed_file(tmp_path / "huge.csv", rows))
