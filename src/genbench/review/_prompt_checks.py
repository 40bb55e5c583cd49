"""The prompt lint as a check of the validation suite (``test-task``): a warning per finding, with ``file:line``.

The lint itself is :mod:`genbench.prompting._prompt_lint`; this check reads the config (no task code) and reports what
the lint finds, the field to change, and the prompt rendered from a sample example with its whitespace visible.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from genbench._core.errors import GenBenchError
from genbench.review._base import TaskCheckSkipped, TaskCheckWarning


def prompt_lint_messages(config: object, source: str | None = None, file: str = "config.jsonnet") -> list[str]:
    """The lint's findings for a task config, one line each: ``file:line: field: problem (... prompt ...)``."""
    # Both load heavy packages (genbench.config runs pydantic, genbench.prompting numpy): `review` imports neither.
    from genbench.config._locate import locate
    from genbench.prompting._prompt_lint import lint_prompt_builder

    strategies = getattr(config, "preparation_strategies", None)
    if strategies is None or strategies.prompt_based_testing is None:
        return []
    messages = []
    for finding in lint_prompt_builder(strategies.prompt_based_testing.prompt_builder, config.task_type):  # type: ignore[attr-defined]
        line = locate(source, finding.path)
        messages.append(f"{file}{f':{line}' if line else ''}: {finding.message()}")
    return messages


def check_prompt_lint(task_dir: Path) -> None:
    """The prompt builder's text joins into readable prompts: no glued words, no doubled separators, a choices
    prefix that does not repeat the item prefix, no empty prompt part (:mod:`genbench.prompting._prompt_lint`).

    Warns:
        TaskCheckWarning: one per finding, naming the field to change and showing the rendered prompt.

    Raises:
        TaskCheckSkipped: the config cannot be loaded (reported by the config check), or the task has no
            prompt-based testing.

    >>> from genbench._registry.directories import get_task_dir
    >>> check_prompt_lint(get_task_dir("arithmetic_length"))
    """
    from genbench.config._documents import load_task_config

    path = Path(task_dir) / "config.jsonnet"
    try:
        source = path.read_text(encoding="utf-8")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the config check reports them
            config = load_task_config(jsonnet_path=path)
    except (GenBenchError, OSError, ValueError):
        raise TaskCheckSkipped("config.jsonnet cannot be loaded (see the config check)") from None
    if config.preparation_strategies.prompt_based_testing is None:
        raise TaskCheckSkipped("the task has no prompt-based testing")
    for message in prompt_lint_messages(config, source):
        warnings.warn(TaskCheckWarning(message), stacklevel=2)
