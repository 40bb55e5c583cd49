"""Every module path and name of the original GenBench framework.

Nothing inside genbench imports this package, with one exception that serves the original import path:
``genbench.task`` resolves the original framework's helpers of ``genbench.task`` from
:mod:`genbench._compat.task_helpers`. The original
framework's own module paths (``genbench.api``, ``genbench.task_config``, ``genbench.task_dict``,
``genbench.loading``, ``genbench.utils.*``) are files of a few lines that re-export from here or from the layers.
The contracts are in ``pyproject.toml`` (``[tool.importlinter]``); docs/architecture.md explains them.
"""
