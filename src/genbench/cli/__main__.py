"""``python -m genbench.cli``: the same as the ``genbench-cli`` command (for an environment without its script)."""

from genbench.cli import cli

cli(prog_name="genbench-cli")
