"""The one plugin seam: named objects of one kind, imported on first use, extensible through entry points.

A :class:`PluginGroup` maps names to ``"module:attribute"`` targets: genbench's own (which cannot be taken over),
then those of installed distributions' entry points. An unknown name is an
:class:`~genbench._core.errors.UnknownPluginError` listing the close matches. See docs/plugins.md.
"""

from __future__ import annotations

import difflib
import functools
import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from genbench._core.errors import UnknownPluginError

PluginT = TypeVar("PluginT")

OWN_DISTRIBUTION = "genbench"


@functools.cache
def _entry_points(group: str) -> tuple[tuple[str, str, bool], ...]:
    """``(name, target, is genbench's own)`` of every installed entry point of ``group`` (read once per process)."""
    from importlib.metadata import entry_points

    found = []
    for point in entry_points(group=group):
        dist = getattr(point, "dist", None)
        own = dist is not None and (dist.metadata["Name"] or "").lower() == OWN_DISTRIBUTION
        found.append((point.name, point.value, own))
    return tuple(found)


@dataclass(frozen=True)
class PluginGroup(Generic[PluginT]):
    """Named plugins of one kind.

    Attributes:
        group: The entry-point group (``genbench.<kind>``).
        kind: What one plugin is, for messages (``"contamination backend"``).
        builtins: genbench's own entries declared in code (name -> ``"module:attribute"``), by the package that
            owns the kind.
        default: The name listed first (entry points of one distribution come sorted by name).
    """

    group: str
    kind: str
    builtins: Mapping[str, str] = field(default_factory=dict)
    default: str | None = None

    def targets(self) -> dict[str, str]:
        """Every entry, name -> ``"module:attribute"``: genbench's own first (in declaration order), then others.

        Reads the installed entry points (once per process); ``builtins`` win over any entry point of their name.
        """
        points = _entry_points(self.group)
        own = {**self.builtins}
        own.update((name, target) for name, target, is_own in points if is_own and name not in self.builtins)
        if self.default in own:
            own = {self.default: own[self.default], **own}
        others = {name: target for name, target, is_own in sorted(points) if not is_own and name not in own}
        return {**own, **others}

    def __contains__(self, name: object) -> bool:
        """Whether an entry has this name (genbench's own are found without reading the installed entry points)."""
        return name in self.builtins or name in self.targets()

    def names(self) -> list[str]:
        """The known names: genbench's own first, then those of installed plug-ins (sorted).

        >>> CONTAMINATION_BACKENDS.names()[:2]
        ['embedded', 'elasticsearch']
        """
        return list(self.targets())

    def target(self, name: str) -> str:
        """The ``"module:attribute"`` of ``name``.

        Raises:
            UnknownPluginError: no entry has that name (the message lists the known ones and close matches).
        """
        if name in self.builtins:  # no need to read the installed entry points
            return self.builtins[name]
        targets = self.targets()
        if name in targets:
            return targets[name]
        close = difflib.get_close_matches(name, list(targets), n=3)
        hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        known = ", ".join(targets) or "none (is genbench installed? its entry points declare them)"
        raise UnknownPluginError(f"Unknown {self.kind} {name!r}: use one of {known}.{hint}")

    def load(self, name: str) -> PluginT:
        """The object registered as ``name``, imported now (once per process).

        Raises:
            UnknownPluginError: no entry has that name, or its target does not import.
        """
        return _load(self.target(name), self.kind, name)  # type: ignore[no-any-return]


@functools.cache
def _load(target: str, kind: str, name: str) -> Any:
    module, _, attribute = target.partition(":")
    try:
        value = importlib.import_module(module)
        for part in filter(None, attribute.split(".")):
            value = getattr(value, part)
    except (ImportError, AttributeError) as error:
        raise UnknownPluginError(f"The {kind} {name!r} ({target}) cannot be loaded: {error}") from error
    return value


CONTAMINATION_BACKENDS: PluginGroup[Any] = PluginGroup(
    "genbench.contamination_backends", "contamination backend", default="embedded"
)
"""The contamination index backends (classes implementing ``genbench.contamination._index_backend.IndexBackend``),
declared as entry points: ``embedded`` and ``elasticsearch``, then any a plug-in adds."""
