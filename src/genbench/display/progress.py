"""Progress bars: tqdm's auto frontend (widgets in Jupyter, text elsewhere), on or off in one place.

genbench's own bars and those of ``datasets`` use ``tqdm.auto``; in Jupyter it draws widgets when ``ipywidgets``
is installed (``pip install 'genbench[notebook]'``) and falls back to text otherwise.

- :func:`phase_progress` makes the bar of one phase of a run (``ner_unseen_entities 0-shot generate``): a tqdm bar
  on a terminal or in Jupyter; elsewhere (a log file, CI) one line when the phase ends, so that nothing is printed
  twice and no line is left at ``0/18`` when the phase gives way to a fallback.
- :func:`progress_bars` turns the bars of ``datasets``, ``transformers`` and ``huggingface_hub`` on or off.
"""

from __future__ import annotations

import contextlib
import importlib.util
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any, TextIO


def notebook_widgets_available() -> bool:
    """Whether tqdm can draw widget progress bars in Jupyter (``ipywidgets`` is installed)."""
    return importlib.util.find_spec("ipywidgets") is not None


class LineProgress:
    """A progress "bar" for output that is not a terminal: one line when the phase ends, none if it fails.

    >>> import io
    >>> out = io.StringIO()
    >>> bar = LineProgress("tiny 0-shot generate", 3, stream=out, clock=iter([0.0, 1.5]).__next__)
    >>> bar.update(2); bar.update(1); bar.close(); bar.close()
    >>> out.getvalue()
    'tiny 0-shot generate: 3/3 in 1.5 s\\n'
    """

    def __init__(
        self, desc: str, total: int, *, stream: TextIO | None = None, clock: Callable[[], float] = time.perf_counter
    ) -> None:
        self.desc, self.total, self.n = desc, total, 0
        self.leave = True
        self._stream = stream
        self._clock = clock
        self._started = clock()
        self._closed = False

    def update(self, n: int = 1) -> None:
        self.n += n

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.leave:
            stream = self._stream or sys.stderr
            stream.write(f"{self.desc}: {self.n}/{self.total} in {self._clock() - self._started:.1f} s\n")
            stream.flush()


def interactive_output(stream: TextIO | None = None) -> bool:
    """Whether bars redraw themselves on ``stream`` (default stderr): a terminal, or a Jupyter kernel's output
    (widgets). The stream itself tells, not whether ``ipykernel`` was imported somewhere in the process (a test
    run that executed a notebook has it imported, with its output going to a pipe).

    >>> import io
    >>> interactive_output(io.StringIO())
    False
    """
    stream = stream or sys.stderr
    if type(stream).__module__.startswith("ipykernel."):  # ipykernel.iostream.OutStream: a notebook cell's output
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def phase_progress(desc: str, total: int) -> Any:
    """The bar of one phase of a run: tqdm (terminal, Jupyter), else a :class:`LineProgress` (logs, pipes, CI)."""
    if interactive_output():
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=desc)
    return LineProgress(desc, total)


class _Switch:
    """The progress-bar switch of one library: ``enabled()``, ``set(bool)``."""

    def __init__(self, enabled: Callable[[], bool], enable: Callable[[], None], disable: Callable[[], None]) -> None:
        self.enabled = enabled
        self._enable, self._disable = enable, disable

    def set(self, on: bool) -> None:
        (self._enable if on else self._disable)()


def _call(function: Callable[[], object]) -> Callable[[], None]:
    """``function`` as a callable that returns nothing."""

    def call() -> None:
        function()

    return call


def _library_switches() -> list[_Switch]:
    """The switches of the libraries that draw their own bars. transformers is switched only once imported: until
    then it takes its setting from huggingface_hub's when it is imported."""
    from datasets.utils import logging as datasets_logging
    from huggingface_hub import utils as hub_utils

    switches = [
        _Switch(
            datasets_logging.is_progress_bar_enabled,
            datasets_logging.enable_progress_bar,
            datasets_logging.disable_progress_bar,
        ),
        _Switch(
            lambda: not hub_utils.are_progress_bars_disabled(),
            hub_utils.enable_progress_bars,
            _call(hub_utils.disable_progress_bars),  # a class (a context manager too) in recent versions
        ),
    ]
    transformers_logging: Any = sys.modules.get("transformers.utils.logging")
    if transformers_logging is not None:
        switches.append(
            _Switch(
                transformers_logging.is_progress_bar_enabled,
                transformers_logging.enable_progress_bar,
                transformers_logging.disable_progress_bar,
            )
        )
    return switches


@contextlib.contextmanager
def progress_bars(enabled: bool) -> Iterator[None]:
    """Turn the progress bars of ``datasets``, ``huggingface_hub`` and ``transformers`` (loading weights,
    downloads, formatting) on or off inside a ``with`` block; each is restored afterwards.

    >>> import datasets
    >>> with progress_bars(False):
    ...     datasets.utils.logging.is_progress_bar_enabled()
    False
    """
    switches = _library_switches()
    hub_was = switches[1].enabled()
    was = [switch.enabled() for switch in switches]
    for switch in switches:
        switch.set(enabled)
    try:
        yield
    finally:
        for switch, was_enabled in zip(switches, was, strict=True):
            switch.set(was_enabled)
        if len(switches) == 2 and "transformers.utils.logging" in sys.modules:  # imported inside the block
            _library_switches()[2].set(hub_was)
