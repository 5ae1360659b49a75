"""What a new user meets first: the README's promises (``--until`` on every content command, one chapter
numbering), readable help and piped tables, and one-line errors for the wrong option or file."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

import orjson
import pytest
from rich.table import Table

from fabula.book import load_book
from fabula.cli import click_command  # fabula.cli's click_command: every subcommand registered
from fabula.cli._app import PipeAwareConsole
from fabula.errors import InputError
from fabula.tasks._evaluation import EvalReport
from tests.conftest import ROOT, run_cli_output

ALICE = ROOT / "examples" / "alice_in_wonderland.txt"
UNWRITABLE = Path("/sys/fabula-test")  # refused even to root (os.access says yes to root; sysfs does not)


_run = run_cli_output


def _commands() -> dict[str, object]:
    """Every leaf command of the CLI by its full name ("read", "eval quotes", ...)."""
    found: dict[str, object] = {}

    def walk(prefix: str, command: object) -> None:
        children = getattr(command, "commands", None)
        if isinstance(children, dict):
            for name, child in children.items():
                walk(f"{prefix} {name}".strip(), child)
        else:
            found[prefix] = command

    from fabula.cli import _eval

    _eval.register_task_commands()
    walk("", click_command())
    return found


def _content_commands() -> list[str]:
    """Commands that take a book: the ones the README says take --until."""
    return [
        name
        for name, command in _commands().items()
        if any(getattr(p, "name", "") in ("book_path", "books") for p in getattr(command, "params", []))
    ]


# --- --until on every content command ------------------------------------------------------------------


def test_every_content_command_takes_until_and_max_bytes() -> None:
    commands = _content_commands()
    assert {"read", "characters", "quotes", "search", "analyze"} <= set(commands)
    for name in commands:
        options = {o for p in _commands()[name].params for o in getattr(p, "opts", [])}  # type: ignore[attr-defined]
        assert {"--until", "--until-chapter", "--max-bytes"} <= options, name


def _chapter_end(number: int) -> int:
    return load_book(ALICE).chapters[number - 1].end


def test_read_until(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["read", ALICE, "--json", "--until", "chapter:2"], capsys)
    assert code == 0
    book = orjson.loads(out)
    assert book["until"] is not None and len(book["text"]) <= _chapter_end(2)
    assert "Queen" not in book["text"]
    code, out, _ = _run(["read", ALICE, "--until", "50%"], capsys)
    assert code == 0 and "read up to" in out


def test_characters_until(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["characters", ALICE, "--json", "--until", "chapter:2"], capsys)
    assert code == 0
    names = " ".join(c["name"] for c in orjson.loads(out)["characters"])
    assert "Alice" in names and "Queen" not in names and "Hatter" not in names


def test_quotes_until(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["quotes", ALICE, "--until", "chapter:1"], capsys)
    assert code == 0
    quotes = [orjson.loads(line) for line in out.splitlines()]
    assert quotes and max(q["end"] for q in quotes) <= _chapter_end(1)


def test_search_until(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    hits = tmp_path / "hits.json"
    code, _, _ = _run(
        ["search", ALICE, "Queen", "--until", "chapter:7", "--json", hits, "--no-index-cache"], capsys
    )
    assert code == 0
    payload = orjson.loads(hits.read_bytes())
    assert payload["hits"] and all(h["end"] <= _chapter_end(7) for h in payload["hits"])
    assert all(1 <= h["chapter"] <= 7 for h in payload["hits"])  # chapters numbered from 1, as shown


def test_analyze_until(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = _run(["analyze", ALICE, "-o", tmp_path, "--until", "chapter:2"], capsys)
    assert code == 0
    lines = (tmp_path / "alice_in_wonderland.until-chapter-2" / "quotes.jsonl").read_bytes().splitlines()
    assert lines and max(orjson.loads(line)["end"] for line in lines) <= _chapter_end(2)


# --- one chapter numbering -------------------------------------------------------------------------------


def test_first_chapter_is_chapter_one_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["characters", ALICE, "--json"], capsys)
    assert code == 0
    by_name = {c["name"]: c for c in orjson.loads(out)["characters"]}
    assert by_name["Alice"]["first_chapter"] == 1  # Alice is in chapter I (read --chapters: "1")
    assert by_name["the Hatter"]["first_chapter"] == 6  # first named in "CHAPTER VI. Pig and Pepper"
    code, out, _ = _run(["characters", ALICE], capsys)
    row = next(line for line in out.splitlines() if "| Alice |" in line)
    assert row.rstrip(" |").endswith("| 1")
    assert min(c["first_chapter"] for c in by_name.values() if c["first_chapter"] is not None) == 1


# --- help and tables that stay readable ----------------------------------------------------------------


@pytest.mark.parametrize("columns", ["80", "120"])
def test_help_wraps_instead_of_cutting(
    columns: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    for name, command in _commands().items():
        code, out, _ = _run([*name.split(), "--help"], capsys)
        assert code == 0, name
        for artefact in ("<bool>", "<path>", "<str>", "<int", "{BOOK", "…", "..."):
            if artefact == "..." and any(p.nargs != 1 for p in command.params):  # type: ignore[attr-defined]
                continue  # "BOOK..." is click's way to say "one or more"
            assert artefact not in out, (name, artefact)
        # a wrap after a word's hyphen ("llm-" / "windows") cuts no word: read it joined
        flat = re.sub(r"(?<=\w-) (?=\w)", "", " ".join(out.split()))
        for param in command.params:  # type: ignore[attr-defined]
            for option in getattr(param, "opts", []) if param.param_type_name == "option" else []:
                assert option in out, (name, option)
            help_text = " ".join((getattr(param, "help", None) or "").split())
            assert help_text in flat, (name, help_text)  # every word of the help, never cut
    code, out, _ = _run(["--help"], capsys)
    for name in ("read", "characters", "quotes", "search", "analyze", "eval"):
        assert f"  {name}  " in out
    assert "..." not in out.replace("[ARGS]...", "")  # command summaries are sentences, not cut


def test_piped_tables_keep_full_names(capsys: pytest.CaptureFixture[str]) -> None:
    report = EvalReport("pdnc-characters", ["recall", "merged_clusters", "merged_clusters_major"])
    report.add_novel(
        "TheSignOfTheFour", {"recall": 0.9, "merged_clusters": 0.1, "merged_clusters_major": 0.0}
    )
    report.add_novel("TheMysteriousAffairAtStyles", {"recall": 1.0, "merged_clusters": 0.0})
    out = io.StringIO()
    console = PipeAwareConsole(file=out, width=80)  # a file is not a terminal: as when piped
    report.print_table(console, counts=["gold_characters"])
    text = out.getvalue()
    header = next(line for line in text.splitlines() if line.startswith("| novel"))
    assert header.split(" | ")[1:4] == ["recall", "merged_clusters", "merged_clusters_major"]
    assert "| TheMysteriousAffairAtStyles | 100.0 |" in text and "…" not in text
    out = io.StringIO()
    terminal = PipeAwareConsole(file=out, width=60, force_terminal=True, color_system=None)
    report.print_table(terminal, counts=["gold_characters"])  # a narrow terminal: wrapped, never "reca…"
    assert "…" not in out.getvalue() and "TheMy" in out.getvalue() and "tStyl" in out.getvalue()
    table = Table("name", "note")
    table.add_row("[bold]x[/bold] | y", "plain")
    out = io.StringIO()
    PipeAwareConsole(file=out).print(table)
    assert "| x \\| y | plain |" in out.getvalue()  # markup rendered, pipes escaped


def test_character_table_piped_is_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["characters", ALICE, "--limit", "50"], capsys)
    assert code == 0
    assert "| rank | name | aliases | gender | mentions | names | first chapter |" in out
    assert "the White Rabbit" in out and "…" not in out.replace(" …", "")


# --- the wrong option, the wrong file ------------------------------------------------------------------


@pytest.mark.parametrize("method", ["hybrid", "llm", "llm-windows"])
def test_llm_method_without_a_model_names_the_method(
    method: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out_file = tmp_path / "q.jsonl"
    code, out, err = _run(["quotes", ALICE, "--method", method, "-o", out_file], capsys)
    assert code == 2 and out == "" and not out_file.exists()
    assert f"the {method} attribution method needs a model" in err and "--llm SPEC" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("command", ["characters", "quotes", "analyze", "describe"])
def test_a_file_that_is_not_prose_is_refused(
    command: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    extra = {"analyze": ["-o", str(tmp_path)], "describe": ["--all"]}.get(command, [])
    code, out, err = _run([command, ROOT / "pyproject.toml", *extra], capsys)
    assert code != 0
    assert ("analysed nothing" in out) if command == "analyze" else (out == "")
    assert "pyproject.toml: does not look like prose" in err and "% of its" in err
    code, out, _ = _run(["read", ROOT / "pyproject.toml"], capsys)
    assert code == 0 and "does not look like prose" in out  # read describes it, and warns


def test_novels_look_like_prose(pdnc_dir: Path) -> None:
    from fabula.book import book_from_text, prose_problem

    assert prose_problem(load_book(ALICE)) is None
    for novel in sorted(pdnc_dir.glob("*/novel_text.txt")):  # all 21, dialogue-heavy ones included
        assert prose_problem(load_book(novel)) is None, novel.parent.name
    dialogue = '"Which is it to-day?" I asked. "Morphine?"\n\n' * 30
    assert prose_problem(book_from_text(dialogue)) is None
    assert (
        prose_problem(book_from_text("第一章\n\n“你来了吗？”她问。他没有回答，只是笑了笑。\n" * 40)) is None
    )
    table = "\n".join(f'{i},{i * 3},name{i},"x y",2.5' for i in range(300))
    assert prose_problem(book_from_text(table)) is not None


@pytest.mark.parametrize("command", ["read", "characters", "quotes", "search", "analyze"])
def test_size_limit_names_an_option_the_command_takes(
    command: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    args: list[str | Path] = [command, ALICE, "--max-bytes", "100000"]
    args += ["Alice"] if command == "search" else ["-o", tmp_path] if command == "analyze" else []
    code, _, err = _run(args, capsys)
    assert code != 0
    assert "file is 140.9 KiB, more than the 97.7 KiB limit" in err and "--max-bytes" in err
    assert "Traceback" not in err and "No such option" not in err
    code, _, _ = _run([*args[:2], "--max-bytes", "200000", *args[4:]], capsys)
    assert code == 0


def _bad_outputs(tmp_path: Path) -> dict[str, Path]:
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    return {"read-only": UNWRITABLE / "out", "under a file": a_file / "sub"}


@pytest.mark.parametrize("where", ["read-only", "under a file"])
@pytest.mark.parametrize("command", ["read", "quotes", "search", "analyze"])
def test_unwritable_output_is_one_line_before_the_work(
    command: str, where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = _bad_outputs(tmp_path)[where]
    args: list[str | Path] = {
        "read": ["read", ALICE, "-o", target / "alice.json"],
        "quotes": ["quotes", ALICE, "-o", target / "quotes.jsonl"],
        "search": ["search", ALICE, "Alice", "--json", target / "hits.json", "--no-index-cache"],
        "analyze": ["analyze", ALICE, "-o", target],
    }[command]
    code, out, err = _run(args, capsys)
    assert code == 2, err
    assert err.strip().startswith("fabula: error: ") and (
        "cannot write" in err or "is a file, not a folder" in err
    )
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err
    assert out == ""  # refused before any work: nothing printed


def _corrupt_epub(tmp_path: Path) -> Path:
    from tests.book.test_epub import _write_epub

    path = _write_epub(tmp_path / "corrupt.epub", numbered=True)
    data = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as archive:
        info = next(i for i in archive.infolist() if i.filename.endswith("c1.xhtml"))
    assert info.compress_type == zipfile.ZIP_DEFLATED
    name_len = int.from_bytes(data[info.header_offset + 26 : info.header_offset + 28], "little")
    extra_len = int.from_bytes(data[info.header_offset + 28 : info.header_offset + 30], "little")
    start = info.header_offset + 30 + name_len + extra_len
    # the compressed bytes are garbage; the zip directory stays intact
    data[start : start + info.compress_size] = bytes([0xFF]) * info.compress_size
    path.write_bytes(bytes(data))
    return path


def test_corrupt_epub_data_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _corrupt_epub(tmp_path)
    with pytest.raises(InputError, match="not a readable EPUB"):
        load_book(path)
    code, _, err = _run(["read", path], capsys)
    assert code == 2 and "corrupt.epub: not a readable EPUB" in err and len(err.strip().splitlines()) == 1
    code, _, err = _run(["analyze", path, "-o", tmp_path / "out"], capsys)
    assert code != 0 and "not a readable EPUB" in err and "internal error" not in err


# --- display details a new user hit ------------------------------------------------------------------------


def test_recap_before_the_first_chapter_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["recap", ALICE, "--at", "50"], capsys)
    assert code == 0 and "None" not in out and "before the first chapter" in out, out


def test_search_shows_the_global_chapter_number_with_the_title(capsys: pytest.CaptureFixture[str]) -> None:
    """A book may hold three "CHAPTER VII"s (one per part): the title alone does not say which."""
    code, out, _ = _run(["search", ALICE, "verses the White Rabbit read", "-k", "1"], capsys)
    assert code == 0 and "| 12. CHAPTER XII" in out, out


def test_counts_agree_with_their_nouns_and_no_false_hundred_percent() -> None:
    from fabula.cli._analyze import _count
    from fabula.report._view import _share

    assert _count(1, "quotation") == "1 quotation" and _count(2049, "quotation") == "2,049 quotations"
    assert _share(1268, 1270) == "99.8%" and _share(1270, 1270) == "100%" and _share(0, 5) == "0%"
    assert _share(99_999, 100_000) == ">99.9%" and _share(1, 100_000) == "<0.1%"


def test_output_into_a_file_is_not_cut_at_80_columns(capsys: pytest.CaptureFixture[str]) -> None:
    """``fabula describe … > file``: each line whole (it was hard-wrapped at 80 columns)."""
    code, out, _ = _run(["describe", ALICE, "Alice"], capsys)
    assert code == 0 and max(len(line) for line in out.splitlines()) > 120, out[:400]


def test_recognize_help_shows_its_default_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["recognize", "--help"], capsys)
    assert code == 0
    commands = out.split("Commands:", 1)[1]
    assert "ask" in commands and "make" in commands, out


@pytest.mark.parametrize("module", ["fabula.cli._serve", "fabula.book", "numpy"])
def test_ctrl_c_while_the_cli_starts_is_one_line(module: str) -> None:
    """Ctrl-C lands in the middle of the CLI's imports (a second or more on a busy machine): status 130
    and one line, no traceback. The keypress is simulated at a fixed import, the only way to hit it every
    time: an import hook raises KeyboardInterrupt as Python does on SIGINT. ``fabula.book`` and numpy
    were imported by the package itself (``import fabula``, before the CLI's guard): a traceback."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "class CtrlC:\n"
        "    def find_spec(self, name, path, target=None):\n"
        f"        if name == {module!r}:\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, CtrlC())\n"
        "from fabula.cli import main\n"
        "main(['--help'])\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=120, check=False)
    err = done.stderr.decode()
    assert done.returncode == 130, err
    assert err.strip() == "fabula: interrupted", err


def test_every_subcommand_module_is_listed_for_lazy_loading() -> None:
    """`fabula.cli.main` imports only the module of the subcommand named (`COMMAND_MODULES`): a module
    that registers a command but is not listed there would never be loaded, and its command would vanish."""
    from fabula import cli

    helpers = {"__init__", "_app", "_options", "_progress"}
    modules = {p.stem for p in Path(cli.__file__).parent.glob("_*.py")} - helpers
    assert modules == set(cli.COMMAND_MODULES.values())
    assert set(click_command().commands) == set(cli.COMMAND_MODULES)
