"""Results files: one JSON per (model, task) following the shipped, versioned JSON Schema, plus per-sample logs.

The schema is ``results.schema.json`` in this package (``genbench-cli schema --results`` prints it). A results
file ``<task>.json`` may name its per-sample log ``<task>.samples.jsonl`` (one ``sample`` object per line). Both
are written atomically and validated before they are written and when they are read.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from genbench.core.files import atomic_open, to_jsonable, write_json_atomic
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

    Returns:
        The results file's path.

    Raises:
        ResultsFileError: the document or a sample does not follow the schema (nothing is written).
    """
    path = Path(path)
    document = to_jsonable(document)
    explain_null_metrics(document)
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
        with atomic_open(samples_path) as handle:
            handle.write("".join(line + "\n" for line in lines))
    else:
        document.setdefault("samples_file", None)
    check_document(document, path)
    write_json_atomic(path, document)
    return path


def read_results(path: str | Path, *, with_samples: bool = True) -> tuple[dict[str, Any], list[dict[str, Any]] | None]:
    """Read and validate a results file and (if it names one and ``with_samples``) its per-sample log.

    Raises:
        ResultsFileError: unreadable JSON, a schema violation, or a broken sample line (file and line named).
    """
    path = Path(path)
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ResultsFileError(f"{path}: no such results file.") from None
    except ValueError as exc:
        raise ResultsFileError(f"{path}: not valid JSON: {exc}") from None
    if isinstance(document, dict):
        explain_null_metrics(document)  # files written before null values needed a reason stay readable
    check_document(document, path)
    if not with_samples or not document.get("samples_file"):
        return document, None
    samples_path = path.parent / Path(document["samples_file"]).name
    if not samples_path.is_file():
        raise ResultsFileError(f"{path} names the per-sample log {samples_path.name}, which is missing.")
    samples = []
    with samples_path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError as exc:
                raise ResultsFileError(f"{samples_path}:{number}: not valid JSON: {exc}") from None
            problems = schema_problems(record, "sample")
            if problems:
                raise ResultsFileError(f"{samples_path}:{number}: " + "; ".join(problems[:5]))
            samples.append(record)
    return document, samples
