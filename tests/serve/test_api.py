"""The JSON API over a real uvicorn server on 127.0.0.1, on a real PDNC novel whose later chapters bring in
new characters: no endpoint returns anything (text, offset, name, quote, snippet) from after ``at``; ids
and paths from a request never reach the file system; malformed requests get a 4xx with a message."""

from __future__ import annotations

import re
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from fabula.book import Book, load_book, resolve_position
from fabula.serve import Library
from tests.conftest import pdnc_novel_dir, run_cli
from tests.serve.server import running_server

pytest.importorskip("fastapi", reason="the 'serve' extra (FastAPI) is not installed")

NOVEL = "AlicesAdventuresInWonderland"
OFFSET_KEYS = {"at", "start", "end", "first_offset", "analysed_until", "position"}


def get(url: str) -> tuple[int, Any]:
    """Status and JSON body of a GET (4xx/5xx included)."""
    try:
        with urllib.request.urlopen(url, timeout=120) as response:
            return response.status, orjson.loads(response.read())
    except urllib.error.HTTPError as exc:
        body = exc.read()
        return exc.code, orjson.loads(body) if body.startswith(b"{") else body.decode()


@pytest.fixture(scope="module")
def novel() -> Path:
    return pdnc_novel_dir(NOVEL) / "novel_text.txt"


@pytest.fixture(scope="module")
def book(novel: Path) -> Book:
    return load_book(novel)


@pytest.fixture(scope="module")
def base(novel: Path) -> Iterator[str]:
    with running_server(Library([novel])) as url:
        yield f"{url}/api/books/{NOVEL}"


def _flat(text: str) -> str:
    return " ".join(text.replace("_", "").split())


def _later_names(book: Book, at: int) -> set[str]:
    """Names of the whole book's characters that the text shows for the first time after ``at``."""
    from fabula.pipeline import analyze_book

    whole = analyze_book(book)
    later = set()
    for character in whole.book.characters:
        for name in {character.name, *character.aliases}:
            pattern = r"(?<!\w)" + r"\s+".join(re.escape(p) for p in name.split()) + r"(?!\w)"
            first = re.search(pattern, book.text)
            if len(name) > 3 and first is not None and first.start() >= at:
                later.add(name)
    return later


def _check(payload: Any, at: int, read: str, later: set[str], where: str) -> None:
    """Nothing in ``payload`` lies after ``at``: offsets, long texts (which must be text before ``at``), names."""
    dumped = orjson.dumps(payload).decode()
    for name in later:
        assert not re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", dumped), f"{where}: {name!r} leaked"

    def walk(node: Any, key: str = "") -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, k)
        elif isinstance(node, list):
            for item in node:
                walk(item, key)
        elif isinstance(node, int) and not isinstance(node, bool) and key in OFFSET_KEYS:
            assert node <= at, f"{where}: {key}={node} is after the position {at}"
        elif isinstance(node, str) and len(node) >= 40:
            for piece in node.split(" … "):  # a line joins its spans with " … "; long sentences end in "…"
                assert _flat(piece.removesuffix("…")) in read, (
                    f"{where}: not before the position: {piece[:80]!r}"
                )

    walk(payload)


def test_every_endpoint_is_spoiler_safe(base: str, book: Book) -> None:
    at = resolve_position(book, "30%")
    assert at is not None
    later = _later_names(book, at)
    assert len(later) >= 5, later  # the premise: later chapters bring in characters (Mock Turtle, Hatter…)
    read = _flat(book.text[:at])
    q = urllib.parse.quote("30%")

    status, chapters = get(f"{base}/chapters?at={q}")
    assert status == 200 and chapters["at"] == at
    assert 1 <= len(chapters["chapters"]) < len(book.chapters)
    _check(chapters, at, read, later, "chapters")

    status, text = get(f"{base}/text?at={q}&end={len(book.text)}")
    assert status == 200 and text["end"] == at
    assert text["text"] == book.text[text["start"] : at]
    _check({k: v for k, v in text.items() if k != "text"}, at, read, later, "text")

    status, cast = get(f"{base}/characters?at={q}")
    assert status == 200 and cast["analysed_until"] <= at
    names = {c["name"] for c in cast["characters"]}
    assert {"Alice", "the White Rabbit"} <= names or "Alice" in names
    _check(cast, at, read, later, "characters")
    for character in cast["characters"]:
        assert character["first_offset"] < at
        # `also` shows each other name once (the cast table's way); `names` keeps every form
        also = character["also"]
        assert set(also) <= set(character["names"]) - {character["name"]}
        keys = [n.lower().replace(".", "").removeprefix("the ") for n in [character["name"], *also]]
        assert len(keys) == len(set(keys)), also
        status, sheet = get(f"{base}/characters/{character['id']}?at={q}")
        assert status == 200, sheet
        assert sheet["name"] == character["name"]
        _check(sheet, at, read, later, f"sheet of {character['name']}")

    status, recap = get(f"{base}/recap?at={q}")
    assert status == 200 and recap["snippets"]
    assert recap["target"]["end"] <= at
    _check(recap, at, read, later, "recap")

    status, quotes = get(f"{base}/quotes?at={q}")
    assert status == 200 and quotes["quotes"]
    assert any(quote["speaker"] == "Alice" for quote in quotes["quotes"])
    _check(quotes, at, read, later, "quotes")

    for query in ("Alice rabbit", *sorted(later)[:5]):
        status, hits = get(f"{base}/search?at={q}&q={urllib.parse.quote(query)}")
        assert status == 200
        _check({"at": hits["at"], "hits": hits["hits"]}, at, read, later, f"search {query!r}")
        if query == "Alice rabbit":
            assert hits["hits"]


