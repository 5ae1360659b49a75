"""The one registry behind methods, retrievers, tasks and metrics: duplicates, unknown names, lazy
modules and entry points."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest

from fabula import _registry
from fabula._registry import Registry
from fabula.errors import ConfigError


def test_register_get_names_and_contains() -> None:
    things: Registry[Any] = Registry("thing")

    @things.register("b")
    def b() -> str:
        return "b"

    things.add("a", len)
    assert things.names() == ["a", "b"]
    assert things.get("b") is b and "a" in things and "c" not in things and 3 not in things


def test_duplicate_name_is_an_error_unless_it_is_the_same_object() -> None:
    things: Registry[Any] = Registry("thing")
    things.add("x", len)
    things.add("x", len)  # the same definition again (a re-import) is fine
    with pytest.raises(ConfigError, match="thing 'x' is already registered"):
        things.add("x", abs)


def test_register_class_names_the_class_and_a_rejected_duplicate_keeps_its_name() -> None:
    kinds: Registry[type[Any]] = Registry("kind")

    @kinds.register_class("first")
    class First:
        name = ""

    class Second:
        name = "second"

    assert kinds.get("first") is First and First.name == "first"
    with pytest.raises(ConfigError, match="kind 'first' is already registered"):
        kinds.register_class("first")(Second)
    assert Second.name == "second" and kinds.names() == ["first"]


def test_every_class_registry_names_its_classes() -> None:
    from fabula.recap._rankers import RANKERS
    from fabula.recognition._methods import METHODS
    from fabula.retrieval._base import RETRIEVERS
    from fabula.tasks import TASKS

    for registry in (RANKERS, METHODS, RETRIEVERS, TASKS):
        for name, cls in registry.items():
            assert cls.name == name, (registry.kind, name)


def test_unknown_name_lists_the_available_ones_and_the_option() -> None:
    things: Registry[Any] = Registry("retriever", option="--retriever")
    things.add("bm25", len)
    with pytest.raises(ConfigError, match=r"--retriever: unknown retriever 'bm42' \(available: bm25\)"):
        things.get("bm42")


def test_lazy_module_is_imported_on_first_use_only() -> None:
    code = (
        "import sys\n"
        "from fabula.tasks import TASKS\n"
        "assert 'fabula.tasks.pdnc_quotes' not in sys.modules\n"
        "assert TASKS.get('quotes').name == 'quotes'\n"
        "assert 'fabula.tasks.pdnc_quotes' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_lazy_module_that_cannot_be_imported_leaves_the_name_unknown() -> None:
    registry: Registry[Any] = Registry("metric", lazy={"missing": "fabula.no_such_module"})
    with pytest.raises(ConfigError, match="unknown metric 'missing'"):
        registry.get("missing")
    assert registry.names() == []


def test_entry_points_add_entries(monkeypatch: pytest.MonkeyPatch) -> None:
    point = EntryPoint(name="plugged", value="fabula.metrics._classification:accuracy", group="fabula.test")
    monkeypatch.setattr(_registry, "entry_points", lambda group: [point] if group == "fabula.test" else [])
    registry: Registry[Any] = Registry("metric", entry_point_group="fabula.test")
    assert registry.get("plugged")([True, False]) == 0.5
    assert registry.names() == ["plugged"]


def test_attribution_methods_and_retrievers_share_it() -> None:
    from fabula.quotes import METHODS, attribution_method
    from fabula.retrieval import register_retriever

    with pytest.raises(ConfigError, match="already registered"):
        attribution_method("rules")(lambda book, **options: [])
    assert "rules" in METHODS.names()

    with pytest.raises(ConfigError, match="already registered"):

        @register_retriever("bm25")
        class Other:  # pragma: no cover - rejected before use
            name = ""


DISCOVERED: Registry[Any] = Registry("plug-in", packages=["fabula_test_plugins"])


def test_modules_of_a_package_register_themselves_when_a_name_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "fabula_test_plugins"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "_private.py").write_text("raise RuntimeError('private modules are not imported')\n")
    (package / "extra.py").write_text(
        "from tests.test_registry import DISCOVERED\nDISCOVERED.add('found', 42)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert DISCOVERED.get("found") == 42
    assert DISCOVERED.names() == ["found"]
