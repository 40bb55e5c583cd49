"""Results files: one JSON per (model, task) following the shipped, versioned JSON Schema, plus per-sample logs.

Both are written atomically and validated when written and read; where a results file goes follows from what the run
was (:func:`run_identity`), so runs with different seeds sit side by side. See docs/running_models.md#results-files.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from genbench._core.files import atomic_open, to_jsonable, write_json_atomic
from genbench._core.json_files import iter_json_lines, open_regular, read_json_file
from genbench._registry.directories import MAX_ID_LENGTH
from genbench.runs._errors import ResultsFileError

if TYPE_CHECKING:
    from pydantic import BaseModel

SCHEMA_VERSION = 1
SCHEMA_FILE = "results.schema.json"
DEFAULT_MAX_NEW_TOKENS = 128
# The fields of a run's identity, in the order they are shown.
IDENTITY_FIELDS = (
    "model_spec", "model_args", "model_revision", "task_id", "task_fingerprint",
    "shots", "seed", "limit", "generation",
)  # fmt: skip

logger = logging.getLogger(__name__)


def results_schema_text() -> str:
    """The results JSON Schema, as shipped."""
    return resources.files("genbench.runs").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


def schema_problems(document: Any, definition: str | None = None) -> list[str]:
    """Every way ``document`` breaks the results schema, as ``path: message`` lines (``(top)`` for the whole).

    The check is the typed model's (:mod:`genbench.runs._results_model`, from which the shipped schema is generated):
    ``definition`` None for a whole results document, else ``"evaluation"``, ``"metric"`` or ``"sample"`` (a line of
    a per-sample log).

    >>> schema_problems({"shots": 0, "_genbench_idx": "3", "prompt": None, "raw_output": "4", "prediction": "4",
    ...                  "target": "4", "metrics": {}}, "sample")
    ['_genbench_idx: Input should be a valid integer']
    """
    from pydantic import ValidationError

    try:
        _model(definition).model_validate(document)
    except ValidationError as error:
        problems = []
        for item in error.errors(include_url=False):
            where = ".".join(str(part) for part in item["loc"]) or "(top)"
            message = str(item["msg"]).removeprefix("Value error, ")
            if item["type"] == "missing":
                message = f"{item['loc'][-1]!r} is required"
            elif item["type"] == "extra_forbidden":
                message = "unknown field (not in the results schema)"
            problems.append(f"{where}: {message}")
        return problems
    return []


@functools.cache
def _model(definition: str | None) -> type[BaseModel]:
    """The typed model of a results document (None) or of one of its ``$defs``."""
    from genbench.runs._results_model import Evaluation, Metric, ResultsDocument, Sample  # pydantic: `runs` defers it

    models: dict[str | None, type[BaseModel]] = {
        None: ResultsDocument, "evaluation": Evaluation, "metric": Metric, "sample": Sample,
    }  # fmt: skip
    return models[definition]


def check_document(document: Any, file: str | Path) -> None:
    """Raise :class:`ResultsFileError` naming the file and every schema problem of a results document."""
    problems = schema_problems(document)
    if problems:
        raise ResultsFileError(
            f"{file} does not follow the results schema (version {SCHEMA_VERSION}):\n  " + "\n  ".join(problems[:10])
        )


def canonical_sha256(document: object) -> str:
    """SHA-256 of the canonical JSON (sorted keys, no whitespace) of a JSON-able value.

    >>> len(canonical_sha256({"b": 1, "a": [1, 2]}))
    64
    """
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def dataset_sha256(dataset: Iterable[Mapping[str, Any]]) -> str:
    """SHA-256 of a split's examples as canonical JSON lines, in order."""
    digest = hashlib.sha256()
    for row in dataset:
        line = json.dumps(to_jsonable(row), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest.update(line.encode("utf-8") + b"\n")
    return digest.hexdigest()


def task_fingerprint(config: Any, splits: Mapping[str, Iterable[Mapping[str, Any]]]) -> dict[str, Any]:
    """The fingerprint of a task: its validated config's hash and each formatted split's hash."""
    config_document = config.model_dump(mode="json") if hasattr(config, "model_dump") else config
    fingerprint = {
        "config_sha256": canonical_sha256(config_document),
        "data_sha256": {split: dataset_sha256(rows) for split, rows in sorted(splits.items())},
    }
    return {"sha256": canonical_sha256(fingerprint), **fingerprint}


def prompt_builder_sha256(prompt_builder: Any, task_type: str) -> str:
    """SHA-256 of the prompt builder options, the task type and the prompt builder's version."""
    from genbench.prompting._builder import BUILDER_VERSION

    options = prompt_builder.model_dump(mode="json") if hasattr(prompt_builder, "model_dump") else prompt_builder
    return canonical_sha256({"prompt_builder": options, "task_type": task_type, "builder_version": BUILDER_VERSION})


MAX_STEM_LENGTH = 200
"""The longest file stem of a results file: with ``.samples.jsonl`` and an atomic write's temporary name around it,
a file name stays within the 255 bytes file systems allow."""


def file_stem(task_id: str) -> str:
    """``task:subtask`` -> ``task.subtask`` (``:`` is not allowed in Windows file names); a stem longer than
    :data:`MAX_STEM_LENGTH` is cut, with a hash of the whole id (the results file records the id itself).

    >>> file_stem("mytask:sub"), len(file_stem("a" * 255 + ":" + "b" * 255))
    ('mytask.sub', 197)
    """
    stem = task_id.replace(":", ".")
    if len(stem.encode("utf-8")) <= MAX_STEM_LENGTH:
        return stem
    return f"{stem[:180]}-{hashlib.sha256(task_id.encode('utf-8')).hexdigest()[:16]}"


def explain_null_metrics(document: dict[str, Any]) -> None:
    """Give every null metric value without a ``reason`` the generic one (the schema requires a reason for null):
    a writer that knows better (``scoring.metric_entries``: NaN, a non-number) has set its own. Applied when writing
    and when reading (files written before the rule)."""
    for evaluation in document.get("evaluations") or []:
        for entry in (evaluation.get("metrics") or {}).values():
            if isinstance(entry, dict) and entry.get("value") is None and "reason" not in entry:
                entry["reason"] = "undefined on these examples"


def write_results(document: dict[str, Any], path: str | Path, samples: Sequence[Mapping[str, Any]] | None) -> Path:
    """Validate and write a results file (and its per-sample log next to it when ``samples`` is given).

    Returns the results file's path; :func:`write_results_document` also returns the document as written.
    """
    return write_results_document(document, path, samples)[0]


def write_results_document(
    document: dict[str, Any], path: str | Path, samples: Sequence[Mapping[str, Any]] | None
) -> tuple[Path, dict[str, Any]]:
    """Validate and write a results file (and its per-sample log next to it when ``samples`` is given).

    The log is written first and the results file records its SHA-256 and row count (``samples_sha256``,
    ``samples_count``): a results file and a log that are not from the same write (a run killed between the two
    renames, two runs finishing at once in one folder) are told apart by :func:`read_results`.

    Returns:
        The results file's path, and the document as written (with the log's name, digest and row count).

    Raises:
        ResultsFileError: the document or a sample does not follow the schema (nothing is written).
    """
    path = Path(path)
    document = to_jsonable(document)
    explain_null_metrics(document)
    check_task_id(document, path)
    if samples is not None:
        samples_path = path.with_name(path.name.removesuffix(".json") + ".samples.jsonl")
        document["samples_file"] = samples_path.name
        lines = []
        for number, sample in enumerate(samples, 1):
            record = to_jsonable(sample)
            problems = schema_problems(record, "sample")
            if problems:
                raise ResultsFileError(f"sample {number} for {path}: " + "; ".join(problems[:5]))
            lines.append(json.dumps(record, ensure_ascii=False, allow_nan=False))
        log = "".join(line + "\n" for line in lines).encode("utf-8")
        document["samples_sha256"] = hashlib.sha256(log).hexdigest()
        document["samples_count"] = len(lines)
        check_document(document, path)
        with atomic_open(samples_path, "wb") as handle:
            handle.write(log)
    else:
        document["samples_file"] = document.get("samples_file")
        document.pop("samples_sha256", None)
        document.pop("samples_count", None)
        check_document(document, path)
    write_json_atomic(path, document)
    return path, document


def check_task_id(document: Any, file: str | Path) -> None:
    """Refuse a task id with a line break or another control character.

    The schema's pattern ends in ``$``, which also matches before a final newline (in Python's regular expressions
    and in ECMA-262's multiline reading), so ``"task\\n"`` would pass it and become a second site page and a
    second leaderboard column for the same task.
    """
    task = document.get("task") if isinstance(document, dict) else None
    task_id = task.get("id") if isinstance(task, dict) else None
    if isinstance(task_id, str) and not _TASK_ID.fullmatch(task_id):
        shown = repr(task_id) if len(task_id) <= 80 else f"{task_id[:60]!r}... ({len(task_id)} characters)"
        raise ResultsFileError(
            f"{file}: task.id {shown} is not a task id ('task' or 'task:subtask', each of [a-z0-9_]+ and at most "
            f"{MAX_ID_LENGTH} characters, nothing else: no line break or other control character)."
        )


_TASK_ID = re.compile(rf"[a-z0-9_]{{1,{MAX_ID_LENGTH}}}(?::[a-z0-9_]{{1,{MAX_ID_LENGTH}}})?")


def rewrite_hint(document: Mapping[str, Any]) -> str:
    """The command that writes a results file (and its log) again, for messages about a damaged one."""
    model, task = document.get("model"), document.get("task")
    model = model if isinstance(model, Mapping) else {}
    task = task if isinstance(task, Mapping) else {}
    spec, task_id = model.get("spec"), task.get("id")
    if model.get("kind") == "predictions":
        return "Score the predictions again with `genbench-cli evaluate ... --results-dir` to rewrite both."
    if isinstance(spec, str) and isinstance(task_id, str):
        return (
            f"Run `genbench-cli run --model {spec} --task {task_id}` again with the same options to rewrite both "
            "(answers already in its request cache are not computed again)."
        )
    return "Run the command that wrote them (`genbench-cli run`, `evaluate` or `demo`) again to rewrite both."


def read_results_document(path: str | Path) -> dict[str, Any]:
    """Read and validate a results file alone (its per-sample log neither read nor checked against it).

    For a reader that reads the log itself and checks it with :func:`check_samples_digest` in the same pass;
    :func:`read_results` does both.

    Raises:
        ResultsFileError: unreadable JSON or a schema violation (the file named).
    """
    path = Path(path)
    try:
        document: dict[str, Any] = read_json_file(path, what="results file", error=ResultsFileError)
    except FileNotFoundError:
        raise ResultsFileError(f"{path}: no such results file.") from None
    if isinstance(document, dict):
        explain_null_metrics(document)  # files written before null values needed a reason stay readable
    check_task_id(document, path)
    check_document(document, path)
    return document


def check_samples_digest(document: Mapping[str, Any], path: str | Path, sha256: str, rows: int | None = None) -> None:
    """Refuse a per-sample log whose SHA-256 is not the one its results file ``path`` records (``samples_sha256``;
    nothing to check in a file written before logs were tied to results).

    Args:
        document: The results document (as read from ``path``).
        path: The results file.
        sha256: The hex SHA-256 of every byte of the log.
        rows: The log's rows, when they were counted (named in the message).

    Raises:
        ResultsFileError: the log is not the one the results file was written with (both files and the command that
            rewrites them named).
    """
    expected = document.get("samples_sha256")
    if expected is None or sha256 == expected:
        return
    samples_path = Path(path).parent / Path(str(document.get("samples_file"))).name
    counted = f"{rows} rows, " if rows is not None else ""
    raise ResultsFileError(
        f"{path} and its per-sample log {samples_path} are not from the same run: the log has {counted}SHA-256 "
        f"{sha256}, the results file records {document.get('samples_count')} rows with SHA-256 {expected} "
        f"(a run killed between writing the two, or two runs writing one folder at once). {rewrite_hint(document)}"
    )


def read_results(path: str | Path, *, with_samples: bool = True) -> tuple[dict[str, Any], list[dict[str, Any]] | None]:
    """Read and validate a results file and (if it names one and ``with_samples``) its per-sample log.

    Both are read with the strict JSON reader (:mod:`genbench._core.json_files`: no ``NaN``, depth and size limits,
    regular files only). A results file that records its log's SHA-256 and row count is checked against the log,
    also when ``with_samples`` is False (the log is then hashed, not parsed).

    Raises:
        ResultsFileError: unreadable JSON, a schema violation, a broken sample line (file and line named), or a log
            that is not the one the results file was written with (both files and the command to rewrite them
            named).
    """
    path = Path(path)
    document = read_results_document(path)
    if not document.get("samples_file"):
        return document, None
    samples_path = path.parent / Path(document["samples_file"]).name
    expected_sha256, expected_count = document.get("samples_sha256"), document.get("samples_count")
    if not with_samples and expected_sha256 is None:  # a file written before logs were tied to results
        return document, None
    if not samples_path.is_file():
        raise ResultsFileError(f"{path} names the per-sample log {samples_path.name}, which is missing.")
    digest = hashlib.sha256()
    samples = []
    hint = rewrite_hint(document)
    try:
        if with_samples:
            for number, record in iter_json_lines(
                samples_path, what="per-sample log", hint=hint, error=ResultsFileError, digest=digest
            ):
                problems = schema_problems(record, "sample")
                if problems:
                    raise ResultsFileError(f"{samples_path}:{number}: " + "; ".join(problems[:5]) + f" {hint}")
                samples.append(record)
        else:
            fd = open_regular(samples_path, what="per-sample log", error=ResultsFileError)
            with os.fdopen(fd, "rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(chunk)
    except FileNotFoundError:
        raise ResultsFileError(f"{path} names the per-sample log {samples_path.name}, which is missing.") from None
    check_samples_digest(document, path, digest.hexdigest(), len(samples) if with_samples else None)
    if with_samples and expected_count is not None and len(samples) != expected_count:  # equal hashes, so never
        raise ResultsFileError(f"{samples_path}: {len(samples)} rows, {path} records {expected_count}. {hint}")
    return document, samples if with_samples else None


def run_identity(
    model: Mapping[str, Any],
    task_id: str,
    task_fingerprint_sha256: str,
    *,
    shots: Sequence[int | None],
    seed: int,
    limit: int | None,
    generation: Mapping[str, Any] | None,
    chat: Mapping[str, Any] | None = None,
    clean_subset: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What a results file is the result of, with ``key``: a short digest of all of it.

    Two results files with the same key are results of the same run (the same model spec, arguments and revision, the
    same task version, shots, seed, limit and generation settings, and the same chat template, system instruction
    and few-shot layout: ``chat``, present only for a run that applied them, so that other runs keep their keys;
    and the clean subset's definition, ``clean_subset``: the corpus index and threshold of a run with a shift report).

    >>> identity = run_identity({"spec": "hf:gpt2", "revision": None}, "t", "0" * 64, shots=[0], seed=1, limit=None,
    ...                         generation={"max_new_tokens": 128})
    >>> len(identity["key"]), identity["shots"], identity["model_args"]
    (12, [0], {})
    """
    fields = {
        "model_spec": str(model["spec"]),
        "model_args": {str(k): str(v) for k, v in sorted(dict(model.get("args") or {}).items())},
        "model_revision": model.get("revision"),
        "task_id": task_id,
        "task_fingerprint": task_fingerprint_sha256,
        "shots": list(shots),
        "seed": seed,
        "limit": limit,
        "generation": dict(generation) if generation is not None else None,
    }
    if chat is not None:
        fields["chat"] = dict(chat)
    if clean_subset is not None:
        fields["clean_subset"] = dict(clean_subset)
    return {"key": canonical_sha256(fields)[:12], **fields}


def clean_subset_definition(shift_report: Mapping[str, Any]) -> dict[str, Any]:
    """What makes an example contained, from a results file's ``shift_report`` record: the corpus, its index's
    checksum and the threshold (the run identity's ``clean_subset``; the same for every report of one corpus index
    and threshold)."""
    return {key: shift_report[key] for key in ("corpus", "index_sha256", "threshold", "threshold_ngram")}


def settings_folder(identity: Mapping[str, Any]) -> str:
    """The folder of a run's settings: ``seed-42.shots-0-5``, plus ``.limit-N`` and ``.max-new-tokens-N`` when set
    (the latter when not the default, 128), ``.chat-HASH`` for a run with a chat template or system
    instruction and ``.clean-HASH`` for a run with shift reports (the hash of the corpus index and threshold that
    define its clean subsets); ``unprompted`` in place of the shots of an unprompted evaluation.

    >>> settings_folder({"seed": 42, "shots": [0, 5], "limit": 30, "generation": {"max_new_tokens": 64}})
    'seed-42.shots-0-5.limit-30.max-new-tokens-64'
    >>> settings_folder({"seed": 1, "shots": [None], "limit": None, "generation": None})
    'seed-1.unprompted'
    """
    shots = [s for s in identity["shots"] if s is not None]
    parts = [f"seed-{identity['seed']}"]
    parts.append(f"shots-{'-'.join(str(s) for s in shots)}" if shots else "unprompted")
    if identity.get("limit") is not None:
        parts.append(f"limit-{identity['limit']}")
    generation = identity.get("generation") or {}
    if generation.get("max_new_tokens", DEFAULT_MAX_NEW_TOKENS) != DEFAULT_MAX_NEW_TOKENS:
        parts.append(f"max-new-tokens-{generation['max_new_tokens']}")
    if identity.get("chat"):  # a run with a chat template or system instruction beside the plain one, not over it
        parts.append(f"chat-{canonical_sha256(identity['chat'])[:8]}")
    if identity.get("clean_subset"):  # scored on a clean subset too: beside the run without a report, not over it
        parts.append(f"clean-{canonical_sha256(identity['clean_subset'])[:8]}")
    return ".".join(parts)


def model_directory(spec_text: str, args: Mapping[str, Any] | None = None) -> str:
    """A file-system-safe directory name for a model spec and its arguments (readable, with a hash of both against
    collisions; without arguments the hash is the spec's alone).

    >>> model_directory("hf:/models/gpt2")
    'hf_models_gpt2-e37fbd09'
    >>> model_directory("hf:/models/gpt2", {"dtype": "float16"}) != model_directory("hf:/models/gpt2")
    True
    """
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", spec_text).strip("_")[:80]
    identity = spec_text
    if args:
        identity += "\n" + json.dumps({str(k): str(v) for k, v in args.items()}, sort_keys=True)
    return f"{readable}-{hashlib.sha256(identity.encode()).hexdigest()[:8]}"


def results_path(output_dir: str | Path, identity: Mapping[str, Any]) -> Path:
    """``<output_dir>/<model>/<settings>/<task>.json`` for a run's identity (see :func:`run_identity`)."""
    model = model_directory(identity["model_spec"], identity["model_args"])
    return Path(output_dir) / model / settings_folder(identity) / f"{file_stem(identity['task_id'])}.json"


@dataclass(frozen=True)
class SavedResults:
    """A results file written, and the message saying what it replaced (None: there was no file there)."""

    path: Path
    replaced: str | None = None
    document: dict[str, Any] | None = None
    """The document as written (None where not told)."""


def _describe(identity: Mapping[str, Any]) -> str:
    shots = ",".join("-" if s is None else str(s) for s in identity.get("shots", []))
    limit = f", limit {identity['limit']}" if identity.get("limit") is not None else ""
    return f"{identity['task_id']} by {identity['model_spec']} (seed {identity['seed']}, shots {shots}{limit})"


def changed_fields(previous: Mapping[str, Any], identity: Mapping[str, Any]) -> list[str] | None:
    """The identity fields in which an earlier results document differs (None: it predates run identities)."""
    old = previous.get("run_identity")
    if not isinstance(old, Mapping):
        return None
    return [field for field in IDENTITY_FIELDS if old.get(field) != identity.get(field)]


def replacement_message(previous: Mapping[str, Any], identity: Mapping[str, Any], path: Path) -> str:
    """``replaced results of <task> by <model> (...) in <path>``, and what changed when the identity did."""
    message = f"replaced results of {_describe(identity)} in {path}"
    changed = changed_fields(previous, identity)
    if changed is None:
        return message + " (a file written before run identities)"
    if changed:
        message += f" (a different run: {', '.join(f.replace('_', ' ') for f in changed)} changed)"
    return message


def save_results(
    document: dict[str, Any], output_dir: str | Path, samples: Sequence[Mapping[str, Any]] | None
) -> SavedResults:
    """Write a results file where its ``run_identity`` puts it (:func:`results_path`), saying what it replaced.

    The same identity replaces the earlier file (logged at INFO); a file of a different identity at that place (a
    new model revision or task version, or a file written before run identities) is replaced with a WARNING naming
    what changed. A damaged file there (unreadable by the strict reader: cut short, ``NaN``, too deep or large, not a
    regular file) is replaced too, with a WARNING saying what was wrong with it. The message is returned too, for
    the command line to print.

    Raises:
        ResultsFileError: the document does not follow the schema, or a folder is where the file goes.
    """
    identity = document["run_identity"]
    path = results_path(output_dir, identity)
    previous: dict[str, Any] | None = None
    damage: str | None = None
    if path.is_dir():
        raise ResultsFileError(
            f"{path} is a folder, where the results file of this run goes: move it away and run again."
        )
    if os.path.lexists(path):
        previous, damage = _previous_document(path)
    written, as_written = write_results_document(document, path, samples)
    stale_samples = path.with_name(path.name.removesuffix(".json") + ".samples.jsonl")
    if samples is None and stale_samples.is_file():  # the replaced file's log would be taken for this run's
        stale_samples.unlink()
    if previous is None:
        return SavedResults(written, document=as_written)
    if damage is not None:
        message = f"replaced a damaged results file with results of {_describe(identity)} in {written} ({damage})"
        logger.warning("%s", message[:1].upper() + message[1:])
        return SavedResults(written, message, as_written)
    message = replacement_message(previous, identity, written)
    same = changed_fields(previous, identity) == []
    logger.log(logging.INFO if same else logging.WARNING, "%s", message[:1].upper() + message[1:])
    return SavedResults(written, message, as_written)


def _previous_document(path: Path) -> tuple[dict[str, Any], str | None]:
    """The results document ``path`` holds before it is replaced, and what is wrong with it (None: nothing).

    Read with the strict reader, so a damaged file (cut short, ``NaN``, nested 100,000 deep, larger than the limit,
    a FIFO) is described instead of raising. It is then replaced, not refused: the run that replaces it is what every
    error about the damaged file asks for ("run the command again"), and the damaged file holds nothing that could be
    read back. Only its description is kept, for the warning.
    """
    try:
        previous = read_json_file(path, what="results file", error=ResultsFileError)
    except FileNotFoundError:  # removed meanwhile, or a dangling link
        return {}, "it could not be found any more"
    except (ResultsFileError, OSError) as exc:
        reason = str(exc).removeprefix(f"{path}: ").rstrip(".")
        return {}, reason
    if not isinstance(previous, dict):
        return {}, "its JSON is not a results object"
    return previous, None