def test_positions_in_other_forms_and_the_cast_grows(base: str, book: Book) -> None:
    status, early = get(f"{base}/characters?at=chapter:1")
    assert status == 200 and early["at"] == book.chapters[0].end
    status, late = get(f"{base}/characters?at=100%25")
    assert status == 200 and late["at"] == book.body.end
    assert len(late["characters"]) > len(early["characters"])
    status, none = get(f"{base}/characters?at={book.body.start}")
    assert status == 200 and none["characters"] == []


def test_the_set_aside_names_at_a_position_come_from_the_text_before_it(base: str, book: Book) -> None:
    """The characters answer lists the names discovery set aside (never shown as a person) in the text up
    to its checkpoint, exactly as an analysis of that text alone sets them aside; the whole book's list
    is not shown early."""
    from fabula.pipeline import analyze_book

    answers = [get(f"{base}/characters?at={q}")[1] for q in ("chapter:1", "30%25", "100%25")]
    lists = [[(e["name"], e["mentions"]) for e in answer["set_aside"]] for answer in answers]
    for answer, shown in zip(answers, lists, strict=True):
        seen = analyze_book(book.truncated(answer["analysed_until"])).book
        assert shown == [(c.name, c.mention_count) for c in seen.set_aside]
    assert lists[-1] and lists[0] != lists[-1]  # the premise: some name is set aside only later


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("at=banana", "cannot read reading position"),
        ("at=150%25", "between 0% and 100%"),
        ("at=chapter:999", "chapter 999 does not exist"),
        ("", "at: Field required"),
    ],
)
def test_bad_positions_are_422_with_a_message(base: str, query: str, message: str) -> None:
    for endpoint in ("characters", "recap", "text", "quotes", "chapters", "characters/C1", "search?q=x"):
        sep = "&" if "?" in endpoint else "?"
        status, body = get(f"{base}/{endpoint}{sep}{query}")
        assert status == 422, (endpoint, body)
        assert message in body["detail"], (endpoint, body)


def test_search_never_answers_with_a_chapter_heading(base: str, book: Book) -> None:
    """ "CHAPTER III. A Caucus-Race and a Long Tale" is its own paragraph: a search for a chapter's words
    ranked the heading first."""
    status, body = get(f"{base}/search?at=100%25&q={urllib.parse.quote('chapter caucus race tale')}&k=10")
    assert status == 200 and body["hits"]
    headings = [(c.heading.start, c.heading.end) for c in book.chapters if c.heading is not None]
    assert not [h for h in body["hits"] if any(a <= h["start"] and h["end"] <= b for a, b in headings)]
    assert "Caucus-Race" in body["hits"][0]["text"] or "race" in body["hits"][0]["text"].lower()


def test_other_malformed_requests(base: str) -> None:
    status, body = get(f"{base}/text?at=50%25&start=999999999")
    assert status == 422 and "after the end of the range" in body["detail"]
    status, body = get(f"{base}/recap?at=50%25&k=0")
    assert status == 422 and "k" in body["detail"]
    status, body = get(f"{base}/characters/nobody?at=50%25")
    assert status == 404 and "no character 'nobody'" in body["detail"]
    status, body = get(f"{base}/characters/C1?at=50%25&llm=true")
    assert status == 422 and "without --llm" in body["detail"]


