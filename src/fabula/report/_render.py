"""Rendering the self-contained ``report.html`` and ``index.html`` with Jinja2 (autoescape on).

Every piece of book text goes through Jinja's autoescaping, or — for the quote data the page's script
reads — into a ``<script type="application/json">`` block with ``<``, ``>`` and ``&`` written as JSON
escapes, so neither ``</script>`` nor ``<!--`` in a novel can end the block. The page carries a
Content-Security-Policy that allows no network at all and only the one inline script by its hash, so even
an escaping mistake could not run injected code or fetch anything.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

import orjson
from markupsafe import Markup

from fabula._version import __version__
from fabula.analysis import Analysis
from fabula.report._view import build_view

if TYPE_CHECKING:
    import jinja2

_JSON_ESCAPES = {
    ord("<"): "\\u003c",
    ord(">"): "\\u003e",
    ord("&"): "\\u0026",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}


@dataclass(slots=True)
class IndexEntry:
    """One book's line in ``index.html``."""

    stem: str
    source: str
    status: str  # done / skipped / failed
    summary: dict[str, Any] | None
    seconds: float
    error: str | None = None


def script_json(value: Any) -> Markup:
    """JSON safe to place inside ``<script type="application/json">``: cannot close the element or open a comment."""
    text = orjson.dumps(value).decode("utf-8")
    for char, escaped in _JSON_ESCAPES.items():  # str.replace per character: far faster than translate
        text = text.replace(chr(char), escaped)  # (no replacement holds another's character)
    return Markup(text)


def render_report(analysis: Analysis) -> str:
    """The whole report for one analysed book as one HTML string (no external resources)."""
    script = _asset("report.js")
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            view=build_view(analysis),
            css=Markup(_asset("report.css")),
            script=Markup(script),
            csp=_csp(script),
        )
    )


def prepare_report() -> None:
    """Load jinja2 and compile the report's template now, ahead of `render_report` (``fabula analyze`` does it
    while its book is read in a forked child; a report rendered in a forked child then starts with it)."""
    _environment().get_template("report.html.j2")


def render_index(entries: list[IndexEntry]) -> str:
    """``index.html`` linking the reports of several books."""
    return (
        _environment()
        .get_template("index.html.j2")
        .render(
            entries=entries,
            css=Markup(_asset("report.css")),
            csp=_csp(""),
            version=__version__,
            generated=f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        )
    )


def _csp(script: str) -> str:
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    script_src = f"'sha256-{digest}'" if script else "'none'"
    return (
        f"default-src 'none'; script-src {script_src}; style-src 'unsafe-inline'; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )


@cache
def _asset(name: str) -> str:
    return (resources.files("fabula.report") / "templates" / name).read_text(encoding="utf-8")


@cache
def _environment() -> jinja2.Environment:
    # imported at the first rendering (or `prepare_report`), not with `fabula.report`: what imports
    # `fabula.corpus` without writing a report does not load jinja2
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("fabula.report", "templates"),
        autoescape=True,  # every template here is HTML: escape everything not explicitly marked safe
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["script_json"] = script_json
    env.filters["thousands"] = lambda n: f"{n:,}" if isinstance(n, int) else n
    env.filters["percent"] = lambda x: f"{x:.0%}"
    env.bytecode_cache = _bytecode_cache(env)
    return env


def _bytecode_cache(env: jinja2.Environment, directory: str | None = None) -> jinja2.BytecodeCache | None:
    """Jinja2's own cache of compiled templates, in its private per-user folder of the system's temporary
    directory: compiling ``report.html.j2`` takes ~50 ms CPU, every process that writes a report.

    An entry is used only for the same template file with the same source (Jinja2 checks a SHA-1 of it),
    the same Jinja2 bytecode format and Python version, and — through the file names — the same options
    that shape the compiled code, so the page is the same as without the cache. None (compile each time)
    where that folder is unsafe or cannot be made; a cache file that cannot be read or written (a full or
    read-only temporary disk) is skipped, never an error of the report. ``directory``: another folder (tests).
    """
    import jinja2

    class QuietCache(jinja2.FileSystemBytecodeCache):
        def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            try:
                super().load_bytecode(bucket)
            except OSError:
                bucket.reset()

        def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
            with contextlib.suppress(OSError):
                super().dump_bytecode(bucket)

    shaping = (
        env.block_start_string,
        env.block_end_string,
        env.variable_start_string,
        env.variable_end_string,
        env.comment_start_string,
        env.comment_end_string,
        env.line_statement_prefix,
        env.line_comment_prefix,
        env.trim_blocks,
        env.lstrip_blocks,
        env.newline_sequence,
        env.keep_trailing_newline,
        env.autoescape,
        env.optimized,
        env.finalize,
        sorted(env.extensions),
        sorted(env.filters),
        sorted(env.tests),
    )
    digest = hashlib.sha1(repr(shaping).encode(), usedforsecurity=False).hexdigest()[:16]
    try:
        return QuietCache(directory, pattern=f"fabula-report-{digest}-%s.cache")
    except (RuntimeError, OSError):  # jinja2 refuses a folder another user owns or others can write
        return None
