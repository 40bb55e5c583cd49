"""The index backends by name: ``embedded`` (files, the default) and ``elasticsearch`` (a server).

A backend is a class implementing :class:`~genbench.contamination._index_backend.IndexBackend`, registered as an entry
point of the group ``genbench.contamination_backends`` and imported only when chosen; a package outside genbench adds
one the same way. See docs/plugins.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from genbench._core.errors import UnknownPluginError
from genbench._core.plugins import CONTAMINATION_BACKENDS
from genbench.contamination._errors import ContaminationError

if TYPE_CHECKING:
    from genbench.contamination._index_backend import IndexBackend

DEFAULT_BACKEND = "embedded"
BACKENDS = CONTAMINATION_BACKENDS
"""The backends by name (:data:`genbench._core.plugins.CONTAMINATION_BACKENDS`: entry points of the group
``genbench.contamination_backends``, genbench's own declared in its ``pyproject.toml``)."""


def backend_class(name: str) -> type[IndexBackend]:
    """The class of the backend ``name``.

    Raises:
        ContaminationError: no backend has that name, or it cannot be imported.
    """
    try:
        return BACKENDS.load(name)  # type: ignore[no-any-return]
    except UnknownPluginError as error:
        raise ContaminationError(str(error)) from error


def create_backend(name: str | None = None, **options: object) -> IndexBackend:
    """The backend ``name`` (default ``embedded``) made with ``options``; options set to ``None`` are left out.

    >>> BACKENDS.names()[:2]
    ['embedded', 'elasticsearch']
    >>> type(create_backend("embedded", index_dir="/tmp/indexes")).__name__
    'EmbeddedBackend'

    Raises:
        ContaminationError: an unknown backend, or an option it does not take (the message lists those it does).
    """
    return backend_class(name or DEFAULT_BACKEND).from_options(
        **{key: value for key, value in options.items() if value is not None}
    )
