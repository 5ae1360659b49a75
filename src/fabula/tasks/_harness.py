"""The one evaluation harness (this module gathers its parts: `_task` — what a task declares; `_run` —
`run_eval`; `_log` — the item and sample logs; `_aggregate` — the report's numbers): a task says how to list its items, how to run a method on one item and
which metrics it reports; `run_eval` does the rest for every task.

>>> @task("toy")                                             # doctest: +SKIP
... class Toy(Task):
...     description = "Count to three."
...     metrics = ["accuracy"]
...     def items(self): return [EvalItem(str(i), {}, i) for i in range(3)]
...     def run_item(self, item, llm): return ItemOutcome({"accuracy": 1.0})
>>> run_eval(get_task("toy")(), json_path="toy.json")       # doctest: +SKIP

What the harness does, so no task does it again:

* runs the items (``concurrency`` at a time when a model is used; LLM calls are cached by the LLM layer);
* records every item as one JSON line in ``OUT.items.jsonl`` beside the ``--json OUT`` report: id, groups,
  scores, parsed answer (``prediction``), details, seconds, and the model calls the item made (prompt
  hash, raw answer, cache hit, seconds; seen through `fabula.llm.record_calls`);
* resumes an interrupted run: when that log exists for the same task and settings and has no "complete"
  line, the items it holds are not run again, and the item that was cut off re-runs from the LLM cache,
  so no model call is repeated. A finished log is started afresh (a new run re-measures);
* turns an item that fails on bad input (an `InputError`) into a one-line entry in ``failed`` and scores
  the rest (a `ConfigError` or `BackendError` stops the run: no other item would fare better);
* runs on anonymised books (``anonymize``, ``--anonymize``): hands the task an `fabula.anonymize.Anonymizer`
  (`Task.anonymize_with`); the task renames each book with it and carries its gold spans and names
  over with the copy's offset map and name mapping, or refuses in one line (``anonymize_refusal``);
* aggregates: per-group means for each ``group_by`` key, ``mean`` (macro over novels when the task says
  ``macro_over = "novel"``, else over items), the task's optional ``micro``, in the one `EvalReport` layout;
* runs only the first ``limit`` items (``--limit N``, as lm-evaluation-harness's: to try a task or a
  model on a few items); the limit is one of the run's settings, so the report says so and only a run
  with the same limit resumes its log (`Task.limit` tells a task that checks more than its items);
* shows a progress bar (rich, on a terminal);
* with ``engine="ray"`` (tasks whose items group by novel, no model), runs each novel's items as one Ray
  task (`fabula._ray`, the plumbing ``fabula analyze --engine ray`` uses): the worker rebuilds the task
  from its class and options, so every novel is read once per worker; the driver writes the item log
  as each novel comes back, so the log, resuming and the report are those of the local engine.

Tasks register with ``@task("name")`` and declare `TaskOption`s; ``fabula eval NAME --option …`` is then
built from them with no CLI edit (``fabula eval --list`` lists the tasks).
"""

from fabula.tasks._aggregate import _aggregate, _group_entry
from fabula.tasks._log import LOG_VERSION, log_path_for, sample_lines
from fabula.tasks._run import ProgressFactory, check_engine, plain_progress, run_eval
from fabula.tasks._task import (
    TASKS,
    EvalItem,
    ItemOutcome,
    LlmUse,
    Task,
    TaskOption,
    get_task,
    task,
    task_names,
)

__all__ = [
    "LOG_VERSION",
    "TASKS",
    "EvalItem",
    "ItemOutcome",
    "LlmUse",
    "ProgressFactory",
    "Task",
    "TaskOption",
    "_aggregate",
    "_group_entry",
    "check_engine",
    "get_task",
    "log_path_for",
    "plain_progress",
    "run_eval",
    "sample_lines",
    "task",
    "task_names",
]
