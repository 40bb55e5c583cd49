"""Run a model over tasks: prompts in, answers out (through the request cache), scored, written as results files.

How each task type is answered:

- ``free_form`` and ``sequence_labeling``: greedy generation, stopped at the prompt builder's ``stop_string`` or
  after ``max_new_tokens``; the task's own evaluation extracts the answer (``free_form_output_regex``) or splits
  the labels (``sequence_labeling_separator``).
- ``multiple_choice``: the log-likelihood of each option given the prompt; the prediction is the option with the
  highest log-likelihood, and the *length-normalised* prediction the one with the highest log-likelihood per
  character of the option (lm-evaluation-harness's ``acc`` and ``acc_norm``), reported as the metric keys
  prefixed ``length_normalised.``. A runner without log-likelihoods (a chat API, a server that does not return
  prompt log-probabilities) generates an answer instead, matched to the options; the results say which
  (``multiple_choice_method``).
- ``reranking``: one score per candidate: a cross-encoder's score, a bi-encoder's cosine similarity, or for a
  language model the log-likelihood of the candidate given the query prompt, per character.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from genbench.core.errors import GenBenchError, PreparationError
from genbench.core.urls import redact_url
from genbench.core.version import VERSION
from genbench.core.vocabulary import PreparationStrategy, TaskType
from genbench.data.cache import cache_dir as genbench_cache_dir
from genbench.metrics.cross_encoder import main_key
from genbench.metrics.evaluation import main_score_key
from genbench.metrics.predictions import prepare_for_scoring, read_gold
from genbench.registry.directories import discover_tasks
from genbench.runs.errors import ModelAnswerError
from genbench.runs.model_runner import AnswerProblem, ModelRunner, RequestUnsupported, answer_problem
from genbench.runs.request_cache import CacheStats, RequestCache, answer_with_cache, request_key
from genbench.runs.results import (
    SCHEMA_VERSION,
    file_stem,
    prompt_builder_sha256,
    task_fingerprint,
    write_results,
)
from genbench.runs.runner_registry import load_runner
from genbench.runs.scoring import BootstrapSettings, GoldSubsets, metric_entries, per_sample_scores, quiet_evaluate
from genbench.runs.specs import parse_model_spec

if TYPE_CHECKING:
    from genbench.task import Task

logger = logging.getLogger(__name__)

LENGTH_NORMALISED = "length_normalised."
DEFAULT_MAX_NEW_TOKENS = 128


@dataclass
class TaskRun:
    """The outcome of one model on one task.

    Attributes:
        task_id: The task's id.
        document: The results document (see ``genbench-cli schema --results``).
        samples: The per-sample records.
        results_path: Where the results file was written (None when no output directory was given).
    """

    task_id: str
    document: dict[str, Any]
    samples: list[dict[str, Any]] = field(default_factory=list)
    results_path: Path | None = None


ProgressFactory = Callable[[str, int], Any]
"""Makes the progress bar of one phase: ``factory(description, total)`` returns an object with ``update(n)``,
``close()`` and a ``leave`` attribute (a ``tqdm`` bar is one; see ``genbench.display.progress.phase_progress``)."""


class Requester:
    """A runner behind the request cache, with progress reporting and cache statistics.

    Args:
        runner: The model runner.
        cache: The request cache (None: none).
        progress: False: no bars; True: ``tqdm.auto`` bars; a :data:`ProgressFactory`: its bars.
        where: Where the requests come from, in error messages (``task 'x' (0-shot)``).
        label: The name of the bars, followed by the phase (``ner_unseen_entities 0-shot`` -> ``... generate``).
    """

    def __init__(
        self,
        runner: ModelRunner,
        cache: RequestCache | None,
        *,
        progress: bool | ProgressFactory = False,
        where: str = "",
        label: str = "",
    ) -> None:
        self.runner = runner
        self.cache = cache if runner.cacheable else None
        self.chunk_size = runner.chunk_size
        self.progress = progress
        self.stats = CacheStats()
        self.where = where
        self.label = label

    def _bar(self, kind: str, total: int) -> Any:
        description = f"{self.label or self.runner.spec.kind} {kind}"
        if callable(self.progress):
            return self.progress(description, total)
        from tqdm.auto import tqdm

        return tqdm(total=total, desc=description, disable=not self.progress)

    def _answer(self, kind: str, requests: Sequence[Any], settings: dict[str, Any], compute: Any) -> list[Any]:
        identity = self.runner.cache_identity()
        keys = [request_key(identity, kind, request, settings) for request in requests]

        def checked(chunk: list[Any]) -> list[Any]:
            # the one place where every runner's answers are checked, before they are cached or scored
            raw = compute(chunk)
            answers = answer_problem(kind, chunk, raw)
            if isinstance(answers, AnswerProblem):
                raise self._broken(kind, requests, chunk, _first_in_request_order(kind, requests, chunk, raw, answers))
            return answers

        # longest first, requests of one context side by side: each chunk's batches are of like lengths (little
        # padding) and the options of one question share a chunk (a runner can then share their context's pass)
        order = sorted(range(len(requests)), key=lambda i: _length_key(requests[i]))
        bar = self._bar(kind, len(requests))
        try:
            sorted_answers = answer_with_cache(
                [requests[i] for i in order], checked, cache=self.cache, keys=[keys[i] for i in order],
                chunk_size=self.chunk_size, stats=self.stats, on_progress=bar.update,
            )  # fmt: skip
        except BaseException:
            bar.leave = False  # no stuck "score_pairs: 0/18" line before a fallback, an error or an interruption
            raise
        finally:
            bar.close()
        answers: list[Any] = [None] * len(requests)
        for position, i in enumerate(order):
            answers[i] = sorted_answers[position]
        return answers

    def _broken(self, kind: str, requests: Sequence[Any], chunk: list[Any], problem: AnswerProblem) -> Exception:
        """The error of a broken answer: the model, the task, the request (index, start) and the fix."""
        where = f", {self.where}" if self.where else ""
        if problem.position is None:
            request = ""
        else:
            request_value = chunk[problem.position]
            index = next((i for i, r in enumerate(requests) if r == request_value), problem.position)
            if kind == "generate":
                shown = f"prompt {_start(request_value)}"
            elif kind == "loglikelihood":
                shown = f"context {_start(request_value[0])}, continuation {_start(request_value[1])}"
            else:
                shown = f"query {_start(request_value[0])}, document {_start(request_value[1])}"
            request = f" {kind!r} request {index} ({shown})"
        fix = f" {problem.fix}" if problem.fix else ""
        return ModelAnswerError(f"Model {self.runner.spec.text}{where}:{request} {problem.problem}.{fix}")

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int, stop: str | None) -> list[str]:
        settings = {"max_new_tokens": max_new_tokens, "stop": stop, "decoding": "greedy"}
        return self._answer(
            "generate", list(prompts), settings,
            lambda chunk: self.runner.generate(chunk, max_new_tokens=max_new_tokens, stop=stop),
        )  # fmt: skip

    def loglikelihood(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return self._answer("loglikelihood", [list(p) for p in pairs], {}, self._loglikelihood)

    def _loglikelihood(self, chunk: list[list[str]]) -> list[float]:
        return self.runner.loglikelihood([(c, d) for c, d in chunk])

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return self._answer("score_pairs", [list(p) for p in pairs], {}, self._score_pairs)

    def _score_pairs(self, chunk: list[list[str]]) -> list[float]:
        return self.runner.score_pairs([(q, d) for q, d in chunk])


def _first_in_request_order(
    kind: str, requests: Sequence[Any], chunk: list[Any], raw: Any, problem: AnswerProblem
) -> AnswerProblem:
    """Of the broken answers of a chunk (which is in length order), the one whose request comes first in
    ``requests``, so that the message names the earliest broken request; a problem of the whole list as it is."""
    if problem.position is None or not isinstance(raw, (list, tuple)) or len(raw) != len(chunk):
        return problem  # (an iterator the check has consumed: its first problem in chunk order)
    answers = list(raw)
    index: dict[str, int] = {}
    for i, request in enumerate(requests):
        index.setdefault(json.dumps(request, sort_keys=True, default=str), i)
    best = problem
    best_index = index.get(json.dumps(chunk[problem.position], sort_keys=True, default=str), len(requests))
    for position in range(len(chunk)):
        found = answer_problem(kind, [chunk[position]], [answers[position]])
        where = index.get(json.dumps(chunk[position], sort_keys=True, default=str), len(requests))
        if isinstance(found, AnswerProblem) and where < best_index:
            best, best_index = AnswerProblem(position, found.problem, found.fix), where
    return best


def _length_key(request: Any) -> tuple[int, str]:
    """Sort key of a request: longest context (prompt, query) first, then by the context itself."""
    context = request if isinstance(request, str) else str(request[0])
    return -len(context), context


def _start(text: Any, length: int = 40) -> str:
    """The start of a request's text, quoted: ``'Q: Which of these is a part of the...'``."""
    text = str(text)
    return repr(text[:length] + "...") if len(text) > length else repr(text)


