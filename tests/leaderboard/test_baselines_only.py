"""A leaderboard of baselines only (the docs site's, built from the demo's results): the baselines as rows and
columns, clearly labelled and never ranked, and how to add a model, instead of an empty ranking."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import genbench.runs._demo
from genbench._leaderboard import build_leaderboard

REPO = Path(__file__).resolve().parents[2]


def test_a_baselines_only_board_shows_the_baselines_and_how_to_add_a_model(results_root: Path, tmp_path: Path) -> None:
    site = build_leaderboard([results_root / "demo"], tmp_path / "site")
    assert site.standings.models == [] and len(site.standings.baselines) >= 2
    html = site.index.read_text()
    assert "No model results (only baselines)" not in html
    assert '<h1 id="gb-title">Baselines on 2 tasks (no model results yet)</h1>' in html
    assert "no rank is given" in html and 'href="#gb-add-models"' in html
    add = re.search(r"<section id=\"gb-add-models\">(.*?)</section>", html, re.S)
    assert (
        add is not None and "genbench-cli run --model" in add.group(1) and "genbench-cli leaderboard" in add.group(1)
    )
    # Scores per task: a column per baseline, marked as one, each with its scores.
    tasks = re.search(r'<table class="gb-board gb-filterable" id="gb-tasks">(.*?)</table>', html, re.S)
    assert tasks is not None
    header = re.search(r"<thead>(.*?)</thead>", tasks.group(1), re.S)
    assert header is not None
    columns = re.findall(r'<th class="sortable gb-model-col"[^>]*title="([^"]+)"', header.group(1))
    assert sorted(columns) == sorted(s.model.label for s in site.standings.baselines)
    assert header.group(1).count('<small class="gb-ci">baseline</small>') == len(columns)
    assert "Best baseline" not in header.group(1)
    scored = sum(len(s.tasks) for s in site.standings.baselines)
    assert tasks.group(1).count('class="gb-value"') == scored > 0
    # Never ranked: every baseline row has no rank.
    assert all(s.rank is None for s in site.standings.baselines)
    data = json.loads(site.data.read_text())
    assert data["models"] == [] and all(b["rank"] is None and b["baseline"] for b in data["baselines"])


def test_the_docs_hook_adds_the_baselines_leaderboard_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mkdocs", reason="mkdocs (genbench's `docs` extra, part of `dev`) builds the docs site")
    from mkdocs.config import load_config
    from mkdocs.structure.files import Files

    real_run_demo = genbench.runs._demo.run_demo

    def two_tasks(*args: object, **kwargs: object) -> object:  # the hook runs every task; two keep the test short
        return real_run_demo(*args, task_ids=["category_membership", "arithmetic_length"], **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(genbench.runs._demo, "run_demo", two_tasks)
    config = load_config(str(REPO / "mkdocs.yml"))  # registers docs_hooks/leaderboard.py, as `make docs` does
    files = config.plugins.on_files(Files([]), config=config)
    pages = {f.src_uri: f.content_string for f in files}
    assert pages and all(f.generated_by for f in files)
    index = pages["baselines/index.html"]
    assert "Baselines on 2 tasks (no model results yet)" in index and "Adding model results" in index
    assert any(uri.startswith("baselines/tasks/") for uri in pages)
