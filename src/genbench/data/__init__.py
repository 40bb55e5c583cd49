"""Data sources: JSONL files by URI with a download cache, Hugging Face datasets, and split files.

Importing this package loads no heavy library; ``datasets`` and ``pyarrow`` are imported when data is read. See
docs/data.md.
"""

from genbench.data._cache import cache_dir, cached_path, fetch, file_sha256
from genbench.data._jsonl import read_jsonl
from genbench.data._sources import load_data_source, order_splits
from genbench.data._splits import load_split_file, normalise_split_name, parse_split_spec, resplit

__all__ = [
    "cache_dir",
    "cached_path",
    "fetch",
    "file_sha256",
    "load_data_source",
    "load_split_file",
    "normalise_split_name",
    "order_splits",
    "parse_split_spec",
    "read_jsonl",
    "resplit",
]
