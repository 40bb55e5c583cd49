"""infini-gram (PyPI ``infini-gram``) as a shift engine: suffix-array indexes, local or prebuilt.

:func:`build_infinigram_index` builds one from JSONL files (``bytes``: infini-gram's own indexer; ``words``, ``hf``:
genbench writes ``u16`` token files for infini-gram's indexer), :func:`register_infinigram_index` records a prebuilt
one and :class:`InfiniGramCorpus` opens a verified index. Documents are separated by a token of all ones (``0xff``
for bytes, never part of UTF-8), so no count crosses a document. See docs/shift.md.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from genbench.contamination._errors import ContaminationError
from genbench.contamination._testsets import as_text
from genbench.contamination.shift._engine import UNKNOWN, CorpusEngine, CorpusIdentity, UnsupportedStatisticError
from genbench.contamination.shift._manifest import read_manifest, write_manifest
from genbench.contamination.shift._tokenizers import HF_TOKENIZER_FILE, HfTokenizer, SplitText, tokenizer_named

ENGINE = "infini-gram"
VOCABULARY = "vocabulary.json"
_DTYPES = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32}
_TOKENIZER_DTYPE = {"bytes": "u8", "words": "u16", "hf": "u16"}
# 16-bit ids, the largest kept for the document separator (as infini-gram's prebuilt Llama-2 indexes). infini-gram
# 2.6's suffix-array builder fails on 32-bit token files here, so a larger vocabulary is refused rather than built.
_MAX_ID = (1 << 16) - 2


def _require_package() -> None:
    import importlib.util

    if importlib.util.find_spec("infini_gram") is None:
        raise ContaminationError(
            "The infini-gram engine needs the package infini-gram: pip install 'genbench[shift]'."
        )


def _sources(corpus: Sequence[str | os.PathLike[str]]) -> list[Path]:
    paths: list[Path] = []
    for entry in corpus:
        path = Path(entry)
        found = sorted(path.rglob("*.json*")) if path.is_dir() else [path]
        if not path.exists() or not found:
            raise ContaminationError(f"Corpus {path}: no such file, or a folder with no .jsonl files in it.")
        paths.extend(found)
    for path in paths:
        if not path.name.endswith((".jsonl", ".jsonl.gz", ".json.gz", ".jsonl.zst", ".json.zst")):
            raise ContaminationError(f"Corpus file {path}: expected JSONL (.jsonl, .jsonl.gz or .jsonl.zst).")
    return paths


def _texts(paths: Iterable[Path], text_field: str) -> Iterator[str]:
    for path in paths:
        with _open_text(path) as handle:
            for number, line in enumerate(handle, start=1):
                try:
                    record = json.loads(line)
                    value = record[text_field]
                except (ValueError, KeyError, TypeError):
                    raise ContaminationError(
                        f"{path}, line {number}: expected a JSON object with the field {text_field!r} "
                        "(choose the field with --text-field)."
                    ) from None
                except RecursionError:
                    raise ContaminationError(
                        f"{path}, line {number}: values nested too deeply to read (Python's JSON parser gave up)."
                    ) from None
                yield as_text(value)


def _open_text(path: Path) -> Any:
    if path.name.endswith(".gz"):
        import gzip

        return gzip.open(path, "rt", encoding="utf-8")
    if path.name.endswith(".zst"):
        raise ContaminationError(f"{path}: a .zst corpus is read by the bytes indexer only with --text-field text.")
    return open(path, encoding="utf-8")


def _stage_texts(paths: list[Path], data_dir: Path, text_field: str) -> None:
    """The JSONL files as infini-gram's indexer reads them: a folder of files with a ``text`` field."""
    if text_field == "text":
        for path in paths:  # the indexer's own error on a line without "text" is a KeyError deep in a worker
            if not path.name.endswith(".zst"):
                next(iter(_texts([path], text_field)), None)
        for number, path in enumerate(paths):  # the indexer reads one folder: link the files into it
            (data_dir / f"{number:06d}-{path.name}").symlink_to(path.resolve())
        return
    with open(data_dir / "corpus.jsonl", "w", encoding="utf-8") as output:
        for text in _texts(paths, text_field):
            output.write(json.dumps({"text": text}, ensure_ascii=False) + "\n")


