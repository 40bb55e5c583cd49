"""Atomic, resumable index builds: units processed in shards, each shard a checkpoint.

A build works in ``<index dir>/.<name>.partial/`` (resumed from its completed shards when run again with the same
settings), merges the shards into a staging folder with a sealed ``manifest.json`` (:mod:`.integrity`) and renames
it into place: readers see the old index or the new one, never a mix. See
docs/contamination.md#how-the-embedded-index-works.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from genbench._core.files import follow_umask, write_text_atomic
from genbench._core.progress import progress_iter
from genbench.contamination._allocator import reused_heap
from genbench.contamination._embedded.integrity import HashingWriter, check_files, file_records, is_sealed, seal
from genbench.contamination._embedded.leftovers import build_lock, sweep_index_dir
from genbench.contamination._embedded.npy_file import npy_header
from genbench.contamination._errors import ContaminationError, DamagedIndexError
from genbench.contamination._memory import give_back_free_memory
from genbench.contamination._training_data import LoadedDataset, UnitBatch, UnitSpec, iter_unit_batches

MANIFEST = "manifest.json"
FORMAT = "genbench-contamination-index"
FORMAT_VERSION = 3
"""2: the manifest lists its files' sizes and checksums, and is sealed; 3: XXH3-128 checksums instead of SHA-256,
and n-gram tables bound to the index files they were built from."""


class ShardBuilder(Protocol):
    """What a kind of index does with each shard of units."""

    def resume(self, shard_dir: Path) -> None:
        """Restore the state a completed shard left (e.g. the vocabulary it added)."""

    def process(self, batch: UnitBatch) -> dict[str, np.ndarray | str]:
        """Arrays (``name`` -> ``name.npy``) and texts (``name.txt``) to store for the shard."""

    def finalize(self, staging: Path) -> dict[str, Any]:
        """Complete the merged files in ``staging``; returns the manifest's ``counts``."""


def read_manifest(path: Path) -> dict[str, Any] | None:
    """The manifest of the index at ``path``; ``None`` when there is no intact one of this format version."""
    try:
        manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        return None
    return manifest if manifest.get("format_version") == FORMAT_VERSION and is_sealed(manifest) else None


def open_manifest(path: Path, rebuild_hint: str, *, verify: bool = False) -> dict[str, Any]:
    """The manifest of the index at ``path``, after checking the index's files against it.

    Args:
        path: The index folder.
        rebuild_hint: What to run to build the index again (ends every error message).
        verify: Check every file's checksum (otherwise sizes, and the checksums of small files only).

    Raises:
        DamagedIndexError: the manifest is missing, damaged or of another format version, or a file does not match it.
    """
    manifest = read_manifest(path)
    if manifest is None:
        try:
            found = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise DamagedIndexError(
                f"{path / MANIFEST} is missing: {path} is not a complete contamination index. {rebuild_hint}"
            ) from None
        except (OSError, ValueError, RecursionError):
            found = None
        if isinstance(found, dict) and found.get("format") == FORMAT and found.get("format_version") != FORMAT_VERSION:
            raise DamagedIndexError(
                f"{path} was built by another genbench (index format {found.get('format_version')}, this genbench "
                f"reads {FORMAT_VERSION}). {rebuild_hint}"
            )
        raise DamagedIndexError(
            f"{path / MANIFEST} is damaged (unreadable, or its content does not match its checksum). {rebuild_hint}"
        )
    check_files(path, manifest.get("files"), rebuild_hint, verify=verify)
    return manifest


