"""Rendering the self-contained ``report.html`` and ``index.html`` with Jinja2 (autoescape on).

Every piece of book text goes through Jinja's autoescaping, or — for the quote data the page's script
reads — into a ``<script type="application/json">`` block with ``<``, ``>`` and ``&`` written as JSON
escapes, so neither ``</script>`` nor ``<!--`` in a novel can end the block. The page carries a
Content-Security-Policy that allows no network at all and only the one inline script by its hash, so even
an escaping mistake could not run injected code or fetch anything.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any

import jinja2
import orjson
from markupsafe import Markup

from fabula._version import __version__
from fabula.analysis import Analysis
from fabula.report._view import build_view

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
    return env
