"""Two ``fabula analyze`` runs on one output folder: the second is refused at once, in one line naming
the process that writes there, instead of mixing its outputs with the first's; the lock goes with the
process that held it, however it ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_cli

ALICE = ROOT / "examples" / "alice_in_wonderland.txt"
HOLD = (
    "import sys, time\n"
    "from fabula._files import folder_lock\n"
    "with folder_lock(sys.argv[1], 'fabula analyze'):\n"
    "    print('held', flush=True)\n"
    "    time.sleep(120)\n"
)


def test_a_second_run_on_a_folder_being_written_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(out)], stdout=subprocess.PIPE, env={**os.environ}
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"held"
        code = run_cli("analyze", ALICE, "-o", out, "--until", "5%")
        err = capsys.readouterr().err.strip()
        assert code == 2, err
        assert err.startswith("fabula: error:") and "\n" not in err, err
        assert f"process {holder.pid}" in err and "is writing to this folder" in err, err
        assert not any(p.is_dir() for p in out.iterdir())  # nothing written beside the other run
    finally:
        holder.send_signal(signal.SIGKILL)  # a killed holder: the kernel drops its lock
        holder.wait()
    assert run_cli("analyze", ALICE, "-o", out, "--until", "5%") == 0
