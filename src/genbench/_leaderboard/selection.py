"""Choosing the tasks a leaderboard ranks (``genbench-cli leaderboard -t ... --exclude-task ...``).

A selection names task ids or shell-style patterns (``my_*``); a task named selects its subtasks too (their results
are its detail). Every name must match a task of the results: a misspelt one is an error, not an empty leaderboard.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from fnmatch import fnmatchcase

from genbench._leaderboard.collect import Leaderboard, LeaderboardError, label_models


def _matches(task_id: str, pattern: str) -> bool:
    parent = task_id.split(":", 1)[0]
    return fnmatchcase(task_id, pattern) or (":" not in pattern and fnmatchcase(parent, pattern))


def _matched(task_ids: Iterable[str], patterns: Sequence[str], what: str) -> set[str]:
    task_ids = sorted(task_ids)
    chosen = set()
    for pattern in patterns:
        found = {task_id for task_id in task_ids if _matches(task_id, pattern)}
        if not found:
            raise LeaderboardError(
                f"{what} {pattern!r}: no results of such a task; the results hold {', '.join(task_ids)}."
            )
        chosen |= found
    return chosen


def select_tasks(
    board: Leaderboard, tasks: Sequence[str] | None = None, exclude_tasks: Sequence[str] | None = None
) -> Leaderboard:
    """The board with only the tasks ``tasks`` names (None: all) minus those ``exclude_tasks`` names, and the models
    that have results on them (labelled again among themselves).

    Raises:
        LeaderboardError: a name or pattern matches no task of the results, or nothing is left.

    >>> from genbench._leaderboard.collect import TaskEntry
    >>> entry = lambda task_id: TaskEntry(task_id, task_id, None, [], {})
    >>> board = Leaderboard({}, {t: entry(t) for t in ["a", "b", "neg:x", "neg:y", "neg"]}, {}, [])
    >>> sorted(select_tasks(board, ["neg"]).tasks), sorted(select_tasks(board, None, ["neg*"]).tasks)
    (['neg', 'neg:x', 'neg:y'], ['a', 'b'])
    """
    if not tasks and not exclude_tasks:
        return board
    kept = _matched(board.tasks, tasks, "Task to rank") if tasks else set(board.tasks)
    kept -= _matched(board.tasks, exclude_tasks, "Task to leave out") if exclude_tasks else set()
    if not kept:
        raise LeaderboardError("The tasks chosen leave no task to rank.")
    cells = {key: cell for key, cell in board.cells.items() if key[1] in kept}
    models = {key: model for key, model in board.models.items() if any(m == key for m, _ in cells)}
    label_models(models.values())
    return replace(
        board,
        tasks={task_id: task for task_id, task in board.tasks.items() if task_id in kept},
        cells=cells,
        models=models,
        stale=[stale for stale in board.stale if stale.task_id in kept],
    )
