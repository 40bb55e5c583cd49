"""mkdocs hook: the docs site carries the leaderboard of the shipped tasks' baselines, built at docs-build time.

The demo's baselines run on every registry task (offline, about half a minute), their results files become a
leaderboard (``genbench._leaderboard``), and its pages are added to the site under ``baselines/``. Building it here,
rather than committing generated pages, keeps it from going stale when a task changes.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

OFFLINE = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE", "TRANSFORMERS_OFFLINE")


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for variable in OFFLINE:
        os.environ.setdefault(variable, "1")
    from genbench._leaderboard import build_leaderboard
    from genbench.display import progress_bars
    from genbench.runs._demo import run_demo

    with tempfile.TemporaryDirectory(prefix="genbench-docs-leaderboard-") as tmp, progress_bars(False):
        root = Path(tmp)
        run_demo(root / "demo", results_dir=root / "results")
        build_leaderboard([root / "results"], root / "site")
        for page in sorted((root / "site").rglob("*.html")):
            uri = "baselines/" + page.relative_to(root / "site").as_posix()
            files.append(File.generated(config, uri, content=page.read_text(encoding="utf-8")))
    return files
