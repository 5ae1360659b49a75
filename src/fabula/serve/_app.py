"""The FastAPI application of ``fabula serve``: the JSON API (OpenAPI docs at ``/docs``) and the reading page.

Every content endpoint takes ``at`` (a reading position, as ``--at``/``--until`` in the CLI: ``45%``,
``chapter:12`` or a character offset) and returns nothing that ends after it: no text, offset, character,
name, quote or snippet from later in the book (see `fabula.serve._library` for how). Errors are JSON
``{"detail": "one line"}``: 404 for an id the server does not know, 422 for a malformed request (a bad
position among them), 502 when the LLM behind ``--llm`` fails or cannot be reached, 500 when the
server's LLM cache fails while it runs (with what to do), 400 for a ``Host``
header naming another machine while the server listens on loopback only.

Against DNS rebinding (a web page whose name is re-pointed at 127.0.0.1 reading the books, and with
``llm=true`` spending the user's LLM budget), a server bound to a loopback address answers only requests
whose ``Host`` is a loopback name (``localhost``, ``127.0.0.1``, ``[::1]``, any port). Every page carries a
Content-Security-Policy that allows only the server's own scripts, styles and API, as ``report.html``
allows none; ``/docs`` is a page of the server's own too (no CDN).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles

from fabula._version import __version__
from fabula.analysis import CharacterProfile
from fabula.errors import BackendError, CacheError, ConfigError, FabulaError
from fabula.serve._library import Library, Position, ServedBook, UnknownBook

STATIC = Path(__file__).parent / "static"

# the pages load only the server's own scripts and styles and talk only to its own API (no inline script,
# no third party, no framing): book text that slipped into markup could still run nothing
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def is_loopback(host: str) -> bool:
    """Whether a listening address or a ``Host`` name is this machine only (``localhost``, 127.0.0.0/8, ::1)."""
    name = host.strip().strip("[]").lower().rstrip(".")
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _host_name(header: str) -> str:
    """The name part of a ``Host`` header (``[::1]:8000`` → ``::1``, ``localhost:80`` → ``localhost``)."""
    header = header.strip()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


At = Annotated[
    str,
    Query(
        description="The reader's position: a percentage (45%), chapter:N (the end of chapter N) or a "
        "character offset. Nothing after it is returned.",
        examples=["30%"],
    ),
]


def create_app(library: Library, *, host: str = "127.0.0.1") -> FastAPI:
    """The application serving ``library`` (the caller owns it and closes it). ``host``: the address the
    server listens on; on a loopback address only loopback ``Host`` names are answered."""
    app = FastAPI(
        title="fabula serve",
        version=__version__,
        description="A spoiler-safe reading companion: the cast, character sheets, recaps, quotes and search "
        "of a novel as of the reader's position `at`, never anything after it.",
        docs_url=None,
        redoc_url=None,
    )
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    loopback_only = is_loopback(host)

    @app.middleware("http")
    async def guard(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        if loopback_only and not is_loopback(_host_name(request.headers.get("host", ""))):
            return JSONResponse(
                {"detail": "this server answers only to localhost, 127.0.0.1 or [::1] (Host header refused)"},
                status_code=400,
            )
        response = await call_next(request)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    @app.exception_handler(UnknownBook)
    def unknown(_request: Request, exc: UnknownBook) -> JSONResponse:
        return JSONResponse({"detail": exc.one_line()}, status_code=404)

    @app.exception_handler(CacheError)
    def cache_failed(_request: Request, exc: CacheError) -> JSONResponse:
        # the server's own file failed, not the request: 500, with advice for a running server
        where = f"{exc.where}: " if exc.where else ""
        return JSONResponse({"detail": f"{where}{exc.failure}: {exc.server_advice}"}, status_code=500)

    @app.exception_handler(FabulaError)
    def bad_input(_request: Request, exc: FabulaError) -> JSONResponse:
        # a failing or unreachable LLM is the upstream's fault, not the request's: 502, as a gateway says
        status = 502 if isinstance(exc, BackendError) else 422
        return JSONResponse({"detail": exc.one_line()}, status_code=status)

    @app.exception_handler(RequestValidationError)
    def malformed(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error.get('loc', ()) if p != 'query')}: {error.get('msg', '')}"
            for error in exc.errors()
        )
        return JSONResponse({"detail": problems or "malformed request"}, status_code=422)

    def opened(book_id: str, at: str) -> tuple[ServedBook, Position]:
        served = library.get(book_id)
        try:
            return served, served.position(at)
        except ConfigError as exc:
            raise ConfigError(exc.problem, "at") from exc

    @app.get("/", include_in_schema=False)
    def library_page() -> Response:
        if len(library.books) == 1:  # one book: open it, not a library of one
            return RedirectResponse(f"/read/{next(iter(library.books))}", status_code=307)
        return FileResponse(STATIC / "library.html")

    @app.get("/library", include_in_schema=False)
    def whole_library() -> FileResponse:
        return FileResponse(STATIC / "library.html")

    @app.get("/docs", include_in_schema=False)
    def api_docs() -> FileResponse:
        return FileResponse(STATIC / "docs.html")

    @app.get("/read/{book_id}", include_in_schema=False)
    def reading_page(book_id: str) -> FileResponse:
        library.get(book_id)
        return FileResponse(STATIC / "reader.html")

    @app.get("/api/books", summary="The books this server was given")
    def books() -> dict[str, Any]:
        return {"books": [served.status() for served in library.books.values()]}

    @app.get("/api/books/{book_id}", summary="One book: opens it, and says whether it is loaded")
    def book_status(book_id: str) -> dict[str, Any]:
        served = library.get(book_id)
        served.open()
        return {**served.status(), "llm": library.llm is not None}

    @app.get("/api/books/{book_id}/chapters", summary="The chapters begun before the position")
    def chapters(book_id: str, at: At) -> dict[str, Any]:
        served, position = opened(book_id, at)
        book = served.book()
        return {
            "at": position.at,
            "chapters": [
                {
                    "number": number,
                    "title": chapter.title,
                    "start": chapter.start,
                    "end": min(chapter.end, position.at),
                }
                for number, chapter in enumerate(book.chapters, start=1)
                if chapter.start < position.at
            ],
        }

    @app.get("/api/books/{book_id}/text", summary="The text of a range, cut at the position")
    def text(
        book_id: str,
        at: At,
        start: Annotated[
            int | None, Query(ge=0, description="First character (default: the body's).")
        ] = None,
        end: Annotated[
            int | None, Query(ge=0, description="End of the range (default and at most: at).")
        ] = None,
    ) -> dict[str, Any]:
        served, position = opened(book_id, at)
        book = served.book()
        first = book.body.start if start is None else start
        last = position.at if end is None else min(end, position.at)
        if first > last:
            raise ConfigError(f"start {first} is after the end of the range ({last})", "start")
        layer = book.paragraphs
        paragraphs = [
            [max(int(s), first), min(int(e), last)]
            for s, e in zip(layer.starts, layer.ends, strict=True)
            if s < last and e > first
        ]
        return {
            "at": position.at,
            "start": first,
            "end": last,
            "text": book.text[first:last],
            "paragraphs": paragraphs,
        }

    @app.get("/api/books/{book_id}/characters", summary="The cast as of the position")
    def characters(book_id: str, at: At) -> dict[str, Any]:
        served, position = opened(book_id, at)
        analysis = served.analysis(position)
        return {
            "at": position.at,
            "analysed_until": position.checkpoint,
            "characters": [_cast_entry(p) for p in analysis.characters if p.first_offset is not None],
            # names discovery left out of the cast at this checkpoint (never shown as a person in the text
            # read so far): where a reader missing one from the cast finds it
            "set_aside": [{"name": c.name, "mentions": c.mention_count} for c in analysis.book.set_aside],
        }

    @app.get("/api/books/{book_id}/characters/{character_id}", summary="A character sheet as of the position")
    def character(
        book_id: str,
        character_id: str,
        at: At,
        llm: Annotated[bool, Query(description="Add an LLM description (needs serve --llm).")] = False,
    ) -> dict[str, Any]:
        served, position = opened(book_id, at)
        if llm and library.llm is None:
            raise ConfigError("this server was started without --llm", "llm")
        sheet = served.sheet(position, character_id)
        generated = served.description(position, character_id, library.llm) if llm and library.llm else None
        return {"at": position.at, "analysed_until": position.checkpoint, **sheet, "generated": generated}

    @app.get(
        "/api/books/{book_id}/recap", summary="Previously on…: recap snippets for the passage at the position"
    )
    def recap(
        book_id: str, at: At, k: Annotated[int, Query(ge=1, le=20, description="How many snippets.")] = 5
    ) -> dict[str, Any]:
        served, position = opened(book_id, at)
        result = served.recap(position)
        return {
            "at": position.at,
            "analysed_until": position.checkpoint,
            "method": result["method"] if result else "reach-back",
            "target": result["target"] if result else None,
            "snippets": result["snippets"][:k] if result else [],
        }

    @app.get("/api/books/{book_id}/quotes", summary="Quotations before the position, with their speakers")
    def quotes(
        book_id: str,
        at: At,
        start: Annotated[int, Query(ge=0, description="Only quotes ending after this offset.")] = 0,
        end: Annotated[
            int | None, Query(ge=0, description="Only quotes starting before this offset.")
        ] = None,
    ) -> dict[str, Any]:
        served, position = opened(book_id, at)
        analysis = served.analysis(position)
        book = analysis.book
        names = {c.id: c.name for c in book.characters}
        stop = position.at if end is None else min(end, position.at)
        return {
            "at": position.at,
            "analysed_until": position.checkpoint,
            "quotes": [
                {
                    "start": q.start,
                    "end": q.end,
                    "speaker_id": q.speaker_id,
                    "speaker": names.get(q.speaker_id) if q.speaker_id else None,
                    "addressees": [names[a] for a in q.addressee_ids if a in names],
                }
                for q in book.quotes
                if q.end <= position.at and q.end > start and q.start < stop
            ],
        }

    @app.get("/api/books/{book_id}/search", summary="Passages before the position matching a query (BM25)")
    def search(
        book_id: str,
        at: At,
        q: Annotated[str, Query(min_length=1, max_length=500, description="Words to look for.")],
        k: Annotated[int, Query(ge=1, le=50, description="How many passages.")] = 10,
    ) -> dict[str, Any]:
        served, position = opened(book_id, at)
        from fabula.retrieval import search_passages

        hits = search_passages(served.search_index(), served.book(), q, k=k, until=position.at)
        return {
            "at": position.at,
            "query": q,
            "hits": [h.to_dict() for h in hits if h.unit.end <= position.at],
        }

    return app


def _cast_entry(profile: CharacterProfile) -> dict[str, Any]:
    from fabula.characters import shown_aliases

    return {
        "id": profile.id,
        "name": profile.name,
        "names": [
            profile.name,
            *sorted((a for a in profile.aliases if a != profile.name), key=lambda a: -profile.aliases[a]),
        ],
        "also": shown_aliases(profile.name, profile.aliases),  # each other name once, for display
        "gender": profile.gender,
        "first_offset": profile.first_offset,
        "first_chapter": profile.first_chapter,
        "mentions": profile.mention_count,
        "quotes": profile.quote_count,
    }
