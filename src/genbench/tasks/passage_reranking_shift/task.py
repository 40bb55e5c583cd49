"""The ``passage_reranking_shift`` task: source rows with query/positive/documents become reranking examples."""

from collections.abc import Mapping
from typing import Any

from genbench import Task
from genbench.reranking import source_to_reranking_example


class PassageRerankingShiftTask(Task):
    """Rerank a first-stage ranking of passages per query; train on gardening/cooking, test on astronomy/code.

    ``input`` is the query, ``target`` the relevant passages and ``target_options`` the first-stage ranking.
    """

    def format_example(self, example: Mapping[str, Any]) -> Mapping[str, Any]:
        return source_to_reranking_example(example)
