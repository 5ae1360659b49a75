"""Corpus scale: `analyze_corpus` runs the pipeline over many novels into an output folder (resumable,
on worker processes or Ray) and writes each book's files; `fabula.corpus` sits above both
`fabula.pipeline` and `fabula.report`."""

from fabula._ray import ENGINES
from fabula.corpus._book import (
    COLLECTION_THRESHOLDS,
    MANIFEST_VERSION,
    AnalyzeSettings,
    BookJob,
    BookOutcome,
    analyze_to_folder,
    collect_rarely,
    fewer_collections,
    up_to_date,
)
from fabula.corpus._parquet import COLUMNS, TABLES, TableCounts, schema, write_parquet_tables
from fabula.corpus._run import CorpusInterrupted, analyze_corpus, expand_inputs, plan_jobs
from fabula.corpus._write import MANIFEST, OUTPUT_FILES, remove_stale_temporaries, write_index, write_outputs

__all__ = [
    "COLLECTION_THRESHOLDS",
    "COLUMNS",
    "ENGINES",
    "MANIFEST",
    "MANIFEST_VERSION",
    "OUTPUT_FILES",
    "TABLES",
    "AnalyzeSettings",
    "BookJob",
    "BookOutcome",
    "CorpusInterrupted",
    "TableCounts",
    "analyze_corpus",
    "analyze_to_folder",
    "collect_rarely",
    "expand_inputs",
    "fewer_collections",
    "plan_jobs",
    "remove_stale_temporaries",
    "schema",
    "up_to_date",
    "write_index",
    "write_outputs",
    "write_parquet_tables",
]
