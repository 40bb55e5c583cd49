"""Checks of a task's files, config, documentation and code, before (or without) loading its data.

>>> from genbench._registry.directories import get_task_dir
>>> check_required_files(get_task_dir("arithmetic_length"))
>>> check_config(get_task_dir("arithmetic_length"))
"""

from __future__ import annotations

import difflib
import inspect
import re
import traceback
import types
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from genbench._core.errors import ConfigError, GenbenchConfigWarning, GenBenchError, TaskDefinitionError
from genbench._registry.directories import get_task_dir, is_task_dict_dir, split_task_id, subtask_dirs, subtask_order
from genbench.review._base import TaskCheckFailure, TaskCheckSkipped, TaskCheckWarning, plural, relative, sentence

# The line the task template's doc.md carries until the author replaces the template text.
DOC_TEMPLATE_MARKER = "<!-- genbench: replace this template text -->"
# Fewer words than this in doc.md is no documentation.
DOC_MIN_WORDS = 30
# How close (difflib ratio) a method name must be to a Task method to be taken for a misspelt override.
MISSPELLING_CUTOFF = 0.8

TASK_FILES = {
    "config.jsonnet": "the task's configuration",
    "task.py": "the task's class (a `Task` subclass, even an empty one)",
    "doc.md": "the task's documentation",
    "__init__.py": "makes the directory a Python package, so task.py can be imported",
}
TASK_DICT_FILES = {
    "config.jsonnet": "the configuration of the task with subtasks",
    "doc.md": "the documentation of the task with subtasks",
    "__init__.py": "makes the directory a Python package (it may define a `TaskDict` subclass)",
}
_ID = re.compile(r"^[a-z0-9_]+$")
_WORD = re.compile(r"[^\W_]+")
_HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)


def looks_like_task_dict(task_dir: Path) -> bool:
    """Whether a directory is a task with subtasks: no ``task.py``, and subdirectories with a ``config.jsonnet``.

    (A directory with neither is taken for a task whose ``task.py`` is missing.)
    """
    return is_task_dict_dir(Path(task_dir), warn=False) and bool(subtask_dirs(Path(task_dir)))


def _is_task_dict(task_dir: Path, task_dict: bool | None) -> bool:
    return looks_like_task_dict(task_dir) if task_dict is None else task_dict


def check_required_files(task_dir: Path, *, task_dict: bool | None = None) -> None:
    """The task directory holds ``config.jsonnet``, ``task.py``, ``doc.md`` and ``__init__.py``.

    A task with subtasks (a TaskDict) holds ``config.jsonnet``, ``doc.md``, ``__init__.py`` and at least one
    subtask directory instead of ``task.py``.

    Args:
        task_dir: The task's directory.
        task_dict: Whether it is a TaskDict; default: a directory without ``task.py`` but with subtask
            directories is one.

    Raises:
        TaskCheckFailure: naming every missing file and what it is for.
    """
    task_dir = Path(task_dir)
    is_dict = _is_task_dict(task_dir, task_dict)
    required = TASK_DICT_FILES if is_dict else TASK_FILES
    missing = [name for name in required if not (task_dir / name).is_file()]
    problems = [f"  - {name}: {required[name]}" for name in missing]
    if is_dict and not subtask_dirs(task_dir):
        problems.append(
            "  - task.py: a task needs a task.py; a task with subtasks needs subtask directories instead "
            "(each with its own config.jsonnet, task.py, doc.md and __init__.py)"
        )
    if problems:
        raise TaskCheckFailure(
            f"{task_dir} lacks {plural(len(problems), 'required file')}:\n"
            + "\n".join(problems)
            + "\n`genbench-cli create-task` writes them all; add the missing ones to the task directory."
        )


