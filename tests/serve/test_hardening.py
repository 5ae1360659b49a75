"""``fabula serve`` against a hostile web page and a misbehaving LLM, over a real uvicorn server on
127.0.0.1: DNS rebinding (a foreign ``Host``) is refused before anything runs, every page carries a
Content-Security-Policy and loads nothing from elsewhere, one book opens that book, a failing model is a
502 that is not remembered, and a hung model call holds up no analysis."""

from __future__ import annotations

import contextlib
import re
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import orjson
import pytest

from fabula.serve import Library
from tests.conftest import pdnc_novel_dir
from tests.serve.server import running_server

pytest.importorskip("fastapi", reason="the 'serve' extra (FastAPI) is not installed")

NOVEL = "AlicesAdventuresInWonderland"


def fetch(url: str, host: str | None = None) -> tuple[int, dict[str, str], bytes]:
    """Status, headers and body of a GET, with ``host`` as the ``Host`` header when given (no redirects
    followed)."""

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=120) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def _quietly(url: str) -> None:
    """A GET whose answer does not matter (the server may be stopped under it)."""
    with contextlib.suppress(OSError):
        fetch(url)


@pytest.fixture(scope="module")
def novel() -> Path:
    return pdnc_novel_dir(NOVEL) / "novel_text.txt"


def test_a_foreign_host_header_is_refused_and_reaches_no_model(tmp_path: Path, novel: Path) -> None:
    """A page on rebind.attacker.example whose name now points at 127.0.0.1 gets a 400 for every path,
    and its ``llm=true`` requests never reach the model; loopback names in every form are answered."""
    from fabula.llm import get_llm
    from fabula.llm.testing import ScriptedOpenAIServer

    with ScriptedOpenAIServer("A girl.") as model_server:
        llm = get_llm(f"openai:test@{model_server.url}", cache=tmp_path / "llm.sqlite")
        with running_server(Library([novel], llm=llm)) as url:
            port = url.rsplit(":", 1)[1]
            api = f"{url}/api/books/{NOVEL}"
            for path in ("/", "/api/books", f"/api/books/{NOVEL}/characters/C1?at=30%25&llm=true", "/docs"):
                for host in ("rebind.attacker.example", f"rebind.attacker.example:{port}", "10.0.0.1"):
                    status, _, body = fetch(url + path, host=host)
                    assert status == 400, (path, host, status)
                    assert b"Host" in body
            for host in (f"localhost:{port}", f"127.0.0.1:{port}", "localhost", f"[::1]:{port}"):
                status, _, body = fetch(f"{api}/chapters?at=10%25", host=host)
                assert status == 200, (host, body[:200])
        assert model_server.requests == 0


def test_pages_carry_a_csp_and_load_nothing_from_elsewhere(novel: Path) -> None:
    with running_server(Library([novel])) as url:
        for path in ("/library", f"/read/{NOVEL}", "/docs"):
            status, headers, body = fetch(url + path)
            assert status == 200, path
            policy = headers["content-security-policy"]
            assert "default-src 'none'" in policy and "script-src 'self'" in policy
            assert "unsafe-inline" not in policy
            page = body.decode()
            assert not re.search(r"(?:src|href)=\"(?:https?:)?//", page), f"{path} loads from elsewhere"
            for script in re.findall(r'src="(/static/[^"]+)"', page):
                status, _, code = fetch(url + script)
                assert status == 200 and b"http" not in code.replace(b"/openapi.json", b""), script
        status, _, spec = fetch(url + "/openapi.json")
        assert status == 200 and orjson.loads(spec)["paths"]


def test_one_book_opens_that_book(novel: Path, tmp_path: Path) -> None:
    with running_server(Library([novel])) as url:
        status, headers, _ = fetch(url + "/")
        assert status in (302, 303, 307) and headers["location"] == f"/read/{NOVEL}"
    other = tmp_path / "other.txt"
    other.write_text(novel.read_text(encoding="utf-8"), encoding="utf-8")
    with running_server(Library([novel, other])) as url:
        status, _, page = fetch(url + "/")
        assert status == 200 and b"/static/library.js" in page


def test_a_failing_model_is_a_502_and_is_asked_again(tmp_path: Path, novel: Path) -> None:
    """The model rejects the first request: 502 with the reason; once it answers, the next request gets
    the description (the failure was not kept for the server's lifetime)."""
    from fabula.llm import get_llm
    from fabula.llm.testing import ScriptedOpenAIServer

    with ScriptedOpenAIServer("A curious girl.", fail_with=[400]) as model_server:
        llm = get_llm(f"openai:test@{model_server.url}", cache=tmp_path / "llm.sqlite")
        with running_server(Library([novel], llm=llm)) as url:
            sheet = f"{url}/api/books/{NOVEL}/characters/C1?at=30%25&llm=true"
            status, _, body = fetch(sheet)
            assert status == 502, body[:300]
            assert b"model" in body
            status, _, body = fetch(sheet)
            assert status == 200, body[:300]
            assert orjson.loads(body)["generated"]["text"] == "A curious girl."


