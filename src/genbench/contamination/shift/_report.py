"""Shift reports: a JSON document (``shift.schema.json``, versioned) beside a JSONL of per-example statistics.

The report names the corpus (name, tokens, tokenizer, engine, index checksum) and the JSONL file with its SHA-256;
both are written atomically, the JSONL first. :func:`read_shift_report` checks a report against its schema, its
examples file, and (given the corpus it will be used with) that the corpus is the one it names.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from genbench._core.files import atomic_open, write_json_atomic
from genbench._core.json_files import read_json_file
from genbench.contamination._errors import ContaminationError
from genbench.contamination.shift._engine import CorpusIdentity
from genbench.data._checksums import file_sha256

FORMAT = "genbench-shift-report"
SCHEMA_VERSION = 1


@cache
def shift_report_schema() -> dict[str, Any]:
    """The JSON Schema of shift reports."""
    text = resources.files("genbench.contamination.shift").joinpath("shift.schema.json").read_text("utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


def _problems(document: Any) -> list[str]:
    import jsonschema

    validator = jsonschema.Draft7Validator(shift_report_schema())
    return [
        f"{'.'.join(str(p) for p in error.absolute_path) or '(top)'}: {error.message}"
        for error in sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
    ]


def example_text_sha256(row: Sequence[str]) -> str:
    """The SHA-256 of an example's measured text (its fields joined by newlines), as each example line records it.

    >>> example_text_sha256(["612 + 6"])[:12]
    '7e6eb7d9736c'
    """
    return hashlib.sha256("\n".join(row).encode("utf-8")).hexdigest()


def report_stem(test_set_name: str) -> str:
    """The file name stem of a test set's report (``task:sub`` -> ``task.sub``).

    >>> report_stem("my_task:sub")
    'my_task.sub.shift'
    """
    return re.sub(r"[^A-Za-z0-9_.-]", ".", test_set_name) + ".shift"


def write_shift_report(folder: Path, document: dict[str, Any], examples: list[dict[str, Any]]) -> Path:
    """Write ``examples`` as JSONL and ``document`` (completed with that file's name and SHA-256); return its path.

    Raises:
        ContaminationError: the document does not follow the schema (a bug: the message lists the problems).
    """
    stem = report_stem(document["test_set"]["name"])
    examples_path = folder / f"{stem}.examples.jsonl"
    digest = hashlib.sha256()
    with atomic_open(examples_path) as handle:
        for example in examples:
            line = json.dumps(example, ensure_ascii=False, allow_nan=False) + "\n"
            digest.update(line.encode("utf-8"))
            handle.write(line)
    document = {**document, "examples_file": examples_path.name, "examples_sha256": digest.hexdigest()}
    problems = _problems(document)
    if problems:
        raise ContaminationError("The shift report does not follow its schema:\n" + "\n".join(problems))
    path = folder / f"{stem}.json"
    write_json_atomic(path, document)
    return path


def read_shift_report(path: str | Path, *, corpus: CorpusIdentity | None = None) -> dict[str, Any]:
    """A shift report, checked: its schema, its examples file's SHA-256, and its corpus (when ``corpus`` is given).

    Raises:
        ContaminationError: the file is not a valid report, its examples file is missing or changed, or ``corpus``
            is not the corpus it names (another name, size, tokenizer or index checksum).
    """
    path = Path(path)
    try:  # the strict reader: NaN, a key given twice, nesting too deep and a FIFO are refused, naming the file
        document = read_json_file(path, what="shift report", error=ContaminationError)
    except FileNotFoundError:
        raise ContaminationError(f"{path}: no such shift report.") from None
    problems = _problems(document)
    if problems:
        raise ContaminationError(f"{path} is not a shift report:\n" + "\n".join(problems))
    examples = path.parent / document["examples_file"]
    try:
        actual = file_sha256(examples)
    except OSError:
        raise ContaminationError(f"{path}: its examples file {examples} is missing.") from None
    if actual != document["examples_sha256"]:
        raise ContaminationError(f"{examples} was changed since {path} was written (its SHA-256 differs).")
    if corpus is not None:
        named = document["corpus"]
        differences = [
            f"{key} {named[key]!r} (report) vs {value!r} (index)"
            for key, value in corpus.as_json().items()
            if key != "engine" and named[key] != value
        ]
        if differences:
            raise ContaminationError(
                f"{path} was measured against another corpus than this index: {'; '.join(differences)}. "
                f"Measure the task against this index, or use the index the report names."
            )
    return document
