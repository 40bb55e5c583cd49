"""Progress bars: tqdm's auto frontend (widgets in Jupyter, text elsewhere), on or off in one place.

genbench's own bars and those of ``datasets`` use ``tqdm.auto``; in Jupyter it draws widgets when ``ipywidgets``
is installed (``pip install 'genbench[notebook]'``) and falls back to text otherwise.
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Iterator


def notebook_widgets_available() -> bool:
    """Whether tqdm can draw widget progress bars in Jupyter (``ipywidgets`` is installed)."""
    return importlib.util.find_spec("ipywidgets") is not None


@contextlib.contextmanager
def progress_bars(enabled: bool) -> Iterator[None]:
    """Turn the progress bars of ``datasets`` (loading, formatting) on or off inside a ``with`` block.

    >>> import datasets
    >>> with progress_bars(False):
    ...     datasets.utils.logging.is_progress_bar_enabled()
    False
    """
    from datasets.utils import logging as datasets_logging

    was_enabled = datasets_logging.is_progress_bar_enabled()
    (datasets_logging.enable_progress_bar if enabled else datasets_logging.disable_progress_bar)()
    try:
        yield
    finally:
        (datasets_logging.enable_progress_bar if was_enabled else datasets_logging.disable_progress_bar)()
