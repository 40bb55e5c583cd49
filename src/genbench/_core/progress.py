"""Progress bars: every bar genbench draws goes through here, under one switch (as ``datasets.utils.tqdm``).

The switch (:func:`progress_bars`) is ``None`` by default: bars are drawn only where they redraw themselves (a
terminal, a Jupyter cell), since on a pipe or in a CI log tqdm writes every redraw as a line. ``True`` draws them
anywhere, ``False`` nowhere; the bars of ``datasets``, ``huggingface_hub`` and ``transformers`` follow it.
``genbench-cli --progress/--no-progress`` set it for one command. See docs/task_viewer.md.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sized
from dataclasses import dataclass
from types import ModuleType
from typing import Protocol, TextIO, TypeVar

Item = TypeVar("Item")

_setting: bool | None = None


class ProgressBar(Protocol):
    """What genbench's code does with a bar (a tqdm bar is one, and so is :class:`LineProgress`)."""

    leave: bool | None

    def update(self, n: int = 1) -> object: ...

    def close(self) -> None: ...


def progress_setting() -> bool | None:
    """The switch: ``True`` (bars anywhere), ``False`` (none) or ``None`` (only where they redraw)."""
    return _setting


def bars_enabled(stream: TextIO | None = None) -> bool:
    """Whether a bar on ``stream`` (default stderr) is drawn under the switch.

    >>> import io
    >>> bars_enabled(io.StringIO())  # not a terminal: only if asked for
    False
    >>> with progress_bars(True):
    ...     bars_enabled(io.StringIO())
    True
    """
    return _setting if _setting is not None else interactive_output(stream)


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


def progress_bar(
    *, desc: str, total: float | None = None, unit: str = "it", unit_scale: bool = False, initial: int = 0,
    enabled: bool = True,
) -> ProgressBar:  # fmt: skip
    """A tqdm bar (``tqdm.auto``: widgets in Jupyter, text elsewhere), drawn if ``enabled`` and the switch allows."""
    from tqdm.auto import tqdm  # tqdm.auto: 45-170 ms to import, only once a bar is made

    bar: ProgressBar = tqdm(
        total=total,
        desc=desc,
        unit=unit,
        unit_scale=unit_scale,
        initial=initial,
        disable=not (enabled and bars_enabled()),
    )
    return bar


def progress_iter(
    items: Iterable[Item], *, desc: str, total: int | None = None, unit: str = "it", initial: int = 0,
    enabled: bool = True,
) -> Iterator[Item]:  # fmt: skip
    """``items``, with a bar advancing as they are taken (see :func:`progress_bar`)."""
    if not (enabled and bars_enabled()):
        yield from items
        return
    if total is None and isinstance(items, Sized):
        total = len(items)
    bar = progress_bar(desc=desc, total=total, unit=unit, initial=initial)
    try:
        for item in items:
            yield item
            bar.update(1)
    finally:
        bar.close()


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
        self.leave: bool | None = True
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


def phase_progress(desc: str, total: int) -> ProgressBar:
    """The bar of one phase of a run: tqdm where bars redraw (terminal, Jupyter); elsewhere a :class:`LineProgress`
    (one line when the phase ends: nothing printed twice, no line left at ``0/18`` when the phase gives way to a
    fallback); nothing when the switch is off."""
    if _setting is False:
        return progress_bar(desc=desc, enabled=False)
    if interactive_output():
        return progress_bar(desc=desc, total=total)
    return LineProgress(desc, total)