def _write_token_files(paths: list[Path], staging: Path, shards: int, text_field: str, tokenizer: str) -> None:
    """Token files as infini-gram's indexer writes them (separator + 16-bit ids per document), with unigram counts:
    genbench's words (numbered as they come, listed in ``vocabulary.json``) or an ``hf`` tokenizer's ids."""
    vocabulary: dict[str, int] = {}
    cutter = tokenizer_named(tokenizer, staging)
    separator = np.array([_MAX_ID + 1], dtype=np.uint16)
    outputs = [open(staging / f"tokenized.{s}", "wb") for s in range(shards)]  # noqa: SIM115 (closed below)
    offsets: list[list[int]] = [[] for _ in range(shards)]
    positions = [0] * shards
    unigrams = np.zeros((shards, _MAX_ID + 2), dtype=np.int64)
    try:
        for number, text in enumerate(_texts(paths, text_field)):
            shard = number % shards
            units = cutter.split(text).units
            if tokenizer == "words":
                units = [vocabulary.setdefault(str(word), len(vocabulary)) for word in units]
            ids = np.asarray(units, dtype=np.int64)
            if len(ids) and int(ids.max()) > _MAX_ID:
                raise ContaminationError(
                    f"The corpus has token ids above {_MAX_ID} (more than {_MAX_ID + 1} distinct words, or a "
                    "tokenizer with a larger vocabulary): an index holds 16-bit ids. Build a 'bytes' index instead."
                )
            content = np.concatenate([separator, ids.astype(np.uint16)]).tobytes()
            outputs[shard].write(content)
            offsets[shard].append(positions[shard])
            positions[shard] += len(content)
            np.add.at(unigrams[shard], ids, 1)
    finally:
        for output in outputs:
            output.close()
    for shard in range(shards):
        (staging / f"offset.{shard}").write_bytes(np.array(offsets[shard], dtype=np.uint64).tobytes())
        lines = [f"{i} {c}\n" for i in np.flatnonzero(unigrams[shard]).tolist() if (c := int(unigrams[shard, i]))]
        (staging / f"unigram.{shard}").write_text("".join(lines), encoding="utf-8")
    if tokenizer == "words":
        (staging / VOCABULARY).write_text(json.dumps(list(vocabulary), ensure_ascii=False), encoding="utf-8")


