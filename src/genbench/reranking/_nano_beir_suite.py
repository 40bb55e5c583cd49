"""NanoBEIR-style retrieval suites: reading ``corpus``/``queries``/``qrels``/``bm25`` and building reranking samples.

A suite is read from the Hugging Face Hub or from a local directory of ``Nano{Name}/*.jsonl`` files; each ``bm25``
row becomes one sample (``query``, ``positive``, ``documents``). See docs/reranking.md#crossencodernanobeirevaluator.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from genbench._core.errors import DataLoadError, DataNotFoundError
from genbench.data._jsonl import iter_json_objects

__all__ = [
    "DATASET_NAME_TO_HUMAN_READABLE",
    "DEFAULT_DATASET_NAMES",
    "NANOBEIR_SUBSETS",
    "demo_suite_path",
    "load_nanobeir_samples",
    "local_dataset_names",
]

#: The NanoBEIR datasets and the split names (``Nano{value}``) they are stored under on the Hub.
DATASET_NAME_TO_HUMAN_READABLE: dict[str, str] = {
    "climatefever": "ClimateFEVER",
    "dbpedia": "DBPedia",
    "fever": "FEVER",
    "fiqa2018": "FiQA2018",
    "hotpotqa": "HotpotQA",
    "msmarco": "MSMARCO",
    "nfcorpus": "NFCorpus",
    "nq": "NQ",
    "quoraretrieval": "QuoraRetrieval",
    "scidocs": "SCIDOCS",
    "arguana": "ArguAna",
    "scifact": "SciFact",
    "touche2020": "Touche2020",
}
#: Left out when no dataset names are given: their argument-retrieval task differs from the others.
EXCLUDED_BY_DEFAULT = ("arguana", "touche2020")
#: The datasets evaluated when no names are given (sentence-transformers' default for cross-encoders).
DEFAULT_DATASET_NAMES: list[str] = [n for n in DATASET_NAME_TO_HUMAN_READABLE if n not in EXCLUDED_BY_DEFAULT]

#: Subset name -> the fields each row needs.
NANOBEIR_SUBSETS: dict[str, tuple[str, ...]] = {
    "corpus": ("_id", "text"),
    "queries": ("_id", "text"),
    "qrels": ("query-id", "corpus-id"),
    "bm25": ("query-id", "corpus-ids"),
}

LOCAL_LAYOUT = "<dir>/Nano{Name}/{corpus,queries,qrels,bm25}.jsonl"


def demo_suite_path() -> Path:
    """The tiny NanoBEIR-style suite shipped with genbench (two invented datasets: gardening, astronomy)."""
    return Path(__file__).parent / "data" / "nano_demo"


def is_local_suite(dataset_id: str | os.PathLike) -> bool:
    """Whether ``dataset_id`` is a local directory in genbench's JSONL layout."""
    path = Path(dataset_id)
    return path.is_dir() and any(_local_dataset_dirs(path))


def _local_dataset_dirs(path: Path) -> dict[str, Path]:
    """``{lower-case name without "Nano": directory}`` of the ``Nano*`` folders holding JSONL files."""
    found = {}
    for child in sorted(path.iterdir()):
        if child.is_dir() and child.name.lower().startswith("nano") and any(child.glob("*.jsonl")):
            found[child.name[4:].lower()] = child
    return found


def local_dataset_names(dataset_id: str | os.PathLike) -> list[str]:
    """Dataset names of a local suite: known NanoBEIR names first, in the usual order, then the others sorted."""
    found = _local_dataset_dirs(Path(dataset_id))
    known = [name for name in DATASET_NAME_TO_HUMAN_READABLE if name in found]
    return known + sorted(name for name in found if name not in DATASET_NAME_TO_HUMAN_READABLE)


def default_dataset_names(dataset_id: str | os.PathLike) -> list[str]:
    """The names evaluated when none are given: all but arguana and touche2020 (of a local suite: those present)."""
    if is_local_suite(dataset_id):
        return [name for name in local_dataset_names(dataset_id) if name not in EXCLUDED_BY_DEFAULT]
    return list(DEFAULT_DATASET_NAMES)


def resolve_dataset_name(dataset_id: str | os.PathLike, dataset_name: str) -> str:
    """The human-readable name (``MSMARCO``; split ``Nano{it}``) of ``dataset_name``, or ``ValueError``."""
    key = dataset_name.lower()
    if is_local_suite(dataset_id):
        found = _local_dataset_dirs(Path(dataset_id))
        if key not in found:
            raise ValueError(
                f"Dataset '{dataset_name}' is not in the local suite {os.fspath(dataset_id)!r}; "
                f"it has {local_dataset_names(dataset_id)} (layout: {LOCAL_LAYOUT})"
            )
        return DATASET_NAME_TO_HUMAN_READABLE.get(key, found[key].name[4:])
    if key not in DATASET_NAME_TO_HUMAN_READABLE:
        raise ValueError(
            f"Dataset(s) {[dataset_name]} are not valid NanoBEIR datasets. "
            f"Valid dataset names are: {list(DATASET_NAME_TO_HUMAN_READABLE)}"
        )
    return DATASET_NAME_TO_HUMAN_READABLE[key]


