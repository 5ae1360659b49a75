"""The ``fabula`` command line. Each subcommand lives in its own small module and registers on `app`.

Errors that are the user's input (`fabula.errors.FabulaError`) print one line and exit non-zero.
"""

from __future__ import annotations

import logging
import sys

# Ctrl-C while the CLI starts (its imports take a second or more on a busy machine): one line and status
# 130, as Ctrl-C anywhere later, not a traceback from the middle of an import
try:
    from fabula.cli._app import app, click_command, eval_app, interrupt_explained, stderr
    from fabula.errors import FabulaError

    # Subcommand modules register themselves on import; keep one line per module.
    from fabula.cli import _read  # noqa: F401  isort: skip
    from fabula.cli import _search  # noqa: F401  isort: skip
    from fabula.cli import _characters  # noqa: F401  isort: skip
    from fabula.cli import _analyze  # noqa: F401  isort: skip
    from fabula.cli import _quotes  # noqa: F401  isort: skip
    from fabula.cli import _describe  # noqa: F401  isort: skip
    from fabula.cli import _recognize  # noqa: F401  isort: skip
    from fabula.cli import _anonymize  # noqa: F401  isort: skip
    from fabula.cli import _corpus  # noqa: F401  isort: skip
    from fabula.cli import _eval

    from fabula.cli import _recap  # noqa: F401  isort: skip

    from fabula.cli import _probe  # noqa: F401  isort: skip
    from fabula.cli import _serve  # noqa: F401  isort: skip
    from fabula.cli import _train  # noqa: F401  isort: skip
except KeyboardInterrupt:
    sys.stderr.write("fabula: interrupted\n")
    raise SystemExit(130) from None


class _WarningLine(logging.Handler):
    """Library warnings (an LLM retry, a cache that could not be written) as ``fabula: warning: ...`` lines."""

    def emit(self, record: logging.LogRecord) -> None:
        stderr.print(f"fabula: warning: {record.getMessage()}", markup=False, highlight=False, soft_wrap=True)


def _show_warnings() -> None:
    logger = logging.getLogger("fabula")
    if not any(isinstance(h, _WarningLine) for h in logger.handlers):
        logger.addHandler(_WarningLine(logging.WARNING))
        logger.propagate = False


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``fabula`` console script."""
    _show_warnings()
    try:
        _eval.register_task_commands()
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


__all__ = ["app", "eval_app", "main"]
