"""A static leaderboard site built from results files (``genbench-cli leaderboard``).

The overview (models x tasks, primary metric with its interval, sortable, filterable by keyword), one page per task
(metrics per model and setting, a chart of score vs shots with intervals, the task card) and one page per model;
every page is one self-contained HTML file that works opened from ``file://``.
"""

from __future__ import annotations

from genbench.leaderboard.collect import LeaderboardError, collect
from genbench.leaderboard.site import Site, build_leaderboard

__all__ = ["LeaderboardError", "Site", "build_leaderboard", "collect"]
