"""On-disk cache of retrieval indexes, built once per book and settings.

Layout: ``<root>/<content hash[:16]>/<retriever>-<key hash[:16]>/`` holding the retriever's files
plus ``manifest.json`` (the full key). ``root`` is ``indexes/`` in fabula's cache folder
(`default_cache_dir`: ``$FABULA_CACHE_DIR``, else ``$XDG_CACHE_HOME/fabula``, else ``~/.cache/fabula``). An index is written into a temporary folder and renamed into
place, so readers never see half an index; an unreadable or mismatching entry is deleted and rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from fabula._files import write_text_atomic
from fabula.retrieval._base import Retriever
from fabula.retrieval._units import Unit

log = logging.getLogger(__name__)
INDEX_FORMAT = 1  # bump when the on-disk layout of any retriever changes


def default_cache_dir() -> Path:
    """Where indexes are cached: ``indexes/`` in fabula's cache folder (`fabula.llm.default_cache_dir`:
    ``$FABULA_CACHE_DIR``, else ``$XDG_CACHE_HOME/fabula``, else ``~/.cache/fabula``), beside the LLM
    cache (it ignored ``$XDG_CACHE_HOME``, which the LLM cache honoured)."""
    from fabula.llm import default_cache_dir as fabula_cache_dir

    return fabula_cache_dir() / "indexes"


def units_digest(units: Sequence[Unit]) -> str:
    """Fingerprint of the unit spans, so a cached index is never paired with other units."""
    h = hashlib.sha256()
    for unit in units:
        h.update(f"{unit.start},{unit.end};".encode())
    return h.hexdigest()


def _entry_dir(root: Path, content_hash: str, name: str, key: dict[str, Any]) -> Path:
    digest = hashlib.sha256(json.dumps(key, sort_keys=True, default=str).encode()).hexdigest()
    return root / content_hash[:16] / f"{name}-{digest[:16]}"


def cached_index(
    retriever: Retriever,
    units: Sequence[Unit],
    *,
    content_hash: str,
    unit_key: dict[str, Any],
    cache_dir: Path | None = None,
    on_build: Callable[[], None] | None = None,
) -> Retriever:
    """Load ``retriever``'s index for these units from the cache, or build it and store it."""
    if not retriever.cacheable:
        retriever.index(units)
        return retriever
    root = cache_dir or default_cache_dir()
    key = {
        "format": INDEX_FORMAT,
        "book": content_hash,
        "retriever": retriever.name,
        "settings": retriever.settings(),
        "units": unit_key,
        "unit_spans": units_digest(units),
    }
    folder = _entry_dir(root, content_hash, retriever.name, key)
    manifest = folder / "manifest.json"
    if manifest.is_file():
        try:
            if json.loads(manifest.read_text(encoding="utf-8")) != json.loads(json.dumps(key, default=str)):
                raise ValueError("manifest does not match")
            retriever.load(folder, units)
            return retriever
        except Exception as exc:  # a corrupt cache is rebuilt, never fatal
            log.warning("rebuilding unreadable index cache %s (%s)", folder, exc)
            shutil.rmtree(folder, ignore_errors=True)
    if on_build is not None:
        on_build()
    retriever.index(units)
    _store(retriever, folder, key)
    return retriever


def _store(retriever: Retriever, folder: Path, key: dict[str, Any]) -> None:
    """Write into a temporary sibling folder, then rename it into place (atomic on one file system)."""
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    except OSError as exc:
        log.warning("cannot write index cache under %s (%s); continuing without it", folder.parent, exc)
        return
    try:
        retriever.save(tmp)
        write_text_atomic(tmp / "manifest.json", json.dumps(key, sort_keys=True, default=str))
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(tmp, folder)
    except OSError as exc:
        log.warning("cannot write index cache %s (%s); continuing without it", folder, exc)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
