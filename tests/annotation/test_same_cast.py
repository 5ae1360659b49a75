"""Every command sees the same cast (issue 24's acceptance): ``fabula characters``, ``fabula quotes``,
``fabula analyze``, ``fabula eval characters`` and ``serve``'s cast at 100 % give the same characters —
ids, names, aliases, genders, mention counts — on three shared novels, because all of them get their
layers from the one declared pipeline (`fabula.annotation.annotate`: quotes before characters)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import pdnc_novel_dir, run_cli

NOVELS = ["DaisyMiller", "AlicesAdventuresInWonderland", "TheSportOfTheGods"]  # the three smallest


def _stdout(capture: pytest.CaptureFixture[bytes], *args: str | Path) -> bytes:
    capture.readouterr()
    assert run_cli(*args) == 0, args
    return capture.readouterr().out


def _cast(entries: list[dict[str, Any]]) -> dict[str, tuple[Any, ...]]:
    return {
        e["id"]: (
            e["name"],
            tuple(sorted(a for a, n in e["aliases"].items() if n)),
            e["gender"],
            e["mentions"],
        )
        for e in entries
    }


@pytest.mark.slow
@pytest.mark.parametrize("name", NOVELS)
def test_every_command_ships_the_same_cast(
    name: str, tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    novel = pdnc_novel_dir(name) / "novel_text.txt"

    listed = orjson.loads(_stdout(capsysbinary, "characters", novel, "--json"))["characters"]
    characters = _cast([{**c, "mentions": c["mention_count"]} for c in listed])
    assert len(characters) > 5

    assert run_cli("analyze", novel, "-o", tmp_path / "out") == 0
    (folder,) = [p for p in (tmp_path / "out").iterdir() if p.is_dir()]
    profiles = [orjson.loads(line) for line in (folder / "characters.jsonl").read_bytes().splitlines()]
    assert _cast([{**p, "mentions": p["mention_count"]} for p in profiles]) == characters

    quotes = [orjson.loads(line) for line in _stdout(capsysbinary, "quotes", novel).splitlines()]
    assert quotes == [orjson.loads(line) for line in (folder / "quotes.jsonl").read_bytes().splitlines()]
    names = {cid: entry[0] for cid, entry in characters.items()}
    assert all(names[q["speaker_id"]] == q["speaker"] for q in quotes if q["speaker_id"])

    # eval characters scores the same cast: its per-sample log names each gold character's cluster
    report = tmp_path / "characters.json"
    pdnc = novel.parent.parent
    assert run_cli("eval", "characters", "--pdnc", pdnc, "--novel", name, "--json", report) == 0
    _, *samples = [
        orjson.loads(line) for line in (tmp_path / "characters.samples.jsonl").read_bytes().splitlines()
    ]
    matched = [s for s in samples if s["matched"] is not None]
    assert matched
    for sample in matched:
        assert characters[sample["matched"]][0] == sample["matched_name"]
        assert characters[sample["matched"]][3] == sample["matched_mentions"]

    from fabula.serve import Library

    library = Library([novel])
    try:
        (served,) = library.books.values()
        analysis = served.analysis(served.position("100%"))
        serve_cast = _cast(
            [
                {
                    "id": p.id,
                    "name": p.name,
                    "aliases": p.aliases,
                    "gender": p.gender,
                    "mentions": p.mention_count,
                }
                for p in analysis.characters
            ]
        )
    finally:
        library.close()
    assert serve_cast == characters
