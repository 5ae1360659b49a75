"""One registry for everything fabula names: annotation components, attribution methods, retrievers,
recap rankers, recognition methods, tasks, metrics and their aggregations.

>>> methods: Registry[Callable[..., Any]] = Registry("attribution method")   # doctest: +SKIP
>>> @methods.register("rules")                                              # doctest: +SKIP
... def rules(book, **options): ...

Classes that report their own name (tasks, retrievers, recap rankers, recognition methods) register
with ``@registry.register_class("name")``, which also sets ``cls.name``.

A name is registered once: a second, different object under the same name raises `ConfigError`
(re-running the same definition, e.g. a module reload, is allowed). Entries that live in modules with
optional dependencies are imported on first use (``lazy``: name -> module); ``packages`` names packages
whose public modules are all imported when a name is not found (so a new task module in ``fabula/tasks/``
registers itself with no edit elsewhere); other packages can add entries through an entry-point group,
as spaCy's catalogue does (``[project.entry-points."fabula.tasks"] mytask = "mypkg.tasks:MyTask"``).
Written here rather than taken from ``catalogue`` because that
package silently overwrites duplicates and has no lazy modules; the class is 100 lines.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from fabula.errors import ConfigError

T = TypeVar("T")


class Named(Protocol):
    """A class that reports the name it is registered under (a task, retriever, ranker, method)."""

    name: ClassVar[str]


C = TypeVar("C", bound=type[Named])
F = TypeVar("F", bound=Callable[..., Any])


class Registry(Generic[T]):
    """Named entries of one ``kind`` ("task", "metric", ...), registered with a decorator."""

    def __init__(
        self,
        kind: str,
        *,
        entry_point_group: str | None = None,
        lazy: Mapping[str, str] | None = None,
        packages: Sequence[str] = (),
        option: str | None = None,
    ) -> None:
        self.kind = kind
        self.entry_point_group = entry_point_group
        self.option = option  # the CLI option that names an entry (for error messages), e.g. "--method"
        self._entries: dict[str, T] = {}
        self._lazy = dict(lazy or {})
        self._packages = tuple(packages)  # their public modules register entries: imported when needed
        self._loaded_lazy: set[str] = set()
        self._entry_points_loaded = False
        self._lock = threading.RLock()

    # --- registration --------------------------------------------------------------------------
    def register(self: Registry[Callable[..., Any]], name: str) -> Callable[[F], F]:
        """Decorator: register the decorated function under ``name`` (a duplicate raises ConfigError)
        and return it unchanged, its own signature kept for callers."""

        def decorate(function: F) -> F:
            self.add(name, function)
            return function

        return decorate

    def register_class(self: Registry[type[Any]], name: str) -> Callable[[C], C]:
        """Class decorator: register the class under ``name`` and set its ``name`` to it, so an
        instance can say in reports and logs which entry it is."""

        def decorate(cls: C) -> C:
            self.add(name, cls)
            cls.name = name
            return cls

        return decorate

    def add(self, name: str, entry: T) -> None:
        """Register ``entry`` under ``name`` (what the decorator does)."""
        if not name:
            raise ConfigError(f"a {self.kind} needs a non-empty name")
        with self._lock:
            existing = self._entries.get(name)
            if existing is not None and existing is not entry and not _same_definition(existing, entry):
                raise ConfigError(
                    f"{self.kind} {name!r} is already registered (by {_origin(existing)}); "
                    f"{_origin(entry)} cannot register it again"
                )
            self._entries[name] = entry

    def remove(self, name: str) -> None:
        """Forget ``name`` (for tests that register throw-away entries)."""
        with self._lock:
            self._entries.pop(name, None)
            self._lazy.pop(name, None)

    def add_lazy(self, name: str, module: str) -> None:
        """Import ``module`` the first time ``name`` is asked for (it registers ``name`` itself)."""
        with self._lock:
            self._lazy[name] = module

    # --- lookup --------------------------------------------------------------------------------
    def get(self, name: str) -> T:
        """The entry named ``name``; ConfigError listing the available names when there is none."""
        with self._lock:
            if name not in self._entries:
                self._load(name)
            entry = self._entries.get(name)
        if entry is None:
            available = ", ".join(self.names()) or "none"
            raise ConfigError(f"unknown {self.kind} {name!r} (available: {available})", self.option)
        return entry

    def names(self) -> list[str]:
        """Every available name, sorted (loading lazy modules and entry points first)."""
        with self._lock:
            self._load_all()
            return sorted(self._entries)

    def items(self) -> list[tuple[str, T]]:
        """(name, entry) pairs, sorted by name."""
        names = self.names()
        with self._lock:
            return [(n, self._entries[n]) for n in names]

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        with self._lock:
            if name not in self._entries:
                self._load(name)
            return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}, {sorted(self._entries)})"

    # --- loading -------------------------------------------------------------------------------
    def _load(self, name: str) -> None:
        module = self._lazy.get(name)
        if module is not None:
            self._import(module)
        if name not in self._entries:
            self._import_packages()
        if name not in self._entries:
            self._load_entry_points(only=name)

    def _load_all(self) -> None:
        for module in list(self._lazy.values()):
            self._import(module)
        self._import_packages()
        self._load_entry_points()

    def _import_packages(self) -> None:
        for package in self._packages:
            spec = importlib.util.find_spec(package)
            for info in pkgutil.iter_modules(spec.submodule_search_locations if spec else None):
                if not info.name.startswith("_"):
                    self._import(f"{package}.{info.name}")

    def _import(self, module: str) -> None:
        if module in self._loaded_lazy:
            return
        self._loaded_lazy.add(module)
        try:
            importlib.import_module(module)
        except ImportError:  # an optional extra is missing: the name stays unavailable
            return

    def _load_entry_points(self, only: str | None = None) -> None:
        if self.entry_point_group is None or self._entry_points_loaded:
            return
        found = entry_points(group=self.entry_point_group)
        if only is None:
            self._entry_points_loaded = True
        for point in found:
            if (only is not None and point.name != only) or point.name in self._entries:
                continue
            try:
                self.add(point.name, point.load())
            except ImportError as exc:
                raise ConfigError(
                    f"{self.kind} {point.name!r} from entry point {point.value!r} cannot be imported: {exc}"
                ) from exc


def entry_points(group: str) -> Sequence[Any]:
    """The installed entry points of ``group`` (`importlib.metadata`, imported here: 10-30 ms that a
    command which never lists a registry does not pay)."""
    from importlib import metadata

    return tuple(metadata.entry_points(group=group))


def _origin(entry: Any) -> str:
    module = getattr(entry, "__module__", None) or type(entry).__module__
    name = getattr(entry, "__qualname__", None) or type(entry).__qualname__
    return f"{module}.{name}"


def _same_definition(a: Any, b: Any) -> bool:
    """The same function or class defined again (a module reloaded), not a different one."""
    return (hasattr(a, "__qualname__") and hasattr(b, "__qualname__") and _origin(a) == _origin(b)) and type(
        a
    ) is type(b)
