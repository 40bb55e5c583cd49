"""Results files: one JSON per (model, task) following the shipped, versioned JSON Schema, plus per-sample logs.

The schema is ``results.schema.json`` in this package (``genbench-cli schema --results`` prints it). A results
file ``<task>.json`` may name its per-sample log ``<task>.samples.jsonl`` (one ``sample`` object per line). Both
are written atomically and validated before they are written and when they are read.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from genbench.core.files import atomic_open, to_jsonable, write_json_atomic
from genbench.core.json_files import iter_json_lines, open_regular, read_json_file
from genbench.runs.errors import ResultsFileError

SCHEMA_VERSION = 1
SCHEMA_FILE = "results.schema.json"


def results_schema_text() -> str:
    """The results JSON Schema, as shipped."""
    return resources.files("genbench.runs").joinpath(SCHEMA_FILE).read_text(encoding="utf-8")


@functools.cache
def _validator(definition: str | None) -> Any:
    import jsonschema

    schema = json.loads(results_schema_text())
    if definition is not None:
        schema = {**schema, "$ref": f"#/$defs/{definition}"}
        for key in ("required", "properties", "additionalProperties", "type"):
            schema.pop(key, None)
    return jsonschema.Draft202012Validator(schema)


def schema_problems(document: Any, definition: str | None = None) -> list[str]:
    """Every way ``document`` breaks the schema (or one of its ``$defs``), as ``path: message`` lines."""
    errors = sorted(_validator(definition).iter_errors(document), key=lambda e: list(e.absolute_path))
    return [f"{'.'.join(str(p) for p in error.absolute_path) or '(top)'}: {error.message}" for error in errors]


def check_document(document: Any, file: str | Path) -> None:
    """Raise :class:`ResultsFileError` naming the file and every schema problem of a results document."""
    problems = schema_problems(document)
    if problems:
        raise ResultsFileError(
            f"{file} does not follow the results schema (version {SCHEMA_VERSION}):\n  " + "\n  ".join(problems[:10])
        )


def canonical_sha256(document: Any) -> str:
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
    from genbench.prompting.builder import BUILDER_VERSION

    options = prompt_builder.model_dump(mode="json") if hasattr(prompt_builder, "model_dump") else prompt_builder
    return canonical_sha256({"prompt_builder": options, "task_type": task_type, "builder_version": BUILDER_VERSION})


def file_stem(task_id: str) -> str:
    """``task:subtask`` -> ``task.subtask`` (``:`` is not allowed in Windows file names)."""
    return task_id.replace(":", ".")


def write_results(document: dict[str, Any], path: str | Path, samples: Sequence[Mapping[str, Any]] | None) -> Path:
    """Validate and write a results file (and its per-sample log next to it when ``samples`` is given).

    The log is written first and the results file records its SHA-256 and row count (``samples_sha256``,
    ``samples_count``): a results file and a log that are not from the same write (a run killed between the two
    renames, two runs finishing at once in one folder) are told apart by :func:`read_results`.

    Returns:
        The results file's path.

    Raises:
        ResultsFileError: the document or a sample does not follow the schema (nothing is written).
    """
    path = Path(path)
    document = to_jsonable(document)
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
    return path


def check_task_id(document: Any, file: str | Path) -> None:
    """Refuse a task id with a line break or another control character.

    The schema's pattern ends in ``$``, which also matches before a final newline (in Python's regular expressions
    and in ECMA-262's multiline reading), so ``"task\\n"`` would pass it and become a second site page and a
    second leaderboard column for the same task.
    """
    task = document.get("task") if isinstance(document, dict) else None
    task_id = task.get("id") if isinstance(task, dict) else None
    if isinstance(task_id, str) and not _TASK_ID.fullmatch(task_id):
        raise ResultsFileError(
            f"{file}: task.id {task_id!r} is not a task id ('task' or 'task:subtask', each of [a-z0-9_]+, nothing "
            "else: no line break or other control character)."
        )


_TASK_ID = re.compile(r"[a-z0-9_]+(?::[a-z0-9_]+)?")


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
            f"Run `genbench-cli run --model {spec} --tasks {task_id}` again with the same options to rewrite both "
            "(answers already in its request cache are not computed again)."
        )
    return "Run the command that wrote them (`genbench-cli run`, `evaluate` or `demo`) again to rewrite both."


def read_results(path: str | Path, *, with_samples: bool = True) -> tuple[dict[str, Any], list[dict[str, Any]] | None]:
    """Read and validate a results file and (if it names one and ``with_samples``) its per-sample log.

    Both are read with the strict JSON reader (:mod:`genbench.core.json_files`: no ``NaN``, depth and size limits,
    regular files only). A results file that records its log's SHA-256 and row count is checked against the log,
    also when ``with_samples`` is False (the log is then hashed, not parsed).

    Raises:
        ResultsFileError: unreadable JSON, a schema violation, a broken sample line (file and line named), or a log
            that is not the one the results file was written with (both files and the command to rewrite them
            named).
    """
    path = Path(path)
    try:
        document = read_json_file(path, what="results file", error=ResultsFileError)
    except FileNotFoundError:
        raise ResultsFileError(f"{path}: no such results file.") from None
    check_task_id(document, path)
    check_document(document, path)
    if not document.get("samples_file"):
        return document, None
    samples_path = path.parent / Path(document["samples_file"]).name
    if not samples_path.is_file():
        raise ResultsFileError(f"{path} names the per-sample log {samples_path.name}, which is missing.")
    expected_sha256, expected_count = document.get("samples_sha256"), document.get("samples_count")
    if not with_samples and expected_sha256 is None:
        return document, None
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
    if expected_sha256 is not None and digest.hexdigest() != expected_sha256:
        rows = f"{len(samples)} rows, " if with_samples else ""
        raise ResultsFileError(
            f"{path} and its per-sample log {samples_path} are not from the same run: the log has {rows}SHA-256 "
            f"{digest.hexdigest()}, the results file records {expected_count} rows with SHA-256 {expected_sha256} "
            f"(a run killed between writing the two, or two runs writing one folder at once). {hint}"
        )
    if with_samples and expected_count is not None and len(samples) != expected_count:  # equal hashes, so never
        raise ResultsFileError(f"{samples_path}: {len(samples)} rows, {path} records {expected_count}. {hint}")
    return document, samples if with_samples else None