def check_config(task_dir: Path, *, task_dict: bool | None = None) -> None:
    """``config.jsonnet`` passes the strict schema: every problem of the file is reported at once.

    Lenient at the door, strict at the gate: every :class:`~genbench._core.errors.GenbenchConfigWarning` that loading
    the task gives for its files (something the loader accepts, such as a legacy form, an unknown key or a stray
    ``task.py`` next to subtask directories, that a new submission should write differently) fails this check, with the
    warning's message (:func:`genbench.config.collect_config_warnings`; no task code is imported). A
    ``DeprecationWarning`` saying something "is deprecated" gives a :class:`TaskCheckWarning`.

    Raises:
        TaskCheckFailure: the config is invalid (syntax errors with line and column, unknown keys, wrong types,
            missing fields, inconsistent combinations), or loading it gave a ``GenbenchConfigWarning``.
        TaskCheckSkipped: there is no ``config.jsonnet`` (reported by ``required_files``).
    """
    from genbench.config._documents import collect_config_warnings

    path = Path(task_dir) / "config.jsonnet"
    if not path.is_file():
        raise TaskCheckSkipped("there is no config.jsonnet (see the required_files check)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            # Every warning loading the task gives for its files (the config's, a stray task.py's), computed here
            # without importing any of the task's code; each subtask's config is checked by its own config check.
            found = collect_config_warnings(path, task_dict=_is_task_dict(Path(task_dir), task_dict), subtasks=False)
        except ConfigError as error:
            # The file's warnings too (each would fail this check once the errors are fixed): one run, everything.
            also = "".join(f"\n  - {problem.render(error.file)}" for problem in error.warnings)
            if also:
                also = f"\nand {plural(len(error.warnings), 'warning')} that a submitted task may not have:{also}"
            raise TaskCheckFailure(
                f"config.jsonnet is invalid ({plural(len(error.problems), 'problem')}):\n{error}{also}\n"
                "Fix each problem listed above; docs/config.md describes every field and its expected form "
                "(`genbench-cli schema` prints the JSON Schema for editor completion)."
            ) from None
    strict = list(dict.fromkeys([str(warning) for warning in found] + config_warning_messages(caught)))
    if strict:
        raise TaskCheckFailure(
            f"config.jsonnet loads, but with {plural(len(strict), 'warning')} that a submitted task may not have:\n"
            + "\n".join(f"  - {message}" for message in strict)
            + "\nWrite each field as the warning says (docs/config.md describes every field)."
        )
    for warning in caught:
        if issubclass(warning.category, DeprecationWarning) and "is deprecated" in str(warning.message):
            warnings.warn(f"{warning.message} It still works, but update config.jsonnet.", TaskCheckWarning, 2)
        else:
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)


def config_warning_messages(caught: Sequence[warnings.WarningMessage]) -> list[str]:
    """The messages of the :class:`~genbench._core.errors.GenbenchConfigWarning` among recorded warnings, each once, in
    order (the gate fails on each of them).

    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("config.jsonnet:3: keywords: unknown key 'keyword'", GenbenchConfigWarning)
    ...     warnings.warn("something else", UserWarning)
    >>> config_warning_messages(caught)
    ["config.jsonnet:3: keywords: unknown key 'keyword'"]
    """
    messages = [str(w.message) for w in caught if issubclass(w.category, GenbenchConfigWarning)]
    return list(dict.fromkeys(messages))


def doc_problem(text: str) -> str | None:
    """What is wrong with a ``doc.md`` text, or None when it looks like real documentation.

    >>> doc_problem("# My task\\n" + DOC_TEMPLATE_MARKER + "\\nDescribe your task here.")
    'doc.md still contains the task template text (the line `<!-- genbench: replace this template text -->`)'
    >>> doc_problem("# My task")
    'doc.md has only 2 words'
    >>> doc_problem(" ".join(["word"] * 40)) is None
    True
    """
    if DOC_TEMPLATE_MARKER in text:
        return f"doc.md still contains the task template text (the line `{DOC_TEMPLATE_MARKER}`)"
    words = len(_WORD.findall(_HTML_COMMENT.sub(" ", text)))
    if words < DOC_MIN_WORDS:
        return f"doc.md has only {plural(words, 'word')}"
    return None