def _run_indexer(data_dir: Path, staging: Path, token_dtype: str, shards: int, cpus: int, memory_gib: int) -> None:
    # A subprocess: the indexer changes its working directory and may exit() on failure.
    command = [
        sys.executable, "-m", "infini_gram.indexing",
        "--data_dir", str(data_dir.resolve()), "--save_dir", str(staging.resolve()),
        "--token_dtype", token_dtype, "--shards", str(shards), "--cpus", str(cpus), "--mem", str(memory_gib),
        "--add_unigram", "--ulimit", str(resource.getrlimit(resource.RLIMIT_NOFILE)[1]),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0 or "Something went wrong" in done.stdout:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise ContaminationError("infini-gram's indexer failed:\n" + "\n".join(tail))


def build_infinigram_index(
    corpus: Sequence[str | os.PathLike[str]],
    index_dir: str | os.PathLike[str],
    *,
    name: str,
    tokenizer: str = "bytes",
    tokenizer_file: str | os.PathLike[str] | None = None,
    text_field: str = "text",
    shards: int = 1,
    cpus: int = 1,
    memory_gib: int = 1,
) -> Path:
    """Build an infini-gram index of the JSONL files ``corpus`` (files or folders) in ``index_dir``.

    Each line is a document: its ``text_field`` (a list is joined with spaces).

    The index is built in a temporary folder beside ``index_dir`` and moved there when its manifest is written.

    Raises:
        ContaminationError: ``index_dir`` exists, a corpus file is not JSONL with a ``text`` field, the tokenizer
            is unknown, or the indexer fails.
    """
    _require_package()
    if tokenizer not in _TOKENIZER_DTYPE:
        raise ContaminationError(f"Unknown tokenizer {tokenizer!r}: use one of {', '.join(_TOKENIZER_DTYPE)}.")
    if (tokenizer == "hf") != (tokenizer_file is not None):
        raise ContaminationError("--tokenizer-file is given with --tokenizer hf, and only then.")
    if shards < 1 or cpus < 1 or memory_gib < 1:
        raise ContaminationError("--shards, --cpus and --memory-gib must be at least 1.")
    target = Path(index_dir)
    if target.exists():
        raise ContaminationError(f"{target} exists; remove it or choose another --index-dir.")
    paths = _sources(corpus)
    # infini-gram's indexer fails deep inside on a corpus without text (a log of zero, a remainder by zero);
    # `any` stops at the first non-empty text, so a real corpus is read one line here. (.zst: read by the indexer only)
    if not any(path.name.endswith(".zst") for path in paths) and not any(_texts(paths, text_field)):
        raise ContaminationError(
            f"Nothing to index in {', '.join(map(str, paths))}: it holds no document with text in its "
            f"{text_field!r} field."
        )
    target.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        staging, data_dir = work / "index", work / "data"
        staging.mkdir()
        data_dir.mkdir()
        if tokenizer == "bytes":
            _stage_texts(paths, data_dir, text_field)
        else:
            if tokenizer == "hf":
                _copy_tokenizer(tokenizer_file, staging)
            _write_token_files(paths, staging, shards, text_field, tokenizer)
        _run_indexer(data_dir, staging, _TOKENIZER_DTYPE[tokenizer], shards, cpus, memory_gib)
        engine = _open_engine(staging, _TOKENIZER_DTYPE[tokenizer], _vocabulary_size(staging))
        documents = engine.get_total_doc_cnt()
        tokens = engine.count([])["count"] - documents
        del engine
        write_manifest(
            staging,
            {"engine": ENGINE, "name": name, "tokenizer": tokenizer, "token_dtype": _TOKENIZER_DTYPE[tokenizer],
             "tokens": tokens, "documents": documents},
        )  # fmt: skip
        staging.rename(target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return target


def register_infinigram_index(
    index_dir: str | os.PathLike[str],
    *,
    name: str,
    tokenizer: str,
    token_dtype: str = "u8",
    tokenizer_file: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Record an index built elsewhere (e.g. downloaded) so that every later use verifies it; return its manifest.

    Raises:
        ContaminationError: the folder holds no infini-gram index, or the tokenizer or token type is unknown.
    """
    _require_package()
    folder = Path(index_dir)
    if (tokenizer == "hf") != (tokenizer_file is not None):
        raise ContaminationError("--tokenizer-file is given with --tokenizer hf, and only then.")
    if tokenizer_file is not None:
        _copy_tokenizer(tokenizer_file, folder)
    tokenizer_named(tokenizer, folder)
    if token_dtype not in _DTYPES:
        raise ContaminationError(f"--token-dtype must be one of {', '.join(_DTYPES)}, got {token_dtype!r}.")
    if not list(folder.glob("table.*")):
        raise ContaminationError(f"{folder} holds no infini-gram index (no table.* files).")
    engine = _open_engine(folder, token_dtype, _vocabulary_size(folder))
    documents = engine.get_total_doc_cnt()
    tokens = engine.count([])["count"] - documents
    del engine
    return write_manifest(
        folder,
        {"engine": ENGINE, "name": name, "tokenizer": tokenizer, "token_dtype": token_dtype, "tokens": tokens,
         "documents": documents},
    )  # fmt: skip


def _copy_tokenizer(tokenizer_file: str | os.PathLike[str] | None, folder: Path) -> None:
    """Keep the tokenizer in the index (its manifest then checks it with the rest)."""
    source = Path(str(tokenizer_file))
    if not source.is_file():
        raise ContaminationError(f"--tokenizer-file {source}: no such file (a Hugging Face tokenizer.json).")
    HfTokenizer(source)  # readable, or an error naming the file
    if source.resolve() != (folder / HF_TOKENIZER_FILE).resolve():
        shutil.copyfile(source, folder / HF_TOKENIZER_FILE)


def _vocabulary_size(folder: Path) -> int | None:
    path = folder / VOCABULARY
    return len(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else None


def _fits_in_memory(folder: Path) -> bool:
    """Whether the index takes at most half of this machine's memory (then the page cache holds it once read)."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        return False
    return sum(p.stat().st_size for p in folder.iterdir() if p.is_file()) <= memory // 2


def _open_engine(folder: Path, token_dtype: str, vocabulary_size: int | None) -> Any:
    from infini_gram.engine import InfiniGramEngine

    top = int(np.iinfo(_DTYPES[token_dtype]).max)
    # The engine wants eos_token_id < vocab_size <= the dtype's largest value; counts use neither.
    size = min(top, (vocabulary_size or top - 1) + 1)
    # infini-gram prefetches the pages a binary search will touch (madvise calls), which pays off for an index on
    # disk but triples the cost of a count on one the page cache holds (73 vs 233 us per count, a small index here).
    depth = 0 if _fits_in_memory(folder) else None
    return InfiniGramEngine(
        index_dir=str(folder),
        eos_token_id=size - 1,
        vocab_size=size,
        token_dtype=token_dtype,
        version=4,
        ds_prefetch_depth=1 if depth is None else depth,  # infini-gram's defaults otherwise
        sa_prefetch_depth=3 if depth is None else depth,
        od_prefetch_depth=3 if depth is None else depth,
    )


class InfiniGramCorpus(CorpusEngine):
    """A verified infini-gram index folder."""

    engine_name = ENGINE
    primitives = frozenset({"count", "contains", "unigram_counts", "total_tokens"})

    def __init__(self, folder: str | os.PathLike[str], *, verify: bool = False):
        _require_package()
        self.folder = Path(folder)
        manifest = read_manifest(self.folder, verify=verify)
        if manifest.get("engine") != ENGINE:
            raise ContaminationError(f"{self.folder} is a {manifest.get('engine')} index, not an infini-gram one.")
        identity = CorpusIdentity(
            name=manifest["name"],
            tokens=manifest["tokens"],
            documents=manifest["documents"],
            tokenizer=manifest["tokenizer"],
            engine=ENGINE,
            index_sha256=manifest["manifest_sha256"],
        )
        super().__init__(identity, tokenizer_named(manifest["tokenizer"], self.folder))
        self.token_dtype = manifest["token_dtype"]
        self._separator = int(np.iinfo(_DTYPES[self.token_dtype]).max)
        words = self.folder / VOCABULARY
        self._vocabulary: dict[str, int] | None = (
            {word: i for i, word in enumerate(json.loads(words.read_text(encoding="utf-8")))}
            if words.is_file()
            else None
        )
        self._engine = _open_engine(self.folder, self.token_dtype, _vocabulary_size(self.folder))
        self._unigrams: dict[int, int] | None = None

    def token_ids(self, split: SplitText) -> list[int]:
        if self._vocabulary is not None:
            return [self._vocabulary.get(str(unit), UNKNOWN) for unit in split.units]
        return [int(unit) for unit in split.units]

    def count(self, ids: Sequence[int]) -> int:
        if not ids or UNKNOWN in ids:
            return 0
        # The C++ engine itself: the wrapper's per-call check of every id costs as much as the count (ids come from
        # the index's own tokenizer here, within its token type).
        return int(self._engine.engine.count(input_ids=list(ids)).count)

    def unigram_counts(self) -> Mapping[int, int]:
        if self._unigrams is None:
            counts: dict[int, int] = {}
            for path in sorted(self.folder.glob("unigram.*")):
                for line in path.read_text(encoding="utf-8").splitlines():
                    token, count = (int(part) for part in line.split())
                    if token != self._separator:
                        counts[token] = counts.get(token, 0) + count
            if not counts and self.token_dtype in ("u8", "u16"):  # a prebuilt index without unigram files
                for token in range(self._separator):
                    found = self.count([token])
                    if found:
                        counts[token] = found
            if not counts and self.token_dtype == "u32":
                raise UnsupportedStatisticError(
                    f"{ENGINE} (an index of u32 tokens without unigram files)", "unigram_counts"
                )
            self._unigrams = counts
        return self._unigrams

    def total_tokens(self) -> int:
        return self.identity.tokens

    def close(self) -> None:
        self._engine = None
