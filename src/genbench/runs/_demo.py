"""The demo job: every registry task, prompted zero- and few-shot, answered by a baseline, evaluated, recorded.

:func:`run_demo` is what ``genbench-cli demo`` (and ``make demo``) runs: each task's prompts (or finetuning test
split) are answered by its task type's baseline (:mod:`genbench.runs.baselines`) and scored by the task's own
``evaluate_predictions``; subtasks are merged with ``merge_evaluation_results``. A task that fails is recorded with
its error and the others still run. See docs/cli.md#demo.
"""

from __future__ import annotations

import hashlib
import json
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genbench._core.files import prepare_output_dir, to_jsonable, write_json_atomic
from genbench._core.version import VERSION
from genbench._core.vocabulary import DatasetSplit, PreparationStrategy, TaskType
from genbench._registry.directories import scan_task_dirs
from genbench.runs._results import file_stem
from genbench.runs.baselines import BASELINES, predict, training_pool

if TYPE_CHECKING:
    from genbench.task import Task
    from genbench.task._task_dict import TaskDict

FINETUNING_SETTING = "finetuning"


@dataclass
class TaskResult:
    """The demo's outcome for one registry task.

    Attributes:
        task_id: The task's id.
        metrics: Metric values per setting: the number of shots as a string (``"0"``, ``"3"``), or
            ``"finetuning"`` for a task evaluated on its finetuning test split.
        num_examples: Evaluated examples per setting (summed over subtasks).
        record: Everything written to the results file.
        output_path: The results file, or None when the task failed.
        error: ``"ExceptionType: message"`` when the task failed, else None.
        exception: The exception itself (for a traceback), when the task failed.
        broken: True when the task could not even be loaded (its directory, config or code is broken): the demo
            skips it, where a task that loads but fails while running is an error.
    """

    task_id: str
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)
    num_examples: dict[str, int] = field(default_factory=dict)
    record: dict[str, Any] = field(default_factory=dict)
    output_path: Path | None = None
    error: str | None = None
    exception: BaseException | None = field(default=None, repr=False, compare=False)
    seconds: float = 0.0
    broken: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None


def config_fingerprint(config: Any) -> str:
    """SHA-256 of the canonical JSON (sorted keys, no whitespace) of a validated config.

    >>> from genbench.config._schema import TaskDictConfig
    >>> len(config_fingerprint(TaskDictConfig(name="x")))
    64
    """
    document = config.model_dump(mode="json") if hasattr(config, "model_dump") else config
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def demo_task_ids() -> list[str]:
    """Every task id of the registry (package tasks and ``GENBENCH_TASKS_PATH`` roots), sorted.

    Only directories are listed: configs are read task by task, so one broken config fails only its task. A
    directory that cannot be a task (an invalid id, an id defined twice) is listed too, and fails on its own.
    """
    tasks, problems = scan_task_dirs()
    return sorted([*tasks, *problems])


def _evaluate_task(
    task: Task, shot_list: Sequence[int], random_seed: int
) -> tuple[dict[str, Any], dict[str, int], dict[str, str]]:
    """Baseline metrics, example counts and prompt descriptions (e.g. the shots' split) per setting."""
    pool = training_pool(task)
    strategies = task.config.preparation_strategies
    if strategies.prompt_based_testing is not None:
        prepared = task.get_prepared_datasets(
            PreparationStrategy.PROMPT_BASED_TESTING, shot_list=list(shot_list), random_seed=random_seed
        )
        settings = [(str(n_shots), prepared[n_shots]) for n_shots in shot_list]
    else:
        splits = task.get_prepared_datasets(PreparationStrategy.FINETUNING)
        settings = [(FINETUNING_SETTING, splits[DatasetSplit.TEST.value])]
    metrics: dict[str, Any] = {}
    counts: dict[str, int] = {}
    descriptions: dict[str, str] = {}
    for setting, dataset in settings:
        predictions: list[Mapping[str, Any]] = list(predict(task, dataset, pool))
        with warnings.catch_warnings():
            # Baselines never predict some labels by design; scikit-learn/seqeval's "ill-defined" warning about
            # such labels is expected here and would only clutter the demo's output.
            warnings.filterwarnings("ignore", message=".*ill-defined.*")
            metrics[setting] = task.evaluate_predictions(predictions=predictions, gold=dataset)
        counts[setting] = len(dataset)
        if dataset.info.description:
            descriptions[setting] = dataset.info.description
    return metrics, counts, descriptions


