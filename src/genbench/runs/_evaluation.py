"""``genbench.evaluate``: run a model over tasks from Python, with typed results (``genbench-cli run`` calls it).

See docs/running_models.md ("In Python").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genbench._core.errors import PreparationError
from genbench.runs._chat import ChatSettings
from genbench.runs._clean_subset import shift_flags_by_task
from genbench.runs._execute import ProgressFactory, check_shots, expand_task_ids, requested_task_ids, run
from genbench.runs._results import DEFAULT_MAX_NEW_TOKENS
from genbench.runs._results_model import ResultsDocument
from genbench.runs._runner_registry import load_runner
from genbench.runs._scoring import BootstrapSettings
from genbench.runs._shard_plan import Shard
from genbench.runs._shards import ShardError, run_shard
from genbench.runs.specs import parse_model_spec


@dataclass(frozen=True)
class TaskResult:
    """One model's results on one task with one seed.

    Attributes:
        task_id: The task's id (``task`` or ``task:subtask``).
        seed: The seed of this run.
        results: The results document, typed (what the results file holds).
        samples: The per-sample records (none for the merged result of a task with subtasks).
        results_path: Where the results file was written (None when no output directory was given).
        replaced: ``"replaced results of ..."`` when writing replaced an earlier results file, else None.
    """

    task_id: str
    seed: int
    results: ResultsDocument
    samples: list[dict[str, Any]] = field(default_factory=list, repr=False)
    results_path: Path | None = None
    replaced: str | None = None


def evaluate(
    *,
    model: str,
    tasks: str | Sequence[str],
    model_args: str | dict[str, str] | None = None,
    shots: int | Sequence[int] = (0,),
    seeds: int | Sequence[int] = (42,),
    limit: int | None = None,
    max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS,
    output_dir: str | Path | None = None,
    cache_dir: str | Path | None = None,
    use_cache: bool = True,
    write_samples: bool = True,
    bootstrap_resamples: int = 1000,
    progress: bool | ProgressFactory = False,
    shard: Shard | str | None = None,
    chat: ChatSettings | None = None,
    shift_report: str | Path | Sequence[str | Path] | None = None,
) -> list[TaskResult]:
    """Run a model over tasks: prompts, answers (through the request cache), metrics with 95% bootstrap intervals.

    Args:
        model: ``hf:PATH_OR_ID``, ``openai:BASE_URL``, ``cross-encoder:PATH``, ``sentence-transformers:PATH`` or
            ``python:module:function``.
        tasks: Task ids (a list, a comma-separated string, or ``"all"``); a task with subtasks runs each subtask,
            then gives its merged result.
        model_args: The model's arguments (``"dtype=float16,batch_size=8"`` or a dict).
        shots: Numbers of few-shot examples.
        seeds: Seeds of the shots, the choice order and the bootstrap: one run per seed.
        limit: Run only the first ``limit`` test examples.
        max_new_tokens: Generation limit.
        output_dir: Write ``<output_dir>/<model>/<settings>/<task>.json`` (and ``.samples.jsonl``); None: nothing
            is written.
        cache_dir: The request cache's directory (default ``<genbench cache>/requests``).
        use_cache: False: no request cache.
        write_samples: Write the per-sample logs.
        bootstrap_resamples: Bootstrap resamples of the intervals of metrics that are means of per-sample scores.
        progress: Progress bars: True for :func:`~genbench._core.progress.phase_progress` bars (under the one
            switch), or a factory of bars.
        shard: ``"I/N"`` (or a :class:`~genbench.runs._shard_plan.Shard`): answer only this shard's share of the
            run's requests into ``<output_dir>/shards/`` and return no results; ``genbench-cli merge-shards``
            writes the results once every shard is done.
        chat: The chat template, system instruction and few-shot layout (:class:`~genbench.runs._chat.ChatSettings`,
            as ``run --apply-chat-template``, ``--system-instruction``, ``--fewshot-as-multiturn``); None: plain
            prompts.
        shift_report: Shift reports (``genbench-cli shift measure``), one per task (or subtask) at most: each such
            task is scored twice, on all examples and on those its report does not flag as contained in its corpus
            (each evaluation's ``clean``, the report in the results' ``shift_report``). A task with subtasks takes
            one per subtask, of one corpus index and threshold, and its merged result gets a ``clean`` too. With
            ``shard``, the reports join the run's record and the merge of the shards scores the clean subsets.

    Returns:
        One :class:`TaskResult` per seed and task, seeds outer; a task with subtasks gives one per subtask, then its
        merged one. Empty for a shard.

    Raises:
        genbench._core.errors.GenBenchError: an unknown task or model, a broken answer, an unwritable output; a
            shard without output_dir, or of a model whose answers are not cached (ShardError); a shift report that is
            not of a task of the run or whose examples are not the task's test examples, or reports of some subtasks
            of a task only or of different corpus indexes or thresholds (ContaminationError).

    Example::

        import genbench

        results = genbench.evaluate(model="hf:gpt2", tasks=["arithmetic_length"], shots=[0, 5], limit=100)
        score = results[0].results.score(shots=5)
        print(score.value, score.ci)
    """
    shot_list = [shots] if isinstance(shots, int) else list(shots)
    seed_list = [seeds] if isinstance(seeds, int) else list(seeds)
    task_list: str | list[str] = tasks if isinstance(tasks, str) else list(tasks)
    if not seed_list:  # no run at all, and an empty list back
        raise PreparationError("seeds: give at least one seed, e.g. seeds=[42].")
    check_shots(shot_list)
    requested_task_ids(task_list)  # before the model loads
    report_paths = (
        [] if shift_report is None else [shift_report] if isinstance(shift_report, (str, Path)) else shift_report
    )
    shift_reports = shift_flags_by_task(report_paths, expand_task_ids(task_list)) if report_paths else None
    if shard is not None:
        if output_dir is None:
            raise ShardError("A shard writes its answers under output_dir/shards: give output_dir.")
        run_shard(
            Shard.parse(shard) if isinstance(shard, str) else shard, model=model, model_args=model_args,
            tasks=task_list, shots=shot_list, seeds=seed_list, limit=limit, max_new_tokens=max_new_tokens,
            output_dir=Path(output_dir), write_samples=write_samples, bootstrap_resamples=bootstrap_resamples,
            progress=progress, chat=chat, shift_reports=shift_reports,
        )  # fmt: skip
        return []
    runner = load_runner(parse_model_spec(model, model_args))
    results: list[TaskResult] = []
    for seed in seed_list:
        runs = run(
            runner, task_list, output_dir=output_dir, shots=shot_list, seed=seed, limit=limit,
            max_new_tokens=max_new_tokens, cache_dir=cache_dir, use_cache=use_cache, write_samples=write_samples,
            bootstrap=BootstrapSettings(resamples=bootstrap_resamples, seed=seed), progress=progress, chat=chat,
            shift_reports=shift_reports,
        )  # fmt: skip
        results.extend(
            TaskResult(
                task_run.task_id,
                seed,
                ResultsDocument.model_validate(task_run.written or task_run.document),
                task_run.samples,
                task_run.results_path,
                task_run.replaced,
            )  # fmt: skip
            for task_run in runs
        )
    return results
