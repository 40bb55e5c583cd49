"""Run a model over tasks: prompts in, answers out (through the request cache), scored, written as results files.

How each task type is answered (generation, option log-likelihoods with a length-normalised prediction, candidate
scores): docs/running_models.md#a-local-hugging-face-model.
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
from typing import TYPE_CHECKING, Any, TypedDict

import numpy as np

from genbench._core.errors import InvalidTaskIdError, PreparationError
from genbench._core.progress import phase_progress, progress_bar
from genbench._core.urls import redact_url
from genbench._core.version import VERSION
from genbench._core.vocabulary import PreparationStrategy, TaskType
from genbench._registry.directories import discover_tasks
from genbench.data._cache import cache_dir as genbench_cache_dir
from genbench.runs._answer_scoring import Answers, evaluate_answers, subtask_scores
from genbench.runs._chat import ChatSettings, chat_requests, task_prompt_turns, unused_template_warning, use_chat
from genbench.runs._clean_subset import (
    ShiftFlags,
    check_task_dict_reports,
    clean_evaluation,
    clean_subtask_scores,
    contained_indices,
)
from genbench.runs._errors import MalformedAnswer, ModelAnswerError
from genbench.runs._merged_results import SubtaskScores, write_merged
from genbench.runs._request_cache import AnswerStore, CacheStats, RequestCache, answer_with_cache, request_key
from genbench.runs._results import (
    DEFAULT_MAX_NEW_TOKENS,
    SCHEMA_VERSION,
    run_identity,
    save_results,
    task_fingerprint,
)
from genbench.runs._runner_registry import load_runner
from genbench.runs._scoring import BootstrapSettings
from genbench.runs._task_metadata import task_metadata
from genbench.runs.model_runner import AnswerProblem, ModelRunner, RequestUnsupported, answer_problem
from genbench.runs.specs import parse_model_spec

if TYPE_CHECKING:
    from genbench.task import Task

logger = logging.getLogger(__name__)


@dataclass
class TaskRun:
    """The outcome of one model on one task.

    Attributes:
        task_id: The task's id.
        document: The results document (see ``genbench-cli schema --results``).
        samples: The per-sample records.
        results_path: Where the results file was written (None when no output directory was given).
        replaced: ``"replaced results of ..."`` when writing replaced an earlier results file, else None.
        scores: Per setting (number of shots), what the merged result of a TaskDict needs to resample this task.
        clean_scores: The same on the clean subset of a run with a shift report (empty without one).
        written: The document as the results file holds it (with its per-sample log's name, digest and row count);
            None when nothing was written.
    """

    task_id: str
    document: dict[str, Any]
    samples: list[dict[str, Any]] = field(default_factory=list)
    results_path: Path | None = None
    replaced: str | None = None
    scores: dict[int | None, SubtaskScores] = field(default_factory=dict, repr=False)
    clean_scores: dict[int | None, SubtaskScores] = field(default_factory=dict, repr=False)
    written: dict[str, Any] | None = field(default=None, repr=False)


ProgressFactory = Callable[[str, int], Any]
"""Makes the progress bar of one phase: ``factory(description, total)`` returns an object with ``update(n)``,
``close()`` and a ``leave`` attribute (a ``tqdm`` bar is one; see :func:`genbench._core.progress.phase_progress`)."""


class Requester:
    """A runner behind the request cache, with progress reporting and cache statistics.

    Args:
        runner: The model runner.
        cache: The request cache (None: none).
        progress: False: no bars; True: :func:`~genbench._core.progress.phase_progress` bars (under the one switch,
            :func:`genbench._core.progress.progress_bars`); a :data:`ProgressFactory`: its bars.
        where: Where the requests come from, in error messages (``task 'x' (0-shot)``).
        label: The name of the bars, followed by the phase (``ner_unseen_entities 0-shot`` -> ``... generate``).
    """

    def __init__(
        self,
        runner: ModelRunner,
        cache: AnswerStore | None,
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
        return phase_progress(description, total) if self.progress else progress_bar(desc=description, enabled=False)

    def _answer(self, kind: str, requests: Sequence[Any], settings: dict[str, Any], compute: Any) -> list[Any]:
        identity = self.runner.cache_identity()
        keys = [request_key(identity, kind, request, settings) for request in requests]

        def checked(chunk: list[Any]) -> list[Any]:
            # the one place where every runner's answers are checked, before they are cached or scored
            try:
                raw = compute(chunk)
            except MalformedAnswer as exc:  # a runner's answer to one request is no answer: named as any broken one
                asked = list(exc.request) if isinstance(exc.request, tuple) else exc.request
                position = chunk.index(asked) if asked in chunk else None
                raise self._broken(kind, requests, chunk, AnswerProblem(position, str(exc))) from exc
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
        # (a password in a server URL is not shown)
        return ModelAnswerError(redact_url(f"Model {self.runner.spec.text}{where}:{request} {problem.problem}.{fix}"))

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int, stop: str | None) -> list[str]:
        return self._answer(
            "generate", list(prompts), generation_settings(max_new_tokens, stop),
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


def generation_settings(max_new_tokens: int, stop: str | None) -> dict[str, Any]:
    """The settings of a ``generate`` request that are part of its cache key."""
    return {"max_new_tokens": max_new_tokens, "stop": stop, "decoding": "greedy"}


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


def answer_dataset(
    task: Task, dataset: Any, requester: Requester, *, max_new_tokens: int, prompts: list[Any] | None = None
) -> Answers:
    """Ask the model for every example of a prompt dataset (or, for reranking, of the test split).

    ``prompts``: what to ask in place of the dataset's ``input`` (conversations: :mod:`genbench.runs._chat`).
    """
    task_type = TaskType(task.config.task_type)
    prompt_builder = task.config.prompt_builder
    prompts = list(dataset["input"]) if prompts is None else prompts
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


def _generated(task: Task, evaluations: Sequence[Mapping[str, Any]]) -> bool:
    """Whether the model generated text (so generation settings apply): free form, sequence labeling, and multiple
    choice answered by generation; never reranking or log-likelihood multiple choice."""
    task_type = TaskType(task.config.task_type)
    if task_type in (TaskType.FREE_FORM, TaskType.SEQUENCE_LABELING):
        return True
    return any(e.get("multiple_choice_method") == "generation" for e in evaluations)


def results_document(
    task: Task,
    model: dict[str, Any],
    evaluations: list[dict[str, Any]],
    *,
    seed: int,
    limit: int | None,
    bootstrap: BootstrapSettings,
    seconds: float,
    generation: Mapping[str, Any] | None = None,
    chat: Mapping[str, Any] | None = None,
    clean_subset: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The results document of a task (see ``results.schema.json``), with its ``run_identity``.

    Args:
        generation: The generation settings of a model run (``max_new_tokens``, ``decoding``); None for answers
            made elsewhere (a predictions file, a baseline).
        chat: How prompts became conversations (:meth:`genbench.runs._chat.ChatSettings.record`), when they did.
        clean_subset: A run with a shift report: what makes an example contained
            (:attr:`genbench.runs._clean_subset.ShiftFlags.definition`).
    """
    strategy = (
        PreparationStrategy.PROMPT_BASED_TESTING
        if any(e["shots"] is not None for e in evaluations)
        else PreparationStrategy.FINETUNING
    )
    fingerprint = task_fingerprint(task.config, task.get_datasets_raw())
    identity = run_identity(
        model, task.task_id, fingerprint["sha256"], shots=[e["shots"] for e in evaluations], seed=seed, limit=limit,
        generation=generation, chat=chat, clean_subset=clean_subset,
    )  # fmt: skip
    return {
        "schema_version": SCHEMA_VERSION,
        "task": {
            "id": task.task_id,
            "name": task.name,
            "task_type": task.config.task_type.value,
            "keywords": list(task.keywords),
            "fingerprint": fingerprint,
            **task_metadata(task.task_id, task.config),
        },
        "run_identity": identity,
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


class RunOptions(TypedDict, total=False):
    """The keyword options of :func:`run_model_on_task` (``Task.run_model(model, **options)`` takes them too)."""

    model_args: str | dict[str, str] | None
    shots: Sequence[int]
    seed: int
    limit: int | None
    max_new_tokens: int
    output_dir: str | Path | None
    cache_dir: str | Path | None
    use_cache: bool
    write_samples: bool
    bootstrap: BootstrapSettings | None
    progress: bool | ProgressFactory
    request_cache: AnswerStore | None
    chat: ChatSettings | None
    shift_flags: ShiftFlags | None


def use_task_chat(runner: ModelRunner, chat: ChatSettings, settings: list[tuple[int | None, Any, Any]]) -> str | None:
    """:func:`~genbench.runs._chat.use_chat` for one task's prompt settings (an unprompted task records no chat);
    returns the template's text."""
    template_text = use_chat(runner, chat)
    if all(n_shots is None for n_shots, _, _ in settings):
        runner.chat = None  # an unprompted (reranking) task: no prompts, so no conversations to record
    return template_text


def chat_prompts(
    runner: ModelRunner,
    chat: ChatSettings,
    template_text: str | None,
    task: Task,
    n_shots: int | None,
    dataset: Any,
    seed: int,
    renders: dict[str, Any] | None = None,
) -> list[Any] | None:
    """What a chat run asks in place of a prompt dataset's ``input`` (None: the plain prompts); ``renders``: as for
    :func:`~genbench.runs._chat.chat_requests`."""
    if not chat.changes_prompts or n_shots is None:
        return None
    return chat_requests(runner, chat, template_text, task_prompt_turns(task, dataset, seed), renders)


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
    request_cache: AnswerStore | None = None,
    chat: ChatSettings | None = None,
    shift_flags: ShiftFlags | None = None,
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
        output_dir: Write ``<output_dir>/<model>/<settings>/<task>.json`` (and ``.samples.jsonl``) here (see
            :func:`genbench.runs._results.results_path`); an earlier file of the same place is replaced, and
            :attr:`TaskRun.replaced` says so.
        cache_dir: The request cache's directory; default ``<genbench cache>/requests``.
        use_cache: False: no request cache at all.
        write_samples: Write the per-sample log.
        bootstrap: Interval settings (default: 1000 resamples for means, 200 for other metrics, seed ``seed``).
        progress: Show progress bars, one per (task, shots, phase): True for
            :func:`~genbench._core.progress.phase_progress` bars (under the one switch), or a :data:`ProgressFactory`.
        request_cache: An open store of answers to use in place of the request cache of ``cache_dir`` (left open;
            a merge of shards passes the shards' answers here).
        chat: Chat template, system instruction and few-shot layout (:mod:`genbench.runs._chat`); None: plain prompts.
        shift_flags: This task's shift report: each evaluation is scored again without the examples it flags as
            contained in its corpus (``clean``; :mod:`genbench.runs._clean_subset`).

    Returns:
        The :class:`TaskRun`.

    Raises:
        genbench.contamination._errors.ContaminationError: ``shift_flags`` is not a report of this task's test split.
    """
    started = time.perf_counter()
    bootstrap = bootstrap or BootstrapSettings(seed=seed)
    runner = model if isinstance(model, ModelRunner) else load_runner(parse_model_spec(model, model_args))
    chat = chat or ChatSettings()
    contained = contained_indices(shift_flags, task) if shift_flags is not None else None
    settings = prompt_settings(task, shots, seed, limit)
    template_text = use_task_chat(runner, chat, settings)
    cache: AnswerStore | None = request_cache
    if request_cache is None and use_cache and runner.cacheable:
        cache = RequestCache(Path(cache_dir) if cache_dir is not None else genbench_cache_dir() / "requests")
    scores: dict[int | None, SubtaskScores] = {}
    clean_scores: dict[int | None, SubtaskScores] = {}
    try:
        evaluations, samples = [], []
        for n_shots, dataset, shot_source in settings:
            setting_started = time.perf_counter()
            setting = "unprompted" if n_shots is None else f"{n_shots}-shot"
            requester = Requester(
                runner, cache, progress=progress, where=f"task {task.task_id!r} ({setting})",
                label=f"{task.task_id} {setting}",
            )  # fmt: skip
            prompts = chat_prompts(runner, chat, template_text, task, n_shots, dataset, seed)
            answers = answer_dataset(task, dataset, requester, max_new_tokens=max_new_tokens, prompts=prompts)
            evaluation, setting_samples = evaluate_answers(
                task, dataset, answers, shots=n_shots, bootstrap=bootstrap, shot_source=shot_source
            )
            if contained is not None:
                evaluation["clean"] = clean_evaluation(
                    task, dataset, answers, contained, shots=n_shots, bootstrap=bootstrap
                )
                for sample in setting_samples:  # what compare --subset clean pairs on
                    sample["contained"] = int(sample["_genbench_idx"]) in contained
            if cache is not None:  # a python: predictor, or --no-cache: no cache to count answers from
                evaluation["cache"] = {"hits": requester.stats.hits, "computed": requester.stats.computed}
            evaluation["run_seconds"] = round(time.perf_counter() - setting_started, 3)
            evaluations.append(evaluation)
            samples.extend(setting_samples)
            if task.subtask_id is not None:  # what the merged result of its TaskDict resamples
                scores[n_shots] = subtask_scores(task, dataset, answers, evaluation, setting_samples)
                if contained is not None:
                    clean_scores[n_shots] = clean_subtask_scores(scores[n_shots], evaluation["clean"], contained)
    finally:
        if cache is not None and request_cache is None:
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
        generation={"max_new_tokens": max_new_tokens, "decoding": "greedy"} if _generated(task, evaluations) else None,
        chat=runner.chat, clean_subset=shift_flags.definition if shift_flags is not None else None,
    )  # fmt: skip
    if shift_flags is not None:
        document["shift_report"] = shift_flags.record
    result = TaskRun(task.task_id, document, samples, scores=scores, clean_scores=clean_scores)
    if output_dir is not None:
        saved = save_results(document, output_dir, samples if write_samples else None)
        result.results_path, result.replaced, result.written = saved.path, saved.replaced, saved.document
    return result


def load_one_task(task_id: str) -> Task:
    """The task (or subtask) of an id that names one, as :func:`task_groups` gives them (never a TaskDict)."""
    from genbench.task._factory import load_task
    from genbench.task._task_dict import TaskDict

    task = load_task(task_id)
    if isinstance(task, TaskDict):
        raise PreparationError(f"Task {task_id!r} has subtasks: run each subtask ({task_id}:SUBTASK).")
    return task


def requested_task_ids(task_ids: str | Iterable[str]) -> list[str]:
    """The ids asked for (``"a, b"`` or a list), blanks left out; an error when none is left (an empty run would
    return nothing, silently).

    >>> requested_task_ids(" a, ,b")
    ['a', 'b']
    """
    ids = [t.strip() for t in task_ids.split(",")] if isinstance(task_ids, str) else [str(t) for t in task_ids]
    ids = [t for t in ids if t]
    if not ids:
        raise InvalidTaskIdError(f"{task_ids!r} names no task: give task ids (e.g. 'arithmetic_length') or 'all'.")
    return ids


def check_shots(shots: Sequence[int]) -> None:
    """Refuse an empty list of shots (each task would end in a results file without evaluations)."""
    if not shots:
        raise PreparationError("shots: give at least one number of few-shot examples, e.g. shots=[0, 5].")


def task_groups(task_ids: str | Iterable[str]) -> list[tuple[str, list[str] | None]]:
    """Each requested task id, with the ids of its subtasks for a task with subtasks (None for a task).

    ``"all"`` -> every task of the registry; ``"a,b"`` -> ``a`` and ``b``; ``"t:sub"`` is one subtask.
    """
    from genbench._registry.task_configs import load_config

    ids = requested_task_ids(task_ids)
    if ids == ["all"]:
        ids = sorted(discover_tasks())
    groups: list[tuple[str, list[str] | None]] = []
    for task_id in ids:
        config = load_config(task_id)
        subtasks = getattr(config, "subtasks_order", None)
        if ":" not in task_id and not hasattr(config, "task_type"):
            from genbench.task._factory import load_task

            loaded = load_task(task_id)
            groups.append((task_id, [f"{task_id}:{sid}" for sid in (subtasks or list(loaded))]))  # type: ignore[arg-type]
        else:
            groups.append((task_id, None))
    return groups


def expand_task_ids(task_ids: str | Iterable[str]) -> list[str]:
    """``"all"`` -> every task of the registry; ``"a,b"`` -> ``["a", "b"]``; a task with subtasks -> its subtasks."""
    return [sub for task_id, subtasks in task_groups(task_ids) for sub in (subtasks or [task_id])]


def run(
    model: str | ModelRunner,
    tasks: str | Iterable[str],
    *,
    model_args: str | dict[str, str] | None = None,
    output_dir: str | Path | None = None,
    shots: Sequence[int] = (0,),
    seed: int = 42,
    limit: int | None = None,
    max_new_tokens: int = DEFAULT_MAX_NEW_TOKENS,
    cache_dir: str | Path | None = None,
    use_cache: bool = True,
    write_samples: bool = True,
    bootstrap: BootstrapSettings | None = None,
    progress: bool | ProgressFactory = False,
    request_cache: AnswerStore | None = None,
    chat: ChatSettings | None = None,
    shift_reports: Mapping[str, ShiftFlags] | None = None,
) -> list[TaskRun]:
    """Run a model over tasks and write one results file per task (:func:`genbench.evaluate` calls it per seed).

    A task with subtasks runs each subtask (one results file each), then writes its merged result next to them: the
    TaskDict's own ``merge_evaluation_results`` with intervals from a joint bootstrap of the subtasks' examples
    (see :mod:`genbench.runs._merged_results`).

    Args:
        model: A model spec: ``hf:PATH_OR_ID``, ``openai:BASE_URL``, ``cross-encoder:PATH``,
            ``sentence-transformers:PATH`` or ``python:module:function``; or a loaded runner.
        tasks: Task ids (a comma-separated string, a list, or ``"all"``); a task with subtasks runs each subtask.
        model_args: The model's arguments.
        output_dir: Where results files go (``<output_dir>/<model>/<settings>/<task>.json``); None: not written.
        shots, seed, limit, max_new_tokens, cache_dir, use_cache, write_samples, bootstrap, progress,
            request_cache, chat: As for :func:`run_model_on_task`.
        shift_reports: Shift reports by task id (:func:`genbench.runs._clean_subset.shift_flags_by_task`): a task
            with one is scored on its clean subset too.

    Returns:
        One :class:`TaskRun` per task, in order; a task with subtasks gives one per subtask, then its merged one
        (``document["task"]["subtasks"]`` set, no per-sample records).
    """
    from genbench.task._factory import load_task

    check_shots(shots)
    runner = model if isinstance(model, ModelRunner) else load_runner(parse_model_spec(model, model_args))
    if (chat is None or chat.template is None) and runner.unused_chat_template():
        logger.warning(unused_template_warning(runner))

    def one(task_id: str) -> TaskRun:
        return run_model_on_task(
            load_one_task(task_id), runner, shots=shots, seed=seed, limit=limit, max_new_tokens=max_new_tokens,
            output_dir=output_dir, cache_dir=cache_dir, use_cache=use_cache, write_samples=write_samples,
            bootstrap=bootstrap, progress=progress, request_cache=request_cache, chat=chat,
            shift_flags=(shift_reports or {}).get(task_id),
        )  # fmt: skip

    groups = task_groups(tasks)
    for task_id, subtask_ids in groups:  # before any task runs
        if subtask_ids is not None:
            check_task_dict_reports(task_id, subtask_ids, dict(shift_reports or {}))
    runs = []
    for task_id, subtask_ids in groups:
        if subtask_ids is None:
            runs.append(one(task_id))
            continue
        subtask_runs = [one(sub) for sub in subtask_ids]
        runs.extend(subtask_runs)
        merged = write_merged(load_task(task_id), subtask_runs, output_dir)
        runs.append(TaskRun(task_id, merged.document, [], merged.path, merged.replaced))
    return runs
