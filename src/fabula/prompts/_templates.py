"""Prompt templates: `PromptTemplate`, `load_prompt` and `list_prompts` (the package's TOML files)."""

from __future__ import annotations

import re
import string
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from fabula.errors import ConfigError
from fabula.llm import ChatMessage

PACKAGE = "fabula.prompts"

_NAME = re.compile(r"^[a-z0-9_]+(/[a-z0-9_]+)*$")


@dataclass(frozen=True, slots=True)
class PromptTemplate:
    """A versioned prompt: ``render(**vars)`` gives the user text, ``messages(**vars)`` the chat turns."""

    name: str
    version: str
    text: str
    system: str | None = None

    @property
    def placeholders(self) -> set[str]:
        found = set()
        for part in (self.text, self.system or ""):
            for match in string.Template.pattern.finditer(part):
                name = match.group("named") or match.group("braced")
                if name:
                    found.add(name)
        return found

    def render(self, **variables: object) -> str:
        """The user text with every placeholder filled (a missing one raises `ConfigError`)."""
        return _substitute(self.name, self.text, variables)

    def messages(self, **variables: object) -> list[ChatMessage]:
        """System (if any) and user messages, ready for `fabula.llm.LLM.generate`."""
        turns = []
        if self.system:
            turns.append(ChatMessage(role="system", content=_substitute(self.name, self.system, variables)))
        turns.append(ChatMessage(role="user", content=self.render(**variables)))
        return turns

    @property
    def id(self) -> str:
        """``name@version``, the form recorded in results."""
        return f"{self.name}@{self.version}"


def _substitute(name: str, text: str, variables: dict[str, object]) -> str:
    try:
        return string.Template(text).substitute({k: str(v) for k, v in variables.items()})
    except KeyError as exc:
        raise ConfigError(f"prompt needs a value for ${exc.args[0]}", f"prompt {name}") from exc


@lru_cache(maxsize=64)
def load_prompt(name: str) -> PromptTemplate:
    """The shipped template ``name`` (e.g. ``"quote_attribution/chunk"``)."""
    if not _NAME.match(name):
        raise ConfigError("malformed prompt name (use lower-case path parts like task/variant)", name)
    resource = resources.files(PACKAGE).joinpath(f"{name}.toml")
    if not resource.is_file():
        raise ConfigError("no such prompt template", name)
    try:
        data = tomllib.loads(resource.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"malformed prompt template ({exc})", name) from exc
    if not isinstance(data.get("text"), str) or not isinstance(data.get("version"), str):
        raise ConfigError("prompt template needs string fields 'version' and 'text'", name)
    system = data.get("system")
    return PromptTemplate(name, data["version"], data["text"], system if isinstance(system, str) else None)


@lru_cache(maxsize=32)
def load_paper_prompt(path: str) -> str:
    """A prompt a paper prescribes word for word, shipped as ``PATH`` (``.txt``, relative to this package):
    its first line names the paper and figure or file it comes from and is not part of the prompt; the
    rest is returned byte for byte (``<INSERT …>`` placeholders are filled by the caller)."""
    try:
        text = resources.files(PACKAGE).joinpath(path).read_text("utf-8")
    except (FileNotFoundError, OSError) as exc:
        raise ConfigError(f"no such paper prompt ({exc})", path) from exc
    first, _, rest = text.partition("\n")
    if not first.startswith("#"):
        raise ConfigError("a paper prompt's first line must name its source ('# ...')", path)
    return rest


def list_prompts() -> list[str]:
    """Names of all shipped templates."""
    root = resources.files(PACKAGE)
    names: list[str] = []

    def walk(node: object, prefix: str) -> None:
        for child in node.iterdir():  # type: ignore[attr-defined]
            if child.is_dir() and not child.name.startswith("_"):
                walk(child, f"{prefix}{child.name}/")
            elif child.name.endswith(".toml"):
                names.append(prefix + child.name.removesuffix(".toml"))

    walk(root, "")
    return sorted(names)
