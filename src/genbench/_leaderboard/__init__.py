"""A static leaderboard site built from results files (``genbench-cli leaderboard``).

The overview ranks the models by the mean of each task's headline score, with intervals bootstrapped from the
per-sample logs, groups the means by GenBench taxonomy value and lists the scores per task (:mod:`.standings`,
:mod:`.overview`); one page per task (metrics per model, seed and setting, a chart of score vs shots, the task
card) and one page per model; ``leaderboard.json``. Every page is one self-contained HTML file that works opened
from ``file://``.
"""

from __future__ import annotations

from genbench._leaderboard.collect import LeaderboardError, collect
from genbench._leaderboard.site import Site, build_leaderboard
from genbench._leaderboard.standings import Standings, rank_models

__all__ = ["LeaderboardError", "Site", "Standings", "build_leaderboard", "collect", "rank_models"]
