"""The ``fabula`` command line. Each subcommand lives in its own small module and registers on `app`.

`main` imports only the module of the subcommand named on the command line (``fabula analyze`` never
loads the LLM, evaluation, server or training commands and what they import); ``fabula --help``, an
unknown command, or `app` itself (``from fabula.cli import app``) load every subcommand.
Errors that are the user's input (`fabula.errors.FabulaError`) print one line and exit non-zero.
"""

from __future__ import annotations

import gc
import importlib
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from fabula._parallel import allow_forking, cancel_ahead, quiet_sigint, start_ahead

# Each top-level command and the module that registers it, imported in this order (`fabula --help` lists
# the plain commands in it, then the groups).
COMMAND_MODULES = {
    "read": "_read",
    "search": "_search",
    "characters": "_characters",
    "analyze": "_analyze",
    "quotes": "_quotes",
    "describe": "_describe",
    "recognize": "_recognize",
    "anonymize": "_anonymize",
    "corpus": "_corpus",
    "eval": "_eval",
    "recap": "_recap",
    "probe": "_probe",
    "serve": "_serve",
    "train": "_train",
}


def load_commands(names: list[str] | None = None) -> None:
    """Import the subcommand modules of ``names`` (every command when None); each registers on `app`."""
    for name, module in COMMAND_MODULES.items():
        if names is None or name in names:
            importlib.import_module(f"fabula.cli.{module}")
    if names is None or "eval" in names:
        from fabula.cli import _eval

        _eval.register_task_commands()


def _command_named(argv: list[str]) -> str | None:
    """The subcommand ``argv`` runs, or None when it asks for the top-level help/version or names none."""
    if argv and argv[0] in COMMAND_MODULES:
        return argv[0]
    return None


