"""The merge of a sharded run: the shards' answers replayed through one process's run (``genbench-cli merge-shards``).

After checking that the shards are all those of one run, the run is done again with their answers in place of the
model (:class:`ReplayRunner`), so results files and logs are those of one process's run, byte for byte, but for the
times; a chat run is replayed from the shards' renderings (``chat.json``), needing neither model nor tokenizer.
See docs/running_models.md#sharded-runs-slurm-job-arrays-one-shard-per-gpu-several-servers.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from genbench._core.json_files import read_json_file
from genbench.data._checksums import file_sha256
from genbench.runs._chat import ChatSettings, conversation_key
from genbench.runs._clean_subset import ShiftFlags, shift_flags_by_task
from genbench.runs._execute import TaskRun, expand_task_ids, generation_settings, run
from genbench.runs._request_cache import RequestCache, request_key
from genbench.runs._scoring import BootstrapSettings
from genbench.runs._shards import CHAT_FILE, MANIFEST, ShardError, read_manifest
from genbench.runs.model_runner import ModelRunner, RequestUnsupported
from genbench.runs.specs import ModelSpec, parse_model_spec


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

    def __init__(
        self,
        spec: ModelSpec,
        record: dict[str, Any],
        unsupported: dict[str, str],
        answers: ShardAnswers,
        rendered: dict[str, Any] | None = None,
    ):
        """``rendered``: a chat run's ``chat.json`` (the template's text and the conversations' renderings)."""
        super().__init__(spec)
        self.revision = record["model_revision"]
        self.identity = record["cache_identity"]
        self.unsupported = unsupported
        self.answers = answers
        self.template_text: str | None = (rendered or {}).get("template_text")
        self.renders: dict[str, Any] = (rendered or {}).get("renders", {})

    def cache_identity(self) -> dict[str, Any]:
        return {**self.identity, **({"chat": self.chat} if self.chat is not None else {})}

    def chat_template_text(self, template: str) -> str | None:
        return self.template_text

    def chat_request(self, messages: list[dict[str, str]], template_text: str | None) -> Any:
        return self.renders.get(conversation_key(messages), messages)

    def _replay(self, kind: str, requests: list[Any], settings: dict[str, Any]) -> list[Any]:
        if kind in self.unsupported:
            raise RequestUnsupported(self.unsupported[kind])
        identity = self.cache_identity()
        keys = [request_key(identity, kind, request, settings) for request in requests]
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
        manifest = read_manifest(folder / MANIFEST)
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
    manifests = [read_manifest(folder / MANIFEST) for folder in folders]
    first = manifests[0]
    for folder, manifest in zip(folders, manifests, strict=True):
        if (manifest["run_key"], manifest["plan_sha256"]) != (first["run_key"], first["plan_sha256"]):
            keys = dict.fromkeys([*first["run"], *manifest["run"]])
            changed = [k for k in keys if manifest["run"].get(k) != first["run"].get(k)] or ["planned requests"]
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


def recorded_shift_reports(record: dict[str, Any], folder: Path) -> dict[str, ShiftFlags] | None:
    """The shift reports a sharded run's record names, read again and checked to be the files the shards ran with.

    Raises:
        ShardError: a report is missing, or changed since the shards ran (its SHA-256 differs).
    """
    entries = record.get("shift_reports")
    if not entries:
        return None
    for entry in entries:
        path = Path(entry["file"])
        if not path.is_file():
            raise ShardError(
                f"{folder / MANIFEST}: the run's shift report {path} (of {entry['task_id']!r}) is missing: merge "
                "where the shards' reports are, at the paths the shards recorded."
            )
        if file_sha256(path) != entry["sha256"]:
            raise ShardError(
                f"{path}, the shift report of {entry['task_id']!r}, changed since the shards ran (its SHA-256 differs "
                f"from {folder / MANIFEST}'s): put back the report they ran with, or rerun the shards with this one."
            )
    return shift_flags_by_task([entry["file"] for entry in entries], expand_task_ids(record["tasks"]))


def merge_shards(paths: Sequence[str | Path], output_dir: str | Path) -> list[TaskRun]:
    """Write the results files of a sharded run from its shards (see the module).

    Args:
        paths: The shards' folders, or folders holding them (``<output_dir>/shards/<run>``).
        output_dir: Where the results files go, as for one process's run.

    Returns:
        One :class:`TaskRun` per seed and task, as :func:`genbench.evaluate` gives them.

    Raises:
        ShardError: see :func:`check_shards`; a shift report of the run that is missing or changed.
    """
    folders = shard_folders([Path(p) for p in paths])
    manifests = check_shards(folders)
    record, unsupported = manifests[0]["run"], manifests[0]["unsupported"]
    chat_record = record.get("chat") or {}
    chat = ChatSettings(
        chat_record.get("template"), chat_record.get("system_instruction"), chat_record.get("fewshot_as_multiturn")
    )
    rendered = None
    if chat.template is not None:
        chat_path = folders[0] / CHAT_FILE
        if not chat_path.is_file():
            raise ShardError(
                f"{chat_path}: missing; the shard of a chat run keeps its conversations' renderings there: rerun "
                "that shard with the same command."
            )
        rendered = read_json_file(chat_path, what="shard chat renderings", error=ShardError)
    shift_reports = recorded_shift_reports(record, folders[0])
    computed = {key for manifest in manifests for key in manifest["computed_keys"]}
    answers = ShardAnswers(folders, computed)
    try:
        spec = parse_model_spec(record["model_spec"], record["model_args"])
        runner = ReplayRunner(spec, record, unsupported, answers, rendered)
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
                    chat=chat,
                    shift_reports=shift_reports,
                )  # fmt: skip
            )
    finally:
        answers.close()
    return runs
