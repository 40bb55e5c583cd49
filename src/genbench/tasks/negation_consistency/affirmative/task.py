"""Subtask ``negation_consistency:affirmative``: everything it needs is in ``config.jsonnet``."""

from genbench import Task


class NegationConsistencyAffirmativeTask(Task):
    """Judge affirmative category statements as true or false."""
