"""Every module path and name of the original GenBench framework.

Nothing inside genbench imports this package except ``genbench.task``, which resolves the original's helpers from
:mod:`genbench._compat.task_helpers`. The original's module paths (``genbench.api``, ``genbench.task_config``,
``genbench.utils.*``, ...) are files of a few lines that re-export from here or from the layers. The import contracts
(``[tool.importlinter]`` in ``pyproject.toml``): docs/architecture.md.
"""
