"""Tasks: one module per published protocol, built on the components (never on a backend)."""

from fabula.tasks._evaluation import EvalReport, mean_of

__all__ = ["EvalReport", "mean_of"]
