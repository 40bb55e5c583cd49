"""What a submitted task can and cannot influence when it is checked, and the checks that keep its files inside its
directory (:func:`check_task_files`, :func:`code_shapes_data`).

The trust model (checker trusted, task as data; which checks run in the parent, which in a sandboxed child) is told in
docs/review.md#what-a-pull-request-can-and-cannot-influence and docs/review.md#the-sandbox.
"""

from __future__ import annotations

import ast
import os
import stat
from pathlib import Path

from genbench.review._base import TaskCheckFailure, plural

# Task methods whose override changes the data a task produces: with any of them, the data checks need task code.
DATA_HOOKS = frozenset({"_load_data_source", "get_datasets_raw", "format_example", "_format_split"})
# At most this many offending paths are listed in a message (the total is always given).
MAX_LISTED = 10


def _describe(path: Path, mode: int, task_dir: Path) -> str | None:
    name = path.relative_to(task_dir).as_posix()
    if stat.S_ISLNK(mode):
        return f"{name} is a symbolic link (to {os.readlink(path)!r})"
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return f"{name} is not a regular file or directory"
    if path.name == ".gitattributes":
        return (
            f"{name} sets git attributes, with which git can leave files out of an export or rewrite them on "
            "checkout, so that users could get other files than those reviewed"
        )
    return None


def unsafe_entries(task_dir: Path) -> list[str]:
    """Every entry of a task directory that is not a plain file or directory inside it, described.

    The directory itself must be a plain directory (not a symbolic link); nothing below it is followed.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     (Path(tmp) / "task").mkdir()
    ...     (Path(tmp) / "task" / "data.jsonl").symlink_to("/etc/passwd")
    ...     unsafe_entries(Path(tmp) / "task")
    ["data.jsonl is a symbolic link (to '/etc/passwd')"]
    """
    task_dir = Path(task_dir)
    mode = os.lstat(task_dir).st_mode
    if stat.S_ISLNK(mode):
        return [f"the task directory {task_dir.name} is a symbolic link (to {os.readlink(task_dir)!r})"]
    if not stat.S_ISDIR(mode):
        return [f"the task {task_dir.name} is not a directory"]
    problems = []
    for parent, dirs, files in os.walk(task_dir, followlinks=False):
        for name in sorted(dirs) + sorted(files):
            path = Path(parent) / name
            problem = _describe(path, os.lstat(path).st_mode, task_dir)
            if problem is not None:
                problems.append(problem)
    return problems


def check_task_files(task_dir: Path) -> None:
    """The task is a plain directory holding only plain files and directories: no symbolic link (to a file, a
    directory, or for the task directory itself), no device, socket or pipe, and no ``.gitattributes``.

    A symbolic link can make the review test one thing while the registry loads another, or make a task read files
    outside its directory, so none is accepted, wherever it points. The other checks are not run on a task that
    fails this one.

    Raises:
        TaskCheckFailure: naming every offending entry.
    """
    problems = unsafe_entries(Path(task_dir))
    if problems:
        listed = "\n".join(f"  - {problem}" for problem in problems[:MAX_LISTED])
        more = f"\n  ... and {len(problems) - MAX_LISTED} more" if len(problems) > MAX_LISTED else ""
        raise TaskCheckFailure(
            f"{Path(task_dir).name} has {plural(len(problems), 'entry')} that a task may not have:\n{listed}{more}\n"
            "A task is a plain directory of plain files: replace each link by the file itself (copy the data into "
            "the task directory), and remove anything else. The other checks did not run."
        )


def code_shapes_data(task_dir: Path) -> str | None:
    """Why a task's Python code may change the data it produces (so its data checks need its code), or None.

    Read statically, without running anything: every ``.py`` file of the task's directory (for a subtask, of its
    parent task too, whose modules it may import) is parsed, and any mention of a data method
    (:data:`DATA_HOOKS`: a definition, an attribute, a name or a string), a star import, or a file that does not
    parse, means the code may shape the data.

    >>> from genbench._registry.directories import get_task_dir
    >>> code_shapes_data(get_task_dir("arithmetic_length")) is None
    True
    >>> code_shapes_data(get_task_dir("passage_reranking_shift"))
    'task.py mentions format_example'
    """
    task_dir = Path(task_dir)
    roots = [task_dir]
    if not (task_dir.parent / "task.py").is_file() and (task_dir.parent / "config.jsonnet").is_file():
        roots.append(task_dir.parent)  # a subtask: its parent's modules are importable by it
    for root in roots:
        files = sorted(root.rglob("*.py")) if root == task_dir else sorted(root.glob("*.py"))
        for path in files:
            name = path.relative_to(task_dir.parent if root != task_dir else task_dir).as_posix()
            reason = _mentions_data_hook(path)
            if reason is not None:
                return f"{name} {reason}"
    return None


def _mentions_data_hook(path: Path) -> str | None:
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError, OSError):
        return "cannot be parsed"
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [node.name]
        elif isinstance(node, ast.Attribute):
            names = [node.attr]
        elif isinstance(node, ast.Name):
            names = [node.id]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names = [node.value]
        elif isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            return "has a star import"
        for name in names:
            if name in DATA_HOOKS:
                return f"mentions {name}"
    return None
