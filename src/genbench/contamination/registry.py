"""The index backends by name: ``embedded`` (files, the default) and ``elasticsearch`` (a server).

A backend is a class implementing :class:`~genbench.contamination.backend.IndexBackend`, named here by the module
that defines it (imported only when chosen, so ``import genbench`` stays light). A third backend is one more module
and one more line in :data:`BACKENDS`; a package outside genbench can add one through the entry-point group
``genbench.contamination_backends`` (``name = "module:Class"``) without editing genbench at all.

>>> backend_names()[:2]
['embedded', 'elasticsearch']
>>> type(create_backend("embedded", index_dir="/tmp/indexes")).__name__
'EmbeddedBackend'
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from genbench.contamination.errors import ContaminationError

if TYPE_CHECKING:
    from genbench.contamination.backend import IndexBackend

DEFAULT_BACKEND = "embedded"
BACKENDS: dict[str, str] = {
    "embedded": "genbench.contamination.embedded:EmbeddedBackend",
    "elasticsearch": "genbench.contamination.es:ElasticsearchBackend",
}
"""Backend name -> ``module:Class``."""
ENTRY_POINT_GROUP = "genbench.contamination_backends"


def _registered() -> dict[str, str]:
    from importlib.metadata import entry_points

    found = {point.name: point.value for point in entry_points(group=ENTRY_POINT_GROUP)}
    return {**found, **BACKENDS}  # genbench's own names cannot be taken over


def backend_names() -> list[str]:
    """The names ``--backend`` accepts: genbench's own first, then those of installed plug-ins."""
    return list(dict.fromkeys([*BACKENDS, *sorted(_registered())]))


def backend_class(name: str) -> type[IndexBackend]:
    """The class of the backend ``name``.

    Raises:
        ContaminationError: no backend has that name.
    """
    target = _registered().get(name)
    if target is None:
        raise ContaminationError(f"Unknown contamination backend {name!r}: use one of {', '.join(backend_names())}.")
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)  # type: ignore[no-any-return]


def create_backend(name: str | None = None, **options: Any) -> IndexBackend:
    """The backend ``name`` (default ``embedded``) made with ``options``; options set to ``None`` are left out.

    Raises:
        ContaminationError: an unknown backend, or an option it does not take (the message lists those it does).
    """
    return backend_class(name or DEFAULT_BACKEND).from_options(
        **{key: value for key, value in options.items() if value is not None}
    )
