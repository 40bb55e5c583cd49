"""Compatibility module: ``genbench._compat.logging_helpers`` of the original framework.

:func:`get_logger`, which original tasks call when imported, only returns the logger (and applies
``GENBENCH_VERBOSITY``), so loading such a task configures nothing; the functions that configure do what the
original's do. See docs/architecture.md#logging and docs/tasks.md.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from logging import CRITICAL, DEBUG, ERROR, FATAL, INFO, NOTSET, WARN, WARNING

LIBRARY_LOGGER = "genbench"
VERBOSITY_ENV = "GENBENCH_VERBOSITY"
log_levels = {"debug": DEBUG, "info": INFO, "warning": WARNING, "error": ERROR, "critical": CRITICAL}

_lock = threading.Lock()
_handler: logging.Handler | None = None
_verbosity_applied = False


def _default_level() -> int:
    name = os.environ.get(VERBOSITY_ENV)
    if not name:
        return WARNING
    if name in log_levels:
        return log_levels[name]
    logging.getLogger().warning(f"Unknown {VERBOSITY_ENV}={name!r}: use one of {', '.join(log_levels)}.")
    return WARNING


def _library_logger() -> logging.Logger:
    return logging.getLogger(LIBRARY_LOGGER)


def _apply_verbosity_env() -> None:
    """Set the library logger's level from ``GENBENCH_VERBOSITY``, once, and only when the variable is set."""
    global _verbosity_applied
    with _lock:
        if not _verbosity_applied:
            _verbosity_applied = True
            if os.environ.get(VERBOSITY_ENV):
                _library_logger().setLevel(_default_level())


def _configure() -> logging.Handler:
    global _handler
    with _lock:
        if _handler is None:
            _handler = logging.StreamHandler(sys.stderr)
            root = _library_logger()
            root.addHandler(_handler)
            root.setLevel(_default_level())
            root.propagate = False
        return _handler


def get_log_levels_dict() -> dict[str, int]:
    """The level names accepted by ``GENBENCH_VERBOSITY``, with their values."""
    return log_levels


def get_logger(name: str | None = None) -> logging.Logger:
    """A logger (default: the ``genbench`` library logger); the library logger's level from ``GENBENCH_VERBOSITY``
    when that is set. Adds no handler and leaves propagation to the root logger on (see the module's docstring)."""
    _apply_verbosity_env()
    return logging.getLogger(name or LIBRARY_LOGGER)


def get_verbosity() -> int:
    """The effective level of the ``genbench`` library logger."""
    _apply_verbosity_env()
    return _library_logger().getEffectiveLevel()


def set_verbosity(verbosity: int) -> None:
    """Set the level of the ``genbench`` library logger (``logging.INFO``, ...)."""
    _configure()
    _library_logger().setLevel(verbosity)


def set_verbosity_debug() -> None:
    """Set the library logger's level to DEBUG."""
    set_verbosity(DEBUG)


def set_verbosity_info() -> None:
    """Set the library logger's level to INFO."""
    set_verbosity(INFO)


def set_verbosity_warning() -> None:
    """Set the library logger's level to WARNING."""
    set_verbosity(WARNING)


def set_verbosity_error() -> None:
    """Set the library logger's level to ERROR."""
    set_verbosity(ERROR)


def disable_default_handler() -> None:
    """Remove the stderr handler from the library logger."""
    _library_logger().removeHandler(_configure())


def enable_default_handler() -> None:
    """Put the stderr handler back on the library logger."""
    _library_logger().addHandler(_configure())


def add_handler(handler: logging.Handler) -> None:
    """Add a handler to the library logger."""
    _configure()
    _library_logger().addHandler(handler)


def remove_handler(handler: logging.Handler) -> None:
    """Remove a handler from the library logger."""
    _configure()
    _library_logger().removeHandler(handler)


def disable_propagation() -> None:
    """Stop library messages from reaching the root logger (the default once configured)."""
    _configure()
    _library_logger().propagate = False


def enable_propagation() -> None:
    """Let library messages reach the root logger too (disable the default handler to avoid duplicates)."""
    _configure()
    _library_logger().propagate = True


def enable_explicit_format() -> None:
    """Format the library logger's messages as ``[LEVEL|file:line] time >> message``."""
    formatter = logging.Formatter("[%(levelname)s|%(filename)s:%(lineno)s] %(asctime)s >> %(message)s")
    for handler in _library_logger().handlers:
        handler.setFormatter(formatter)


def reset_format() -> None:
    """Back to the default message format on the library logger's handlers."""
    for handler in _library_logger().handlers:
        handler.setFormatter(None)


__all__ = [
    "CRITICAL",
    "DEBUG",
    "ERROR",
    "FATAL",
    "INFO",
    "NOTSET",
    "WARN",
    "WARNING",
    "add_handler",
    "disable_default_handler",
    "disable_propagation",
    "enable_default_handler",
    "enable_explicit_format",
    "enable_propagation",
    "get_log_levels_dict",
    "get_logger",
    "get_verbosity",
    "remove_handler",
    "reset_format",
    "set_verbosity",
    "set_verbosity_debug",
    "set_verbosity_error",
    "set_verbosity_info",
    "set_verbosity_warning",
]
