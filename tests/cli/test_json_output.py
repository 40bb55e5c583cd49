"""``--json`` of ``run`` and ``demo``: one JSON document on stdout, the lines naming what was written on stderr."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from genbench.cli import cli

PREDICTOR = """
def first_option(requests, task, **options):
    if task == "loglikelihood":
        return [0.0 if c.strip() == requests[0][1].strip() else -1.0 for _, c in requests]
    raise NotImplementedError
"""


def test_run_json_lists_each_tasks_results_file_and_evaluations(tmp_path: Path):
    (tmp_path / "predictor.py").write_text(PREDICTOR)
    spec = f"python:{tmp_path / 'predictor.py'}:first_option"
    out = tmp_path / "out"
    args = ["run", "-m", spec, "-t", "category_membership", "--limit", "4", "--bootstrap-resamples", "10"]
    result = CliRunner().invoke(cli, ["--no-progress", *args, "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    [document] = json.loads(result.stdout)
    results_file = Path(document["results_file"])
    assert document["task_id"] == "category_membership" and results_file.is_file()
    assert document["evaluations"] == json.loads(results_file.read_text())["evaluations"]
    assert f"Wrote {results_file}" in result.stderr


def test_demo_json_lists_the_records_it_writes(tmp_path: Path):
    out = tmp_path / "demo"
    result = CliRunner().invoke(cli, ["demo", "-t", "arithmetic_length", "--shots", "0", "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    [record] = json.loads(result.stdout)
    assert record == json.loads((out / "arithmetic_length.json").read_text())
    assert "Wrote 1 results file" in result.stderr and "baseline scores" not in result.output
