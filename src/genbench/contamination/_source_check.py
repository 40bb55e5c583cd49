"""Whether an index answers for the training data asked about: the same dataset, unchanged since it was indexed.

:func:`check_same_source` checks that an index opened by dataset name holds that dataset; :func:`check_unchanged`
that the dataset is still what was indexed (a local file by one ``stat`` when its size and times match, else by its
checksum; a dataset folder or cached Hub dataset by its ``datasets`` fingerprint). Data that is gone only warns.
See docs/contamination.md#damaged-indexes.
"""

from __future__ import annotations

import shlex
import warnings
from pathlib import Path
from typing import Any

from genbench.contamination._checksums import DIGEST, file_digest, file_state
from genbench.contamination._errors import ContaminationError, ContaminationWarning
from genbench.contamination._training_data import UnitSpec, is_local, load_training_dataset
from genbench.data._checksums import file_sha256


def check_same_source(manifest: dict[str, Any], index: str, dataset: str) -> None:
    """Raise unless the index ``index`` holds ``dataset``: for a local file or folder the same resolved path, else
    the same name.

    Raises:
        ContaminationError: the index holds another dataset (its name collides with this one's, or it was copied).
    """
    source = manifest.get("source") or {}
    local = Path(dataset).expanduser()
    if source.get("path") is not None and is_local(local):
        same = str(local.resolve()) == source.get("path")
    else:
        same = dataset == source.get("name")
    if not same:
        path = source.get("path")
        where = f" (at {path})" if path and path != source.get("name") else ""
        raise ContaminationError(
            f"The index {index} holds {source.get('name')!r}{where}, not {dataset!r}: it does not answer for "
            f"another dataset. Delete it, or index {dataset!r} with --rebuild to replace it."
        )


def check_unchanged(manifest: dict[str, Any], index_dir: str | None = None, *, verify: bool = False) -> None:
    """Raise when the training data an index was built from has changed since (see the module's docstring).

    Args:
        manifest: The index's manifest.
        index_dir: Where the index lives (for the command that builds it again).
        verify: Checksum a training file even when its size and times are those recorded.

    Raises:
        ContaminationError: its content differs from what was indexed (the message says how to index it again).
    """
    source = manifest.get("source") or {}
    name, path, kind = str(source.get("name")), source.get("path"), source.get("kind")
    again = _index_again(manifest, index_dir)
    if kind in ("jsonl", "parquet") and path is not None:
        file = Path(path)
        recorded, digest = source.get(DIGEST), file_digest
        if recorded is None:  # recorded by an index format without the checksum: the fingerprint
            recorded, digest = source.get("fingerprint"), file_sha256
        try:
            if not verify and source.get("file_state") == file_state(file.stat()):
                return  # same size, same times: the same content (the change time cannot be set back)
            changed = digest(file) != recorded
        except OSError as exc:
            _cannot_check(manifest, f"{file} cannot be read ({exc.strerror or exc})")
            return
        if changed:
            raise ContaminationError(
                f"The training dataset {name!r} ({file}) changed since it was indexed into {manifest.get('name')} "
                f"(its content is not what was indexed): the index does not answer for it. {again}"
            )
        return
    try:
        loaded = load_training_dataset(path or name, str(source.get("split", "train")), _spec(manifest))
    except ContaminationError as exc:
        _cannot_check(manifest, str(exc))
        return
    if loaded.fingerprint != source.get("fingerprint"):
        raise ContaminationError(
            f"The training dataset {name!r} changed since it was indexed into {manifest.get('name')} (fingerprint "
            f"{loaded.fingerprint} instead of {source.get('fingerprint')}): the index does not answer for it. {again}"
        )


def _spec(manifest: dict[str, Any]) -> UnitSpec | None:
    return UnitSpec.from_dict(manifest.get("units_from"))


def _index_again(manifest: dict[str, Any], index_dir: str | None) -> str:
    source = manifest.get("source") or {}
    spec = _spec(manifest)
    options = spec.cli_options() if spec is not None else ""
    if manifest.get("index_type") == "vector":
        options += " --index_type vector"
        if manifest.get("model"):
            options += f" --model {shlex.quote(str(manifest['model']))}"
    if manifest.get("backend", "embedded") != "embedded":
        options += f" --backend {shlex.quote(str(manifest.get('backend')))}"
    elif index_dir is not None:
        options += f" --index_dir {shlex.quote(index_dir)}"
    dataset = shlex.quote(str(source.get("path") or source.get("name")))
    return f"Index it again with `genbench-cli contamination index --dataset {dataset}{options} --rebuild`."


def _cannot_check(manifest: dict[str, Any], why: str) -> None:
    warnings.warn(
        f"Cannot check that the index {manifest.get('name')} is up to date with its training data: {why}. Its "
        "answers are those of the data as it was indexed.",
        ContaminationWarning,
        stacklevel=3,
    )
