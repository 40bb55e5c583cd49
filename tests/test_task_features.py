"""Task's feature methods are typed one-line delegations to the features' own functions (genbench._core.features),
not entry-point lookups: the slots hold the very functions, filled on first use without reading package metadata."""

from __future__ import annotations

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import tomllib

from genbench._core import features
from genbench.contamination._task_checks import evaluate_task_clean_and_all, task_contamination_scores
from genbench.display._card import task_card_html, task_dict_card_html
from genbench.reranking._task_evaluation import task_cross_encoder_scores
from genbench.runs._execute import RunOptions, run_model_on_task
from genbench.task._task import Task
from genbench.task._task_dict import TaskDict

ROOT = Path(__file__).resolve().parents[1]
SLOTS = {
    features.contamination_scores: task_contamination_scores,
    features.clean_and_all: evaluate_task_clean_and_all,
    features.cross_encoder_scores: task_cross_encoder_scores,
    features.model_run: run_model_on_task,
    features.task_card: task_card_html,
    features.task_dict_card: task_dict_card_html,
}


def test_each_slot_holds_the_features_own_function() -> None:
    for slot, function in SLOTS.items():
        assert slot() is function, slot.__name__


def test_slots_are_filled_without_package_metadata() -> None:
    """A renamed or moved function needs no reinstall: nothing reads the installed entry points."""
    code = (
        "import importlib.metadata as m\n"
        "def refuse(*a, **k): raise AssertionError('entry points read')\n"
        "m.entry_points = refuse\n"
        "from genbench._core import features\n"
        "import genbench\n"
        "print(features.task_card().__qualname__, features.model_run().__qualname__)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.split() == ["task_card_html", "run_model_on_task"]


def test_no_task_feature_entry_points_remain() -> None:
    entry_points = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]
    assert "genbench.task_features" not in entry_points
    assert "genbench.contamination_backends" in entry_points  # plug-in groups stay


def test_feature_methods_are_one_line_delegations_typed_without_any() -> None:
    methods = [(Task, name) for name in ("check_contamination", "evaluate_predictions_clean_and_all")]
    methods += [
        (Task, "evaluate_cross_encoder"),
        (Task, "run_model"),
        (Task, "_repr_html_"),
        (TaskDict, "_repr_html_"),
    ]
    for cls, name in methods:
        tree = ast.parse(inspect.cleandoc("\n" + inspect.getsource(getattr(cls, name))))
        definition = tree.body[0]
        assert isinstance(definition, ast.FunctionDef)
        body = [node for node in definition.body if not isinstance(node, ast.Expr)]  # the docstring left out
        assert len(body) <= 2, f"{cls.__name__}.{name} delegates in one statement (two with a local name)"
        assert "features." in ast.unparse(definition), name
        annotations = [a.annotation for a in [*definition.args.args, *definition.args.kwonlyargs]]
        annotations += [definition.args.kwarg.annotation if definition.args.kwarg else None, definition.returns]
        assert not [ast.unparse(a) for a in annotations if a is not None and ast.unparse(a) == "Any"], name


def test_run_options_are_run_model_on_tasks_keyword_options() -> None:
    keywords = [p.name for p in inspect.signature(run_model_on_task).parameters.values() if p.kind is p.KEYWORD_ONLY]
    assert list(RunOptions.__annotations__) == keywords
