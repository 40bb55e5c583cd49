"""Sharded runs: each shard answers its share of a run's requests into its own request cache; a merge writes results.

A shard records what it did in ``shard.json`` and resumes from its cache, which is by request, not by rank; a chat
run's shard keeps the rendered conversations in ``chat.json``; a run with shift reports records their paths and
SHA-256. The merge is :mod:`genbench.runs._shard_merge`. See
docs/running_models.md#sharded-runs-slurm-job-arrays-one-shard-per-gpu-several-servers.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from genbench._core.errors import GenBenchError
from genbench._core.files import write_json_atomic
from genbench._core.json_files import read_json_file
from genbench._core.urls import redact_url
from genbench.runs._chat import ChatSettings, use_chat
from genbench.runs._clean_subset import ShiftFlags, check_task_dict_reports, contained_indices
from genbench.runs._execute import (
    ProgressFactory,
    Requester,
    answer_dataset,
    chat_prompts,
    expand_task_ids,
    load_one_task,
    prompt_settings,
    task_groups,
    use_task_chat,
)
from genbench.runs._request_cache import CACHE_FILE, RequestCache, request_key
from genbench.runs._runner_registry import load_runner
from genbench.runs._shard_plan import Shard, deal, token_count
from genbench.runs.model_runner import ModelRunner, RequestUnsupported
from genbench.runs.specs import parse_model_spec

logger = logging.getLogger(__name__)

MANIFEST = "shard.json"
CHAT_FILE = "chat.json"
FORMAT = "genbench-shard-1"
FALLBACK_KINDS = ("loglikelihood", "score_pairs")
"""Kinds a runner may not answer; the run then asks for other requests (multiple choice by generation)."""


class ShardError(GenBenchError, ValueError):
    """Shards cannot be run or merged (the message names the shards and the fix)."""


@dataclass(frozen=True)
class PlannedRequest:
    """One distinct request of a run: its kind, the request as keyed, its settings, its token estimate and the chat
    record its task was asked with (``None`` for plain prompts and unprompted tasks; part of its key)."""

    kind: str
    request: Any
    settings: dict[str, Any]
    tokens: int
    chat: dict[str, Any] | None = None


class _Planner(Requester):
    """A requester that records every request instead of asking the model, answering with placeholders."""

    def __init__(self, runner: ModelRunner, unsupported: dict[str, str]) -> None:
        super().__init__(runner, None)
        self.unsupported = unsupported
        self.requests: dict[str, PlannedRequest] = {}

    def _answer(self, kind: str, requests: Sequence[Any], settings: dict[str, Any], compute: Any) -> list[Any]:
        if kind in self.unsupported:
            raise RequestUnsupported(self.unsupported[kind])
        identity = self.runner.cache_identity()
        extra = int(settings.get("max_new_tokens", 0))
        for request in requests:
            text = request if isinstance(request, str) else " ".join(str(part) for part in request)
            key = request_key(identity, kind, request, settings)
            planned = PlannedRequest(kind, request, settings, token_count(text) + extra, self.runner.chat)
            self.requests.setdefault(key, planned)
        return ["" if kind == "generate" else 0.0 for _ in requests]


@dataclass(frozen=True)
class RunSettings:
    """What a sharded run is: its model and tasks and every setting the results depend on."""

    tasks: list[str]
    shots: list[int]
    seeds: list[int]
    limit: int | None
    max_new_tokens: int
    bootstrap_resamples: int
    write_samples: bool
    chat: ChatSettings = field(default_factory=ChatSettings)
    shift_reports: Mapping[str, ShiftFlags] = field(default_factory=dict)

    def record(self, runner: ModelRunner, template_text: str | None) -> dict[str, Any]:
        """The run's record in ``shard.json`` (its digest is the run's key); ``template_text``: the chat template's."""
        chat = None
        if self.chat.changes_prompts:
            chat = {
                "template": self.chat.template,
                "system_instruction": self.chat.system_instruction,
                "fewshot_as_multiturn": self.chat.fewshot_as_multiturn,
                "template_sha256": self.chat.record(template_text)["template_sha256"],
            }
        # the model's identity without the chat (recorded below): a task's requests carry it where it has prompts
        identity = {key: value for key, value in runner.cache_identity().items() if key != "chat"}
        return {
            "model_spec": redact_url(runner.spec.text),  # as results files write it: no password of a server URL
            "model_args": dict(runner.spec.args),
            "model_revision": runner.revision,
            "cache_identity": identity,
            "tasks": self.tasks,
            "shots": self.shots,
            "seeds": self.seeds,
            "limit": self.limit,
            "max_new_tokens": self.max_new_tokens,
            "bootstrap_resamples": self.bootstrap_resamples,
            "write_samples": self.write_samples,
            "chat": chat,
            # only with reports, so that the keys of runs without them stay as they were
            **({"shift_reports": shift_report_records(self.shift_reports)} if self.shift_reports else {}),
        }