def write_manifest(path: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """Seal ``manifest`` and write it atomically into the index folder ``path``; returns the sealed manifest."""
    sealed = seal({k: v for k, v in manifest.items() if k != "manifest_sha256"})
    write_text_atomic(path / MANIFEST, json.dumps(sealed, indent=2, ensure_ascii=False))
    return sealed


def _shard_name(number: int) -> str:
    return f"shard-{number:06d}"


def run_build(
    index_dir: Path,
    name: str,
    settings: dict[str, Any],
    manifest_fields: dict[str, Any],
    loaded: LoadedDataset,
    spec: UnitSpec,
    builder: ShardBuilder,
    *,
    shard_rows: int,
    rebuild: bool = False,
    progress: bool = False,
    check: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Build the index ``name`` (or return the manifest of an up-to-date one); returns its manifest.

    ``check`` sees the counts before the index is put in place; an error it raises discards the build. The build
    holds the index's lock and first removes what stopped builds left behind in the folder (see :mod:`.leftovers`).
    """
    with build_lock(index_dir, name), reused_heap():
        sweep_index_dir(index_dir, name)
        return _build_locked(
            index_dir,
            name,
            settings,
            manifest_fields,
            loaded,
            spec,
            builder,
            shard_rows=shard_rows,
            rebuild=rebuild,
            progress=progress,
            check=check,
        )


def _build_locked(
    index_dir: Path,
    name: str,
    settings: dict[str, Any],
    manifest_fields: dict[str, Any],
    loaded: LoadedDataset,
    spec: UnitSpec,
    builder: ShardBuilder,
    *,
    shard_rows: int,
    rebuild: bool,
    progress: bool,
    check: Callable[[dict[str, Any]], None] | None,
) -> dict[str, Any]:
    final = index_dir / name
    existing = read_manifest(final)
    if existing is not None and not rebuild:
        recorded = existing.get("build_settings", {}).get("units_from")
        if recorded != settings["units_from"]:
            raise ContaminationError(
                f"The index {final} holds units from {_describe_units(recorded)}; this build asks for units from "
                f"{_describe_units(settings['units_from'])}. Replace it by running the same command with --rebuild, "
                "or keep both by building this one into another folder (--index-dir)."
            )
    partial = index_dir / f".{name}.partial"
    if existing is not None and not rebuild and existing.get("build_settings") == settings:
        try:
            check_files(final, existing.get("files"), "")
        except DamagedIndexError:
            pass  # damaged: built again below
        else:
            # A stopped build's shards are of no more use: the index they were for is here (a rebuild, whose
            # shards these may be, never resumes: it starts over).
            shutil.rmtree(partial, ignore_errors=True)
            return existing
    state = partial / "build.json"
    if partial.exists():
        try:
            previous = json.loads(state.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            previous = None
        if previous != settings or rebuild:
            shutil.rmtree(partial)
    partial.mkdir(parents=True, exist_ok=True)
    if not state.exists():
        write_text_atomic(state, json.dumps(settings, indent=2, sort_keys=True))

    completed = 0
    while (partial / _shard_name(completed)).is_dir():
        builder.resume(partial / _shard_name(completed))
        completed += 1
    rows = loaded.num_rows
    shards_total = -(-rows // shard_rows)
    batches: Iterable[UnitBatch] = iter_unit_batches(loaded, spec, shard_rows=shard_rows, first_shard=completed)
    batches = progress_iter(
        batches, desc=f"Indexing {loaded.name}", unit="shard", total=shards_total, initial=completed, enabled=progress
    )
    for batch in _read_ahead(batches):
        _write_shard(partial, batch.shard, builder.process(batch))
    give_back_free_memory()

    staging = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=".staging", dir=index_dir))
    try:
        written = _merge_shards([partial / _shard_name(k) for k in range(shards_total)], staging)
        counts = builder.finalize(staging)
        if check is not None:
            try:
                check(counts)
            except BaseException:
                shutil.rmtree(partial, ignore_errors=True)
                raise
        files = sorted(p.relative_to(staging).as_posix() for p in staging.rglob("*") if p.is_file())
        manifest = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "backend": "embedded",
            "name": name,
            **manifest_fields,
            "source": loaded.source_info(),
            "units_from": spec.to_dict(),
            "counts": {"rows": rows, **counts},
            "build_settings": settings,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "files": file_records(staging, files, written),
        }
        manifest = seal(manifest)
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")
        _replace_dir(staging, final)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    shutil.rmtree(partial, ignore_errors=True)
    return manifest


def _read_ahead(batches: Iterable[UnitBatch]) -> Iterator[UnitBatch]:
    """The batches, the next one read (JSON parse, message texts) on a second thread while this one is processed.

    pyarrow's parse and numpy's work release the GIL, so reading and tokenising overlap on two cores; one batch
    ahead at most, so memory grows by one shard.
    """
    iterator = iter(batches)
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="genbench-index-read") as reader:
        pending = reader.submit(next, iterator, None)
        while (batch := pending.result()) is not None:
            pending = reader.submit(next, iterator, None)
            yield batch


def _describe_units(recorded: Any) -> str:
    spec = UnitSpec.from_dict(recorded)
    return spec.describe() if spec is not None else repr(recorded)


def _write_shard(partial: Path, number: int, contents: dict[str, np.ndarray | str]) -> None:
    """Write one shard into a temporary folder and rename it into place: a shard folder is always complete."""
    temporary = Path(tempfile.mkdtemp(prefix=f".{_shard_name(number)}.", dir=partial))
    try:
        for key, value in contents.items():
            if isinstance(value, str):
                (temporary / f"{key}.txt").write_text(value, encoding="utf-8")
            else:
                np.save(temporary / f"{key}.npy", value)
        os.replace(temporary, partial / _shard_name(number))
    except BaseException:
        shutil.rmtree(temporary, ignore_errors=True)
        raise


def _merge_shards(shards: list[Path], staging: Path) -> dict[str, dict[str, Any]]:
    """Concatenate each array (along rows) and each text over the shards, in shard order, into ``staging``; returns
    the merged files' records (size and checksum, taken while writing: see :mod:`.integrity`)."""
    names = sorted({p.name for shard in shards for p in shard.iterdir()})
    records: dict[str, dict[str, Any]] = {}
    for file_name in names:
        parts = [shard / file_name for shard in shards]
        if file_name.endswith(".txt"):
            with HashingWriter(staging / file_name) as out:
                for part in parts:
                    out.write(part.read_bytes())
                records[file_name] = out.close()
            continue
        # Plain writes, one shard's array at a time: the merged file's pages are never mapped into this process.
        headers = [npy_header(part) for part in parts]
        dtype, trailing = headers[0][0], headers[0][1][1:]
        rows = sum(shape[0] for _, shape, _ in headers)
        with HashingWriter(staging / file_name) as out:
            np.lib.format.write_array_header_1_0(
                out, {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": False, "shape": (rows, *trailing)}
            )
            for part, (part_dtype, shape, offset) in zip(parts, headers, strict=True):
                if part_dtype != dtype or shape[1:] != trailing:
                    raise ValueError(f"{part}: {part_dtype} {shape} does not match the other shards' {dtype}")
                with open(part, "rb") as source:
                    source.seek(offset)
                    shutil.copyfileobj(source, out, _COPY_BYTES)
            records[file_name] = out.close()
    return records


_COPY_BYTES = 4 << 20


def _replace_dir(staging: Path, final: Path) -> None:
    follow_umask(staging, directory=True)  # mkdtemp made it 0700
    if not final.exists():
        os.replace(staging, final)
        return
    old = final.with_name(f".{final.name}.old")
    if old.exists():
        shutil.rmtree(old)
    os.replace(final, old)
    os.replace(staging, final)
    shutil.rmtree(old, ignore_errors=True)
