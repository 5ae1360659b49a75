"""Writing outputs onto a full disk: every command that writes a file says so on one line naming the
file, exits non-zero and leaves no partial output (a real tmpfs that fills, not a mock)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli
from tests.disk import full_disk

ALICE = ROOT / "examples" / "alice_in_wonderland.txt"


@pytest.mark.parametrize(
    ("command", "name"),
    [("read", "book.json"), ("quotes", "quotes.jsonl"), ("anonymize", "anonymized")],
)
def test_a_full_disk_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, name: str
) -> None:
    with full_disk(tmp_path / "disk", "16k") as disk:
        code = run_cli(command, ALICE, "-o", disk / name)
        err = capsys.readouterr().err.strip()
        left = sorted(p.name for p in disk.rglob("*") if p.is_file())
    assert code == 2, err
    assert err.startswith("fabula: error:") and "No space left on device" in err and "\n" not in err, err
    assert str(disk / name) in err
    assert not left, left  # no partial file, no temporary file
