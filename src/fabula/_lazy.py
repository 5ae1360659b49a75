"""Names a package exports but imports only on first use (PEP 562 module ``__getattr__``).

fabula's packages keep heavy modules (the LLM layer, pydantic, the paper protocols) out of a command that
never needs them; each lists its lazy names here instead of writing its own ``__getattr__``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str | tuple[str, str]], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` (its ``globals()`` as ``namespace``): a name in
    ``exports`` is imported from its module (``"module"``, or ``("module", "attribute")`` when the
    attribute is named otherwise) the first time it is read, then kept in the package."""

    def __getattr__(name: str) -> Any:
        target = exports.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = (target, name) if isinstance(target, str) else target
        value = getattr(importlib.import_module(module), attribute)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(namespace.get("__all__", ())))

    return __getattr__, __dir__
