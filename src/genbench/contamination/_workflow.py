"""The contamination workflow as functions: index training data, search test sets, decontaminate.

What they do and the options they take: docs/contamination.md#python-api.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from genbench.contamination._backend_registry import create_backend
from genbench.contamination._errors import ContaminationError
from genbench.contamination._index_backend import IndexBackend, SearchMode, SearchResult
from genbench.contamination._report import DecontaminationSummary, write_decontaminated, write_report
from genbench.contamination._source_check import check_unchanged
from genbench.contamination._testsets import TestSet, task_test_sets
from genbench.contamination._training_data import UnitSpec, load_training_dataset, read_dataset_mixer

PathLike = str | os.PathLike[str]


def _backend(
    backend: IndexBackend | str | None,
    index_dir: PathLike | None,
    backend_options: dict[str, Any] | None = None,
    **options: Any,
) -> IndexBackend:
    """The backend object: given, or made by name (default ``embedded``) from the options."""
    if backend is not None and not isinstance(backend, str):
        return backend

    return create_backend(backend, index_dir=index_dir, **options, **(backend_options or {}))


def training_datasets(datasets: str | Sequence[str] | None, dataset_mixer_config: PathLike | None) -> list[str]:
    """The training dataset names from a name, a list of names and/or a dataset-mixer config.

    Raises:
        ContaminationError: none is given.
    """
    names = [datasets] if isinstance(datasets, str) else list(datasets or [])
    if dataset_mixer_config is not None:
        names.extend(read_dataset_mixer(dataset_mixer_config))
    if not names:
        raise ContaminationError("Name the training data: a dataset (--dataset) or a dataset mixer config.")
    return list(dict.fromkeys(names))


def build_index(
    dataset: str | Sequence[str] | None = None,
    *,
    dataset_mixer_config: PathLike | None = None,
    split: str = "train",
    index_type: str = "text",
    model: str | None = None,
    messages_field: str | None = "messages",
    query_filter: str | None = "role:user",
    query_field: str = "content",
    text_field: str | None = None,
    index_dir: PathLike | None = None,
    max_batch_tokens: int = 65_536,
    shard_rows: int | None = None,
    ngram_sizes: Sequence[int] = (),
    rebuild: bool = False,
    progress: bool = False,
    backend: IndexBackend | str | None = None,
    backend_options: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Index training datasets, one index per dataset (an up-to-date index is kept, a stopped build resumes).

    Args:
        dataset: A dataset name or path (JSONL or Parquet file, ``save_to_disk`` folder, cached Hub id), or several.
        dataset_mixer_config: A training config YAML whose ``dataset_mixer`` names datasets to index too.
        split: The split to index.
        index_type: ``text`` (exact and n-gram matches) or ``vector`` (embedding matches).
        model: The sentence-transformers model of a vector index (default all-MiniLM-L6-v2, offline).
        messages_field: Column of chat messages; each message passing ``query_filter`` is a unit.
        query_filter: ``key:value`` a message must have (``role:user``); ``None`` for every message.
        query_field: Key of a message's text.
        text_field: Index this column, one unit per row, instead of messages.
        index_dir: Where indexes live (default ``$GENBENCH_HOME/contamination`` or the user data folder).
        max_batch_tokens: Embedding batch size, in model tokens.
        shard_rows: Rows per build checkpoint.
        ngram_sizes: Build the n-gram tables of these sizes now (text indexes; otherwise the first search of a
            size builds its table).
        rebuild: Build again even when an up-to-date index exists.
        progress: Show progress bars.
        backend: The index backend: an object, or a name of :mod:`~genbench.contamination._backend_registry`
            (``embedded``, the default, or ``elasticsearch``).
        backend_options: Options of a backend given by name (for ``elasticsearch``: ``url``, ``ca_certs``, ...).

    Returns:
        The manifest of each index (``name``, ``counts``, ``source``, ...).

    Raises:
        ContaminationError: a dataset cannot be read, lacks a field, is empty, or yields no units.

    >>> import tempfile, pathlib, json
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     train = pathlib.Path(tmp, "train.jsonl")
    ...     _ = train.write_text(json.dumps({"messages": [{"role": "user", "content": "What is 12 + 30?"}]}) + "\\n")
    ...     _ = build_index(str(train), index_dir=tmp)
    ...     sums = TestSet.from_texts("sums", ["what is 12 + 30", "what is 5 + 5"])
    ...     report = search(str(train), test_sets=[sums], ngram_size=3, index_dir=tmp)
    >>> [round(r.score, 4) for r in report.results], report.results[0].instances[0].raw_score
    ([0.5], 1.0)
    """
    spec = UnitSpec(messages_field, query_filter, query_field, text_field)
    options = {"shard_rows": shard_rows} if shard_rows is not None else {}
    chosen = _backend(backend, index_dir, backend_options, **options)
    if max_batch_tokens < 1:
        raise ContaminationError(f"max_batch_tokens must be at least 1, got {max_batch_tokens}.")
    if any(n < 1 for n in ngram_sizes):
        raise ContaminationError(f"N-gram sizes must be at least 1, got {list(ngram_sizes)}.")
    if ngram_sizes and index_type != "text":
        raise ContaminationError("N-gram tables belong to text indexes, not to vector indexes.")
    manifests = []
    for name in training_datasets(dataset, dataset_mixer_config):
        loaded = load_training_dataset(name, split, spec)
        manifest = chosen.build(
            loaded,
            spec,
            index_type=index_type,
            model=model,
            max_batch_tokens=max_batch_tokens,
            rebuild=rebuild,
            progress=progress,
        )
        if ngram_sizes and hasattr(chosen, "index_dir"):  # n-gram tables are the embedded backend's
            index: Any = chosen.open(manifest["name"], index_type="text")
            for n in ngram_sizes:
                index.table(n)
            manifest = index.manifest
        manifests.append(manifest)
    return manifests


