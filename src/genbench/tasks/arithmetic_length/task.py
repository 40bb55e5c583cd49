"""The ``arithmetic_length`` task: everything it needs is in ``config.jsonnet``."""

from genbench import Task


class ArithmeticLengthTask(Task):
    """Add two integers; test operands are longer than any seen in training.

    The default data loading, prompting and exact-match scoring of :class:`genbench.Task` suffice.
    """
