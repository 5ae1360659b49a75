"""A real uvicorn server on 127.0.0.1 (a free port the OS picks) running `fabula serve`'s app in a thread."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from fabula.serve import Library


@contextmanager
def running_server(library: Library) -> Iterator[str]:
    """The base URL of a live server for ``library``; stopped (and the library closed) on exit."""
    uvicorn = pytest.importorskip("uvicorn", reason="the 'serve' extra (uvicorn) is not installed")
    from fabula.serve import create_app

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    # a request still open when the test is done (one waiting for a hung model) is not waited for: the
    # join below waited out its 10 s for it
    config = uvicorn.Config(create_app(library), log_level="warning", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
        library.close()