def check_doc(task_dir: Path, *, submission: bool = False) -> None:
    """``doc.md`` is real documentation: not the unchanged template, and at least 30 words.

    A freshly created task must pass ``genbench-cli test-task`` unchanged, so in a normal run this only warns; a
    submission (``--submission``, also used by the pull-request review) fails on it.

    Args:
        task_dir: The task's directory.
        submission: Fail instead of warning.

    Raises:
        TaskCheckFailure: with ``submission``, when doc.md is the template or nearly empty.
        TaskCheckSkipped: there is no doc.md (reported by ``required_files``).
    """
    path = Path(task_dir) / "doc.md"
    if not path.is_file():
        raise TaskCheckSkipped("there is no doc.md (see the required_files check)")
    problem = doc_problem(path.read_text(encoding="utf-8", errors="replace"))
    if problem is None:
        return
    message = (
        f"{problem}. Write what the task tests (its GenBench taxonomy values), where the data comes from, its "
        f"size, and baseline scores, in at least {DOC_MIN_WORDS} words"
        + (", and delete the template marker line." if "template" in problem else ".")
    )
    if submission:
        raise TaskCheckFailure(message + " A submitted task needs real documentation.")
    warnings.warn(
        f"{message} (A warning for now; `genbench-cli test-task --submission` and the pull-request review fail "
        "on it.)",
        TaskCheckWarning,
        2,
    )


def check_subtasks(task_dir: Path) -> None:
    """A task with subtasks has subtask directories that are tasks, listed exactly once in ``subtasks_order``.

    Raises:
        TaskCheckFailure: no subtasks, a subtask without ``task.py`` or with an invalid id, or a ``subtasks_order``
            that does not match the subtask directories.
    """
    from genbench.config._documents import load_task_dict_config

    task_dir = Path(task_dir)
    subtasks = subtask_dirs(task_dir)
    if not subtasks:
        raise TaskCheckFailure(
            f"{task_dir} has no subtask directories (folders with their own config.jsonnet): a task without "
            "task.py is a task with subtasks. Add task.py to make it a task, or add subtask directories."
        )
    problems = []
    for sub_dir in subtasks:
        if not _ID.match(sub_dir.name):
            problems.append(
                f"subtask directory {sub_dir.name!r} is not a valid id: use lower-case letters, digits and '_'"
            )
        if not (sub_dir / "task.py").is_file():
            problems.append(
                f"subtask directory {sub_dir.name!r} has no task.py: every subtask is a task of its own "
                "(config.jsonnet, task.py, doc.md, __init__.py); subtasks cannot have subtasks"
            )
    try:
        order = load_task_dict_config(jsonnet_path=task_dir / "config.jsonnet").subtasks_order
    except (ConfigError, OSError):
        order = None  # reported by the config check
    try:
        subtask_order(task_dir, order)
    except TaskDefinitionError as error:
        problems.append(
            f"{error} List every subtask directory exactly once in subtasks_order, or remove subtasks_order "
            "to order the subtasks alphabetically"
        )
    if problems:
        raise TaskCheckFailure("The subtasks are inconsistent:\n" + "\n".join(f"  - {p}" for p in problems))


def _where_in_task_code(error: BaseException, task_dir: Path) -> str:
    """`` (at task.py:12)``: the innermost traceback frame inside the task directory, if any."""
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if Path(frame.filename).resolve().is_relative_to(task_dir.resolve())
    ]
    if isinstance(error, SyntaxError) and error.filename and error.lineno:
        return f" (at {relative(Path(error.filename), task_dir)}:{error.lineno})"
    if not frames:
        return ""
    return f" (at {relative(Path(frames[-1].filename), task_dir)}:{frames[-1].lineno})"


def describe_error(error: BaseException, task_dir: Path | None = None) -> str:
    """An error as one readable text: genbench errors as they are, others with their type and, where the task's
    own code raised them, the file and line.

    >>> describe_error(KeyError("label"))
    "KeyError: 'label'"
    """
    if isinstance(error, GenBenchError):
        return str(error)
    where = _where_in_task_code(error, Path(task_dir)) if task_dir is not None else ""
    return f"{type(error).__name__}: {error}{where}"