def _show_warnings() -> None:
    """Library warnings (an LLM retry, a cache that could not be written) as ``fabula: warning: ...``."""
    from fabula.cli._app import stderr

    class _WarningLine(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            stderr.print(
                f"fabula: warning: {record.getMessage()}", markup=False, highlight=False, soft_wrap=True
            )

    logger = logging.getLogger("fabula")
    if not any(type(h).__name__ == "_WarningLine" for h in logger.handlers):
        logger.addHandler(_WarningLine(logging.WARNING))
        logger.propagate = False


#: what `fabula analyze` may read ahead: one book file, named on the command line
_BOOK_SUFFIXES = (".txt", ".epub")


def _read_ahead(args: list[str]) -> None:
    """``fabula analyze BOOK``'s process may use the second core (`fabula._parallel.allow_forking`): its book
    is read and segmented in a forked child (`fabula.book.read_ahead_record`) while this process imports
    the command line and the analysis (~0.3 s), and `fabula.book.load_book` takes it from there. Only for
    exactly one book file among the arguments (several books go to worker processes); a guess that does
    not match what the command asks for costs the other core's time, never a different result:
    `load_book` takes the book read ahead only for the same path, settings and unchanged file."""
    # numpy's BLAS would start a thread pool as it loads (one thread per core), and a process with threads
    # never forks (`can_fork`); the analysis multiplies only small matrices, which BLAS runs on one thread
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    allow_forking()
    if any(a in ("--help", "-h") or a.startswith("--engine") for a in args):
        return  # no analysis here, or not in this process
    books = [Path(a) for a in args[1:] if not a.startswith("-") and a.lower().endswith(_BOOK_SUFFIXES)]
    if len(books) == 1 and books[0].is_file():
        book = books[0]
        start_ahead(("load_book", str(book)), lambda: _read_book(book))


def _read_book(path: Path) -> object:
    """In the child `_read_ahead` forks: what `fabula.book.load_book` takes (imported here, not before
    the fork: this process has not loaded numpy yet)."""
    from fabula.book import read_ahead_record

    return read_ahead_record(path)


class _CtrlC(KeyboardInterrupt):
    """Ctrl-C in the ``fabula`` process (`main` installs `_on_ctrl_c` for it). A subclass on purpose:
    CPython remembers a plain KeyboardInterrupt that leaves any ``exec`` of a string (dataclasses and
    namedtuples build their methods so while modules load) and then ends the process by SIGINT at exit,
    status -2 instead of the 130 that fabula's one line promises, though fabula caught it; it compares the
    exception's type with KeyboardInterrupt exactly. ``except KeyboardInterrupt`` catches it as before."""


def _on_ctrl_c(signum: int, frame: object) -> None:
    raise _CtrlC


def _ctrl_c_again(unraisable: Any) -> None:
    """``sys.unraisablehook`` of the ``fabula`` process: a Ctrl-C raised where Python cannot pass an
    exception on (a weakref callback of the import system, a ``__del__``) was printed as "Exception
    ignored ... Traceback" and then lost, and the command ran on to the end. It is raised again, silently,
    10 ms later by a timer's signal: a signal handled now would raise it inside this hook, where Python
    reports it as lost again. Any other exception goes to Python's own hook."""
    if (
        isinstance(unraisable.exc_value, KeyboardInterrupt)
        and threading.current_thread() is threading.main_thread()
    ):
        signal.signal(signal.SIGALRM, _on_ctrl_c)
        signal.setitimer(signal.ITIMER_REAL, 0.01)
        return
    sys.__unraisablehook__(unraisable)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``fabula`` console script."""
    args = sys.argv[1:] if argv is None else argv
    if argv is None and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _on_ctrl_c)  # (a process started with Ctrl-C ignored keeps ignoring it)
        sys.unraisablehook = _ctrl_c_again
    command_named = _command_named(args)
    # imports make hundreds of thousands of objects and next to no garbage: the collector would walk
    # them ~90 times meanwhile (0.04-0.1 s CPU), so it waits until the commands are loaded
    collecting = gc.isenabled()
    gc.disable()
    # Ctrl-C while the CLI starts (its imports take a second or more on a busy machine; the book's
    # read-ahead child may exist already): one line and status 130, as Ctrl-C anywhere later, not a
    # traceback from the middle of an import or of the read-ahead's fork
    # Ctrl-C is held back until the modules are loaded: one that came while a C extension initialised
    # (numpy's) was turned into that module's ImportError, a traceback and status 1
    try:
        with quiet_sigint():
            if argv is None and command_named == "analyze":
                _read_ahead(args)  # before the imports below, while this process is the only thread
            from fabula.cli._app import click_command, interrupt_explained, stderr
            from fabula.errors import FabulaError

            load_commands(None if command_named is None else [command_named])
            _show_warnings()
    except KeyboardInterrupt:
        cancel_ahead()
        sys.stderr.write("fabula: interrupted\n")
        raise SystemExit(130) from None
    finally:
        if collecting:
            gc.enable()
    try:
        click_command().main(args=argv, prog_name="fabula")
    except FabulaError as exc:
        stderr.print(f"fabula: error: {exc.one_line()}", markup=False, highlight=False, soft_wrap=True)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        stderr.print("fabula: interrupted", markup=False)
        sys.exit(130)
    except SystemExit as exc:
        if exc.code == 130 and not interrupt_explained():  # Typer turns Ctrl-C into Exit(130), silently
            stderr.print(
                "fabula: interrupted (finished outputs are kept; LLM answers received so far are cached)",
                markup=False,
            )
        raise
    finally:
        cancel_ahead()  # a book read ahead that no one took (an up-to-date folder, a refused option)
        if argv is None:  # the console script: the process ends now
            # the interpreter's final garbage collections walk every object a book's analysis left
            # (0.15-0.25 s CPU on a 160K-word novel); frozen objects are skipped, and nothing is lost:
            # outputs are closed and renamed already, and exit handlers still run
            gc.freeze()


def __getattr__(name: str) -> Any:
    """`app`, `eval_app`, `click_command` and the rest of `fabula.cli._app`, with every subcommand
    registered (for tests and embedding: ``from fabula.cli import app``)."""
    if name.startswith("_"):  # a submodule not imported yet (``from fabula.cli import _eval``)
        raise AttributeError(f"module 'fabula.cli' has no attribute {name!r}")
    _app = importlib.import_module("fabula.cli._app")
    if hasattr(_app, name):
        load_commands()
        return getattr(_app, name)
    raise AttributeError(f"module 'fabula.cli' has no attribute {name!r}")


__all__ = ["COMMAND_MODULES", "app", "eval_app", "load_commands", "main"]