def shift_report_records(shift_reports: Mapping[str, ShiftFlags]) -> list[dict[str, str]]:
    """A run's shift reports as its record in ``shard.json`` holds them: task id, the file's absolute path, SHA-256."""
    return [
        {"task_id": task_id, "file": str(flags.path.resolve()), "sha256": flags.record["sha256"]}
        for task_id, flags in sorted(shift_reports.items())
    ]


def _digest(value: Any) -> str:
    canonical = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def plan_requests(
    runner: ModelRunner, settings: RunSettings, unsupported: dict[str, str], renders: dict[str, Any] | None = None
) -> dict[str, PlannedRequest]:
    """Every distinct request of the run, by key (the prompts are built as the run builds them, conversations
    included); ``renders`` gets the conversations' renderings (see :func:`~genbench.runs._chat.chat_requests`)."""
    planner = _Planner(runner, unsupported)
    tasks = [load_one_task(task_id) for task_id in expand_task_ids(settings.tasks)]
    for seed in settings.seeds:
        for task in tasks:
            task_settings = prompt_settings(task, settings.shots, seed, settings.limit)
            template_text = use_task_chat(runner, settings.chat, task_settings)
            for n_shots, dataset, _ in task_settings:
                prompts = chat_prompts(runner, settings.chat, template_text, task, n_shots, dataset, seed, renders)
                answer_dataset(task, dataset, planner, max_new_tokens=settings.max_new_tokens, prompts=prompts)
    return planner.requests


def _compute(requester: Requester, kind: str, settings: dict[str, Any]) -> Callable[[list[Any]], list[Any]]:
    """The model call of a kind of request, as the requester makes it."""
    runner = requester.runner
    if kind == "generate":
        return lambda chunk: runner.generate(chunk, max_new_tokens=settings["max_new_tokens"], stop=settings["stop"])
    if kind == "loglikelihood":
        return lambda chunk: runner.loglikelihood([(c, d) for c, d in chunk])
    return lambda chunk: runner.score_pairs([(q, d) for q, d in chunk])


def _answer(requester: Requester, planned: Sequence[PlannedRequest]) -> None:
    """Answer planned requests through the requester's cache, one call per kind, settings and chat record (the
    runner asks, and keys, each group as its tasks were planned: an unprompted task has no chat record)."""
    groups: dict[str, list[PlannedRequest]] = {}
    for request in planned:
        groups.setdefault(_digest([request.kind, request.settings, request.chat]), []).append(request)
    for group in groups.values():
        kind, settings = group[0].kind, group[0].settings
        requester.runner.chat = group[0].chat
        requester._answer(kind, [r.request for r in group], settings, _compute(requester, kind, settings))


def _stable_plan(
    runner: ModelRunner, settings: RunSettings, requester: Requester, renders: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, str]]:
    """The run's requests, once the kinds the runner does not answer are known (asking it one request of each)."""
    unsupported: dict[str, str] = {}
    while True:
        planned = plan_requests(runner, settings, unsupported, renders)
        probes = [min((key for key, r in planned.items() if r.kind == kind), default=None) for kind in FALLBACK_KINDS]
        for kind, key in zip(FALLBACK_KINDS, probes, strict=True):
            if key is None or kind in unsupported:
                continue
            try:
                _answer(requester, [planned[key]])
            except RequestUnsupported as reason:
                unsupported[kind] = str(reason)
                break
        else:
            return planned, unsupported


