"""``fabula serve``: a spoiler-safe reading companion in the browser and the JSON API behind it.

FastAPI and uvicorn are the optional extra ``fabula[serve]``, imported only when a server is made: the rest
of fabula (and ``fabula --help``) works without them. `Library` holds the books named on the command
line and computes everything position-limited (`fabula.serve._library`); `create_app` is the web
application (`fabula.serve._app`); `serve` runs it on uvicorn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fabula.errors import BackendError
from fabula.serve._library import (
    DEFAULT_CACHE_MB,
    GRID_PERCENT,
    Library,
    Position,
    ServedBook,
    UnknownBook,
    checkpoints,
)

if TYPE_CHECKING:
    from fastapi import FastAPI


def _require_extra() -> None:
    try:
        import fastapi  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise BackendError(
            "fabula serve needs FastAPI and uvicorn: install the optional extra with pip install 'fabula[serve]'",
            "serve",
        ) from exc


def create_app(library: Library, *, host: str = "127.0.0.1") -> FastAPI:
    """The web application for ``library`` listening on ``host`` (on loopback it answers only loopback
    ``Host`` names); `BackendError` naming the extra when FastAPI is missing."""
    _require_extra()
    from fabula.serve._app import create_app as make

    return make(library, host=host)


def serve(library: Library, *, host: str = "127.0.0.1", port: int = 8000, **uvicorn_options: Any) -> None:
    """Run the application on uvicorn until interrupted (binds to localhost unless told otherwise)."""
    app = create_app(library, host=host)
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning", **uvicorn_options)


__all__ = [
    "DEFAULT_CACHE_MB",
    "GRID_PERCENT",
    "Library",
    "Position",
    "ServedBook",
    "UnknownBook",
    "checkpoints",
    "create_app",
    "serve",
]