def test_only_named_books_are_served(base: str, novel: Path) -> None:
    root = base.split("/api/")[0]
    attempts = [
        "/api/books/..%2F..%2F..%2Fetc%2Fpasswd/text?at=10",
        "/api/books/%2Fetc%2Fpasswd?at=10",
        f"/api/books/{urllib.parse.quote(str(novel), safe='')}/text?at=10",
        "/api/books/novel_text.txt/text?at=10",
        "/static/..%2F..%2F..%2Fpyproject.toml",
        "/static/../../../../etc/passwd",
        "/read/..%2F..%2Fetc%2Fpasswd",
    ]
    for path in attempts:
        status, body = get(root + path)
        assert status == 404, (path, body)
        assert "root:" not in str(body) and "[project]" not in str(body)
    status, books = get(f"{root}/api/books")
    assert status == 200 and [b["id"] for b in books["books"]] == [NOVEL]
    assert all("/" not in b["file"] for b in books["books"])  # no path of the server's disk


def test_openapi_documents_every_endpoint(base: str) -> None:
    root = base.split("/api/")[0]
    status, spec = get(f"{root}/openapi.json")
    assert status == 200
    paths = spec["paths"]
    for endpoint in (
        "chapters",
        "text",
        "characters",
        "characters/{character_id}",
        "recap",
        "quotes",
        "search",
    ):
        operation = paths[f"/api/books/{{book_id}}/{endpoint}"]["get"]
        assert any(p["name"] == "at" and p["required"] for p in operation["parameters"]), endpoint


def test_a_missing_book_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli("serve", tmp_path / "missing.txt", "--port", "0") == 2
    err = capsys.readouterr().err
    assert "missing.txt" in err and "no such file" in err and len(err.strip().splitlines()) == 1


def test_without_the_extra_the_error_names_it(monkeypatch: pytest.MonkeyPatch, novel: Path) -> None:
    from fabula.errors import BackendError
    from fabula.serve import create_app

    monkeypatch.setitem(sys.modules, "fastapi", None)  # import fastapi now raises ImportError
    with pytest.raises(BackendError, match=r"pip install 'fabula\[serve\]'"):
        create_app(Library([novel]))


