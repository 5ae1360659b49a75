"""A book read ahead in a forked child (``fabula analyze BOOK``: `fabula.book.read_ahead_record`, started by the
CLI before its imports) is what `fabula.book.load_book` returns — the same book as reading it here — and only
for the same path, settings and unchanged file; a child whose reading warned is not used, so the warning
comes out in this process as without the read-ahead."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_NOVEL

needs_fork = pytest.mark.skipif(
    not sys.platform.startswith("linux") or len(os.sched_getaffinity(0)) < 2,
    reason="no second core to read ahead on (one core or not Linux)",
)

# what every script below starts with: the read-ahead as `fabula.cli` starts it, in a process with no
# other thread (BLAS on one thread; the test runner's own process has threads, so a fresh one runs it)
_START = """
import os, pickle, sys
from pathlib import Path
from fabula._parallel import allow_forking, start_ahead, take_ahead
allow_forking()
path = Path(sys.argv[1])

def read():
    from fabula.book import read_ahead_record
    return read_ahead_record(path)

def start():
    assert start_ahead(("load_book", str(path)), read)
"""


def _run(code: str, *args: str | Path) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _START + textwrap.dedent(code), *map(str, args)],
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "FABULA_FORK": "1"},  # whatever the machine's load
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


@needs_fork
def test_load_book_takes_the_book_read_ahead_and_it_is_the_book_read_here(tmp_path: Path) -> None:
    out = _run(
        """
        start()
        import fabula.book._load as load
        from fabula.book import load_book
        read_book_file = load.read_book_file
        load.read_book_file = None  # this process must not read the file itself
        book = load_book(path)
        load.read_book_file = read_book_file
        here = load_book(path)  # taken once: the second call reads
        print(book == here, book.meta == here.meta, len(book.tokens) == len(here.tokens) > 0)
        print(pickle.dumps(book.tokens.starts) == pickle.dumps(here.tokens.starts))
        """,
        EXAMPLE_NOVEL,
    )
    assert out.split() == ["True"] * 4


@needs_fork
def test_other_settings_or_a_changed_file_are_read_here(tmp_path: Path) -> None:
    book = tmp_path / "short.txt"
    book.write_text(EXAMPLE_NOVEL.read_text(encoding="utf-8")[:60_000], encoding="utf-8")
    out = _run(
        """
        import time
        from fabula.book import load_book
        start()
        print(load_book(path, max_bytes=10_000_000).meta.source == str(path))  # another limit: read here
        start()
        ahead = take_ahead(("load_book", str(path)))[1][2]
        start()
        time.sleep(1)
        text = path.read_text()
        path.write_text(text.replace("Alice", "Alicia"))  # changed after the child read it
        changed = load_book(path)
        print("Alicia" in changed.text, "Alicia" in ahead.text)
        """,
        book,
    )
    assert out.split() == ["True", "True", "False"]


@needs_fork
def test_a_warning_while_reading_comes_from_this_process_as_without_the_read_ahead(tmp_path: Path) -> None:
    out = _run(
        """
        import logging
        import fabula.book._load as load
        from fabula.book import load_book
        logging.basicConfig(format="warned here: %(message)s")
        book_from_text = load.book_from_text

        def warning(*args, **kwargs):
            logging.getLogger("fabula.book").warning("in pid %s", os.getpid())
            return book_from_text(*args, **kwargs)

        load.book_from_text = warning  # the child reads with it too (it is forked after this)
        start()
        load_book(path)
        print("parent", os.getpid())
        """,
        EXAMPLE_NOVEL,
    )
    lines = out.splitlines()
    parent = lines[0].split()[1]
    assert lines[1:] == [f"warned here: in pid {parent}"]  # once, from this process: the child's was not used
