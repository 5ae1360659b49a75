"""The code digest that keys reusable outputs: it changes with any code, model or lexicon file of the
package, and not with compiled bytecode."""

from __future__ import annotations

import shutil
from pathlib import Path

from fabula._version import code_digest, package_digest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "fabula"


def test_digest_follows_code_and_data_files_not_bytecode(tmp_path: Path) -> None:
    copy = tmp_path / "fabula"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    original = package_digest(copy)
    assert original == package_digest(PACKAGE) == code_digest()  # the same files, the same digest
    (copy / "__pycache__").mkdir(exist_ok=True)
    (copy / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"compiled")
    assert package_digest(copy) == original
    ranker = copy / "quotes" / "ranker.json"
    ranker.write_bytes(ranker.read_bytes() + b" ")  # a retrained model, same version number
    assert package_digest(copy) != original
    ranker.write_bytes(ranker.read_bytes()[:-1])
    assert package_digest(copy) == original
    (copy / "characters" / "_text.py").rename(copy / "characters" / "_text2.py")  # names count too
    assert package_digest(copy) != original
