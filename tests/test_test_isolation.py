"""The tests run on a fabula cache folder of their own, never the user's (`tests/conftest.py`): a test
that read the real one depended on the user's cached indexes and LLM answers, one that wrote it changed
them (``fabula search`` and ``eval`` tests read and rewrote ``~/.cache/fabula/indexes``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import RealCacheGuard


def test_fabula_s_caches_are_the_session_s_folder(fabula_cache_dir: Path) -> None:
    from fabula.llm import default_cache_dir as llm_cache
    from fabula.retrieval import default_cache_dir as index_cache

    assert llm_cache() == fabula_cache_dir
    assert index_cache() == fabula_cache_dir / "indexes"
    assert Path.home() not in fabula_cache_dir.parents


def test_a_test_that_reaches_the_real_cache_is_refused_and_fails(
    real_fabula_cache_untouched: RealCacheGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without ``FABULA_CACHE_DIR`` fabula finds the user's cache; the guard refuses the access, and
    records it so that the test fails even when the code under test swallows the error."""
    from fabula.llm import default_cache_dir

    monkeypatch.delenv("FABULA_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    probe = default_cache_dir() / "indexes" / "no-such-entry"
    with pytest.raises(PermissionError, match="real fabula cache"):
        probe.open("rb")  # only read: were the guard broken, nothing would be made there
    assert real_fabula_cache_untouched.touched[-1:] == [f"open {probe}"]
    real_fabula_cache_untouched.touched.clear()  # refused as it must be: this test passes
