"""`fabula analyze` collects garbage rarely while it analyses (`fewer_collections`), and gives a caller's
process its own collector settings back (the command line run in-process, as tests do)."""

from __future__ import annotations

import gc
from pathlib import Path

from fabula.corpus import COLLECTION_THRESHOLDS, fewer_collections
from tests.conftest import EXAMPLE_NOVEL, run_cli


def test_rare_collections_inside_the_block_and_the_callers_settings_after(tmp_path: Path) -> None:
    before = gc.get_threshold()
    assert before != COLLECTION_THRESHOLDS
    with fewer_collections():
        assert gc.get_threshold() == COLLECTION_THRESHOLDS
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
    assert run_cli("analyze", EXAMPLE_NOVEL, "-o", tmp_path) == 0
    assert (tmp_path / "alice_in_wonderland" / "report.html").is_file()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
