"""A persistent response cache: one SQLite file, WAL mode, safe with concurrent threads and processes.

Why our own: the request key must cover exactly backend, endpoint, model, messages and options (never
credentials), hits must cost well under a millisecond, and several ``fabula`` processes may share one
file. SQLite in WAL mode with a busy timeout gives all that from the standard library; the generic
caching libraries add nothing here.

Default location: ``$FABULA_CACHE_DIR/llm.sqlite``, else ``$XDG_CACHE_HOME/fabula/llm.sqlite``, else
``~/.cache/fabula/llm.sqlite``.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import orjson

from fabula.errors import CacheError, ConfigError

#: what `fabula serve` advises when its cache fails while it runs (`CacheError.server_advice`)
_RESTART = "stop the server, delete the file (only cached answers are lost) and start it again"

CACHE_FILE_NAME = "llm.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    request BLOB NOT NULL,
    response BLOB NOT NULL,
    created REAL NOT NULL
)
"""


def default_cache_dir() -> Path:
    """Where fabula keeps caches unless told otherwise (see the module docstring)."""
    if explicit := os.environ.get("FABULA_CACHE_DIR"):
        return Path(explicit).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "fabula"


def request_key(request: dict[str, Any]) -> str:
    """A stable hash of a request (sorted keys, exact strings)."""
    return hashlib.sha256(orjson.dumps(request, option=orjson.OPT_SORT_KEYS)).hexdigest()


class ResponseCache:
    """Maps a request (a JSON-able dict without secrets) to a stored JSON response."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        if self.path.is_dir():
            self.path = self.path / CACHE_FILE_NAME
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"cannot create the LLM cache directory ({exc.strerror})", self.path) from exc
        self._local = threading.local()
        self._connect()  # fail early on an unusable file

    def _connect(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            try:
                connection = sqlite3.connect(self.path, timeout=60.0, isolation_level=None)
                connection.execute("PRAGMA busy_timeout=60000")
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=NORMAL")
                connection.execute(_SCHEMA)
            except sqlite3.DatabaseError as exc:
                raise CacheError(
                    f"cannot open the LLM cache ({exc})",
                    self.path,
                    advice="delete the file (only cached answers are lost) or run with --no-cache",
                    server_advice=_RESTART,
                ) from exc
            self._local.connection = connection
        return connection

    def _execute(self, sql: str, parameters: tuple[Any, ...] = ()) -> Any:
        """One statement; a damaged file or a full disk becomes a one-line error naming the cache (its
        rows are lost to this run either way, and a half-written answer must not pass as cached)."""
        try:
            return self._connect().execute(sql, parameters).fetchone()
        except sqlite3.DatabaseError as exc:  # sqlite3.OperationalError ("disk is full") included
            reason = str(exc)
            if "full" in reason:
                advice = "free disk space, or set FABULA_CACHE_DIR to a folder on another disk"
                server_advice = "free disk space, then start the server again"
            else:
                advice = "delete the file (only cached answers are lost) or run with --no-cache"
                server_advice = _RESTART
            raise CacheError(
                f"the LLM cache failed ({reason})", self.path, advice=advice, server_advice=server_advice
            ) from exc

    def check(self) -> None:
        """Read every page of the file (SQLite's ``quick_check``): a damaged page, which opening the file
        does not notice, becomes a `ConfigError` now instead of at the first lookup that meets it. For a
        long-running command (``fabula serve``), where a failure at the first lookup only shows in the
        browser; it reads the whole file, so one-shot commands leave it to that first lookup."""
        try:
            rows = self._connect().execute("PRAGMA quick_check").fetchall()
        except sqlite3.DatabaseError as exc:
            rows = [(str(exc),)]
        problems = [
            line
            for row in rows
            for line in str(row[0]).splitlines()
            if line != "ok" and not line.startswith("***")  # "*** in database main ***" heads a list
        ]
        if problems:
            more = ", and more" if len(problems) > 1 else ""
            raise ConfigError(
                f"the LLM cache is damaged ({problems[0]}{more}): delete the file (only cached answers "
                "are lost)",
                self.path,
            )

    def get(self, key: str) -> Any | None:
        row = self._execute("SELECT response FROM responses WHERE key = ?", (key,))
        if row is None:
            return None
        try:
            return orjson.loads(row[0])
        except orjson.JSONDecodeError as exc:
            raise CacheError(
                "the LLM cache holds a damaged answer",
                self.path,
                advice="delete the file (only cached answers are lost) or run with --no-cache",
                server_advice=_RESTART,
            ) from exc

    def put(self, key: str, request: dict[str, Any], response: Any) -> None:
        self._execute(
            "INSERT OR REPLACE INTO responses (key, backend, model, request, response, created) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                key,
                str(request.get("backend", "")),
                str(request.get("model", "")),
                orjson.dumps(request, option=orjson.OPT_SORT_KEYS),
                orjson.dumps(response),
                time.time(),
            ),
        )

    def __len__(self) -> int:
        return int(self._execute("SELECT COUNT(*) FROM responses")[0])

    def close(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None
