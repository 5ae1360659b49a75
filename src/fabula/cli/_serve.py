"""``fabula serve BOOK|DIR…``: the reading companion in the browser, and its JSON API (``fabula[serve]``)."""

from __future__ import annotations

import errno
import os
import signal
import socket
import sys
import threading
from pathlib import Path
from types import FrameType
from typing import Annotated, Any, NoReturn

import typer

from fabula._words import counted
from fabula.book import DEFAULT_MAX_BYTES
from fabula.cli._app import app, stderr
from fabula.cli._options import (
    ConcurrencyOption,
    LlmOption,
    MaxBytesOption,
    StructuredOption,
    TimeoutOption,
    open_llm,
    refuse_model_options_without_llm,
)
from fabula.errors import ConfigError
from fabula.llm import DEFAULT_TIMEOUT
from fabula.serve import DEFAULT_CACHE_MB

EAGER_BOOKS = 4  # books loaded at start-up; the others load when first opened
STOP_SECONDS = 3.0  # after Ctrl-C, how long the server may take to stop before the process just ends
SWITCH_SECONDS = 0.001  # the interpreter's thread switch interval while serving (Python's default: 0.005)


@app.command("serve")
def serve_command(
    paths: Annotated[
        list[Path],
        typer.Argument(
            metavar="BOOK|DIR...", help="Novels (.txt or .epub) or folders of them; only these are served."
        ),
    ],
    host: Annotated[
        str,
        typer.Option(
            "--host", metavar="ADDRESS", help="Address to listen on (localhost unless you say otherwise)."
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port to listen on.")] = 8000,
    llm: LlmOption = None,
    cache: Annotated[
        Path | None,
        typer.Option(
            "--cache",
            metavar="DIR",
            help="Folder for the analyses at each checkpoint (the fabula analyze outputs, one folder per position) and the LLM answers (default: fabula's cache folder, serve/ in it).",
        ),
    ] = None,
    cache_mb: Annotated[
        int,
        typer.Option(
            "--cache-mb",
            min=1,
            metavar="MB",
            help="Keep the checkpoint analyses in --cache under MB megabytes, removing the least recently used first.",
        ),
    ] = DEFAULT_CACHE_MB,
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    structured: StructuredOption = "auto",
    concurrency: ConcurrencyOption = None,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Serve a spoiler-safe reading companion in the browser, and its JSON API.

    At http://HOST:PORT/ the text by chapter and, at the reader's position, the cast met so far, character
    sheets (with --llm also an LLM description), "previously on" recaps and quote speakers: never anything
    from later in the book. API documentation at /docs. Needs the optional extra: pip install 'fabula[serve]'.
    """
    refuse_model_options_without_llm(llm, timeout=timeout, structured=structured, concurrency=concurrency)
    from fabula.llm import CACHE_FILE_NAME, default_cache_dir
    from fabula.serve import Library, create_app

    listener = _listen(host, port)  # before anything is announced or loaded
    port = listener.getsockname()[1]  # --port 0: the port the system gave
    try:
        folder = cache if cache is not None else default_cache_dir() / "serve"
        _usable_folder(folder)
        model = None
        if llm is not None:
            model = open_llm(
                llm,
                cache=folder / CACHE_FILE_NAME if cache else True,
                timeout=timeout,
                structured=structured,
                concurrency=concurrency,
            )
            if model.cache is not None:
                model.cache.check()  # a damaged page: one line now, not a 422 on each description
        library = Library(paths, max_bytes=max_bytes, llm=model, cache=folder, cache_mb=cache_mb)
        for served in list(library.books.values())[:EAGER_BOOKS]:
            served.open()  # start reading now, while the web stack imports: the first page comes sooner
        application = create_app(library, host=host)
        import uvicorn

        stderr.print(
            f"fabula serve: {counted(len(library.books), 'book')} at http://{_url_host(host)}:{port}/ "
            "(API docs: /docs); Ctrl-C stops",
            markup=False,
            highlight=False,
        )
        server = _Server(uvicorn.Config(application, host=host, port=port, log_level="warning"))
        # a request thread waiting for the interpreter lock held by background work (writing a checkpoint's
        # cache folder) gets it after 1 ms instead of 5: a request takes the lock a dozen times
        sys.setswitchinterval(SWITCH_SECONDS)
        # what is loaded is frozen and young objects collected every 50,000 allocations, as in `fabula
        # analyze`: a new checkpoint's analysis runs here, and the default thresholds walk it again and again
        from fabula.corpus import collect_rarely

        collect_rarely()
        try:
            server.run(sockets=[listener])
        except KeyboardInterrupt:
            pass  # uvicorn re-raises the Ctrl-C it caught once it has stopped serving
        finally:
            library.close()
    finally:
        listener.close()
    if server.interrupted.is_set():
        _exit_interrupted()


def _listen(host: str, port: int) -> socket.socket:
    """The server's socket, bound before the server says where it is: a port in use or an address that is
    not this machine's is one line and exit 2 (it was "fabula serve: … at http://HOST:PORT/", then
    uvicorn's "ERROR: … address already in use" and exit 3, the announced address another program's)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise ConfigError(
            f"cannot listen on {host!r}: {getattr(exc, 'strerror', None) or exc}", "--host"
        ) from None
    listener = socket.socket(family, kind, proto)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: restart at once
    try:
        listener.bind(address)
    except OSError as exc:
        listener.close()
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(
                f"port {port} on {host} is in use (another server?): choose another --port", "--port"
            ) from None
        raise ConfigError(f"cannot listen on {host} port {port}: {exc.strerror or exc}", "--host") from None
    listener.listen(2048)  # a browser opened at the announcement waits for the server instead of refused
    return listener


def _usable_folder(folder: Path) -> None:
    """The cache folder can be used: a folder (or one that can be made: its nearest existing parent is a
    folder) that can be written. A file in its place, or a folder that cannot be made or written, is one
    line at start-up (the server ran on, silently caching nothing); nothing is made here."""
    existing = next((path for path in (folder, *folder.parents) if path.exists()), None)
    if existing == folder and not folder.is_dir():
        raise ConfigError("the cache must be a folder, and this is a file", folder)
    if existing is None or not existing.is_dir():
        raise ConfigError(f"cannot make the cache folder ({existing} is a file)", folder)
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(
            f"cannot write into {'the cache folder' if existing == folder else existing}", folder
        )


def _url_host(host: str) -> str:
    """The host as a URL writes it: an IPv6 address in brackets."""
    return f"[{host}]" if ":" in host else host


def _exit_interrupted() -> NoReturn:
    """Say so and end the process now with status 130: a request may still wait on an analysis or a model
    call on a worker thread, which would hold up an ordinary exit until it finished (the disk cache is
    written atomically, a marker last, so nothing half-written is left behind)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C now changes nothing, prints nothing
    stderr.print("fabula: interrupted (fabula serve stopped)", markup=False)
    sys.stderr.flush()
    os._exit(130)


def _uvicorn_server() -> type:
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server that remembers a Ctrl-C and, if stopping takes longer than a moment (a request
        waiting for a long analysis), ends the process anyway."""

        def __init__(self, config: uvicorn.Config) -> None:
            super().__init__(config)
            self.interrupted = threading.Event()

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            if sig != signal.SIGINT:
                super().handle_exit(sig, frame)
            elif not self.interrupted.is_set():  # a second Ctrl-C would make uvicorn print tracebacks
                self.interrupted.set()
                super().handle_exit(sig, frame)
                stopper = threading.Timer(STOP_SECONDS, _exit_interrupted)
                stopper.daemon = True
                stopper.start()

    return Server


def _Server(config: Any) -> Any:
    return _uvicorn_server()(config)