def test_llm_sheet_sees_only_text_before_the_position(tmp_path: Path, novel: Path, book: Book) -> None:
    """With --llm the sheet adds the model's description; every prompt holds only text before ``at``."""
    from fabula.llm import get_llm
    from fabula.llm.testing import ScriptedOpenAIServer

    at = resolve_position(book, "30%")
    assert at is not None
    later = _later_names(book, at)
    with ScriptedOpenAIServer("A curious girl who keeps changing size.") as model_server:
        llm = get_llm(f"openai:test@{model_server.url}", cache=tmp_path / "llm.sqlite")
        with running_server(Library([novel], llm=llm)) as url:
            base = f"{url}/api/books/{NOVEL}"
            status, sheet = get(f"{base}/characters/C1?at=30%25&llm=true")
            assert status == 200, sheet
            assert sheet["name"] == "Alice"
            assert sheet["generated"]["text"] == "A curious girl who keeps changing size."
            assert all(p["end"] <= at for p in sheet["generated"]["passages"])
        prompts = " ".join(
            str(message.get("content", "")) for body in model_server.bodies for message in body["messages"]
        )
    assert model_server.bodies and "Alice" in prompts
    assert not [name for name in later if re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", prompts)]


def test_checkpoint_analyses_are_kept_as_analyze_outputs(
    tmp_path: Path, novel: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second server on the same cache answers from the folders the first wrote, with the same JSON,
    without analysing anything."""
    import time

    import fabula.pipeline
    import fabula.recap

    urls = ("characters?at=30%25", "characters/C1?at=30%25", "recap?at=30%25", "quotes?at=30%25")
    with running_server(Library([novel], cache=tmp_path)) as url:
        first = {u: get(f"{url}/api/books/{NOVEL}/{u}") for u in urls}
        analysed_until = first[urls[0]][1]["analysed_until"]
        folder = tmp_path / f"{NOVEL}.until-{analysed_until}"
        deadline = time.monotonic() + 60
        while not (folder / "serve.json").is_file() and time.monotonic() < deadline:
            time.sleep(0.1)
    names = {"book.json", "characters.jsonl", "quotes.jsonl", "quotes.tsv", "report.html", "recap.json"}
    assert names | {"serve.json"} <= {p.name for p in folder.iterdir()}

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("analysed again")

    real_analyze, real_recap = fabula.pipeline.analyze_book, fabula.recap.recap

    monkeypatch.setattr(fabula.pipeline, "analyze_book", refuse)
    monkeypatch.setattr(fabula.recap, "recap", refuse)
    with running_server(Library([novel], cache=tmp_path)) as url:
        again = {u: get(f"{url}/api/books/{NOVEL}/{u}") for u in urls}
    assert again == first

    # the same version number with other code (a checkout, a local change): its folders are not reused
    from fabula._version import code_digest

    marker = orjson.loads((folder / "serve.json").read_bytes())
    assert marker["fabula_code"] == code_digest()
    (folder / "serve.json").write_bytes(orjson.dumps({**marker, "fabula_code": "0123456789abcdef"}))
    analysed: list[object] = []

    def count(*args: Any, **kwargs: Any) -> Any:
        analysed.append(args)
        return real_analyze(*args, **kwargs)

    monkeypatch.setattr(fabula.pipeline, "analyze_book", count)
    monkeypatch.setattr(fabula.recap, "recap", real_recap)
    with running_server(Library([novel], cache=tmp_path)) as url:
        assert get(f"{url}/api/books/{NOVEL}/{urls[0]}") == first[urls[0]]
    assert analysed  # analysed again, not read from the other build's folder
    assert all(status == 200 for status, _ in first.values())


def test_the_command_serves_on_localhost(tmp_path: Path, novel: Path) -> None:
    """``fabula serve BOOK`` as a user runs it: a process on 127.0.0.1 serving the library page and the API."""
    import socket
    import subprocess
    import time

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    command = [
        sys.executable,
        "-m",
        "fabula",
        "serve",
        str(novel),
        "--port",
        str(port),
        "--cache",
        str(tmp_path),
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                status, books = get(f"http://127.0.0.1:{port}/api/books")
                break
            except urllib.error.URLError:
                assert process.poll() is None and time.monotonic() < deadline, "fabula serve did not start"
                time.sleep(0.1)
        assert status == 200 and books["books"][0]["id"] == NOVEL
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/library", timeout=30) as response:
            page = response.read().decode()
        assert "/static/library.js" in page and response.headers["content-type"].startswith("text/html")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as response:
            assert response.url.endswith(f"/read/{NOVEL}")  # one book: the page opens it
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/read/{NOVEL}", timeout=30) as response:
            assert "/static/reader.js" in response.read().decode()
    finally:
        process.terminate()
        _, err = process.communicate(timeout=30)
    assert f"http://127.0.0.1:{port}/" in err.decode()


def test_checkpoints_never_pass_the_reader(novel: Path, book: Book) -> None:
    """The analysed position is the last grid point at or before the reader's: chapter ends and every 2 %."""
    from fabula.serve import GRID_PERCENT, checkpoints

    library = Library([novel])
    try:
        served = library.get(NOVEL)
        grid = checkpoints(book)
        assert {c.end for c in book.chapters} <= set(grid)
        assert len(grid) >= 100 // GRID_PERCENT
        for spec in ("0%", "1%", "29.9%", "30%", "chapter:3", "12345", "99.99%", "100%"):
            position = served.position(spec)
            assert position.checkpoint <= position.at
            assert position.checkpoint == max(g for g in grid if g <= position.at)
    finally:
        library.close()


def test_an_llm_cache_damaged_while_the_server_runs_is_a_500_with_what_to_do(
    tmp_path: Path, novel: Path
) -> None:
    """The cache file is damaged after the server opened it: a sheet with llm=true answered 422 ("malformed
    request") and advised --no-cache, an option serve does not have. Now 500 (the server's file, not the
    request), naming the file and saying to delete it and start the server again; no model call is made."""
    from fabula.llm import get_llm
    from fabula.llm.testing import ScriptedOpenAIServer

    cache = tmp_path / "llm.sqlite"
    with ScriptedOpenAIServer("A curious girl.") as model_server:
        llm = get_llm(f"openai:test@{model_server.url}", cache=cache)
        for part in (cache, cache.with_name(cache.name + "-wal"), cache.with_name(cache.name + "-shm")):
            if part.exists():
                part.write_bytes(b"not a database" * 512)
        with running_server(Library([novel], llm=llm)) as url:
            status, body = get(f"{url}/api/books/{NOVEL}/characters/C1?at=30%25&llm=true")
        assert model_server.bodies == []
    assert status == 500, body
    detail = body["detail"]
    assert detail.startswith(f"{cache}: ") and "start it again" in detail and "--no-cache" not in detail
