"""Sharded runs: each shard answers its share of a run's requests into its own request cache; a merge writes results.

A shard (``genbench-cli run --shard I/N``) plans every request of the run (see :mod:`genbench.runs.shard_plan`),
answers its share through a request cache of its own, ``<output_dir>/shards/<run>/shard-I-of-N/requests.sqlite``,
and records what it did in ``shard.json`` next to it (``complete`` once every answer is in). A killed shard resumes
from its cache. A shard also takes the answers of its share that other shards of the same run already hold (a run
sharded 4 ways, then 2 ways, resumes from the 4 shards' caches): the cache is by request, not by rank.

The merge (``genbench-cli merge-shards``) checks that the shards are all the shards of one run, then runs the run
again with the shards' answers in place of the model (:class:`ReplayRunner`): the results files and per-sample logs
are those of one process's run, byte for byte, except the creation time and the run times. An answer counts as
computed where a shard computed it and as a cache hit where a shard took it from another's cache, as one process's
run counts them. See docs/running_models.md ("Sharded runs").
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from genbench.core.errors import GenBenchError
from genbench.core.files import write_json_atomic
from genbench.core.json_files import read_json_file
from genbench.runs.execute import (
    ProgressFactory,
    Requester,
    TaskRun,
    answer_dataset,
    expand_task_ids,
    generation_settings,
    load_one_task,
    prompt_settings,
    run,
    task_groups,
)
from genbench.runs.model_runner import ModelRunner, RequestUnsupported
from genbench.runs.request_cache import CACHE_FILE, RequestCache, request_key
from genbench.runs.runner_registry import load_runner
from genbench.runs.scoring import BootstrapSettings
from genbench.runs.shard_plan import Shard, deal, token_count
from genbench.runs.specs import ModelSpec, parse_model_spec

logger = logging.getLogger(__name__)

MANIFEST = "shard.json"
FORMAT = "genbench-shard-1"
FALLBACK_KINDS = ("loglikelihood", "score_pairs")
"""Kinds a runner may not answer; the run then asks for other requests (multiple choice by generation)."""


class ShardError(GenBenchError, ValueError):
    """Shards cannot be run or merged (the message names the shards and the fix)."""


@dataclass(frozen=True)
class PlannedRequest:
    """One distinct request of a run: its kind, the request as keyed, its settings and its token estimate."""

    kind: str
    request: Any
    settings: dict[str, Any]
    tokens: int


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
            self.requests.setdefault(key, PlannedRequest(kind, request, settings, token_count(text) + extra))
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

    def record(self, runner: ModelRunner) -> dict[str, Any]:
        """The run's record in ``shard.json`` (its digest is the run's key)."""
        return {
            "model_spec": runner.spec.text,
            "model_args": dict(runner.spec.args),
            "model_revision": runner.revision,
            "cache_identity": runner.cache_identity(),
            "tasks": self.tasks,
            "shots": self.shots,
            "seeds": self.seeds,
            "limit": self.limit,
            "max_new_tokens": self.max_new_tokens,
            "bootstrap_resamples": self.bootstrap_resamples,
            "write_samples": self.write_samples,
        }


def _digest(value: Any) -> str:
    canonical = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def plan_requests(
    runner: ModelRunner, settings: RunSettings, unsupported: dict[str, str]
) -> dict[str, PlannedRequest]:
    """Every distinct request of the run, by key (the prompts are built as the run builds them)."""
    planner = _Planner(runner, unsupported)
    tasks = [load_one_task(task_id) for task_id in expand_task_ids(settings.tasks)]
    for seed in settings.seeds:
        for task in tasks:
            for _, dataset, _ in prompt_settings(task, settings.shots, seed, settings.limit):
                answer_dataset(task, dataset, planner, max_new_tokens=settings.max_new_tokens)
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
    """Answer planned requests through the requester's cache, one call per kind and settings."""
    groups: dict[str, list[PlannedRequest]] = {}
    for request in planned:
        groups.setdefault(_digest([request.kind, request.settings]), []).append(request)
    for group in groups.values():
        kind, settings = group[0].kind, group[0].settings
        requester._answer(kind, [r.request for r in group], settings, _compute(requester, kind, settings))


