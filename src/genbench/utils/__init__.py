"""Compatibility helpers kept at the original framework's import paths."""
