"""Subtask ``negation_consistency:negated``: everything it needs is in ``config.jsonnet``."""

from genbench import Task


class NegationConsistencyNegatedTask(Task):
    """Judge negated category statements as true or false, having seen only affirmative ones."""
