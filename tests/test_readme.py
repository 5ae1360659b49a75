"""The README tells the truth: its Python example prints what it says it prints, and its test command is
the one `.ci/run` runs."""

from __future__ import annotations

import contextlib
import io
import os
import re

import pytest

from tests.conftest import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_python_example_prints_what_the_readme_shows() -> None:
    code = re.search(r"## Python\n\n```python\n(.*?)```\n\nprints\n\n```text\n(.*?)```", README, re.DOTALL)
    assert code is not None, "the README's Python example and its output block"
    output = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(output):
            exec(compile(code.group(1), "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert output.getvalue() == code.group(2)


def test_the_test_command_is_what_ci_runs() -> None:
    # CI installs quietly (pip's -q); otherwise the same lines
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").replace("pip install -q ", "pip install ")
    block = re.search(r"\*\*Install the test extras.*?```bash\n(.*?)```", README, re.DOTALL)
    assert block is not None
    readme_lines = [line.split("  #")[0].strip() for line in block.group(1).splitlines()]
    for line in readme_lines[1:]:  # the venv line differs only in who activates it
        assert line in ci, f"README runs {line!r}, .ci/run does not"
    last = ci.strip().splitlines()[-1]
    if last not in readme_lines:
        pytest.fail(f".ci/run ends with {last!r}, not in the README")


def test_every_dotted_name_the_docs_give_can_be_imported() -> None:
    """`fabula.recap.RANKERS` (docs/architecture.md) was not exported: a reader following the docs got an
    AttributeError. Every `fabula.x.y` in README.md and docs/ names a module or an attribute one has,
    except the entry-point group names a plug-in registers under (strings, not modules)."""
    import importlib

    sources = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    groups = set(
        re.findall(
            r'entry_point_group="([^"]+)"',
            "".join(p.read_text(encoding="utf-8") for p in (ROOT / "src").rglob("*.py")),
        )
    )
    unresolved = []
    for source in sources:
        for ref in sorted(
            set(re.findall(r"`(fabula(?:\.[A-Za-z_]\w*)+)", source.read_text(encoding="utf-8")))
        ):
            if ref in groups:
                continue
            parts = ref.split(".")
            for cut in range(len(parts), 0, -1):
                try:
                    found: object = importlib.import_module(".".join(parts[:cut]))
                    break
                except ImportError:
                    continue
            for name in parts[cut:]:
                if not hasattr(found, name):
                    unresolved.append(f"{source.name}: {ref}")
                    break
                found = getattr(found, name)
    assert not unresolved, unresolved