def _read_jsonl(path: Path, required: tuple[str, ...]) -> list[dict[str, Any]]:
    if not path.is_file():
        raise DataNotFoundError(f"{path}: file not found (layout: {LOCAL_LAYOUT})")

    rows = []
    for line_number, row in iter_json_objects(path):
        missing = [name for name in required if name not in row]
        if missing:
            raise DataLoadError(f"{path}:{line_number}: missing field(s) {missing}")
        rows.append(row)
    return rows


def _hub_loader(dataset_id: str) -> Callable[[str, str, tuple[str, ...]], list[dict[str, Any]]]:
    def load(subset: str, split: str, required: tuple[str, ...]) -> list[dict[str, Any]]:
        try:
            from datasets import load_dataset
        except ImportError as err:  # pragma: no cover - datasets is a dependency of genbench
            raise DataLoadError("the 'datasets' package is needed to load NanoBEIR from the Hub") from err
        try:
            dataset = load_dataset(dataset_id, subset, split=split)
        except Exception as err:
            raise DataLoadError(
                f"Could not load subset '{subset}' split '{split}' from dataset '{dataset_id}' "
                f"({type(err).__name__}: {err}). Without access to the Hugging Face Hub, point dataset_id to a "
                f"local directory laid out as {LOCAL_LAYOUT}."
            ) from err
        missing = [name for name in required if name not in dataset.column_names]
        if missing:
            raise DataLoadError(
                f"Subset '{subset}' split '{split}' from dataset '{dataset_id}' is missing required columns: "
                f"{missing}."
            )
        return list(dataset)

    return load


def load_nanobeir_samples(
    dataset_id: str | os.PathLike, dataset_name: str, rerank_k: int = 100
) -> tuple[str, list[dict[str, Any]]]:
    """Read one dataset of a suite and build its reranking samples.

    Args:
        dataset_id: A Hugging Face dataset id, or a local directory (layout in docs/reranking.md).
        dataset_name: Short name, e.g. ``"msmarco"`` (case-insensitive).
        rerank_k: Number of BM25 documents per query to rerank.

    Returns:
        ``(human_readable_name, samples)``, e.g. ``("MSMARCO", [{"query", "positive", "documents"}, ...])``.

    Example, on the tiny invented suite genbench ships for tests and demos:

    >>> suite = demo_suite_path()
    >>> local_dataset_names(suite)
    ['astronomy', 'gardening']
    >>> name, samples = load_nanobeir_samples(suite, "gardening", rerank_k=5)
    >>> name, len(samples), len(samples[0]["documents"])
    ('Gardening', 10, 5)

    Raises:
        ValueError: unknown dataset name.
        DataLoadError: unreadable or incomplete data, an id that is not in the corpus or the queries, a query
            without qrels (``DataNotFoundError`` for a missing file).
    """
    human_readable = resolve_dataset_name(dataset_id, dataset_name)
    split = f"Nano{human_readable}"
    load: Callable[[str, str, tuple[str, ...]], list[dict[str, Any]]]
    if is_local_suite(dataset_id):
        folder = _local_dataset_dirs(Path(dataset_id))[dataset_name.lower()]

        def load(subset: str, split: str, required: tuple[str, ...]) -> list[dict[str, Any]]:
            return _read_jsonl(folder / f"{subset}.jsonl", required)

        where = os.fspath(folder)
    else:
        load = _hub_loader(os.fspath(dataset_id))
        where = f"{os.fspath(dataset_id)} split {split}"
    tables = {subset: load(subset, split, required) for subset, required in NANOBEIR_SUBSETS.items()}

    corpus = {row["_id"]: row["text"] for row in tables["corpus"]}
    queries = {row["_id"]: row["text"] for row in tables["queries"]}
    # A set per query, filled in row order, as sentence-transformers does: its iteration order decides the order
    # of the positives (and so of the pairs), which only matters for ties.
    qrels: dict[Any, set] = {}
    for row in tables["qrels"]:
        corpus_ids = row.get("corpus-id")
        relevant = qrels.setdefault(row["query-id"], set())
        if isinstance(corpus_ids, list):
            relevant.update(corpus_ids)
        else:
            relevant.add(corpus_ids)

    def text_of(table: dict[Any, str], kind: str, key: Any) -> str:
        try:
            return table[key]
        except KeyError:
            raise DataLoadError(f"{where}: {kind} id {key!r} is not in the {kind} table") from None

    samples = []
    for row in tables["bm25"]:
        query_id = row["query-id"]
        if query_id not in qrels:
            raise DataLoadError(f"{where}: bm25 query-id {query_id!r} has no qrels")
        samples.append(
            {
                "query": text_of(queries, "queries", query_id),
                "positive": [text_of(corpus, "corpus", corpus_id) for corpus_id in qrels[query_id]],
                "documents": [text_of(corpus, "corpus", corpus_id) for corpus_id in row["corpus-ids"][:rerank_k]],
            }
        )
    if not samples:
        raise DataLoadError(f"{where}: the bm25 table is empty")
    return human_readable, samples