def _task_record(task: Task, shot_list: Sequence[int], random_seed: int) -> dict[str, Any]:
    metrics, counts, descriptions = _evaluate_task(task, shot_list, random_seed)
    baseline = BASELINES[task.config.task_type]
    record = {
        "name": task.name,
        "task_type": task.config.task_type.value,
        "config_fingerprint": config_fingerprint(task.config),
        "baseline": {"name": baseline.name, "description": baseline.description},
        "dataset_descriptions": descriptions,
        "num_examples": counts,
        "metrics": metrics,
    }
    if task.config.task_type is TaskType.RERANKING:
        record["reranking"] = _bi_encoder_reranking(task)
    return record


def _bi_encoder_reranking(task: Task) -> dict[str, Any]:
    """A reranking task's test set reranked by the offline all-MiniLM-L6-v2 bi-encoder (cosine similarity)."""
    from genbench.reranking._evaluation.evaluator_base import base_vs_reranked_lines
    from genbench.reranking._task_evaluation import BiEncoderScorer, evaluate_task_with_cross_encoder

    results, evaluator = evaluate_task_with_cross_encoder(task, BiEncoderScorer())
    base = {key: value for key, value in results.items() if key.startswith("base_")} or None
    return {
        "model": "all-MiniLM-L6-v2 bi-encoder (cosine similarity)",
        "metrics": results,
        "table": base_vs_reranked_lines(evaluator.at_k, results, base),
    }


def _task_dict_record(task_dict: TaskDict, shot_list: Sequence[int], random_seed: int) -> dict[str, Any]:
    subtasks = {sid: _task_record(task, shot_list, random_seed) for sid, task in task_dict.items()}
    settings = list(OrderedDict.fromkeys(s for record in subtasks.values() for s in record["metrics"]))
    metrics = {
        setting: task_dict.merge_evaluation_results(
            OrderedDict((sid, rec["metrics"][setting]) for sid, rec in subtasks.items() if setting in rec["metrics"])
        )
        for setting in settings
    }
    counts = {s: sum(rec["num_examples"].get(s, 0) for rec in subtasks.values()) for s in settings}
    fingerprint_source = {
        "task_dict": task_dict.config.model_dump(mode="json"),
        "subtasks": {sid: task.config.model_dump(mode="json") for sid, task in task_dict.items()},
    }
    return {
        "name": task_dict.name,
        "task_type": None,
        "config_fingerprint": config_fingerprint(fingerprint_source),
        "subtasks": {sid: {k: v for k, v in rec.items() if k != "metrics"} for sid, rec in subtasks.items()},
        "num_examples": counts,
        "metrics": metrics,
    }


