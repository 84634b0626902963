"""Things found by name: built in, registered in-process, or installed by other packages.

The criteria, the agent prefixes and the judge backends are each one `Registry`
(docs/extending.md). Built-in entries are `module:attr` strings imported on first use,
so naming one never pays for the others nor for their dependencies. Other packages add
entries through an entry point group; entry points are read only when a name is neither
built in nor registered, or when every name is listed, and then once per process per
group: scanning the installed packages costs milliseconds, and the judge asks on every
call to a model whose name has a prefix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from functools import cache
from importlib import import_module
from typing import Any, Generic, TypeVar, cast, overload

from evalkit.errors import InputError

T = TypeVar("T")


class PluginLoadError(InputError):
    """An installed plug-in's entry could not be loaded, or is not what its group takes.

    `reason` says which plug-in and why, without the registry's kind and name, so a caller
    can word it for its own setting (an agent spec, a judge model)."""

    def __init__(self, kind: str, name: str, reason: str):
        super().__init__(f"{kind} {name!r}: {reason}")
        self.kind, self.name, self.reason = kind, name, reason


class UnknownName(InputError):
    """`Registry.require` of a name nothing registers; the message names the known ones."""

    def __init__(self, kind: str, name: str, known: list[str]):
        from evalkit.foundation.suggestions import did_you_mean

        listed = ", ".join(known) if known else "none"
        super().__init__(f"unknown {kind} {name!r}{did_you_mean(name, known, 0.6)} (known: {listed})")
        self.kind, self.name, self.known = kind, name, known


class Registry(Generic[T]):
    """Entries of one kind by name: `register`, `get` (or `require`), `names`.

    Look-up order: registered in-process (a test, a notebook, or evalkit itself), then
    built in, then the installed plug-ins of `group`; a loaded entry is kept. `accepts`
    checks what a plug-in's entry point holds; `wanted` says what it should have held.
    """

    def __init__(self, kind: str, group: str, *, built_in: Mapping[str, str] | None = None,
                 accepts: Callable[[Any], bool] = callable, wanted: str = "a callable"):
        self.kind = kind
        self.group = group
        self._built_in = dict(built_in or {})
        self._accepts = accepts
        self._wanted = wanted
        self._entries: dict[str, T] = {}

    @overload
    def register(self, name: str) -> Callable[[T], T]: ...
    @overload
    def register(self, name: str, entry: T) -> T: ...

    def register(self, name: str, entry: Any = None) -> Any:
        """Make `entry` available as `name` (it wins over a built-in or plug-in of that name);
        without `entry`, a decorator that registers what it decorates."""
        if entry is None:
            return lambda decorated: self.register(name, decorated)
        self._entries[name] = entry
        return entry

    def get(self, name: str) -> T | None:
        """The entry named `name`, imported or loaded on first use; None when nothing has it."""
        entry = self._entries.get(name)
        if entry is not None:
            return entry
        target = self._built_in.get(name)
        if target is not None:
            module_name, _, attr = target.partition(":")
            entry = getattr(import_module(module_name), attr)
        else:
            entry_point = self.plugins().get(name)
            if entry_point is None:
                return None
            entry = self._load(name, entry_point)
        self._entries[name] = entry
        return entry

    def require(self, name: str) -> T:
        """Like `get`, but a name nothing has is an `UnknownName` error naming the known ones."""
        entry = self.get(name)
        if entry is None:
            raise UnknownName(self.kind, name, self.names())
        return entry

    def known_without_plugins(self, name: str) -> bool:
        """Whether `name` is built in or registered (no installed package is scanned)."""
        return name in self._entries or name in self._built_in

    def names(self) -> list[str]:
        """Every name: the built-in ones, then those registered, then the installed plug-ins'."""
        return list(dict.fromkeys([*self._built_in, *self._entries, *self.plugins()]))

    def plugins(self) -> dict[str, Any]:
        """The installed plug-ins' entry points of this group, by name, not yet loaded."""
        return entry_points_of(self.group)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (self.known_without_plugins(name) or name in self.plugins())

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def _load(self, name: str, entry_point: Any) -> T:
        try:
            entry = entry_point.load()
        except Exception as error:
            raise PluginLoadError(self.kind, name, f"its plug-in {entry_point.value} failed to load: "
                                  f"{type(error).__name__}: {error} (fix that package, or uninstall it)") from None
        if not self._accepts(entry):
            raise PluginLoadError(self.kind, name, f"its plug-in {entry_point.value} is not {self._wanted} "
                                  "(fix that package, or uninstall it)")
        return cast(T, entry)  # checked by `accepts` above


@cache
def entry_points_of(group: str) -> dict[str, Any]:
    from importlib.metadata import entry_points

    return {entry_point.name: entry_point for entry_point in entry_points(group=group)}