def match_option(output: str, options: Sequence[str]) -> int | str:
    """The option a generated answer names: equal (case-insensitive, stripped), else the longest option the answer
    starts with, else the only option it contains; the answer itself (a miss) when none fits.

    >>> match_option(" Elbow\\n", ["elm", "elbow"]), match_option("it is elm.", ["elm", "elbow"])
    (1, 0)
    >>> match_option("no idea", ["elm", "elbow"])
    'no idea'
    """
    text = output.strip().lower()
    lowered = [str(option).strip().lower() for option in options]
    if text in lowered:
        return lowered.index(text)
    starts = [i for i, option in enumerate(lowered) if option and text.startswith(option)]
    if starts:
        return max(starts, key=lambda i: len(lowered[i]))
    inside = [i for i, option in enumerate(lowered) if option and re.search(rf"\b{re.escape(option)}\b", text)]
    return inside[0] if len(inside) == 1 else output


@dataclass
class Answers:
    """A model's answers to one prompt dataset."""

    targets: list[Any]
    raw_outputs: list[Any]
    length_normalised: list[Any] | None = None
    multiple_choice_method: str | None = None


def answer_dataset(task: Task, dataset: Any, requester: Requester, *, max_new_tokens: int) -> Answers:
    """Ask the model for every example of a prompt dataset (or, for reranking, of the test split)."""
    task_type = TaskType(task.config.task_type)
    prompt_builder = task.config.prompt_builder
    prompts = list(dataset["input"])
    stop = prompt_builder.stop_string or None
    if task_type in (TaskType.FREE_FORM, TaskType.SEQUENCE_LABELING):
        outputs = requester.generate(prompts, max_new_tokens=max_new_tokens, stop=stop)
        return Answers(list(outputs), list(outputs))
    if task_type is TaskType.MULTIPLE_CHOICE:
        if "target_options" not in dataset.column_names:
            raise PreparationError(f"Task {task.task_id!r}: multiple-choice prompts without target_options.")
        options = [[str(o) for o in row] for row in dataset["target_options"]]
        pairs = [(prompt, option) for prompt, row in zip(prompts, options, strict=True) for option in row]
        try:
            flat = requester.loglikelihood(pairs)
        except RequestUnsupported as reason:
            logger.info("Multiple choice by generation: %s", reason)
            outputs = requester.generate(prompts, max_new_tokens=max_new_tokens, stop=stop)
            matched = [match_option(out, row) for out, row in zip(outputs, options, strict=True)]
            return Answers(matched, list(outputs), None, "generation")
        targets: list[Any] = []
        normalised: list[Any] = []
        raw: list[Any] = []
        start = 0
        for row in options:
            scores = np.array(flat[start : start + len(row)], dtype=float)
            start += len(row)
            lengths = np.array([max(1, len(option)) for option in row], dtype=float)
            targets.append(int(np.argmax(scores)))
            normalised.append(int(np.argmax(scores / lengths)))
            raw.append({"loglikelihoods": scores.tolist()})
        return Answers(targets, raw, normalised, "loglikelihood")
    # reranking: query in `input`, candidates in `target_options`
    candidates = [[str(d) for d in row] for row in dataset["target_options"]]
    queries = [str(q) for q in dataset["input"]]
    pairs = [(query, doc) for query, row in zip(queries, candidates, strict=True) for doc in row]
    try:
        flat = requester.score_pairs(pairs)
    except RequestUnsupported:
        contexts = [f"{prompt_builder.input_prefix}{q}{prompt_builder.output_prefix}" for q, _ in pairs]
        lls = requester.loglikelihood(list(zip(contexts, [d for _, d in pairs], strict=True)))
        flat = [ll / max(1, len(doc)) for ll, (_, doc) in zip(lls, pairs, strict=True)]
    per_query: list[list[float]] = []
    start = 0
    for row in candidates:
        per_query.append([float(s) for s in flat[start : start + len(row)]])
        start += len(row)
    return Answers(list(per_query), list(per_query))


