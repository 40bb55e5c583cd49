"""The registry metadata cache: listing records of tasks whose files did not change, without evaluating Jsonnet.

A record is reused while the task's :func:`fingerprint` (path, size and modification time of its config and code
files) and the genbench version are unchanged. The cache file is written atomically and validated field by field
before any of it is trusted: a file that is unreadable, of another format version or malformed is ignored and
rewritten. See docs/cli.md#list-tasks.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from genbench._core.files import write_text_atomic
from genbench._core.json_files import read_json_file
from genbench._core.version import VERSION
from genbench.data._cache import cache_dir

CACHE_FORMAT = "genbench-registry-cache"
CACHE_VERSION = 2  # 2: warnings as records {file, line, field, message, fix}, not strings
CACHE_ENV = "GENBENCH_REGISTRY_CACHE"
_DEPTH = 3
_CONFIG_SUFFIXES = (".jsonnet", ".libsonnet", ".json")
_CODE_FILES = ("task.py", "__init__.py")
_RECORD_TYPES: dict[str, tuple[type, ...]] = {
    "id": (str,),
    "name": (str,),
    "description": (str,),
    "type": (str, type(None)),
    "subtasks": (list,),
    "splits": (list, type(None)),
    "split_file": (str, type(None)),
    "keywords": (list,),
    "path": (str,),
    "error": (str, type(None)),
    "warnings": (list,),
}
_STRING_LISTS = ("subtasks", "splits", "keywords")
_WARNING_TYPES: dict[str, tuple[type, ...]] = {
    "file": (str, type(None)),
    "line": (int, type(None)),
    "field": (str, type(None)),
    "message": (str,),
    "fix": (str, type(None)),
}


def cache_file() -> Path:
    """Where the registry cache lives: ``<genbench cache>/registry/tasks.json``."""
    return cache_dir() / "registry" / "tasks.json"


def fingerprint(task_dir: Path) -> list[list[Any]]:
    """What a task's listing record depends on: ``[relative path, size, mtime_ns]`` per relevant entry.

    Subdirectories (``name/``) and symbolic links (``name@``) are listed by name, so a subtask appearing or
    disappearing changes the fingerprint; config-like and code files by size and modification time.
    """
    entries: list[list[Any]] = []

    def walk(directory: str, prefix: str, level: int) -> None:
        with os.scandir(directory) as scan:
            for entry in sorted(scan, key=lambda e: e.name):
                if entry.name.startswith(".") or entry.name == "__pycache__":
                    continue
                name = prefix + entry.name
                if entry.is_symlink():
                    entries.append([name + "@", 0, 0])
                    if not entry.name.endswith(_CONFIG_SUFFIXES):
                        continue
                if entry.is_dir(follow_symlinks=False):
                    entries.append([name + "/", 0, 0])
                    if level < _DEPTH:
                        walk(entry.path, name + "/", level + 1)
                elif entry.name.endswith(_CONFIG_SUFFIXES) or entry.name in _CODE_FILES:
                    try:
                        stat = entry.stat()
                    except OSError:  # a dangling link: its name is in the fingerprint, that is enough
                        continue
                    entries.append([name, stat.st_size, stat.st_mtime_ns])

    walk(str(task_dir), "", 1)
    return entries


def _valid_record(record: Any) -> bool:
    if not isinstance(record, dict) or set(record) != set(_RECORD_TYPES):
        return False
    if not all(isinstance(record[key], types) for key, types in _RECORD_TYPES.items()):
        return False
    if not all(all(isinstance(item, str) for item in record[key] or []) for key in _STRING_LISTS):
        return False
    return all(_valid_warning(warning) for warning in record["warnings"])


def _valid_warning(warning: Any) -> bool:
    return (
        isinstance(warning, dict)
        and set(warning) == set(_WARNING_TYPES)
        and all(isinstance(warning[key], types) for key, types in _WARNING_TYPES.items())
        and not isinstance(warning["line"], bool)
    )


def _valid_entry(entry: Any) -> bool:
    if not isinstance(entry, dict) or set(entry) != {"fingerprint", "record"}:
        return False
    fp = entry["fingerprint"]
    if not isinstance(fp, list) or not all(
        isinstance(item, list)
        and len(item) == 3
        and isinstance(item[0], str)
        and all(isinstance(n, int) and not isinstance(n, bool) for n in item[1:])
        for item in fp
    ):
        return False
    return _valid_record(entry["record"])


class RegistryCache:
    """Listing records by task directory, each valid while its fingerprint is unchanged."""

    def __init__(self, path: Path, entries: dict[str, dict[str, Any]] | None = None, *, enabled: bool = True):
        self.path = path
        self.entries: dict[str, dict[str, Any]] = entries or {}
        self.enabled = enabled
        self._dirty = False

    @classmethod
    def load(cls) -> RegistryCache:
        """The cache from disk; empty when absent, disabled, unreadable or invalid (it is then rewritten)."""
        path = cache_file()
        if os.environ.get(CACHE_ENV, "").strip().lower() in ("0", "off", "false", "no"):
            return cls(path, enabled=False)
        try:  # strict: a damaged file (cut short, NaN, nested 100,000 deep, a FIFO) is rebuilt, never trusted
            document = read_json_file(path, what="task metadata cache")
        except (OSError, ValueError):
            return cls(path)

        if (
            not isinstance(document, dict)
            or document.get("format") != CACHE_FORMAT
            or document.get("version") != CACHE_VERSION
            or document.get("genbench") != VERSION
            or not isinstance(document.get("entries"), dict)
        ):
            return cls(path)
        entries = {key: entry for key, entry in document["entries"].items() if _valid_entry(entry)}
        return cls(path, entries)

    def get(self, task_dir: Path, task_fingerprint: list[list[Any]]) -> dict[str, Any] | None:
        """The cached record of ``task_dir`` if its fingerprint is ``task_fingerprint`` (a copy), else None."""
        entry = self.entries.get(str(task_dir))
        if not self.enabled or entry is None or entry["fingerprint"] != task_fingerprint:
            return None
        record = json.loads(json.dumps(entry["record"]))  # callers may change what they get
        return {key: record[key] for key in _RECORD_TYPES} if record["path"] == str(task_dir) else None

    def put(self, task_dir: Path, task_fingerprint: list[list[Any]], record: dict[str, Any]) -> None:
        """Remember a freshly built record."""
        if self.enabled and _valid_record(record):
            self.entries[str(task_dir)] = {"fingerprint": task_fingerprint, "record": record}
            self._dirty = True

    def save(self) -> None:
        """Write the cache atomically if anything changed, dropping entries of directories that are gone.

        A cache that cannot be written (read-only home, full disk) is not an error: the listing is still right.
        """
        if not (self.enabled and self._dirty):
            return

        entries = {key: entry for key, entry in self.entries.items() if Path(key).is_dir()}
        document = {"format": CACHE_FORMAT, "version": CACHE_VERSION, "genbench": VERSION, "entries": entries}
        try:
            write_text_atomic(self.path, json.dumps(document, sort_keys=True))
        except OSError:
            return
        self._dirty = False
