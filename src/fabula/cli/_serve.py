"""``fabula serve BOOK|DIR…``: the reading companion in the browser, and its JSON API (``fabula[serve]``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fabula.book import DEFAULT_MAX_BYTES
from fabula.cli._app import app, stderr
from fabula.cli._options import LlmOption, MaxBytesOption, TimeoutOption
from fabula.llm import DEFAULT_TIMEOUT

EAGER_BOOKS = 4  # books loaded at start-up; the others load when first opened


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
    timeout: TimeoutOption = DEFAULT_TIMEOUT,
    max_bytes: MaxBytesOption = DEFAULT_MAX_BYTES,
) -> None:
    """Serve a spoiler-safe reading companion in the browser, and its JSON API.

    At http://HOST:PORT/ the text by chapter and, at the reader's position, the cast met so far, character
    sheets (with --llm also an LLM description), "previously on" recaps and quote speakers: never anything
    from later in the book. API documentation at /docs. Needs the optional extra: pip install 'fabula[serve]'.
    """
    from fabula.llm import CACHE_FILE_NAME, default_cache_dir
    from fabula.serve import Library, create_app

    folder = cache if cache is not None else default_cache_dir() / "serve"
    model = None
    if llm is not None:
        from fabula.llm import get_llm

        model = get_llm(llm, cache=folder / CACHE_FILE_NAME if cache else True, timeout=timeout)
    library = Library(paths, max_bytes=max_bytes, llm=model, cache=folder)
    for served in list(library.books.values())[:EAGER_BOOKS]:
        served.open()  # start reading now, while the web stack imports: the first page comes sooner
    application = create_app(library, host=host)
    import uvicorn

    stderr.print(
        f"fabula serve: {len(library.books)} book(s) at http://{host}:{port}/ (API docs: /docs); Ctrl-C stops",
        markup=False,
        highlight=False,
    )
    try:
        uvicorn.run(application, host=host, port=port, log_level="warning")
    finally:
        library.close()