def _stable_plan(
    runner: ModelRunner, settings: RunSettings, requester: Requester
) -> tuple[dict[str, Any], dict[str, str]]:
    """The run's requests, once the kinds the runner does not answer are known (asking it one request of each)."""
    unsupported: dict[str, str] = {}
    while True:
        planned = plan_requests(runner, settings, unsupported)
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
) -> Path:
    """Answer one shard's share of a run into ``<output_dir>/shards/<run>/shard-I-of-N/``; returns that folder.

    Raises:
        ShardError: the model's answers are not cached (a ``python:`` predictor), so shards cannot share them.
    """
    runner = load_runner(parse_model_spec(model, model_args))
    if not runner.cacheable:
        raise ShardError(
            f"Model {runner.spec.text}: its answers are never cached, so shards cannot hand them to the merge; run "
            "it in one process (without --shard)."
        )
    settings = RunSettings(
        [task_id for task_id, _ in task_groups(tasks)], list(shots), list(seeds), limit, max_new_tokens,
        bootstrap_resamples, write_samples,
    )  # fmt: skip
    record = settings.record(runner)
    run_key = _digest(record)[:12]
    folder = output_dir / "shards" / run_key / shard.name
    manifest_path = folder / MANIFEST
    previous = _read_manifest(manifest_path) if manifest_path.exists() else {}
    cache = RequestCache(folder)
    try:
        requester = Requester(runner, cache, progress=progress, label=f"shard {shard.index}/{shard.count}")
        planned, unsupported = _stable_plan(runner, settings, requester)
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


def _read_manifest(path: Path) -> dict[str, Any]:
    manifest = read_json_file(path, what="shard manifest", error=ShardError)
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ShardError(f"{path}: not a genbench shard manifest (format {FORMAT!r}).")
    return manifest


class ShardAnswers:
    """The answers of a run's shards, as the executor's request cache (see the module for what counts as a hit)."""

    def __init__(self, folders: Sequence[Path], computed: set[str]) -> None:
        self.caches = [RequestCache(folder) for folder in folders]
        self.computed = computed
        self.seen: set[str] = set()

    def lookup(self, keys: Sequence[str]) -> dict[str, Any]:
        """Every shard's answers among ``keys``."""
        found: dict[str, Any] = {}
        for cache in self.caches:
            missing = [key for key in keys if key not in found]
            if not missing:
                break
            found.update(cache.get_many(missing))
        return found

    def get_many(self, keys: Sequence[str]) -> dict[str, Any]:
        """The answers one process would have found cached: all but those a shard computed, the first time."""
        found = self.lookup(keys)
        hits = {key: value for key, value in found.items() if key in self.seen or key not in self.computed}
        self.seen.update(keys)
        return hits

    def put_many(self, answers: dict[str, Any]) -> None:
        """Nothing to store: every answer is a shard's."""

    def close(self) -> None:
        for cache in self.caches:
            cache.close()


