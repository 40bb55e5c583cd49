"""Seeing tasks in notebooks: HTML cards of tasks (``Task._repr_html_``) and the progress-bar switch
(:func:`genbench.core.progress.progress_bars`).

The cards are reached from :class:`~genbench.Task` through a typed slot (:mod:`genbench.core.features`), so
``genbench.task`` does not import this package.
"""

from __future__ import annotations

from genbench.core.progress import progress_bars
from genbench.display.card import task_card_html, task_dict_card_html

__all__ = ["progress_bars", "task_card_html", "task_dict_card_html"]
