"""Local data files (plain paths, ``file://`` URIs): read in place, never copied, and a relative path confined to the
task directory, so that a submitted task cannot read files elsewhere on the machine by ``../`` tricks."""

from __future__ import annotations

from pathlib import Path

from genbench._core.errors import DataLoadError, DataNotFoundError
from genbench.data._confinement import check_confined


def resolve_local_path(raw: str, base_dir: Path, uri: str, field: str | None) -> Path:
    """The existing file that ``raw`` (the path of ``uri``) names, a relative path resolved against ``base_dir``.

    Args:
        raw: The path: ``uri`` itself, or the path of a ``file://`` URI.
        base_dir: The task directory.
        uri: The URI as the config gives it, for messages.
        field: The config field it comes from (``data_source.test``), for messages.

    Raises:
        DataLoadError: A relative path leaves ``base_dir`` (symbolic links followed), any path does while data paths
            are confined (:func:`~genbench.data._confinement.confined_data_paths`; nothing is opened then), or the
            path cannot be used or is not a file.
        DataNotFoundError: No file is there (the message names the fix).
    """
    check_confined(raw, uri=uri, field=field)
    candidate = Path(raw)
    where = f"{field}: " if field else ""
    if candidate.is_absolute():
        path = candidate
    else:
        root = base_dir.resolve()
        # resolve() follows symlinks too, so a link inside the task directory cannot point outside it.
        path = (root / candidate).resolve()
        if not path.is_relative_to(root):
            raise DataLoadError(
                f"{where}data path {uri!r} leaves the task directory {root} (it resolves to {path}); relative "
                "paths must stay inside the task directory. Use an absolute path or a file:// URI for data stored "
                "elsewhere."
            )
    try:
        exists = path.exists()
    except OSError as exc:  # e.g. a name longer than the file system allows
        shown = uri if len(uri) <= 200 else uri[:200] + "..."
        raise DataLoadError(f"{where}data path {shown!r} cannot be used: {exc.strerror or exc}.") from None
    if not exists:
        origin = f" (from {uri!r})" if str(path) != uri else ""
        fix = (
            f"relative paths resolve against the task directory {base_dir.resolve()}"
            if not candidate.is_absolute()
            else "the path is absolute"
        )
        raise DataNotFoundError(
            f"{where}{'d' if field else 'D'}ata file not found: {path}{origin}. Create the file, or correct "
            f"{field or 'the data path'} in config.jsonnet ({fix}).",
            filename=str(path),
        )
    if not path.is_file():
        raise DataLoadError(f"{where}data path {path} is not a file.")
    return path
