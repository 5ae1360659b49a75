"""Task-level pipelines that compose the components: `analyze_book` (the ``fabula analyze`` job)."""

from fabula.pipeline._analyze import STAGES, ProgressCallback, analyze_book
from fabula.pipeline._model import Analysis, CharacterProfile, Partner
from fabula.pipeline._profiles import build_profiles, conversation_turns, lead_sentences

__all__ = [
    "STAGES",
    "Analysis",
    "CharacterProfile",
    "Partner",
    "ProgressCallback",
    "analyze_book",
    "build_profiles",
    "conversation_turns",
    "lead_sentences",
]
