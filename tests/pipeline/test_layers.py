"""The layering docs/architecture.md draws, checked on the source: the `Analysis` types sit below both the
pipeline and the report (neither imports the other), corpus output writing lives above both, and the
pipeline never turns an ``--llm`` spec string into a model (only the CLI parses specs)."""

from __future__ import annotations

import ast
import pickle
from pathlib import Path

from fabula.llm import LLMConfig, parse_llm_spec
from tests.conftest import ROOT

PACKAGE = ROOT / "src" / "fabula"


def imported_modules(package: str) -> dict[str, set[str]]:
    """Every fabula module each file of ``package`` imports (at any level, TYPE_CHECKING blocks included)."""
    found: dict[str, set[str]] = {}
    for path in sorted((PACKAGE / package).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
        found[str(path.relative_to(PACKAGE))] = {n for n in names if n.startswith("fabula")}
    return found


def offenders(package: str, forbidden: tuple[str, ...]) -> list[str]:
    return [
        f"{path} imports {name}"
        for path, names in imported_modules(package).items()
        for name in sorted(names)
        if name.startswith(forbidden)
    ]


def test_pipeline_and_report_do_not_import_each_other() -> None:
    assert offenders("pipeline", ("fabula.report", "fabula.corpus", "fabula.cli")) == []
    assert offenders("report", ("fabula.pipeline", "fabula.corpus", "fabula.cli")) == []
    # the Analysis types are below both
    assert any("fabula.analysis" in names for names in imported_modules("pipeline").values())
    assert any("fabula.analysis" in names for names in imported_modules("report").values())


def test_the_pipeline_never_parses_llm_specs() -> None:
    for path in sorted((PACKAGE / "pipeline").rglob("*.py")):
        calls = {
            node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Call)
        }
        assert not calls & {"get_llm", "parse_llm_spec"}, path


def test_a_parsed_llm_config_travels_to_workers_without_credentials_in_its_name() -> None:
    config = parse_llm_spec("openai:some-model@http://user:secret@127.0.0.1:9/v1", cache=False)
    assert isinstance(config, LLMConfig)
    assert (config.backend, config.model, config.base_url) == (
        "openai",
        "some-model",
        "http://user:secret@127.0.0.1:9/v1",
    )
    assert "secret" not in config.name and config.name == "openai:some-model@http://127.0.0.1:9/v1"
    assert pickle.loads(pickle.dumps(config)) == config  # worker processes and Ray tasks receive it


def test_corpus_output_writing_is_its_own_module() -> None:
    writers = imported_modules("corpus")
    assert "fabula.report" in writers["corpus/_write.py"]
    assert not (PACKAGE / "pipeline" / "_corpus.py").exists()
    assert Path(PACKAGE / "analysis.py").is_file()