def run_task(
    task_id: str,
    output_dir: str | Path,
    *,
    shot_list: Sequence[int] = (0, 3),
    random_seed: int = 42,
    results_dir: str | Path | None = None,
) -> TaskResult:
    """Run the demo on one task and write its results file; a failure is returned, not raised.

    With ``results_dir``, the baseline's results are also written in the results-file format of model runs
    (``<results_dir>/baseline-.../<task>.json`` per task or subtask, and the merged result of a TaskDict whose
    subtasks one baseline answered; see ``genbench-cli schema --results``).

    Returns:
        The task's :class:`TaskResult` (``error`` set and no file written when the task failed).
    """
    from genbench.task._factory import load_task
    from genbench.task._task_dict import TaskDict

    started = time.perf_counter()
    result = TaskResult(task_id=task_id)
    try:
        try:
            loaded = load_task(task_id)
        except Exception:
            result.broken = True
            raise
        if isinstance(loaded, TaskDict):
            record = _task_dict_record(loaded, shot_list, random_seed)
        else:
            record = _task_record(loaded, shot_list, random_seed)
        strategy = PreparationStrategy.PROMPT_BASED_TESTING
        if FINETUNING_SETTING in record["metrics"]:
            strategy = PreparationStrategy.FINETUNING
        record = {
            "task_id": task_id,
            "name": record.pop("name"),
            "task_type": record.pop("task_type"),
            "genbench_version": VERSION,
            "config_fingerprint": record.pop("config_fingerprint"),
            "preparation_strategy": strategy.value,
            "shots": list(shot_list) if strategy is PreparationStrategy.PROMPT_BASED_TESTING else [],
            "random_seed": random_seed,
            **record,
        }
        record = to_jsonable(record)
        # A subtask id ("task:subtask") becomes "task.subtask.json": ':' is not allowed in Windows file names.
        output_path = Path(output_dir) / f"{file_stem(task_id)}.json"
        write_json_atomic(output_path, record)
        if results_dir is not None:
            from genbench.runs._offline import baseline_run, merged_predictions_results

            runs = [
                baseline_run(task, results_dir, shot_list=shot_list, random_seed=random_seed)
                for task in (loaded.values() if isinstance(loaded, TaskDict) else [loaded])
            ]
            if isinstance(loaded, TaskDict):  # its merged result, when one baseline answered every subtask
                merged_predictions_results(loaded, runs, results_dir)
    except Exception as exc:  # noqa: BLE001 - recorded with its own message and reported; other tasks still run
        result.error = f"{type(exc).__name__}: {exc}"
        result.exception = exc
    else:
        result.record = record
        result.metrics = record["metrics"]
        result.num_examples = record["num_examples"]
        result.output_path = output_path
    result.seconds = time.perf_counter() - started
    return result


def run_demo(
    output_dir: str | Path,
    *,
    task_ids: Iterable[str] | None = None,
    shot_list: Sequence[int] = (0, 3),
    random_seed: int = 42,
    on_result: Callable[[TaskResult], None] | None = None,
    results_dir: str | Path | None = None,
) -> list[TaskResult]:
    """Run every registry task (or ``task_ids``) with the baseline predictors and write one JSON per task.

    Args:
        output_dir: Directory for the results files (created if missing); ``<task_id>.json`` each, holding the
            task id, config fingerprint, genbench version, shots, seed, number of examples and metrics per
            setting. Files are replaced atomically.
        task_ids: The tasks to run; default: every task of the registry.
        shot_list: The numbers of few-shot examples to prompt with.
        random_seed: Seed of few-shot selection (and choice permutation).
        on_result: Called with each task's result as soon as it is done (e.g. to report progress).
        results_dir: Also write results files in the format of model runs here (see :func:`run_task`).

    Returns:
        One :class:`TaskResult` per task, in order; failed tasks have ``error`` set and wrote no file.

    Raises:
        ValueError: ``shot_list`` is empty or has a negative or repeated entry.
        OutputError: ``output_dir`` cannot be created or written to.
        TaskDefinitionError: the registry itself is malformed (an invalid or duplicate task directory name).

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as output_dir:
    ...     results = run_demo(output_dir, task_ids=["arithmetic_length"], shot_list=[0])
    >>> results[0].ok, results[0].metrics["0"]["hf_exact_match__exact_match"]
    (True, 0.0)
    """
    shots = [int(n) for n in shot_list]
    if not shots or any(n < 0 for n in shots) or len(set(shots)) != len(shots):
        raise ValueError(f"shot_list must be distinct non-negative integers, got {list(shot_list)!r}.")
    prepare_output_dir(output_dir)  # one error now rather than the same error for every task
    ids = list(task_ids) if task_ids is not None else demo_task_ids()
    results = []
    for task_id in ids:
        result = run_task(task_id, output_dir, shot_list=shots, random_seed=random_seed, results_dir=results_dir)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return results
