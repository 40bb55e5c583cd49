"""The ``category_membership`` task: everything it needs is in ``config.jsonnet`` and ``split.jsonnet``."""

from genbench import Task


class CategoryMembershipTask(Task):
    """Pick the option that belongs to the named category; test categories are unseen in training.

    The default loading (with the category-based ``split.jsonnet``), prompting and accuracy scoring of
    :class:`genbench.Task` suffice.
    """
