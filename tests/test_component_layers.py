"""Layers point one way (docs/architecture.md): no component imports a task, the pipeline, the corpus
runner or the CLI, and the metrics import no task."""

from __future__ import annotations

import ast

from tests.conftest import ROOT

PACKAGE = ROOT / "src" / "fabula"
COMPONENTS = (
    "book",
    "characters",
    "quotes",
    "retrieval",
    "llm",
    "metrics",
    "datasets",
    "prompts",
    "describe",
    "recognition",
    "anonymize",
    "recap",
)
ABOVE = ("fabula.tasks", "fabula.pipeline", "fabula.corpus", "fabula.cli", "fabula.report", "fabula.serve")


def _imports(path: str) -> set[str]:
    names: set[str] = set()
    for file in sorted((PACKAGE / path).rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(f"{file.relative_to(PACKAGE)}: {node.module}")
            elif isinstance(node, ast.Import):
                names.update(f"{file.relative_to(PACKAGE)}: {a.name}" for a in node.names)
    return names


def test_components_import_nothing_above_them() -> None:
    offenders = [
        entry
        for component in COMPONENTS
        for entry in sorted(_imports(component))
        if entry.split(": ")[1].startswith(ABOVE)
    ]
    assert offenders == []


def test_tasks_import_no_cli_pipeline_or_backend() -> None:
    forbidden = ("fabula.cli", "fabula.pipeline", "fabula.corpus", "fabula.report", "fabula.llm._")
    offenders = [entry for entry in sorted(_imports("tasks")) if entry.split(": ")[1].startswith(forbidden)]
    assert offenders == []


def test_no_package_imports_another_package_s_private_modules() -> None:
    """Names used across packages are exported by the package (``fabula.book.split_sentences``)."""
    offenders = []
    for file in sorted(PACKAGE.rglob("*.py")):
        own = file.relative_to(PACKAGE).parts[0].removesuffix(".py")
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            modules: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            for module in modules:
                parts = module.split(".")
                if len(parts) < 3 or parts[0] != "fabula" or parts[1].startswith("_"):
                    continue  # fabula._files, fabula._registry: shared by every package
                if parts[1] != own and parts[2].startswith("_"):
                    offenders.append(f"{file.relative_to(PACKAGE)}: {module}")
    assert offenders == []


def test_the_fork_helper_sits_below_book() -> None:
    """`fabula.book` imports `fabula._parallel`, so that module imports nothing of fabula."""
    tree = ast.parse((PACKAGE / "_parallel.py").read_text(encoding="utf-8"))
    modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    modules |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
    assert sorted(m for m in modules if m and m.split(".")[0] == "fabula") == []
