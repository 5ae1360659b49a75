"""``fabula eval … --engine ray``: each novel's items as one Ray task on a local Ray instance (2 CPUs).
A no-LLM task (recognition with BM25) over three shared novels gives the local engine's report and
item log (timings aside), and a run cut off after one novel resumes without redoing it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from fabula.errors import ConfigError
from fabula.tasks import get_task, log_path_for, run_eval
from tests.conftest import PDNC_DIR, ROOT, run_cli

pytest.importorskip("ray")
NOVELS = ("ARoomWithAView", "TheMysteriousAffairAtStyles", "NorthangerAbbey")  # the 3 shortest in the set
PER_NOVEL = 4


@pytest.fixture(scope="module")
def questions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first four questions of each of three novels of data/recognize, book paths made absolute."""
    if not all((PDNC_DIR / n / "novel_text.txt").is_file() for n in NOVELS):
        pytest.skip(f"PDNC novels not found under {PDNC_DIR} (the shared data directory is absent)")
    source = ROOT / "data" / "recognize" / "questions.jsonl"
    kept: dict[str, list[str]] = {n: [] for n in NOVELS}
    for line in source.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        novel = Path(row["book"]).parent.name
        if novel in kept and len(kept[novel]) < PER_NOVEL:
            row["book"] = str(PDNC_DIR / novel / "novel_text.txt")
            kept[novel].append(json.dumps(row))
    path = tmp_path_factory.mktemp("questions") / "questions.jsonl"
    path.write_text("\n".join(line for lines in kept.values() for line in lines) + "\n", encoding="utf-8")
    return path


def _task(questions: Path) -> Any:
    return get_task("recognize")(data=questions, method="bm25")


def _timeless(value: Any) -> Any:
    """The value without wall times (the one thing two runs may differ in)."""
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def _log_by_id(json_path: Path) -> dict[str, Any]:
    lines = log_path_for(json_path).read_bytes().splitlines()
    records = [orjson.loads(line) for line in lines if line.endswith(b"}")]  # not a half-written line
    return {str(r["id"]): r for r in records if "id" in r}


@pytest.fixture(scope="module")
def local_report(questions: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("local") / "local.json"
    run_eval(_task(questions), json_path=out, progress=False)
    return out


def test_ray_gives_the_local_report_and_item_log(
    local_ray: object, questions: Path, local_report: Path, tmp_path: Path
) -> None:
    out = tmp_path / "ray.json"
    report = run_eval(_task(questions), json_path=out, progress=False, engine="ray")
    assert report.items == len(NOVELS) * PER_NOVEL
    assert _timeless(orjson.loads(out.read_bytes())) == _timeless(orjson.loads(local_report.read_bytes()))
    assert _timeless(_log_by_id(out)) == _timeless(_log_by_id(local_report))
    assert log_path_for(out).read_bytes().endswith(b'{"complete":true}\n')


def test_ray_resumes_a_run_cut_off_after_one_novel(
    local_ray: object, questions: Path, local_report: Path, tmp_path: Path
) -> None:
    out = tmp_path / "ray.json"
    run_eval(_task(questions), json_path=out, progress=False, engine="ray")
    lines = log_path_for(out).read_bytes().splitlines(keepends=True)
    first = orjson.loads(lines[1])["groups"]["novel"]
    kept = [
        lines[0],
        *(line for line in lines[1:] if orjson.loads(line).get("groups", {}).get("novel") == first),
    ]
    # cut off: one novel logged, then half a line of the next
    log_path_for(out).write_bytes(b"".join(kept) + lines[-2][:20])
    before = _log_by_id(out)
    assert len(before) == PER_NOVEL
    report = run_eval(_task(questions), json_path=out, progress=False, engine="ray")
    after = _log_by_id(out)
    redone = [i for i in after if i not in before]
    assert len(redone) == (len(NOVELS) - 1) * PER_NOVEL and all(after[i] == before[i] for i in before)
    assert report.items == len(NOVELS) * PER_NOVEL
    assert _timeless(orjson.loads(out.read_bytes())) == _timeless(orjson.loads(local_report.read_bytes()))


def test_the_cli_takes_an_engine_for_tasks_over_novels(
    local_ray: object, questions: Path, local_report: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cli.json"
    assert (
        run_cli(
            "eval", "recognize", "--data", questions, "--method", "bm25", "--json", out, "--engine", "ray"
        )
        == 0
    )
    assert _timeless(orjson.loads(out.read_bytes())) == _timeless(orjson.loads(local_report.read_bytes()))
    capsys.readouterr()
    assert run_cli("eval", "recognize", "--data", questions, "--ray-address", "auto") == 2
    assert "--ray-address needs --engine ray" in capsys.readouterr().err
    assert run_cli("eval", "recognize", "--data", questions, "--engine", "spark") == 2


def test_ray_refuses_what_it_cannot_run(questions: Path) -> None:
    from fabula.llm import get_llm

    model = get_llm("mock:{}")
    try:
        with pytest.raises(ConfigError, match="without a model"):
            run_eval(_task(questions), llm=model, progress=False, engine="ray")
    finally:
        model.close()
