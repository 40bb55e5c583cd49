"""Compatibility module: ``genbench.utils.logging`` of the original framework."""

import logging


def get_logger(name: str) -> logging.Logger:
    """A standard library logger (genbench configures no handlers of its own)."""
    return logging.getLogger(name)
