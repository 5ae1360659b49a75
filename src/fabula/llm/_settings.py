"""Settings of the LLM layer that the command line needs without importing the layer itself (and pydantic):
``fabula analyze`` without ``--llm`` shows them in its help but never opens a model."""

from __future__ import annotations

DEFAULT_TIMEOUT = 120.0  # seconds one request may take before it counts as failed (and is retried)
# how structured answers are asked for: auto = the strongest mode the endpoint accepts (see `OpenAILLM`),
# schema = a JSON Schema (`response_format` json_schema, a llama.cpp grammar), json = a JSON object (with
# the schema attached where the backend takes it), off = no response_format (the prompt asks; strict parsing)
STRUCTURED_MODES = ("auto", "schema", "json", "off")