def test_an_unreachable_model_is_a_502(tmp_path: Path, novel: Path) -> None:
    import socket

    from fabula.llm import get_llm

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    llm = get_llm(f"openai:test@http://127.0.0.1:{port}/v1", cache=tmp_path / "llm.sqlite", timeout=5)
    with running_server(Library([novel], llm=llm)) as url:
        status, _, body = fetch(f"{url}/api/books/{NOVEL}/characters/C1?at=30%25&llm=true")
    assert status in (502, 503), (status, body[:300])


@pytest.mark.slow
def test_a_hung_model_call_holds_up_no_analysis(tmp_path: Path, novel: Path) -> None:
    """While a description waits for a model that does not answer, the cast at a new position (a new
    analysis) is answered at once."""
    from fabula.llm import get_llm
    from fabula.llm.testing import ScriptedOpenAIServer

    delay = 40.0
    with ScriptedOpenAIServer("late", delay=delay) as model_server:
        llm = get_llm(f"openai:test@{model_server.url}", cache=tmp_path / "llm.sqlite", timeout=120)
        with running_server(Library([novel], llm=llm)) as url:
            api = f"{url}/api/books/{NOVEL}"
            assert fetch(f"{api}/characters?at=30%25")[0] == 200
            hung = threading.Thread(
                target=_quietly, args=(f"{api}/characters/C1?at=30%25&llm=true",), daemon=True
            )
            hung.start()
            deadline = time.monotonic() + 30
            while model_server.requests == 0 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert model_server.requests >= 1, "the description never asked the model"
            started = time.monotonic()
            status, _, body = fetch(f"{api}/characters?at=70%25")
            waited = time.monotonic() - started
            assert status == 200, body[:300]
            assert waited < delay - 10, f"the cast waited {waited:.1f} s behind the model"


def _serve_process(novel: Path, cache: Path) -> tuple[Any, str]:
    """``fabula serve NOVEL`` as a terminal runs it (its own process group), once it answers HTTP."""
    import os
    import socket
    import subprocess
    import sys

    from tests.conftest import like_a_terminal_job

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "fabula", "serve", str(novel), "--port", str(port), "--cache", str(cache)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=like_a_terminal_job,
        env={**os.environ, "COLUMNS": "200"},
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            if fetch(base + "/api/books")[0] == 200:
                return process, base
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"fabula serve did not start: {process.communicate()[1].decode()[-2000:]}")
        time.sleep(0.1)


@pytest.mark.slow
@pytest.mark.parametrize("presses", [1, 2], ids=["once", "twice"])
def test_ctrl_c_while_a_book_is_analysed_exits_at_once(tmp_path: Path, presses: int) -> None:
    """Ctrl-C while a request waits for a long analysis ends the server within seconds with status 130
    and one line, no traceback (pressed twice as well)."""
    import os
    import signal
    import subprocess

    novel = pdnc_novel_dir("Emma") / "novel_text.txt"
    process, base = _serve_process(novel, tmp_path)
    api = f"{base}/api/books/Emma"
    waiting = threading.Thread(target=_quietly, args=(f"{api}/characters?at=95%25",), daemon=True)
    waiting.start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        status, _, body = fetch(api)
        if status == 200 and orjson.loads(body).get("analysing"):
            break
        time.sleep(0.1)
    else:
        process.kill()
        pytest.fail("the analysis never started")
    started = time.monotonic()
    for _ in range(presses):
        os.killpg(process.pid, signal.SIGINT)
        time.sleep(0.3)
    try:
        _, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        pytest.fail("Ctrl-C did not stop fabula serve within 30 s")
    took = time.monotonic() - started
    text = err.decode()
    assert process.returncode == 130, text
    assert "Traceback" not in text and "KeyboardInterrupt" not in text, text
    assert "interrupted" in text, text
    assert took < 15, f"took {took:.1f} s"


def _helpers(pid: int) -> list[int]:
    """The look-ahead helper processes (``fabula.serve._ahead``) whose parent is ``pid``."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) != pid:
                continue
            if b"fabula.serve._ahead import main" in (stat.parent / "cmdline").read_bytes():
                found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    with contextlib.suppress(OSError):
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) not in ("Z", "X")
    return False


@pytest.mark.slow
@pytest.mark.parametrize("how", ["ctrl-c", "sigkill"])
def test_the_look_ahead_process_ends_with_the_server(novel: Path, tmp_path: Path, how: str) -> None:
    """The helper that prepares the next checkpoint (started by the first answer) is gone within seconds
    of the server: stopped by Ctrl-C, or killed outright in the middle of its analysis."""
    import os
    import signal

    process, base = _serve_process(novel, tmp_path)
    try:
        status, _, _ = fetch(f"{base}/api/books/{NOVEL}/characters?at=40%25")
        assert status == 200
        deadline = time.monotonic() + 30
        while not (helpers := _helpers(process.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert helpers, "no look-ahead process was started"
        if how == "ctrl-c":
            os.killpg(process.pid, signal.SIGINT)
        else:
            process.kill()
        process.communicate(timeout=30)
        deadline = time.monotonic() + 5
        while any(_alive(pid) for pid in helpers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(pid) for pid in helpers)
    finally:
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
