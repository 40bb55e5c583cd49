"""Seeing tasks in notebooks: HTML cards of tasks (``Task._repr_html_``) and the progress-bar switch
(:func:`genbench.core.progress.progress_bars`), with the notebook's statistics and evaluation cards (imported lazily).

The cards are reached from :class:`~genbench.Task` through a typed slot (:mod:`genbench.core.features`), so
``genbench.task`` does not import this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from genbench.core.lazy import lazy_exports
from genbench.core.progress import progress_bars
from genbench.display.card import task_card_html, task_dict_card_html

if TYPE_CHECKING:
    from genbench.display.eval_card import eval_card
    from genbench.display.html import card_css, visible_whitespace
    from genbench.display.statistics import label_counts, lengths_in_tokens, ngram_overlap

_EXPORTS = {
    "card_css": "genbench.display.html",
    "visible_whitespace": "genbench.display.html",
    "label_counts": "genbench.display.statistics",
    "lengths_in_tokens": "genbench.display.statistics",
    "ngram_overlap": "genbench.display.statistics",
    "eval_card": "genbench.display.eval_card",
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