def extracted_predictions(task: Task, dataset: Any, targets: Sequence[Any]) -> list[Any]:
    """What the evaluation scores for each answer (the extracted free-form answer, option index, label list)."""
    task_type = TaskType(task.config.task_type)
    if task_type is TaskType.RERANKING:
        return list(targets)

    try:
        inputs = prepare_for_scoring(
            list(targets),
            read_gold(dataset),
            task_type,
            task.config.prompt_builder,
            task.config.free_form_output_regex,
        )
    except GenBenchError:  # the evaluation reports these itself
        return list(targets)
    return list(inputs.predictions)


def evaluate_answers(
    task: Task,
    dataset: Any,
    answers: Answers,
    *,
    shots: int | None,
    bootstrap: BootstrapSettings,
    shot_source: str | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Score answers: the results file's evaluation entry and the per-sample records.

    Used by model runs, ``evaluate`` (predictions files) and the demo (baselines) alike.
    """
    targets = list(answers.targets)
    corpus = dict(quiet_evaluate(task, targets, dataset))
    subsets = GoldSubsets(task, dataset)
    per_sample = per_sample_scores(task, targets, subsets)

    def recompute(chosen: Sequence[Any]) -> Any:
        def run(indices: np.ndarray) -> Mapping[str, Any]:
            rows = [int(i) for i in indices]
            return quiet_evaluate(task, [chosen[i] for i in rows], subsets.select(rows))

        return run

    metrics = metric_entries(corpus, per_sample, recompute(targets), bootstrap)
    if answers.length_normalised is not None:
        normalised = list(answers.length_normalised)
        corpus_norm = quiet_evaluate(task, normalised, dataset)
        per_sample_norm = per_sample_scores(task, normalised, subsets)
        for key, entry in metric_entries(corpus_norm, per_sample_norm, recompute(normalised), bootstrap).items():
            metrics[LENGTH_NORMALISED + key] = entry
        for sample, extra in zip(per_sample, per_sample_norm, strict=True):
            sample.update({LENGTH_NORMALISED + key: value for key, value in extra.items()})
    gold = dataset["original_target"] if "original_target" in dataset.column_names else dataset["target"]
    prompts = dataset["input"] if shots is not None else [None] * len(dataset)
    extracted = extracted_predictions(task, dataset, targets)
    samples = []
    for i, idx in enumerate(dataset["_genbench_idx"]):
        record = {
            "shots": shots,
            "_genbench_idx": int(idx),
            "prompt": prompts[i],
            "raw_output": answers.raw_outputs[i],
            "prediction": extracted[i],
            "target": gold[i],
            "metrics": per_sample[i],
        }
        if answers.length_normalised is not None:
            record["prediction_length_normalised"] = answers.length_normalised[i]
        samples.append(record)
    pb_hash = (
        prompt_builder_sha256(task.config.prompt_builder, task.config.task_type.value) if shots is not None else None
    )
    evaluation = {
        "shots": shots,
        "num_examples": len(dataset),
        "prompt_builder_sha256": pb_hash,
        "shot_source": shot_source,
        "multiple_choice_method": answers.multiple_choice_method,
        "primary_metric": primary_metric(task, corpus),
        "metrics": metrics,
    }
    return evaluation, samples


def primary_metric(task: Task, corpus: Mapping[str, Any]) -> str | None:
    """The main score of the task's first metric (``hf_accuracy__accuracy``, ``cross_encoder_reranking__map``)."""
    for config in task.config.evaluation_metrics or ():
        key = main_score_key(config.hf_id, list(corpus)) if config.type == "hf" else main_key(config, list(corpus))
        if key is not None:
            return key
    return next(iter(corpus), None)


def prompt_settings(
    task: Task, shots: Sequence[int], seed: int, limit: int | None, *, unprompted: bool = False
) -> list[tuple[int | None, Any, str | None]]:
    """``(shots, dataset, shot source)`` per setting: the prompt datasets, else (a reranking task, or any task when
    ``unprompted``) the test split with ``shots`` None."""
    strategies = task.config.preparation_strategies
    if strategies.prompt_based_testing is not None:
        prepared = task.get_prepared_datasets(
            PreparationStrategy.PROMPT_BASED_TESTING, shot_list=list(shots), random_seed=seed
        )
        settings: list[tuple[int | None, Any, str | None]] = [
            (k, prepared[k], prepared[k].info.description or None) for k in shots
        ]
    elif unprompted or TaskType(task.config.task_type) is TaskType.RERANKING:
        settings = [(None, task.get_prepared_datasets(PreparationStrategy.FINETUNING)["test"], None)]
    else:
        raise PreparationError(
            f"Task {task.task_id!r} supports only finetuning: there are no prompts to run a model on."
        )
    if limit is not None:
        settings = [(k, ds.select(range(min(limit, len(ds)))), src) for k, ds, src in settings]
    return settings


def results_document(
    task: Task,
    model: dict[str, Any],
    evaluations: list[dict[str, Any]],
    *,
    seed: int,
    limit: int | None,
    bootstrap: BootstrapSettings,
    seconds: float,
) -> dict[str, Any]:
    """The results document of a task (see ``results.schema.json``)."""
    strategy = (
        PreparationStrategy.PROMPT_BASED_TESTING
        if any(e["shots"] is not None for e in evaluations)
        else PreparationStrategy.FINETUNING
    )
    return {
        "schema_version": SCHEMA_VERSION,
        "task": {
            "id": task.task_id,
            "name": task.name,
            "task_type": task.config.task_type.value,
            "keywords": list(task.keywords),
            "fingerprint": task_fingerprint(task.config, task.get_datasets_raw()),
        },
        "genbench_version": VERSION,
        "model": model,
        "preparation_strategy": strategy.value,
        "seed": seed,
        "limit": limit,
        "bootstrap": bootstrap.as_record(),
        "evaluations": evaluations,
        "run_seconds": round(seconds, 3),
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
    }


def model_directory(spec_text: str) -> str:
    """A file-system-safe directory name for a model spec (readable, with a hash against collisions).

    >>> model_directory("hf:/models/gpt2")
    'hf_models_gpt2-e37fbd09'
    """
    import hashlib

    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", spec_text).strip("_")[:80]
    return f"{readable}-{hashlib.sha256(spec_text.encode()).hexdigest()[:8]}"


def run_model_on_task(
    task: Task,
    model: str | ModelRunner,
    *,
    model_args: str | dict[str, str] | None = None,
    shots: Sequence[int] = (0,),
    seed: int = 42,
    limit: int | None = None,
    max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS,
    output_dir: str | Path | None = None,
    cache_dir: str | Path | None = None,
    use_cache: bool = True,
    write_samples: bool = True,
    bootstrap: BootstrapSettings | None = None,
    progress: bool | ProgressFactory = False,
) -> TaskRun:
    """Run a model over one task (not a TaskDict: run each subtask), score it and write its results file.

    Args:
        task: The task.
        model: A model spec (``"hf:gpt2"``) or a loaded runner (reused across tasks).
        model_args: The spec's model arguments (``"dtype=float16,batch_size=8"`` or a dict).
        shots: Numbers of few-shot examples.
        seed: Seeds the shots, the choice permutation and the bootstrap.
        limit: Run only the first ``limit`` test examples.
        max_new_tokens: Generation limit.
        output_dir: Write ``<output_dir>/<model>/<task>.json`` (and ``.samples.jsonl``) here.
        cache_dir: The request cache's directory; default ``<genbench cache>/requests``.
        use_cache: False: no request cache at all.
        write_samples: Write the per-sample log.
        bootstrap: Interval settings (default: 1000 resamples for means, 200 for other metrics, seed ``seed``).
        progress: Show progress bars, one per (task, shots, phase): True for ``tqdm.auto`` bars, or a
            :data:`ProgressFactory`.

    Returns:
        The :class:`TaskRun`.
    """
    started = time.perf_counter()
    bootstrap = bootstrap or BootstrapSettings(seed=seed)
    runner = model if isinstance(model, ModelRunner) else load_runner(parse_model_spec(model, model_args))
    cache = None
    if use_cache and runner.cacheable:
        cache = RequestCache(Path(cache_dir) if cache_dir is not None else genbench_cache_dir() / "requests")
    try:
        evaluations, samples = [], []
        for n_shots, dataset, shot_source in prompt_settings(task, shots, seed, limit):
            setting_started = time.perf_counter()
            setting = "unprompted" if n_shots is None else f"{n_shots}-shot"
            requester = Requester(
                runner, cache, progress=progress, where=f"task {task.task_id!r} ({setting})",
                label=f"{task.task_id} {setting}",
            )  # fmt: skip
            answers = answer_dataset(task, dataset, requester, max_new_tokens=max_new_tokens)
            evaluation, setting_samples = evaluate_answers(
                task, dataset, answers, shots=n_shots, bootstrap=bootstrap, shot_source=shot_source
            )
            evaluation["cache"] = {"hits": requester.stats.hits, "computed": requester.stats.computed}
            evaluation["run_seconds"] = round(time.perf_counter() - setting_started, 3)
            evaluations.append(evaluation)
            samples.extend(setting_samples)
    finally:
        if cache is not None:
            cache.close()
    model_record = {
        "spec": redact_url(runner.spec.text),  # a password in a server URL is not written to results or site
        "kind": runner.spec.kind,
        "args": dict(runner.spec.args),
        "revision": runner.revision,
    }
    document = results_document(
        task, model_record, evaluations, seed=seed, limit=limit, bootstrap=bootstrap,
        seconds=time.perf_counter() - started,
    )  # fmt: skip
    result = TaskRun(task.task_id, document, samples)
    if output_dir is not None:
        path = Path(output_dir) / model_directory(redact_url(runner.spec.text)) / f"{file_stem(task.task_id)}.json"
        result.results_path = write_results(document, path, samples if write_samples else None)
        result.document = document
    return result


def expand_task_ids(task_ids: str | Iterable[str]) -> list[str]:
    """``"all"`` -> every task of the registry; ``"a,b"`` -> ``["a", "b"]``; a task with subtasks -> its subtasks."""
    from genbench.registry.task_configs import load_config

    ids = [t.strip() for t in task_ids.split(",")] if isinstance(task_ids, str) else [str(t) for t in task_ids]
    ids = [t for t in ids if t]
    if ids == ["all"]:
        ids = sorted(discover_tasks())
    expanded: list[str] = []
    for task_id in ids:
        config = load_config(task_id)
        subtasks = getattr(config, "subtasks_order", None)
        if ":" not in task_id and not hasattr(config, "task_type"):
            from genbench.task.factory import load_task

            loaded = load_task(task_id)
            expanded.extend(f"{task_id}:{sid}" for sid in (subtasks or list(loaded)))  # type: ignore[arg-type]
        else:
            expanded.append(task_id)
    return expanded


def run(
    model: str,
    tasks: str | Iterable[str],
    *,
    model_args: str | dict[str, str] | None = None,
    output_dir: str | Path | None = None,
    **options: Any,
) -> list[TaskRun]:
    """Run a model over tasks and write one results file per task (the Python side of ``genbench-cli run``).

    Args:
        model: A model spec: ``hf:PATH_OR_ID``, ``openai:BASE_URL``, ``cross-encoder:PATH``,
            ``sentence-transformers:PATH`` or ``python:module:function``.
        tasks: Task ids (a comma-separated string, a list, or ``"all"``); a task with subtasks runs each subtask.
        model_args: The model's arguments.
        output_dir: Where results files go (``<output_dir>/<model>/<task>.json``); None: not written.
        **options: See :func:`run_model_on_task` (``shots``, ``seed``, ``limit``, ``use_cache``, ...).

    Returns:
        One :class:`TaskRun` per task, in order.
    """
    from genbench.task.factory import load_task

    runner = load_runner(parse_model_spec(model, model_args))
    runs = []
    for task_id in expand_task_ids(tasks):
        task = load_task(task_id)
        runs.append(run_model_on_task(task, runner, output_dir=output_dir, **options))  # type: ignore[arg-type]
    return runs
