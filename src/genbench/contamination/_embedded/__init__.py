"""The embedded backend (the default): indexes are folders of files, searched in-process with no server.

``<index dir>/<dataset>.text/`` holds a text index (:mod:`.text_index`), ``<index dir>/<dataset>.vector-<model>/`` a
vector index (:mod:`.vector_index`); both are built atomically and resumably (:mod:`.store`).
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

from genbench._core.files import prepare_output_dir
from genbench.contamination._analysis import ANALYZER_VERSION
from genbench.contamination._embedded.leftovers import sweep_index_dir
from genbench.contamination._embedded.ngram_table import HASH_VERSION
from genbench.contamination._embedded.store import FORMAT_VERSION, MANIFEST, open_manifest, read_manifest, run_build
from genbench.contamination._embedded.text_index import TextIndex, TextShardBuilder
from genbench.contamination._embedded.vector_index import VectorIndex, VectorShardBuilder, load_model, resolve_model
from genbench.contamination._errors import ContaminationError, DamagedIndexError
from genbench.contamination._index_backend import INDEX_TYPES, Index, IndexBackend, default_index_dir
from genbench.contamination._source_check import check_same_source
from genbench.contamination._training_data import LoadedDataset, UnitSpec, index_name, is_local, no_units_error
from genbench.contamination._training_data import safe_file_name as _safe_name

SHARD_ROWS = 10_000
"""Rows per build shard: the unit of checkpointing (a stopped build redoes at most one shard), and of the build's
memory (one shard's rows, texts and token ids are in memory at a time)."""


class EmbeddedBackend(IndexBackend):
    """Indexes as files under ``index_dir`` (default :func:`~genbench.contamination._index_backend.default_index_dir`).

    Args:
        index_dir: Folder holding the indexes.
        shard_rows: Rows per build shard.
        verify: Check the checksum of every file of an index when it is opened (otherwise sizes, and the checksums
            of files up to :data:`~genbench.contamination._embedded.integrity.CHEAP_VERIFY_BYTES`).
    """

    name = "embedded"

    def __init__(
        self, index_dir: str | os.PathLike[str] | None = None, *, shard_rows: int = SHARD_ROWS, verify: bool = False
    ):
        self.index_dir = Path(index_dir).expanduser() if index_dir is not None else default_index_dir()
        if shard_rows < 1:
            raise ContaminationError(f"shard_rows must be at least 1, got {shard_rows}.")
        self.shard_rows = shard_rows
        self.verify = verify

    @staticmethod
    def index_name(dataset: str, index_type: str = "text", model: str | None = None) -> str:
        """The folder name of a dataset's index.

        >>> EmbeddedBackend.index_name("org/chat-data", "vector")
        'org__chat-data.vector-sentence-transformers__all-MiniLM-L6-v2'
        """
        if index_type not in INDEX_TYPES:
            raise ContaminationError(f"Unknown index type {index_type!r}: use one of {', '.join(INDEX_TYPES)}.")
        base = index_name(dataset)
        if index_type == "text":
            return f"{base}.text"

        return f"{base}.vector-{_safe_name(resolve_model(model)[0].replace('/', '__'))}"

    def build(
        self,
        dataset: LoadedDataset,
        spec: UnitSpec,
        *,
        index_type: str = "text",
        model: str | None = None,
        max_batch_tokens: int = 65_536,
        rebuild: bool = False,
        progress: bool = False,
    ) -> dict[str, Any]:
        name = self.index_name(dataset.name, index_type, model)
        prepare_output_dir(self.index_dir)
        settings: dict[str, Any] = {
            "format_version": FORMAT_VERSION,
            "index_type": index_type,
            "source_fingerprint": dataset.fingerprint,
            "split": dataset.split,
            "units_from": spec.to_dict(),
            "shard_rows": self.shard_rows,
        }
        builder: Any
        if index_type == "text":
            settings["analyzer_version"] = ANALYZER_VERSION
            fields: dict[str, Any] = {
                "index_type": "text",
                "analyzer_version": ANALYZER_VERSION,
                "hash_version": HASH_VERSION,
            }
            builder = TextShardBuilder()
        else:
            recorded, location = resolve_model(model)
            settings["model"] = recorded
            fields = {"index_type": "vector", "model": recorded}
            builder = VectorShardBuilder(load_model(location), max_batch_tokens=max_batch_tokens, progress=progress)

        def check(counts: dict[str, Any]) -> None:
            if counts["units"] == 0:
                raise no_units_error(dataset, spec)

        return run_build(
            self.index_dir,
            name,
            settings,
            fields,
            dataset,
            spec,
            builder,
            shard_rows=self.shard_rows,
            rebuild=rebuild,
            progress=progress,
            check=check,
        )

    def list_indexes(self) -> list[dict[str, Any]]:
        if not self.index_dir.is_dir():
            return []
        manifests = [read_manifest(path) for path in sorted(self.index_dir.iterdir()) if not path.name.startswith(".")]
        return [m for m in manifests if m is not None]

    def damaged_indexes(self) -> list[dict[str, str]]:
        """The index folders whose manifest is missing, damaged or of another format version, or whose files do not
        match it (sizes, and the checksums of small files; every checksum with ``verify``), with the reason and the
        command that rebuilds each. ``list_indexes`` leaves the first kind out: ``contamination list`` shows these."""
        if not self.index_dir.is_dir():
            return []
        damaged = []
        for path in sorted(self.index_dir.iterdir()):
            looks_like_index = path.suffix == ".text" or ".vector-" in path.name or (path / MANIFEST).exists()
            if path.name.startswith(".") or not looks_like_index or not is_local(path, "dir"):
                continue
            manifest = read_manifest(path)
            guessed = "vector" if ".vector-" in path.name else "text"
            index_type = str(manifest.get("index_type", guessed)) if manifest is not None else guessed
            hint = self.rebuild_hint(path, path.name, index_type, None)
            try:
                open_manifest(path, hint, verify=self.verify)
            except DamagedIndexError as exc:
                reason = str(exc).removesuffix(hint).strip()
                damaged.append({"name": path.name, "index_type": index_type, "reason": reason, "rebuild": hint})
        return damaged

    def open(self, dataset: str, *, index_type: str = "text", model: str | None = None, **options: Any) -> Index:
        """Open an index by dataset name (as indexed) or by its folder name.

        Raises:
            ContaminationError: there is no such index (the message lists the existing ones), it holds another
                dataset than the one named, or it is of another type or was built by an older analyzer.
            DamagedIndexError: a file of the index is missing or does not match the manifest (the message names
                the file and the command that rebuilds the index).
        """
        sweep_index_dir(self.index_dir)  # what killed builds left, of any index here (see .leftovers)
        path = self._find(dataset, index_type, model)
        hint = self.rebuild_hint(path, dataset, index_type, model)
        manifest = open_manifest(path, hint, verify=self.verify)
        if dataset != path.name:  # opened by dataset name: it must be the dataset this index holds
            check_same_source(manifest, path.name, dataset)
        if manifest.get("index_type") != index_type:
            raise ContaminationError(
                f"The index {path.name} is a {manifest.get('index_type')} index; this search needs a {index_type} "
                f"index (--index-type {manifest.get('index_type')})."
            )
        if index_type == "text":
            if manifest.get("analyzer_version") != ANALYZER_VERSION:
                raise ContaminationError(
                    f"The index {path.name} was built with analyzer version {manifest.get('analyzer_version')}, this "
                    f"genbench uses {ANALYZER_VERSION}: index {manifest['source']['name']!r} again."
                )

            return TextIndex(path, manifest, rebuild_hint=hint, verify=self.verify, **options)

        return VectorIndex(path, manifest, **options)

    def rebuild_hint(self, path: Path, dataset: str, index_type: str, model: str | None) -> str:
        """The sentence that says how to build the index at ``path`` again (from its manifest where intact)."""
        manifest = read_manifest(path)
        source, units = dataset, ""
        if manifest is not None:
            source = str(manifest.get("source", {}).get("name", dataset))
            spec = UnitSpec.from_dict(manifest.get("units_from"))
            units = spec.cli_options() if spec is not None else ""
            model = manifest.get("model", model)
        elif dataset == path.name:
            source = "<the training data it indexed>"
        command = f"genbench-cli contamination index --dataset {shlex.quote(source)}{units}"
        if index_type == "vector":
            command += " --index-type vector" + (f" --model {shlex.quote(model)}" if model else "")
        return f"Build it again with `{command} --index-dir {shlex.quote(str(self.index_dir))} --rebuild`."

    def _find(self, dataset: str, index_type: str, model: str | None) -> Path:
        direct = self.index_dir / dataset
        if (
            len(dataset) < 200
            and "/" not in dataset
            and not dataset.startswith(".")
            and is_local(direct, "dir")
            and ((direct / MANIFEST).exists() or direct.suffix == ".text" or ".vector-" in direct.name)
        ):
            return direct
        path = self.index_dir / self.index_name(dataset, index_type, model)
        if is_local(path, "dir"):
            return path
        if index_type == "vector" and model is None:
            prefix = self.index_name(dataset, "text")[: -len(".text")] + ".vector-"
            found = sorted(p for p in self.index_dir.glob(prefix + "*") if p.is_dir())
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                raise ContaminationError(
                    f"{dataset!r} has vector indexes for several models ({', '.join(p.name for p in found)}): "
                    "choose one with --model."
                )
        manifests = self.list_indexes()
        # Indexed under this name from another working directory (a relative path), or by its resolved path.
        local = Path(dataset).expanduser()
        resolved = str(local.resolve()) if is_local(local) else None
        same_source = [
            m
            for m in manifests
            if m.get("index_type") == index_type
            and (
                dataset in (m["source"].get("name"), m["source"].get("path"))
                or (resolved is not None and m["source"].get("path") == resolved)
            )
        ]
        if index_type == "vector" and model is not None:
            same_source = [m for m in same_source if m.get("model") == resolve_model(model)[0]]
        if len(same_source) == 1:
            return self.index_dir / same_source[0]["name"]
        existing = [f"{m['name']} ({m['source']['name']})" for m in manifests]
        listing = "; existing indexes: " + ", ".join(existing) if existing else "; there are no indexes yet"
        raise ContaminationError(
            f"No {index_type} index of {dataset!r} in {self.index_dir}{listing}. Build it with "
            f"`genbench-cli contamination index --dataset {dataset}"
            + (" --index-type vector" if index_type == "vector" else "")
            + (f" --model {model}" if model else "")
            + "`."
        )
