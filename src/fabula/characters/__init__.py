"""Characters: gold character lists, and (issue 3) discovery, alias clustering and mentions."""

from fabula.characters._gold import load_character_list

__all__ = ["load_character_list"]