class ReplayRunner(ModelRunner):
    """The model of a sharded run, answering from its shards' answers (never from a model)."""

    chunk_size = 1 << 20

    def __init__(self, spec: ModelSpec, record: dict[str, Any], unsupported: dict[str, str], answers: ShardAnswers):
        super().__init__(spec)
        self.revision = record["model_revision"]
        self.identity = record["cache_identity"]
        self.unsupported = unsupported
        self.answers = answers

    def cache_identity(self) -> dict[str, Any]:
        return dict(self.identity)

    def _replay(self, kind: str, requests: list[Any], settings: dict[str, Any]) -> list[Any]:
        if kind in self.unsupported:
            raise RequestUnsupported(self.unsupported[kind])
        keys = [request_key(self.identity, kind, request, settings) for request in requests]
        found = self.answers.lookup(keys)
        missing = [request for key, request in zip(keys, requests, strict=True) if key not in found]
        if missing:
            raise ShardError(
                f"The shards hold no answer to {len(missing)} {kind!r} requests of this run (the first: "
                f"{str(missing[0])[:60]!r}): rerun its shards to complete them."
            )
        return [found[key] for key in keys]

    def generate(self, prompts: Sequence[str], *, max_new_tokens: int, stop: str | None) -> list[str]:
        return self._replay("generate", list(prompts), generation_settings(max_new_tokens, stop))

    def loglikelihood(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return self._replay("loglikelihood", [list(p) for p in pairs], {})

    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return self._replay("score_pairs", [list(p) for p in pairs], {})


def shard_folders(paths: Sequence[Path]) -> list[Path]:
    """The shard folders named: each path is a shard folder (with ``shard.json``) or a folder of them (of which the
    shards of its one complete sharding, where it holds shards of several: see :func:`one_sharding`).

    Raises:
        ShardError: a path that is neither.
    """
    folders: list[Path] = []
    for path in paths:
        if (path / MANIFEST).is_file():
            folders.append(path)
            continue
        inside = sorted(p.parent for p in path.rglob(MANIFEST)) if path.is_dir() else []
        if not inside:
            raise ShardError(f"{path}: no shard here (no {MANIFEST}, nor folders with one): give the shards' folders.")
        folders.extend(one_sharding(inside))
    return list(dict.fromkeys(folders))


def one_sharding(folders: Sequence[Path]) -> list[Path]:
    """Of shard folders found in a run's folder, those of its one complete sharding (a run sharded 4 ways, then
    finished 2 ways, has both); all of them when no sharding, or more than one, is complete (the check names why)."""
    by_count: dict[int, dict[int, bool]] = {}
    members: dict[int, list[Path]] = {}
    for folder in folders:
        manifest = _read_manifest(folder / MANIFEST)
        count = manifest["shard"]["count"]
        by_count.setdefault(count, {})[manifest["shard"]["index"]] = bool(manifest["complete"])
        members.setdefault(count, []).append(folder)
    complete = [
        count
        for count, done in by_count.items()
        if len(members[count]) == count and set(done) == set(range(1, count + 1)) and all(done.values())
    ]
    return members[complete[0]] if len(by_count) > 1 and len(complete) == 1 else list(folders)


def check_shards(folders: Sequence[Path]) -> list[dict[str, Any]]:
    """The manifests of the shards of one run, one per shard 1..N, each complete.

    Raises:
        ShardError: shards of different runs or shardings, a missing, repeated or unfinished shard (named).
    """
    manifests = [_read_manifest(folder / MANIFEST) for folder in folders]
    first = manifests[0]
    for folder, manifest in zip(folders, manifests, strict=True):
        if (manifest["run_key"], manifest["plan_sha256"]) != (first["run_key"], first["plan_sha256"]):
            changed = [k for k in manifest["run"] if manifest["run"][k] != first["run"].get(k)] or ["planned requests"]
            raise ShardError(
                f"{folder} and {folders[0]} are shards of different runs ({', '.join(changed)} differ): merge the "
                "shards of one run."
            )
    counts = sorted({m["shard"]["count"] for m in manifests})
    if len(counts) > 1:
        raise ShardError(
            f"The shards split the run {' and '.join(f'{c} ways' for c in counts)}: merge the shards of one sharding "
            f"({', '.join(f'shard-I-of-{c}' for c in counts)})."
        )
    count = counts[0]
    by_index: dict[int, Path] = {}
    for folder, manifest in zip(folders, manifests, strict=True):
        index = manifest["shard"]["index"]
        if index in by_index:
            raise ShardError(f"{by_index[index]} and {folder} are both shard {index}/{count}: give each shard once.")
        by_index[index] = folder
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in by_index]
    if missing:
        raise ShardError(
            f"Missing shard {', '.join(missing)} of run {first['run_key']}: run the missing shards (--shard "
            f"{missing[0]}) or give their folders."
        )
    unfinished = [
        f"{m['shard']['index']}/{count} ({f})" for f, m in zip(folders, manifests, strict=True) if not m["complete"]
    ]
    if unfinished:
        raise ShardError(
            f"Shard {', '.join(unfinished)} did not finish: rerun it with the same command; it resumes from its cache."
        )
    return manifests


def merge_shards(paths: Sequence[str | Path], output_dir: str | Path) -> list[TaskRun]:
    """Write the results files of a sharded run from its shards (see the module).

    Args:
        paths: The shards' folders, or folders holding them (``<output_dir>/shards/<run>``).
        output_dir: Where the results files go, as for one process's run.

    Returns:
        One :class:`TaskRun` per seed and task, as :func:`genbench.evaluate` gives them.

    Raises:
        ShardError: see :func:`check_shards`.
    """
    folders = shard_folders([Path(p) for p in paths])
    manifests = check_shards(folders)
    record, unsupported = manifests[0]["run"], manifests[0]["unsupported"]
    computed = {key for manifest in manifests for key in manifest["computed_keys"]}
    answers = ShardAnswers(folders, computed)
    try:
        spec = parse_model_spec(record["model_spec"], record["model_args"])
        runner = ReplayRunner(spec, record, unsupported, answers)
        runs: list[TaskRun] = []
        for seed in record["seeds"]:
            runs.extend(
                run(
                    runner,
                    record["tasks"],
                    output_dir=output_dir,
                    shots=record["shots"],
                    seed=seed,
                    limit=record["limit"],
                    max_new_tokens=record["max_new_tokens"],
                    write_samples=record["write_samples"],
                    request_cache=answers,
                    bootstrap=BootstrapSettings(resamples=record["bootstrap_resamples"], seed=seed),
                )  # fmt: skip
            )
    finally:
        answers.close()
    return runs