@dataclass
class ContaminationReport:
    """Search results of test sets against indexes.

    Attributes:
        mode: How instances were matched.
        results: One result per (index, test set), indexes in the order given, test sets within.
        manifests: The manifest of each index searched, by index name.
    """

    mode: SearchMode
    results: list[SearchResult]
    manifests: dict[str, dict[str, Any]] = field(default_factory=dict)

    def table(self) -> dict[str, dict[str, float]]:
        """Contamination score by training dataset, then by test set."""
        table: dict[str, dict[str, float]] = {}
        for result in self.results:
            table.setdefault(result.source, {})[result.test_set] = result.score
        return table

    def write(self, output_dir: PathLike) -> list[Path]:
        """Write the per-instance JSONL files, ``contamination_report.tsv`` and ``report.html``; returns the paths."""
        return write_report(self, Path(output_dir))


def search(
    train_datasets: str | Sequence[str] | None = None,
    *,
    dataset_mixer_config: PathLike | None = None,
    test_sets: Iterable[TestSet] | None = None,
    ngram_size: int | None = None,
    match_threshold: float | None = None,
    index_type: str = "text",
    model: str | None = None,
    index_dir: PathLike | None = None,
    top_k: int = 1,
    progress: bool = False,
    backend: IndexBackend | str | None = None,
    backend_options: dict[str, Any] | None = None,
    verify: bool = False,
) -> ContaminationReport:
    """Score test sets against the indexes of training datasets (every unit considered: results are complete).

    Args:
        train_datasets: Names of indexed datasets (as indexed) or index names.
        dataset_mixer_config: A training config YAML whose datasets to search too.
        test_sets: The test sets; default: the test split of every task in the registry.
        ngram_size: N-gram match of this size; without it, exact match (text indexes).
        match_threshold: Instances score 1 above it (strictly), else 0.
        index_type: ``text`` or ``vector``.
        model: For vector indexes, the model they were built with (default: the index's).
        index_dir: Where indexes live.
        top_k: Matches reported per instance (the first is the largest match).
        progress: Show progress bars.
        backend: The index backend: an object, or a name (``embedded``, the default, or ``elasticsearch``).
        backend_options: Options of a backend given by name (for ``elasticsearch``: ``url``, ``search_size``, ...).
        verify: Check the checksum of every file of each index before searching it (embedded backend; without it,
            file sizes and the checksums of small files are checked), and of each training file (without it, a file
            whose size and times are those recorded is taken as unchanged).

    Raises:
        ContaminationError: an index is missing, holds another dataset than the one named, or its training data
            changed since it was indexed (:mod:`~genbench.contamination._source_check`); the options do not fit the
            index type.
        DamagedIndexError: an index's file is missing or damaged (the message says how to rebuild it).

    >>> import tempfile, pathlib, json
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     train = pathlib.Path(tmp, "train.jsonl")
    ...     _ = train.write_text(json.dumps({"text": "The capital of France is Paris."}) + "\\n")
    ...     _ = build_index(str(train), text_field="text", index_dir=tmp)
    ...     report = search(str(train), test_sets=[TestSet.from_texts("geo", ["capital of France"])], index_dir=tmp)
    >>> report.table()[str(train)]
    {'geo': 1.0}
    """
    mode = SearchMode.create(
        index_type=index_type, ngram_size=ngram_size, match_threshold=match_threshold, model=model
    )
    if top_k < 1:
        raise ContaminationError(f"top_k must be at least 1, got {top_k}.")
    chosen = _backend(backend, index_dir, backend_options)
    if verify:
        if not hasattr(chosen, "verify"):
            raise ContaminationError(f"The {chosen.name} backend checks its indexes itself: --verify is for embedded.")
        chosen.verify = True
    names = training_datasets(train_datasets, dataset_mixer_config)
    indexes = [chosen.open(name, index_type=index_type, model=model) for name in names]
    results = []
    try:
        for index in indexes:  # an index answers only for the training data as it is now
            check_unchanged(index.manifest, str(getattr(chosen, "index_dir", "")) or None, verify=verify)
        suite = list(test_sets) if test_sets is not None else task_test_sets()
        if not suite:
            raise ContaminationError("There are no test sets to search.")
        for index in indexes:
            for test_set in suite:
                results.append(index.search(test_set, mode, top_k=top_k, progress=progress))
    finally:
        for index in indexes:
            index.close()
    return ContaminationReport(mode, results, {index.name: index.manifest for index in indexes})


def decontaminate(report: ContaminationReport, output_dir: PathLike) -> list[DecontaminationSummary]:
    """Write each training dataset without the rows matching any test instance of the report.

    A row is removed when one of its units matches a test instance: contains it (exact match) or scores above the
    threshold (n-gram and embedding matches). Every other row is written, in order: a JSONL source's lines
    verbatim, other rows as JSON. Output: ``<output_dir>/<dataset>_decontaminated.jsonl``, written atomically.

    Raises:
        ContaminationError: the report has n-gram or embedding scores without a threshold, or a training dataset
            changed since it was indexed.
    """
    if not report.mode.can_decontaminate:
        raise ContaminationError(
            f"Decontaminating after an {report.mode.describe()} needs a match threshold (--match-threshold): "
            "it decides which scores count as a match."
        )
    rows: dict[str, list[np.ndarray]] = {}
    for result in report.results:
        assert result.matched_rows is not None
        rows.setdefault(result.index, []).append(result.matched_rows)
    return [
        write_decontaminated(report.manifests[name], np.unique(np.concatenate(parts)), Path(output_dir))
        for name, parts in rows.items()
    ]
