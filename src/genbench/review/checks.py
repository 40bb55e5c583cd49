"""The validation suite's checks in the order they run, and every check function: docs/testing.md#the-checks.

A task with subtasks runs :data:`TASK_DICT_CHECKS`, then :data:`TASK_CHECKS` on every subtask; a task, the latter.

>>> [check.name for check in TASK_CHECKS][:7]
['task_files', 'required_files', 'config', 'doc', 'taxonomy', 'prompt_lint', 'task_loads']
"""

from __future__ import annotations

from functools import partial

from genbench.review._base import Check, TaskCheckFailure, TaskCheckSkipped, TaskCheckWarning
from genbench.review._data_checks import (
    check_data_loads,
    check_declared_splits,
    check_example_types,
    check_ngram_overlap,
    check_no_duplicates,
    check_no_iterable_dataset,
    check_split_file,
    check_test_overlap,
    is_overridden,
)
from genbench.review._metadata_checks import (
    check_metric_directions,
    check_primary_metric,
    check_task_dict_metric_directions,
    check_task_dict_primary_metric,
    check_taxonomy,
)
from genbench.review._preparation_checks import (
    check_finetuning,
    check_gold_scores,
    check_prompts,
    check_task_dict_merge,
    gold_predictions,
)
from genbench.review._prompt_checks import check_prompt_lint
from genbench.review._static_checks import (
    DOC_MIN_WORDS,
    DOC_TEMPLATE_MARKER,
    check_config,
    check_doc,
    check_method_names,
    check_required_files,
    check_subtasks,
    check_task_loads,
    doc_problem,
)
from genbench.review._trust import check_task_files

_LOADED = ("task_loads",)
_DATA = ("task_loads", "data_loads")
_DATASETS = (*_DATA, "no_iterable_dataset")
_EXAMPLES = (*_DATASETS, "example_types")

TASK_CHECKS: tuple[Check, ...] = (
    Check("task_files", "Only plain files inside the task directory", check_task_files, "dir", placement="trusted"),
    Check("required_files", "Required files are present", partial(check_required_files, task_dict=False), "dir",
          placement="trusted"),
    Check("config", "config.jsonnet is valid", partial(check_config, task_dict=False), "dir", placement="trusted"),
    Check("doc", "doc.md documents the task", check_doc, "dir", takes_submission=True, placement="trusted"),
    Check("taxonomy", "The task declares its GenBench taxonomy", partial(check_taxonomy, task_dict=False), "dir",
          placement="trusted"),
    Check("prompt_lint", "Prompts read well (no glued words or doubled separators)", check_prompt_lint, "dir",
          placement="trusted"),
    Check("task_loads", "The task loads", check_task_loads, "id"),
    Check("method_names", "No misspelt Task method overrides", check_method_names, "task", _LOADED),
    Check("split_file", "The split file is valid", check_split_file, "task", _LOADED, placement="data"),
    Check("data_loads", "The data loads", check_data_loads, "task", _LOADED, placement="data"),
    Check("declared_splits", "Splits match has_train_set / has_validation_set", check_declared_splits, "task", _DATA,
          placement="data"),
    Check("no_iterable_dataset", "Splits are datasets.Dataset, not IterableDataset", check_no_iterable_dataset,
          "task", _DATA, placement="data"),
    Check("example_types", "Examples match the task type", check_example_types, "task", _DATASETS, placement="data"),
    Check("no_duplicates", "No duplicate examples within a split", check_no_duplicates, "task", _DATASETS,
          placement="data"),
    Check("test_overlap", "No test example in train/validation", check_test_overlap, "task", _DATASETS,
          placement="data"),
    Check("ngram_overlap", "No test example near-duplicates train/validation", check_ngram_overlap, "task", _DATASETS,
          placement="data"),
    Check("gold_scores", "Gold predictions reach best_score", check_gold_scores, "task", _EXAMPLES),
    Check("primary_metric", "primary_metric is a key of the results", check_primary_metric, "task", _EXAMPLES),
    Check("metric_directions", "metric_directions match keys of the results", check_metric_directions, "task",
          _EXAMPLES),
    Check("prompts", "Prompts render with exactly k shots", check_prompts, "task", _EXAMPLES),
    Check("finetuning", "Finetuning datasets prepare", check_finetuning, "task", _DATASETS),
)  # fmt: skip

TASK_DICT_CHECKS: tuple[Check, ...] = (
    Check("task_files", "Only plain files inside the task directory", check_task_files, "dir", placement="trusted"),
    Check("required_files", "Required files are present", partial(check_required_files, task_dict=True), "dir",
          placement="trusted"),
    Check("config", "config.jsonnet is valid", partial(check_config, task_dict=True), "dir", placement="trusted"),
    Check("doc", "doc.md documents the task", check_doc, "dir", takes_submission=True, placement="trusted"),
    Check("subtasks", "Subtasks match subtasks_order", check_subtasks, "dir", placement="trusted"),
    Check("taxonomy", "The task declares its GenBench taxonomy", partial(check_taxonomy, task_dict=True), "dir",
          placement="trusted"),
    Check("task_loads", "The task and its subtasks load", check_task_loads, "id"),
    Check("merge", "Subtask results merge", check_task_dict_merge, "task_dict", _LOADED),
    Check("primary_metric", "primary_metric is a key of the merged results", check_task_dict_primary_metric,
          "task_dict", _LOADED),
    Check("metric_directions", "metric_directions match keys of the merged results",
          check_task_dict_metric_directions, "task_dict", _LOADED),
)  # fmt: skip

__all__ = [
    "DOC_MIN_WORDS",
    "DOC_TEMPLATE_MARKER",
    "TASK_CHECKS",
    "TASK_DICT_CHECKS",
    "Check",
    "TaskCheckFailure",
    "TaskCheckSkipped",
    "TaskCheckWarning",
    "check_config",
    "check_data_loads",
    "check_declared_splits",
    "check_doc",
    "check_example_types",
    "check_finetuning",
    "check_gold_scores",
    "check_metric_directions",
    "check_method_names",
    "check_ngram_overlap",
    "check_no_duplicates",
    "check_no_iterable_dataset",
    "check_primary_metric",
    "check_prompt_lint",
    "check_prompts",
    "check_required_files",
    "check_split_file",
    "check_subtasks",
    "check_task_dict_merge",
    "check_task_dict_metric_directions",
    "check_task_dict_primary_metric",
    "check_task_files",
    "check_task_loads",
    "check_taxonomy",
    "check_test_overlap",
    "doc_problem",
    "gold_predictions",
    "is_overridden",
]
