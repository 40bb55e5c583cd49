"""HTML cards of tasks for notebooks (``Task._repr_html_``) and the leaderboard's task pages.

A card shows what a task is (name, description, type, keywords, authors, metrics, preparation strategies) and,
when its data is loaded, its split sizes, a few examples and their 0-shot and k-shot prompts. It never loads data
on its own unless asked (``load_data=True``): showing a task in a notebook must not start a download. What a card
shows is gathered here; the markup is ``templates/card.html.j2``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from genbench._core.errors import GenBenchError
from genbench._core.vocabulary import PreparationStrategy
from genbench.display._eval_card import eval_card_html_section
from genbench.display._html import card_css, templates

if TYPE_CHECKING:
    from genbench.task import Task
    from genbench.task._task_dict import TaskDict

_DESCRIPTION_PREVIEW = 400


def task_card_html(
    task: Task,
    *,
    load_data: bool = False,
    examples: int = 3,
    shots: int = 3,
    random_seed: int = 42,
    standalone: bool = True,
    python_hints: bool = True,
) -> str:
    """An HTML card of a task.

    Args:
        task: The task.
        load_data: Load the data when it is not loaded yet (otherwise the card says the sizes are unknown).
        examples: How many test examples (and their prompts) to show when the data is available; 0 for none.
        shots: The k of the k-shot prompts shown next to the 0-shot ones.
        random_seed: Seed of the shown prompts' shot selection.
        standalone: Include the card's ``<style>`` (leave it out when the page has it already).
        python_hints: Say which Python call loads the data (in a notebook); False on a static page, whose reader has
            no Python at hand.

    >>> from genbench import load_task
    >>> html = task_card_html(load_task("arithmetic_length"))
    >>> "Arithmetic" in html and "not loaded" in html
    True
    """
    config = task.config
    datasets = _loaded_datasets(task, load_data)
    card: dict[str, Any] = {
        **_common(task),
        "task_type": config.task_type.value,
        "metrics": _metrics(config),
        "strategies": _strategies(config),
        "split_sizes": None if datasets is None else [(split, len(data)) for split, data in datasets.items()],
        "examples": _examples(datasets, examples) if datasets is not None and examples > 0 else None,
        "prompts": None,
        "subtasks": None,
    }
    if card["examples"] and config.preparation_strategies.prompt_based_testing is not None:
        card["prompts"] = _prompts(task, examples, shots, random_seed)
    return _render(card, standalone, python_hints)


def task_dict_card_html(
    task_dict: TaskDict, *, load_data: bool = False, standalone: bool = True, python_hints: bool = True
) -> str:
    """An HTML card of a task with subtasks: its own facts, then each subtask's card (folded).

    >>> from genbench import load_task
    >>> "affirmative" in task_dict_card_html(load_task("negation_consistency"))
    True
    """
    subtasks = [
        {
            "task_id": subtask_id,
            "name": subtask.name,
            "html": Markup(task_card_html(subtask, load_data=load_data, standalone=False, python_hints=python_hints)),
        }
        for subtask_id, subtask in task_dict.items()
    ]
    return _render(
        {**_common(task_dict), "subtasks": subtasks, "examples": None, "prompts": None}, standalone, python_hints
    )


def _render(card: dict[str, Any], standalone: bool, python_hints: bool) -> str:
    template = templates("genbench.display").get_template("card.html.j2")
    return template.render(
        card=card, standalone=standalone, css=card_css(), python_hints=python_hints, preview=_DESCRIPTION_PREVIEW
    )


def _common(task: Any) -> dict[str, Any]:
    """What every card shows: name, id, description, keywords, authors, the evaluation card."""
    return {
        "name": task.name,
        "task_id": task.task_id,
        "description": task.description.strip(),
        "keywords": list(task.keywords),
        "authors": list(task.authors),
        "eval_card": Markup(eval_card_html_section(task)),
    }


def _metrics(config: Any) -> list[dict[str, Any]]:
    entries = []
    for metric in config.evaluation_metrics or []:
        name = metric.hf_id if getattr(metric, "type", "hf") == "hf" else metric.type
        options = getattr(metric, "compute_extra_kwargs", None)
        entries.append(
            {
                "name": name if isinstance(name, str) else "/".join(name),
                "options": json.dumps(options, sort_keys=True) if options else None,
                "best": metric.best_score,
            }
        )
    return entries


def _strategies(config: Any) -> list[dict[str, Any]]:
    """The preparation strategies: finetuning's objective; prompt-based testing's prompt builder fields that differ
    from the defaults (their ``repr``, whitespace made visible by the template)."""
    strategies = config.preparation_strategies
    entries: list[dict[str, Any]] = []
    if strategies.finetuning is not None:
        entries.append({"objective": strategies.finetuning.objective, "options": None})
    if strategies.prompt_based_testing is not None:
        builder = strategies.prompt_based_testing.prompt_builder
        changed = builder.model_dump(exclude_defaults=True)
        entries.append({"options": [(key, repr(value)) for key, value in changed.items()]})
    return entries


def _loaded_datasets(task: Task, load_data: bool) -> Mapping[str, Any] | None:
    loaded = getattr(task, "_raw_datasets", None)
    if loaded is None and load_data:
        return task.get_datasets_raw()
    return loaded


def _examples(datasets: Mapping[str, Any], count: int) -> dict[str, Any] | None:
    split = "test" if "test" in datasets else next(iter(datasets), None)
    if split is None:
        return None
    rows = datasets[split].select(range(min(count, len(datasets[split]))))
    columns = [c for c in ("_genbench_idx", "input", "target", "target_options") if c in rows.column_names]
    body = [[_text(row[column]) for column in columns] for row in rows]
    return {"split": split, "columns": columns, "rows": body}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _prompts(task: Task, count: int, shots: int, random_seed: int) -> dict[str, Any]:
    shot_list = [0] if shots == 0 else [0, shots]
    try:
        prepared = task.get_prepared_datasets(
            PreparationStrategy.PROMPT_BASED_TESTING, shot_list=shot_list, random_seed=random_seed
        )
    except GenBenchError as exc:
        return {"error": str(exc)}
    first = prepared[shot_list[0]]
    rows = [
        (first[position]["_genbench_idx"], [prepared[k][position]["input"] for k in shot_list])
        for position in range(min(count, len(first)))
    ]
    return {"error": None, "seed": random_seed, "shot_list": shot_list, "rows": rows}
