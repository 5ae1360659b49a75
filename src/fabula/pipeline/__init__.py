"""Task-level pipelines that compose the components: `analyze_book` (the ``fabula analyze`` job).

The `Analysis` types live in `fabula.analysis` (below both this package and `fabula.report`); writing
outputs and running many books is `fabula.corpus`.
"""

from fabula.analysis import Analysis, CharacterProfile, Partner
from fabula.pipeline._analyze import STAGES, ProgressCallback, analyze_book, prepare_analysis
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
    "prepare_analysis",
]
