"""The ``ner_unseen_entities`` task: everything it needs is in ``config.jsonnet``."""

from genbench import Task


class NerUnseenEntitiesTask(Task):
    """BIO named-entity tagging; test sentences are longer and name unseen entities.

    The default loading, prompting (labels joined by ``sequence_labeling_separator``) and seqeval scoring of
    :class:`genbench.Task` suffice.
    """
