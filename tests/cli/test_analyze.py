"""``fabula analyze`` end to end on the shipped example novel: every output file, resuming, spoiler safety
with ``--until``, and bad inputs among several books."""

from __future__ import annotations

import os
import re
import shutil
import stat
from pathlib import Path

import orjson
import pytest

from fabula.book import load_book_json
from tests.conftest import ROOT, run_cli

ALICE = ROOT / "examples" / "alice_in_wonderland.txt"
OUTPUTS = ("book.json", "characters.jsonl", "quotes.jsonl", "quotes.tsv", "report.html", "manifest.json")


def jsonl(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def alice_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("analyze")
    assert run_cli("analyze", ALICE, "-o", out) == 0
    return out / "alice_in_wonderland"


def test_writes_every_output(alice_out: Path) -> None:
    for name in OUTPUTS:
        assert (alice_out / name).stat().st_size > 0, name
    characters = jsonl(alice_out / "characters.jsonl")
    assert characters[0]["name"] == "Alice"
    assert {"aliases", "gender", "mention_count", "quote_count", "presence", "partners", "profile"} <= set(
        characters[0]
    )
    names = {c["name"] for c in characters}
    assert {"Alice", "Hatter"} <= names or {"Alice", "the Hatter"} <= names or "Alice" in names
    book = load_book_json(alice_out / "book.json")
    assert len(book.quotes) == len(jsonl(alice_out / "quotes.jsonl")) > 500
    assert sum(1 for q in book.quotes if q.speaker_id) > 200
    assert len(characters[0]["presence"]) == len(book.chapters) == 12
    report = (alice_out / "report.html").read_text()
    assert "Alice" in report and "<script src" not in report
    assert not list(alice_out.glob(".*"))  # no temporary files left behind
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((alice_out / "report.html").stat().st_mode) == 0o666 & ~umask  # not mkstemp's 0600


def test_second_run_skips_and_force_redoes(alice_out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = alice_out / "report.html"
    before = report.stat().st_mtime_ns
    capsys.readouterr()
    assert run_cli("analyze", ALICE, "-o", alice_out.parent) == 0
    assert "up to date" in capsys.readouterr().err
    assert report.stat().st_mtime_ns == before
    assert run_cli("analyze", ALICE, "-o", alice_out.parent, "--force") == 0
    assert report.stat().st_mtime_ns != before


def test_outputs_of_other_code_with_the_same_version_are_redone(
    alice_out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A checkout or local change keeps the version number; its outputs are not "up to date" for this code."""
    from fabula._version import code_digest

    manifest_path = alice_out / "manifest.json"
    manifest = orjson.loads(manifest_path.read_bytes())
    assert manifest["settings"]["fabula_code"] == code_digest()
    manifest["settings"]["fabula_code"] = "0123456789abcdef"  # what another build of 0.1.0 wrote
    manifest_path.write_bytes(orjson.dumps(manifest))
    capsys.readouterr()
    assert run_cli("analyze", ALICE, "-o", alice_out.parent) == 0
    assert "up to date" not in capsys.readouterr().err
    assert orjson.loads(manifest_path.read_bytes())["settings"]["fabula_code"] == code_digest()


def test_until_half_shows_nothing_from_the_second_half(alice_out: Path, tmp_path: Path) -> None:
    assert run_cli("analyze", ALICE, "-o", tmp_path, "--until", "50%") == 0
    half = tmp_path / "alice_in_wonderland.until-50pct"  # never over the whole-book folder
    book = load_book_json(half / "book.json")
    full = load_book_json(alice_out / "book.json")
    midpoint = book.until
    assert midpoint is not None and full.body.start < midpoint < full.body.end
    assert book.text == full.text[:midpoint]
    assert all(m.end <= midpoint for m in book.mentions)
    assert all(q.end <= midpoint for q in book.quotes)
    for quote in jsonl(half / "quotes.jsonl"):
        offsets = [v for k, v in quote.items() if k in ("start", "end", "quote_start", "quote_end")]
        assert all(isinstance(v, int) and v <= midpoint for v in offsets)
    for character in jsonl(half / "characters.jsonl"):
        assert character["first_offset"] is None or character["first_offset"] < midpoint
        for name in (character["name"], *character["aliases"]):
            assert name in book.text, name
    # names, quotes and sentences first seen after the midpoint appear in no output file
    early = full.text[:midpoint]
    late_names = {
        name
        for c in jsonl(alice_out / "characters.jsonl")
        for name in (c["name"], *c["aliases"])
        if name not in early
    }
    late_quotes = {
        full.span_text(q.spans[0], normalize=True)
        for q in full.quotes
        if q.start >= midpoint and len(q.spans[0]) > 40
    }
    late_quotes = {q for q in late_quotes if q not in " ".join(early.split())}
    assert late_names and late_quotes  # the test would be vacuous otherwise
    outputs = {name: (half / name).read_text() for name in OUTPUTS}
    outputs["report.html"] = _html_text(outputs["report.html"])
    for name, text in outputs.items():
        flat = " ".join(text.split())
        for late in late_names:
            assert not re.search(r"(?<!\w)" + re.escape(late) + r"(?!\w)", flat), (name, late)
        for line in late_quotes:
            assert line not in flat, (name, line)


def _html_text(page: str) -> str:
    """The report with entities and JSON escapes undone, so book text is searchable as written."""
    import html

    return html.unescape(page).replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u0026", "&")


def test_bad_books_among_several(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    books = tmp_path / "books"
    books.mkdir()
    good = books / "alice.txt"
    text = ALICE.read_text(encoding="utf-8")
    good.write_text(text[: text.index("CHAPTER IV")], encoding="utf-8")
    (books / "empty.txt").write_bytes(b"")
    (books / "binary.txt").write_bytes(bytes(range(256)) * 64)
    shutil.copy(good, books / "copy.txt")
    out = tmp_path / "out"
    code = run_cli(
        "analyze",
        good,
        books / "empty.txt",
        books / "binary.txt",
        books / "copy.txt",
        "-o",
        out,
        "--jobs",
        "2",
    )
    captured = capsys.readouterr()
    assert code != 0
    errors = [line for line in captured.err.splitlines() if line.startswith("fabula: error:")]
    assert len(errors) == 2
    assert any("empty.txt" in line for line in errors) and any("binary.txt" in line for line in errors)
    assert "Traceback" not in captured.err
    for stem in ("alice", "copy"):
        assert all((out / stem / name).is_file() for name in OUTPUTS)
    assert not (out / "empty" / "report.html").exists() and not (out / "binary" / "report.html").exists()
    index = (out / "index.html").read_text()
    assert 'href="alice/report.html"' in index and 'href="copy/report.html"' in index
    assert index.count('class="failed"') == 2
    assert "2 analysed, 2 failed" in captured.out


def test_gold_list_is_for_one_book(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = tmp_path / "cast.json"
    gold.write_text('[{"name": "Alice"}]')
    other = tmp_path / "another.txt"  # a second book (the same file named twice is one book)
    other.write_bytes(ALICE.read_bytes())
    assert run_cli("analyze", ALICE, other, "-o", tmp_path / "out", "--gold-characters", gold) == 2
    assert capsys.readouterr().err.strip().startswith("fabula: error: --gold-characters:")
    assert not (tmp_path / "out").exists()


def test_llm_attribution_through_a_scripted_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--llm`` sends every quotation to the model; "Alice" for every marked quote comes back as her lines."""
    from fabula.llm.testing import ScriptedOpenAIServer

    monkeypatch.setenv("FABULA_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    book = tmp_path / "alice2.txt"
    text = ALICE.read_text(encoding="utf-8")
    book.write_text(text[: text.index("CHAPTER III")], encoding="utf-8")

    def answer(messages: list[dict[str, str]]) -> str:
        ids = sorted({int(n) for n in re.findall(r"\[(\d+)\]", messages[-1]["content"])})
        return orjson.dumps({str(i): "Alice" for i in ids}).decode()

    with ScriptedOpenAIServer(answer) as server:
        spec = f"openai:test-model@{server.url}"
        assert run_cli("analyze", book, "-o", tmp_path / "out", "--llm", spec) == 0, capsys.readouterr().err
        assert server.requests > 0
    folder = tmp_path / "out" / "alice2"
    manifest = orjson.loads((folder / "manifest.json").read_bytes())
    assert manifest["settings"]["llm"] == spec
    alice = jsonl(folder / "characters.jsonl")[0]
    book_quotes = load_book_json(folder / "book.json").quotes
    assert alice["name"] == "Alice" and alice["quote_count"] == len(book_quotes) > 20
    assert "LLM (openai:test-model@" in (folder / "report.html").read_text()


# Modules that `fabula analyze` without --llm never needs: the other commands, the evaluation tasks, the
# server, the LLM layer's client code (its settings module alone is read for --timeout's default), the
# LLM attribution methods and their prompts, scipy (through bm25s's package), the retrievers (the
# analysis reads only `fabula.retrieval.Analyzer`), blingfire's Python wrapper (its library is loaded
# directly).
NOT_FOR_ANALYZE = (
    "fabula.cli._eval",
    "fabula.cli._serve",
    "fabula.cli._train",
    "fabula.cli._recap",
    "fabula.tasks",
    "fabula.serve",
    "fabula.train",
    "fabula.llm._base",
    "fabula.llm._types",
    "fabula.llm._spec",
    "fabula.quotes._michel",
    "fabula.quotes._llm_attribution",
    "fabula.prompts",
    "scipy",
    "sqlite3",
    "fabula.retrieval._base",
    "fabula.retrieval._context",
    "fabula.retrieval._index",
    "blingfire",
    "fabula.describe._generate",
    "fabula.describe._bookworm",
    "fabula.describe._sheet",
)


def test_analyze_imports_only_what_it_uses(tmp_path: Path) -> None:
    """Start-up is a large part of one book's analysis: in a fresh interpreter, ``fabula analyze`` runs
    the whole analysis without importing any of `NOT_FOR_ANALYZE` (the CLI loads only the chosen
    subcommand's module, and the LLM layer's names are loaded on first use)."""
    import subprocess
    import sys

    probe = (
        "import sys\nfrom fabula.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
        f"print(sorted(m for m in sys.modules if m.startswith({NOT_FOR_ANALYZE!r})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, "analyze", str(ALICE), "-o", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "alice_in_wonderland" / "report.html").is_file()
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout


# What the analysis needs but ``fabula analyze --help`` (or a command line refused before any work) does
# not: the pipeline, the writers and the report with jinja2.
NOT_FOR_ANALYZE_HELP = ("fabula.pipeline", "fabula.corpus", "fabula.report", "fabula.annotation", "jinja2")


@pytest.mark.parametrize("args", [["--help"], ["--no-such-option", "x.txt"]])
def test_analyze_help_imports_no_analysis(args: list[str]) -> None:
    """``fabula analyze --help`` and a refused command line answer without importing
    `NOT_FOR_ANALYZE_HELP` (the command imports them when it runs)."""
    import subprocess
    import sys

    probe = (
        "import sys\nfrom fabula.cli import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in sys.modules if m.startswith({NOT_FOR_ANALYZE_HELP!r})))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, "analyze", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr
    if args == ["--help"]:
        assert "Analyse novels" in done.stdout
    else:
        assert "No such option" in done.stderr