def check_task_loads(task_id: str) -> Any:
    """``load_task(task_id)`` works: the config is valid, ``task.py`` imports and defines one ``Task`` subclass
    (a task with subtasks: every subtask loads and ``__init__.py`` defines at most one ``TaskDict`` subclass).

    Returns:
        The loaded :class:`~genbench.Task` or :class:`~genbench.TaskDict`.

    Raises:
        TaskCheckFailure: the task cannot be loaded; the message carries the loading error.
    """
    from genbench.task import Task
    from genbench.task._factory import load_task
    from genbench.task._task_dict import TaskDict

    root_id, subtask_id = split_task_id(task_id)
    task_dir = get_task_dir(root_id, subtask_id)
    expect_dict = subtask_id is None and looks_like_task_dict(task_dir)
    if not expect_dict and not (task_dir / "task.py").is_file():
        raise TaskCheckFailure(f"Task {task_id!r} cannot be loaded: it has no task.py (see the required_files check).")
    try:
        loaded = load_task(task_id)
    except ConfigError as error:
        file = relative(Path(error.file), task_dir.parent) if error.file else "config.jsonnet"
        raise TaskCheckFailure(
            f"Task {task_id!r} cannot be loaded because {file} is invalid (see the config checks)."
        ) from None
    except Exception as error:  # noqa: BLE001 - a task's own code may raise anything; report it
        hint = (
            "Fix the error in the task's code."
            if not isinstance(error, GenBenchError)
            else "Fix the task directory as the message says."
        )
        raise TaskCheckFailure(
            f"Task {task_id!r} cannot be loaded: {sentence(describe_error(error, task_dir))} {hint}"
        ) from None
    expected = TaskDict if expect_dict else Task
    if not isinstance(loaded, expected):
        raise TaskCheckFailure(
            f"load_task({task_id!r}) returned a {type(loaded).__name__}, expected a {expected.__name__}."
        )
    return loaded


def _overridable_methods() -> list[str]:
    from genbench.task import Task

    names = [
        name
        for name, value in vars(Task).items()
        if not name.startswith("_") and isinstance(value, (types.FunctionType, classmethod, staticmethod))
    ]
    # The original framework's hooks that tasks override.
    return names + ["_load_data_source", "_format_example_for_in_context_learning"]


def _definition_site(value: Any, task_dir: Path) -> str:
    function = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
    try:
        file = inspect.getsourcefile(function)
        line = inspect.getsourcelines(function)[1]
    except (OSError, TypeError):
        return ""
    return f"{relative(Path(file), task_dir)}:{line}: " if file else ""


def check_method_names(task: Any) -> None:
    """No method of the task class (or of its own base classes) is a misspelt override of a ``Task`` method.

    ``get_dataset_raw`` instead of ``get_datasets_raw`` or ``evaluate_prediction`` instead of
    ``evaluate_predictions`` is never called, so the author's code silently does not run. A method whose name is
    not a ``Task`` attribute but is close to an overridable ``Task`` method (difflib ratio >= 0.8) fails, unless it
    contains that method's name as whole words (``get_datasets_raw_split``) or differs from it in being private
    (``_format_example``).

    Raises:
        TaskCheckFailure: naming each such method, where it is defined, and the method it was probably meant to be.
    """
    from genbench.task import Task

    candidates = _overridable_methods()
    task_attributes = set(dir(Task))
    problems = []
    for klass in type(task).__mro__:
        if klass is Task or not issubclass(klass, Task):
            break
        for name, value in vars(klass).items():
            if name.startswith("__") or name in task_attributes:
                continue
            if not isinstance(value, (types.FunctionType, classmethod, staticmethod)):
                continue
            close = [
                candidate
                for candidate in difflib.get_close_matches(name, candidates, n=3, cutoff=MISSPELLING_CUTOFF)
                # `get_datasets_raw_split` extends a name and `_format_example` is a private helper: not misspellings.
                if f"_{candidate.strip('_')}_" not in f"_{name.strip('_')}_"
                and name.startswith("_") == candidate.startswith("_")
            ]
            if close:
                site = _definition_site(value, task.task_dir)
                problems.append(
                    f"{site}{klass.__name__}.{name} is not a Task method, so genbench never calls it: "
                    f"did you mean `{close[0]}`?"
                )
    if problems:
        raise TaskCheckFailure(
            "\n".join(problems) + "\nRename the method to override the Task method (or, for a helper, choose a name "
            "that is not so close to one)."
        )
