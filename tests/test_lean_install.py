"""The core install (author a task, validate it, evaluate predictions, contamination on text) needs no torch,
transformers or sentence-transformers: the extras add them, and a feature that needs one says which extra to install
(issue 21). The sizes of each install are measured in docs/getting_started.md."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "transformers", "sentence_transformers", "openai", "elasticsearch")

# Runs with HEAVY hidden from the import system, as in a core install where they are absent (find_spec gives None).
BLOCK = f"""
import importlib.machinery, sys
class Hidden(importlib.machinery.PathFinder):
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.split(".")[0] in {HEAVY!r}:
            return None
        return importlib.machinery.PathFinder.find_spec(name, path, target)
sys.meta_path = [Hidden if finder is importlib.machinery.PathFinder else finder for finder in sys.meta_path]
"""


def _run_without_extras(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    import os

    # This checkout's genbench, wherever the test runs from (an editable install or PYTHONPATH=src).
    path = os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-c", BLOCK + code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
        check=False,
        env={**os.environ, "PYTHONPATH": path},
    )


def test_core_dependencies_leave_the_heavy_libraries_to_extras():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"]).lower()
    for heavy in ("torch", "transformers", "sentence-transformers", "openai", "elasticsearch"):
        assert heavy not in core
    extras = project["optional-dependencies"]
    assert any(d.startswith("torch") for d in extras["hf"]) and any(d.startswith("transformers") for d in extras["hf"])
    assert any(d.startswith("sentence-transformers") for d in extras["rerank"])
    assert isinstance(project["license"], str)  # an SPDX expression: a TOML table is deprecated by setuptools


def test_the_core_workflow_runs_without_the_extras(tmp_path: Path):
    code = f"""
import json
from genbench import load_task
from genbench.contamination import TestSet, build_index, search
from genbench._core.extras import MissingDependencyError

task = load_task("arithmetic_length")
gold = task.get_datasets_raw()["test"]
result = task.evaluate_predictions(predictions=[{{"target": row["target"]}} for row in gold], gold=gold)
assert all(value == 1.0 for key, value in result.items() if key.endswith("exact_match")), result

train = {str(tmp_path / "train.jsonl")!r}
open(train, "w").write(json.dumps({{"messages": [{{"role": "user", "content": "what is 12 plus 30"}}]}}) + "\\n")
build_index(train, index_dir="idx")
report = search(train, test_sets=[TestSet.from_texts("t", ["what is 12 plus 30"])], ngram_size=2, index_dir="idx")
assert report.results[0].score == 1.0

from genbench.reranking._task_evaluation import BiEncoderScorer
try:
    BiEncoderScorer("some-model")
except MissingDependencyError as exc:
    assert "pip install 'genbench[rerank]'" in str(exc), exc
else:
    raise AssertionError("a bi-encoder loaded without sentence-transformers")
import sys
print(sorted(name for name in {HEAVY!r} if name in sys.modules))
"""
    finished = _run_without_extras(code, tmp_path)
    assert finished.returncode == 0, finished.stderr[-3000:]
    assert finished.stdout.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize(
    ("command", "extra"),
    [
        (["run", "--model", "hf:gpt2", "--task", "arithmetic_length", "-o", "out"], "hf"),
        (["run", "--model", "openai:http://127.0.0.1:9/v1", "--task", "arithmetic_length", "-o", "out"], "openai"),
        (["contamination", "index", "--dataset", "train.jsonl", "--index_type", "vector", "--no-progress"], "rerank"),
        (["contamination", "list", "--backend", "elasticsearch"], "es"),
    ],
)
def test_a_feature_of_an_extra_names_the_extra(tmp_path: Path, command: list[str], extra: str):
    (tmp_path / "train.jsonl").write_text('{"messages": [{"role": "user", "content": "hello there"}]}\n')
    code = f"import sys\nsys.argv = ['genbench-cli', *{command!r}]\nfrom genbench.cli import cli\ncli()"
    finished = _run_without_extras(code, tmp_path)
    assert finished.returncode == 1, finished.stdout + finished.stderr
    assert f"pip install 'genbench[{extra}]'" in finished.stdout + finished.stderr
    assert "Traceback" not in finished.stderr
