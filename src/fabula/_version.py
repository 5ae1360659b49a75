"""fabula's version, and a digest of the installed code for keys of reusable outputs.

``__version__`` alone cannot tell two builds apart: a source checkout, an editable install or a local
change keep "0.1.0" while the analysis they compute changes (a retrained ranker, a new rule). Outputs that
are reused instead of computed again (`fabula analyze`'s "up to date", `fabula serve`'s disk cache) are
keyed on `code_digest` too, so a changed installation never serves results an older one made.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

__version__ = "0.1.0"

#: files of the package that can change what fabula computes (code, models, lexicons, prompts, templates)
_CODE_SUFFIXES = frozenset({".py", ".json", ".tsv", ".txt", ".toml", ".j2", ".html", ".js", ".css"})


@cache
def code_digest() -> str:
    """16 hex digits of SHA-256 over this installation's package files (names and bytes, sorted)."""
    return package_digest(Path(__file__).resolve().parent)


def package_digest(root: Path) -> str:
    """The digest of a package folder: every file with one of `_CODE_SUFFIXES`, outside ``__pycache__``."""
    digest = hashlib.sha256()
    files = sorted(
        p
        for p in root.rglob("*")
        if p.suffix in _CODE_SUFFIXES and "__pycache__" not in p.parts and p.is_file()
    )
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()[:16]
