"""Measure a task's shift against a corpus: every example's statistics, the set's, a summary, a report.

See ``docs/shift.md``; :func:`measure_shift` is what ``genbench-cli shift measure`` calls.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from genbench._core.version import VERSION
from genbench.contamination._errors import ContaminationError
from genbench.contamination._testsets import TestSet, loaded_task_test_sets
from genbench.contamination.shift._embedded import EmbeddedCorpus, is_embedded_text_index
from genbench.contamination.shift._engine import CorpusEngine
from genbench.contamination.shift._infinigram import InfiniGramCorpus
from genbench.contamination.shift._manifest import read_manifest
from genbench.contamination.shift._report import FORMAT, SCHEMA_VERSION, example_text_sha256, write_shift_report
from genbench.contamination.shift._statistics import (
    CountCache,
    ExampleShift,
    computable,
    example_shift,
    unigram_cross_entropy,
)
from genbench.contamination.shift._summary import flag_examples, summarize

DEFAULT_NGRAM_SIZES = (8, 13)
DEFAULT_RAREST = 3
DEFAULT_THRESHOLD = 0.8


@dataclass
class ShiftResult:
    """The shift of one test set: its report document, its examples, and where they were written (if they were)."""

    report: dict[str, Any]
    examples: list[ExampleShift]
    path: Path | None = None


def open_corpus(index: str | os.PathLike[str], *, verify: bool = False) -> CorpusEngine:
    """The corpus index in the folder ``index``, verified: an embedded contamination index of text, or a shift index
    (whose manifest names the engine that reads it).

    Raises:
        ContaminationError: no index there, or an engine genbench does not have.
        DamagedIndexError: the index is damaged or was changed.
    """
    if is_embedded_text_index(Path(index)):
        return EmbeddedCorpus(index, verify=verify)
    engine = read_manifest(Path(index)).get("engine")
    if engine == "infini-gram":
        return InfiniGramCorpus(index, verify=verify)
    raise ContaminationError(f"{index}: its manifest names the engine {engine!r}, which genbench does not have.")


def _test_sets(task: Any) -> list[TestSet]:
    if isinstance(task, TestSet):
        return [task]
    if isinstance(task, str):
        from genbench.task._factory import load_task

        task = load_task(task)
    return loaded_task_test_sets(task)


def _check_settings(ngram_sizes: Sequence[int], rarest: int, threshold: float, threshold_ngram: int) -> None:
    if not ngram_sizes or any(isinstance(n, bool) or not isinstance(n, int) or n < 1 for n in ngram_sizes):
        raise ContaminationError(f"--ngram-size must be positive integers, got {list(ngram_sizes)}.")
    if rarest < 0:
        raise ContaminationError(f"--rarest must be 0 or more, got {rarest}.")
    if not 0.0 <= threshold <= 1.0:
        raise ContaminationError(f"--threshold must be in [0, 1], got {threshold}.")
    if threshold_ngram not in ngram_sizes:
        raise ContaminationError(
            f"--threshold-ngram {threshold_ngram} is not one of the measured --ngram-size {list(ngram_sizes)}."
        )


def measure_test_set(
    test_set: TestSet,
    corpus: CorpusEngine,
    *,
    ngram_sizes: Sequence[int] = DEFAULT_NGRAM_SIZES,
    rarest: int = DEFAULT_RAREST,
    threshold: float = DEFAULT_THRESHOLD,
    threshold_ngram: int | None = None,
) -> ShiftResult:
    """The shift of one test set (an example's text is its fields joined by newlines)."""
    sizes = sorted(set(ngram_sizes))
    threshold_ngram = max(sizes) if threshold_ngram is None else threshold_ngram
    _check_settings(sizes, rarest, threshold, threshold_ngram)
    missing = computable(corpus)
    wanted = {name for name, lacking in missing.items() if lacking is None}
    counts = CountCache(corpus)
    splits = [corpus.tokenizer.split("\n".join(row)) for row in test_set.rows]
    tokenized = [(split, corpus.token_ids(split)) for split in splits]
    examples = [
        example_shift(i, split, ids, counts, ngram_sizes=sizes, rarest=rarest, statistics=wanted)
        for i, (split, ids) in enumerate(tokenized)
    ]
    for example, row in zip(examples, test_set.rows, strict=True):
        example.text_sha256 = example_text_sha256(row)
    flag_examples(examples, threshold, threshold_ngram)
    report = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "genbench_version": VERSION,
        "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "test_set": {"name": test_set.name, "examples": len(test_set), "fields": list(test_set.fields)},
        "corpus": corpus.identity.as_json(),
        "settings": {
            "ngram_sizes": sizes,
            "rarest": rarest,
            "threshold": threshold,
            "threshold_ngram": threshold_ngram,
        },
        "not_computed": {name: lacking for name, lacking in missing.items() if lacking is not None},
        "summary": summarize(examples, sizes, threshold, threshold_ngram),
        "unigram_cross_entropy": unigram_cross_entropy(corpus, tokenized)
        if "unigram_cross_entropy" in wanted
        else None,
    }
    return ShiftResult(report, examples)


def measure_shift(
    task: Any,
    *,
    corpus: CorpusEngine | str | os.PathLike[str],
    output_dir: str | os.PathLike[str] | None = None,
    corpus_name: str | None = None,
    ngram_sizes: Sequence[int] = DEFAULT_NGRAM_SIZES,
    rarest: int = DEFAULT_RAREST,
    threshold: float = DEFAULT_THRESHOLD,
    threshold_ngram: int | None = None,
    verify: bool = False,
) -> list[ShiftResult]:
    """Measure how far a task's test set is from a corpus; one result per test set (per subtask of a TaskDict).

    Args:
        task: A ``Task``, a ``TaskDict``, a task id, or a :class:`~genbench.contamination._testsets.TestSet`.
        corpus: An open :class:`~genbench.contamination.shift._engine.CorpusEngine`, or an index folder.
        output_dir: Where to write each test set's report and examples JSONL (nothing is written if ``None``).
        corpus_name: The corpus the caller means; an index of another corpus is an error.
        ngram_sizes: The n of the n-gram statistics.
        rarest: How many of the rarest n-grams to keep per example and n.
        threshold: The n-gram hit share from which an example counts as contained in the corpus.
        threshold_ngram: The n of that share (default: the largest of ``ngram_sizes``).
        verify: Check the SHA-256 of every index file, however large (otherwise of files up to 32 MiB).

    Raises:
        ContaminationError: bad settings, no index, an index of another corpus than ``corpus_name``.
        DamagedIndexError: the index is damaged or was changed.
    """
    engine = corpus if isinstance(corpus, CorpusEngine) else open_corpus(corpus, verify=verify)
    if corpus_name is not None and engine.identity.name != corpus_name:
        raise ContaminationError(
            f"The index holds the corpus {engine.identity.name!r}, not {corpus_name!r}: open the index of "
            f"{corpus_name!r} (or leave out --corpus-name)."
        )
    results = []
    for test_set in _test_sets(task):
        result = measure_test_set(
            test_set, engine, ngram_sizes=ngram_sizes, rarest=rarest, threshold=threshold,
            threshold_ngram=threshold_ngram,
        )  # fmt: skip
        if output_dir is not None:
            result.path = write_shift_report(
                Path(output_dir), result.report, [example.as_json() for example in result.examples]
            )
        results.append(result)
    return results
