"""Seeing tasks in notebooks: HTML cards of tasks (``Task._repr_html_``) and the progress-bar switch
(:func:`genbench._core.progress.progress_bars`), with the notebook's statistics and evaluation cards (imported lazily).

The cards are reached from :class:`~genbench.Task` through a typed slot (:mod:`genbench._core.features`), so
``genbench.task`` does not import this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from genbench._core.lazy import lazy_exports
from genbench._core.progress import progress_bars
from genbench.display._card import task_card_html, task_dict_card_html

if TYPE_CHECKING:
    from genbench.display._eval_card import eval_card
    from genbench.display._html import card_css, visible_whitespace
    from genbench.display._statistics import label_counts, lengths_in_tokens, ngram_overlap

_EXPORTS = {
    "card_css": "genbench.display._html",
    "visible_whitespace": "genbench.display._html",
    "label_counts": "genbench.display._statistics",
    "lengths_in_tokens": "genbench.display._statistics",
    "ngram_overlap": "genbench.display._statistics",
    "eval_card": "genbench.display._eval_card",
}

__all__ = [
    "card_css",
    "eval_card",
    "label_counts",
    "lengths_in_tokens",
    "ngram_overlap",
    "progress_bars",
    "task_card_html",
    "task_dict_card_html",
    "visible_whitespace",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
