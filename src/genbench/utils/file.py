"""Compatibility module: ``genbench.utils.file`` of the original framework."""

from genbench.config.jsonnet import load_jsonnet

__all__ = ["load_jsonnet"]
