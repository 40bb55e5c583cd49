"""The original framework's ``genbench.utils`` package: ``file``, ``logging``, ``tasks``."""