@dataclass(frozen=True)
class _Library:
    """Another library's own progress-bar switch, in the module ``module`` once that is imported."""

    module: str
    enabled: Callable[[ModuleType], bool]
    enable: Callable[[ModuleType], object]
    disable: Callable[[ModuleType], object]
    disabled_by_env: str | None  # the environment variable it reads when imported (it then takes priority)
    # The modules that keep what they read of that variable, in a global of its name.
    read_into: tuple[str, ...] = ()

    def set(self, module: ModuleType, on: bool) -> None:
        (self.enable if on else self.disable)(module)

    def forget_variable(self) -> None:
        """Undo what the library read of :attr:`disabled_by_env` when it was imported while the variable was set
        (by a ``progress_bars(False)`` block, now ended): it would refuse ever to draw a bar again. The libraries have
        no public way to read the variable again, so the globals they keep it in are set as if it had been unset."""
        for name in self.read_into:
            module = sys.modules.get(name)
            if module is not None and self.disabled_by_env and getattr(module, self.disabled_by_env, None) is True:
                setattr(module, self.disabled_by_env, None)


_LIBRARIES = (
    _Library(
        "datasets.utils.logging",
        lambda m: bool(m.is_progress_bar_enabled()),
        lambda m: m.enable_progress_bar(),
        lambda m: m.disable_progress_bar(),
        "HF_DATASETS_DISABLE_PROGRESS_BARS",
        ("datasets.config", "datasets.utils.tqdm"),
    ),
    _Library(
        "huggingface_hub.utils",
        lambda m: not m.are_progress_bars_disabled(),
        lambda m: m.enable_progress_bars(),
        lambda m: (
            m.disable_progress_bars()
        ),  # a class (a context manager too) in recent versions: calling it is enough
        "HF_HUB_DISABLE_PROGRESS_BARS",
        ("huggingface_hub.constants", "huggingface_hub.utils.tqdm"),
    ),
    _Library(  # transformers takes huggingface_hub's setting when it is imported
        "transformers.utils.logging",
        lambda m: bool(m.is_progress_bar_enabled()),
        lambda m: m.enable_progress_bar(),
        lambda m: m.disable_progress_bar(),
        None,
    ),
)


@contextlib.contextmanager
def progress_bars(setting: bool | None, *, import_libraries: bool = False) -> Iterator[None]:
    """Set the switch inside a ``with`` block, for genbench's bars and those of ``datasets``, ``huggingface_hub``
    and ``transformers`` (loading weights, downloads, formatting); everything is restored afterwards.

    ``True``: bars anywhere; ``False``: none; ``None``: only where they redraw (a terminal, a Jupyter cell). The
    libraries already imported are switched; with ``False`` one imported inside the block reads it from the
    environment; ``import_libraries`` imports ``datasets`` and ``huggingface_hub`` first (for work about to load
    them anyway), so that ``None`` switches theirs off on a pipe too.

    >>> import datasets
    >>> with progress_bars(False):
    ...     datasets.utils.logging.is_progress_bar_enabled()
    False
    """
    global _setting
    if import_libraries:
        import datasets.utils.logging  # noqa: F401 - imported for its switch
        import huggingface_hub.utils  # noqa: F401
    libraries_on = setting if setting is not None else interactive_output()
    saved_setting, _setting = _setting, setting
    imported = {library: sys.modules[library.module] for library in _LIBRARIES if library.module in sys.modules}
    was = {library: library.enabled(module) for library, module in imported.items()}
    environment = {"TQDM_DISABLE": "1"} | {lib.disabled_by_env: "1" for lib in _LIBRARIES if lib.disabled_by_env}
    saved_environment = {name: os.environ.get(name) for name in environment}
    for library, module in imported.items():
        library.set(module, libraries_on)
    if setting is False:
        os.environ.update(environment)
    try:
        yield
    finally:
        _setting = saved_setting
        for name, value in saved_environment.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        for library, module in imported.items():
            library.set(module, was[library])
        for library in _LIBRARIES:  # imported inside the block
            late = sys.modules.get(library.module)
            if late is None or library in imported:
                continue
            if library.disabled_by_env is None:  # without a variable of its own (transformers)
                library.set(late, _hub_enabled())
            elif setting is False and saved_environment[library.disabled_by_env] is None:
                library.forget_variable()  # it read the variable this block set
                library.set(late, saved_setting if saved_setting is not None else interactive_output())


def _hub_enabled() -> bool:
    hub = sys.modules.get("huggingface_hub.utils")
    return hub is None or not hub.are_progress_bars_disabled()
