"""Creating a new task directory from the packaged cookiecutter templates (``genbench-cli create-task``).

A task is rendered from ``templates/task``; a task with subtasks from ``templates/task_with_subtasks`` plus ``task``
once per subtask. Rendering happens in a hidden staging directory moved into place at the end, so a failure leaves
no half-created task behind. See docs/cli.md#create-task.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from genbench._core.errors import TaskDefinitionError
from genbench._core.taxonomy import AXES, check_value
from genbench._registry import roots
from genbench._registry.directories import discover_tasks

TEMPLATES_DIR = Path(__file__).resolve().parent / "templates"
TASK_TEMPLATE = "task"
TASK_DICT_TEMPLATE = "task_with_subtasks"
DEFAULT_AUTHOR = "Anonymous"

_VALID_ID = re.compile(r"^[a-z0-9][a-z0-9_]*$")
_NOT_ID_CHARS = re.compile(r"[^a-z0-9]+")


def task_id_from_name(name: str) -> str:
    """The default id of a task: its name transliterated to Latin letters (python-slugify, with text-unidecode), in
    lower case, every run of other characters replaced by ``_``; ``""`` when the name has no reliable Latin spelling
    (see :func:`why_no_id_from_name`).

    >>> task_id_from_name("My Awesome Task!")
    'my_awesome_task'
    >>> task_id_from_name("  CoLA -- length split (v2) ")
    'cola_length_split_v2'
    >>> task_id_from_name("Évaluation café"), task_id_from_name("Задача"), task_id_from_name("日本語タスク")
    ('evaluation_cafe', 'zadacha', '')
    """
    from slugify import slugify  # python-slugify (a dependency of cookiecutter): ~10 ms, only create-task needs it

    if _han_characters(name):
        return ""
    return _NOT_ID_CHARS.sub("_", slugify(name, separator="_", lowercase=True)).strip("_")


def _han_characters(name: str) -> str:
    """The Han ideographs (CJK) of ``name``: their Latin spelling depends on the language (Chinese, Japanese, ...)."""
    return "".join(char for char in name if unicodedata.name(char, "").startswith("CJK UNIFIED IDEOGRAPH"))


def why_no_id_from_name(name: str) -> str:
    """Why :func:`task_id_from_name` gives no id for ``name``, as advice that ends by asking for ``--task-id``.

    >>> print(why_no_id_from_name("日本語タスク")[:70])
    '日本語タスク' has Han characters (日本語), whose Latin spelling depends on the
    """
    han = _han_characters(name)
    if han:
        return (
            f"{name!r} has Han characters ({han}), whose Latin spelling depends on the language (Chinese pinyin, "
            "Japanese romaji, ...), so no id is made from it: give one with --task-id, e.g. --task-id nihongo_task."
        )
    return (
        f"{name!r} has no letters or digits with a Latin transliteration, so no id can be made from it: give one "
        "with --task-id, e.g. --task-id my_task."
    )


def task_id_problem(task_id: str) -> str | None:
    """Why ``task_id`` is not a valid task id, or None when it is.

    >>> task_id_problem("my_task") is None
    True
    >>> task_id_problem("My-Task")
    "use only lower-case letters, digits and '_' (e.g. 'my_task')"
    """
    if _VALID_ID.match(task_id):
        return None
    if task_id.startswith("_") and _VALID_ID.match(task_id.lstrip("_")):
        return "an id must not start with '_' (the registry ignores such directories)"
    return "use only lower-case letters, digits and '_' (e.g. 'my_task')"


def validate_task_id(task_id: str, *, what: str = "task id") -> str:
    """Return ``task_id`` if it is a valid id, else raise with the reason.

    Args:
        task_id: The id to check.
        what: How to call it in the message (``"task id"``, ``"subtask id"``).

    Raises:
        TaskDefinitionError: not lower-case letters, digits and ``_``, or starting with ``_``.

    >>> validate_task_id("addition_2")
    'addition_2'
    >>> validate_task_id("My-Task")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    genbench._core.errors.TaskDefinitionError: Invalid task id 'My-Task': use only lower-case letters, digits ...
    """
    problem = task_id_problem(task_id)
    if problem is not None:
        raise TaskDefinitionError(f"Invalid {what} {task_id!r}: {problem}.")
    return task_id


def class_name_from_id(task_id: str, suffix: str = "Task") -> str:
    """The class name of a task: its id in CamelCase plus ``suffix``, as in the task-authoring guide.

    >>> class_name_from_id("my_awesome_task")
    'MyAwesomeTaskTask'
    >>> class_name_from_id("2023_wic", suffix="TaskDict")
    'Task2023WicTaskDict'
    """
    camel = "".join(part.capitalize() for part in task_id.split("_") if part)
    if not camel[:1].isalpha():  # a Python identifier cannot start with a digit
        camel = "Task" + camel
    return camel + suffix


def parse_authors(text: str) -> list[str]:
    """Split a comma-separated list of authors, dropping blanks.

    >>> parse_authors(" Jane Doe, John Smith ,, ")
    ['Jane Doe', 'John Smith']
    """
    return [author.strip() for author in text.split(",") if author.strip()]


def default_tasks_dir(start: str | os.PathLike[str] | None = None) -> tuple[Path, str]:
    """Where a new task goes when no folder is given, and why: never into an installed package.

    1. Inside a genbench checkout (a folder above ``start`` holding ``pyproject.toml`` of the project ``genbench``
       and ``src/genbench/tasks/``): that checkout's ``src/genbench/tasks/``, where a submission's task belongs.
    2. Else the first folder of ``GENBENCH_TASKS_PATH``, where genbench finds tasks.
    3. Else ``start`` itself (the working directory).

    Args:
        start: The folder the author works in; default: the working directory.

    Returns:
        The task root and a few words saying why it was chosen.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as checkout:  # a genbench checkout, worked in from its docs/ folder
    ...     (Path(checkout) / "src" / "genbench" / "tasks").mkdir(parents=True)
    ...     _ = (Path(checkout) / "pyproject.toml").write_text('[project]\\nname = "genbench"\\n')
    ...     (Path(checkout) / "docs").mkdir()
    ...     root, why = default_tasks_dir(Path(checkout) / "docs")
    ...     root == Path(checkout).resolve() / "src" / "genbench" / "tasks", why.startswith("the genbench checkout")
    (True, True)
    """
    here = Path(start if start is not None else Path.cwd()).expanduser().resolve()
    for folder in (here, *here.parents):
        tasks = folder / "src" / "genbench" / "tasks"
        if tasks.is_dir() and _is_genbench_project(folder / "pyproject.toml"):
            return tasks, f"the genbench checkout at {folder}"
    configured = [path for path in os.environ.get(roots.TASKS_PATH_ENV, "").split(os.pathsep) if path.strip()]
    if configured:
        return Path(configured[0]).expanduser().resolve(), f"the first folder of {roots.TASKS_PATH_ENV}"
    return here, f"the current directory: not a genbench checkout, and {roots.TASKS_PATH_ENV} is not set"


def _is_genbench_project(pyproject: Path) -> bool:
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return re.search(r'^name\s*=\s*"genbench"\s*$', text, flags=re.MULTILINE) is not None


def create_task(
    name: str,
    *,
    task_id: str | None = None,
    subtask_ids: Sequence[str] = (),
    authors: Iterable[str] = (),
    tasks_dir: str | os.PathLike[str] | None = None,
    taxonomy: Mapping[str, str | Sequence[str]] | None = None,
) -> Path:
    """Create a task directory from the templates, ready for ``genbench-cli test-task``.

    The task works as created on a small example data set (sums of two numbers) that the author then replaces.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as root:  # an id no registry task has: an author may have my_awesome_task
    ...     path = create_task("Scaffold Doctest Example", authors=["Jane Doe"], tasks_dir=root)
    ...     print(path.name, sorted(p.name for p in path.iterdir()))
    scaffold_doctest_example ['__init__.py', 'config.jsonnet', 'data', 'doc.md', 'task.py']

    Args:
        name: The task's name, e.g. ``"My Awesome Task"``.
        task_id: The task's id; default: derived from the name (:func:`task_id_from_name`).
        subtask_ids: Ids of subtasks: the task becomes a TaskDict with one subtask directory each, in this order.
        authors: Author names; default ``["Anonymous"]`` (edit ``authors`` in ``config.jsonnet`` later).
        tasks_dir: The task root to create the task in; default: :func:`default_tasks_dir` (a genbench checkout's
            ``src/genbench/tasks/``, else ``GENBENCH_TASKS_PATH``'s first folder, else the working directory; never
            an installed package). Any directory works; it must be in ``GENBENCH_TASKS_PATH`` for ``load_task`` to
            find the task.
        taxonomy: Values of the GenBench taxonomy (``{"generalisation_type": "compositional", ...}``), written into
            the config's ``taxonomy`` block (of the task with subtasks, when there are subtasks); the axes left out
            are written as comments listing their values.

    Returns:
        The created task directory.

    Raises:
        TaskDefinitionError: an invalid name, id, subtask id or author; duplicate subtask ids; an id that the
            registry already has (in any root) or a directory that already exists.
    """
    name = _check_name(name)
    task_id = validate_task_id(task_id if task_id is not None else _id_from_name(name))
    subtask_ids = [validate_task_id(sid, what="subtask id") for sid in subtask_ids]
    duplicates = sorted({sid for sid in subtask_ids if subtask_ids.count(sid) > 1})
    if duplicates:
        raise TaskDefinitionError(
            f"Duplicate subtask id{'s' if len(duplicates) > 1 else ''}: {', '.join(duplicates)}."
        )
    author_list = _check_authors(authors)
    block = taxonomy_block(taxonomy or {})

    destination = check_new_task(task_id, tasks_dir)
    root = destination.parent
    created_root = not root.exists()
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".genbench-create-", dir=root))  # hidden: discovery skips it
    try:
        staged = _render_task(staging, name, task_id, subtask_ids, ", ".join(author_list), block)
        _check_configs(staged, subtask_ids)
        os.rename(staged, destination)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if created_root:
            shutil.rmtree(root, ignore_errors=True)
        raise
    shutil.rmtree(staging, ignore_errors=True)
    return destination


def check_new_task(task_id: str, tasks_dir: str | os.PathLike[str] | None = None) -> Path:
    """Check that a task ``task_id`` can be created in ``tasks_dir``, and return its future directory.

    Args:
        task_id: The new task's id.
        tasks_dir: The task root; default: :func:`default_tasks_dir`.

    Raises:
        TaskDefinitionError: the id is invalid, the registry already has it (in any root), the directory exists,
            or ``tasks_dir`` is a file.
    """
    validate_task_id(task_id)
    root = Path(tasks_dir).expanduser().resolve() if tasks_dir is not None else default_tasks_dir()[0]
    destination = root / task_id
    existing = discover_tasks().get(task_id)
    if existing is not None:
        raise TaskDefinitionError(f"Task {task_id!r} already exists at {existing}: choose another id.")
    if destination.exists() or destination.is_symlink():
        raise TaskDefinitionError(f"{destination} already exists: choose another id or remove it.")
    if root.exists() and not root.is_dir():
        raise TaskDefinitionError(f"Tasks directory {root} is not a directory.")
    return destination


def _check_name(name: str) -> str:
    stripped = name.strip()
    if not stripped:
        raise TaskDefinitionError("The task name is empty: give a name such as 'My Awesome Task'.")
    if any(ord(char) < 32 for char in stripped):
        raise TaskDefinitionError(f"The task name {name!r} contains a line break or control character.")
    return stripped


def _id_from_name(name: str) -> str:
    task_id = task_id_from_name(name)
    if not task_id:
        raise TaskDefinitionError(
            f"Cannot derive a task id from the name {name!r} (no letters or digits): give an id such as 'my_task'."
        )
    return task_id


def _check_authors(authors: Iterable[str]) -> list[str]:
    if isinstance(authors, str):
        authors = parse_authors(authors)
    cleaned = [author.strip() for author in authors if author.strip()]
    for author in cleaned:
        if "," in author or any(ord(char) < 32 for char in author):
            raise TaskDefinitionError(
                f"Invalid author {author!r}: give one name per author, without ',' or line breaks."
            )
    return cleaned or [DEFAULT_AUTHOR]


def taxonomy_block(taxonomy: Mapping[str, str | Sequence[str]]) -> str:
    """The ``taxonomy`` block of a new config: the given values, the other axes as comments listing their values.

    Raises:
        TaskDefinitionError: an unknown axis or value (with a did-you-mean).

    >>> print(taxonomy_block({"shift_locus": ["train-test"]}).splitlines()[-2])
        shift_locus: 'train-test',
    """
    unknown = [axis for axis in taxonomy if axis not in AXES]
    if unknown:
        raise TaskDefinitionError(f"Unknown taxonomy axis {unknown[0]!r}; the axes are {', '.join(AXES)}.")
    problems = [
        problem
        for axis, given in taxonomy.items()
        for value in ([given] if isinstance(given, str) else given)
        if (problem := check_value(axis, value)) is not None
    ]
    if problems:
        raise TaskDefinitionError(sentence_case(problems[0]) + ".")
    lines = [
        "  // Where the task sits on the GenBench generalisation taxonomy (docs/taxonomy.md, genbench.org/taxonomy):",
        "  // its evaluation card (`genbench-cli eval-card`) and the leaderboard's groupings. Choose a value per axis"
        + ("." if taxonomy else ","),
    ]
    if not taxonomy:
        lines.append("  // then uncomment the block.")
    body = []
    for axis in AXES.values():
        given = taxonomy.get(axis.name)
        if given:
            values = [given] if isinstance(given, str) else list(given)
            text = repr(values[0]) if len(values) == 1 else "[" + ", ".join(repr(v) for v in values) + "]"
            body.append(f"    {axis.name}: {text},")
        else:
            several = " (one, or a list)" if axis.several else ""
            body.append(f"    // {axis.name}{several}: " + " | ".join(repr(v) for v in axis.values))
    if taxonomy:
        return "\n".join([*lines, "  taxonomy: {", *body, "  },"])
    return "\n".join([*lines, "  // taxonomy: {", *["  //" + line[2:] for line in body], "  // },"])


def sentence_case(text: str) -> str:
    """``text`` with its first letter upper-case."""
    return text[:1].upper() + text[1:]


def _render_task(
    staging: Path, name: str, task_id: str, subtask_ids: Sequence[str], authors: str, block: str = ""
) -> Path:
    if not subtask_ids:
        values = {
            "task_name": name,
            "task_id": task_id,
            "task_full_id": task_id,
            "task_class_name": class_name_from_id(task_id),
            "authors": authors,
            "taxonomy_block": block,
        }
        return render_template(TASK_TEMPLATE, values, staging)
    parent = render_template(
        TASK_DICT_TEMPLATE,
        {
            "task_name": name,
            "task_id": task_id,
            "task_class_name": class_name_from_id(task_id, suffix="TaskDict"),
            "authors": authors,
            "subtask_ids": ", ".join(subtask_ids),
            "taxonomy_block": block,
        },
        staging,
    )
    for subtask_id in subtask_ids:
        values = {
            "task_name": f"{name}: {subtask_id}",
            "task_id": subtask_id,
            "task_full_id": f"{task_id}:{subtask_id}",
            "task_class_name": class_name_from_id(f"{task_id}_{subtask_id}"),
            "authors": authors,
            "taxonomy_block": taxonomy_block({}),
        }
        render_template(TASK_TEMPLATE, values, parent)
    return parent


def render_template(template: str, values: Mapping[str, str], output_dir: Path) -> Path:
    """Render one packaged cookiecutter template into ``output_dir``, with no prompt, hook or replay file.

    Values are used as given (they are not themselves rendered as Jinja), so a name may contain ``{{``.

    Args:
        template: The template's directory name under ``genbench/authoring/templates`` (``"task"``,
            ``"task_with_subtasks"``).
        values: A value for every variable of its ``cookiecutter.json``.
        output_dir: Where the rendered directory is created.

    Returns:
        The rendered directory.

    Raises:
        TaskDefinitionError: the template is missing (a broken installation) or ``values`` lacks a variable.
    """
    from cookiecutter.generate import generate_files

    template_dir = TEMPLATES_DIR / template
    spec_file = template_dir / "cookiecutter.json"
    if not spec_file.is_file():
        raise TaskDefinitionError(f"Task template {template_dir} is missing: reinstall genbench.")
    spec: dict[str, Any] = json.loads(spec_file.read_text(encoding="utf-8"))
    missing = [key for key in spec if not key.startswith("_") and key not in values]
    if missing:
        raise TaskDefinitionError(f"Template {template!r} needs a value for {', '.join(missing)}.")
    context = {"cookiecutter": {**{k: v for k, v in spec.items() if k.startswith("_")}, **values}}
    rendered = generate_files(
        repo_dir=str(template_dir), context=context, output_dir=str(output_dir), accept_hooks=False
    )
    return Path(rendered)


def _check_configs(task_dir: Path, subtask_ids: Sequence[str]) -> None:
    """Validate the rendered configs, so that a value the template cannot represent fails before the move."""
    from genbench.config._documents import load_task_config, load_task_dict_config

    if not subtask_ids:
        load_task_config(jsonnet_path=task_dir / "config.jsonnet")
        return
    load_task_dict_config(jsonnet_path=task_dir / "config.jsonnet")
    for subtask_id in subtask_ids:
        load_task_config(jsonnet_path=task_dir / subtask_id / "config.jsonnet")
