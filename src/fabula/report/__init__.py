"""Human-readable output: the self-contained HTML report of an analysed book, and a corpus index page."""

from fabula.report._render import IndexEntry, prepare_report, render_index, render_report, script_json
from fabula.report._view import build_view

__all__ = ["IndexEntry", "build_view", "prepare_report", "render_index", "render_report", "script_json"]