def run_shard(
    shard: Shard,
    *,
    model: str,
    model_args: str | dict[str, str] | None,
    tasks: str | list[str],
    shots: list[int],
    seeds: list[int],
    limit: int | None,
    max_new_tokens: int,
    output_dir: Path,
    write_samples: bool,
    bootstrap_resamples: int,
    progress: bool | ProgressFactory = False,
    chat: ChatSettings | None = None,
    shift_reports: Mapping[str, ShiftFlags] | None = None,
) -> Path:
    """Answer one shard's share of a run into ``<output_dir>/shards/<run>/shard-I-of-N/``; returns that folder.

    ``shift_reports`` (by task id, :func:`~genbench.runs._clean_subset.shift_flags_by_task`) are part of the run's
    record; the merge scores each such task's clean subset too.

    Raises:
        ShardError: the model's answers are not cached (a ``python:`` predictor), so shards cannot share them.
        ModelSpecError: chat settings the model does not take (see :func:`~genbench.runs._chat.use_chat`).
        ContaminationError: a shift report that is not of its task's test split, or reports of a task's subtasks
            that are not one per subtask of one corpus index and threshold.
    """
    runner = load_runner(parse_model_spec(model, model_args))
    if not runner.cacheable:
        raise ShardError(
            f"Model {runner.spec.text}: its answers are never cached, so shards cannot hand them to the merge; run "
            "it in one process (without --shard)."
        )
    groups = task_groups(tasks)
    for task_id, flags in (shift_reports or {}).items():  # checked now, not hours later at the merge
        contained_indices(flags, load_one_task(task_id))
    for task_id, subtask_ids in groups:
        if subtask_ids is not None:
            check_task_dict_reports(task_id, subtask_ids, dict(shift_reports or {}))
    settings = RunSettings(
        [task_id for task_id, _ in groups], list(shots), list(seeds), limit, max_new_tokens,
        bootstrap_resamples, write_samples, chat or ChatSettings(), dict(shift_reports or {}),
    )  # fmt: skip
    template_text = use_chat(runner, settings.chat)  # checked before any planning
    record = settings.record(runner, template_text)
    run_key = _digest(record)[:12]
    folder = output_dir / "shards" / run_key / shard.name
    manifest_path = folder / MANIFEST
    previous = read_manifest(manifest_path) if manifest_path.exists() else {}
    cache = RequestCache(folder)
    try:
        requester = Requester(runner, cache, progress=progress, label=f"shard {shard.index}/{shard.count}")
        renders: dict[str, Any] = {}
        planned, unsupported = _stable_plan(runner, settings, requester, renders)
        if settings.chat.template is not None:
            write_json_atomic(folder / CHAT_FILE, {"template_text": template_text, "renders": renders})
        share = deal(((key, request.tokens) for key, request in planned.items()), shard.count)[shard.index - 1]
        imported = set(previous.get("imported_keys", [])) | _take_from_siblings(cache, folder, share)
        manifest = {
            "format": FORMAT, "run_key": run_key, "run": record, "shard": {"index": shard.index, "count": shard.count},
            "plan_sha256": _digest([sorted(planned), unsupported]), "requests": len(planned), "share": len(share),
            "unsupported": unsupported, "imported_keys": sorted(imported), "complete": False,
        }  # fmt: skip
        write_json_atomic(manifest_path, manifest)
        _answer(requester, [planned[key] for key in share])
    finally:
        cache.close()
    manifest.update(complete=True, computed_keys=sorted(set(share) - imported))
    write_json_atomic(manifest_path, manifest)
    return folder


def _take_from_siblings(cache: RequestCache, folder: Path, share: list[str]) -> set[str]:
    """Copy into ``cache`` the answers of ``share`` that it lacks and other shards of the run hold; their keys."""
    held = cache.get_many(share)
    missing = [key for key in share if key not in held]
    taken: set[str] = set()
    for sibling in sorted(folder.parent.iterdir()):
        if not missing or sibling == folder or not (sibling / CACHE_FILE).is_file():
            continue
        other = RequestCache(sibling)
        try:
            found = other.get_many(missing)
        finally:
            other.close()
        if found:
            cache.put_many(found)
            taken.update(found)
            missing = [key for key in missing if key not in found]
    return taken


def read_manifest(path: Path) -> dict[str, Any]:
    """A shard's ``shard.json`` (refused, naming the file, when it is not one)."""
    manifest = read_json_file(path, what="shard manifest", error=ShardError)
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ShardError(f"{path}: not a genbench shard manifest (format {FORMAT!r}).")
    return manifest
