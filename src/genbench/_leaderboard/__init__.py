"""A static leaderboard site built from results files (``genbench-cli leaderboard``).

An overview ranking the models (:mod:`.standings`, :mod:`.overview`), one page per task and per model, and
``leaderboard.json``; every page is one self-contained HTML file that works opened from ``file://``. See
docs/leaderboard.md.
"""

from __future__ import annotations

from genbench._leaderboard.collect import LeaderboardError, collect
from genbench._leaderboard.site import Site, build_leaderboard
from genbench._leaderboard.standings import Standings, rank_models

__all__ = ["LeaderboardError", "Site", "Standings", "build_leaderboard", "collect", "rank_models"]
