"""Character discovery without a list (see `_passes` for the method and the table of passes)."""

from fabula.characters._discover._passes import (
    PASS_NAMES,
    PASSES,
    DiscoveredCast,
    Discovery,
    Pass,
    discover_cast,
    discover_characters,
    run_passes,
)

__all__ = [
    "PASSES",
    "PASS_NAMES",
    "DiscoveredCast",
    "Discovery",
    "Pass",
    "discover_cast",
    "discover_characters",
    "run_passes",
]
