"""HTML cards of tasks for notebooks (``Task._repr_html_``) and the leaderboard's task pages.

A card shows what a task is (name, description, type, keywords, authors, metrics, preparation strategies) and,
when its data is loaded, its split sizes, a few examples and their 0-shot and k-shot prompts. It never loads data
on its own unless asked (``load_data=True``): showing a task in a notebook must not start a download.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from genbench.core.errors import GenBenchError
from genbench.core.vocabulary import PreparationStrategy
from genbench.display.eval_card import eval_card_html_section
from genbench.display.html import card_css, escape, table, visible_whitespace

if TYPE_CHECKING:
    from genbench.task import Task
    from genbench.task.task_dict import TaskDict

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
    parts = [
        _header(task.name, task.task_id),
        _description(task.description),
        _facts(
            [
                ("Type", escape(config.task_type.value)),
                ("Keywords", _keywords(task.keywords)),
                ("Authors", escape(", ".join(task.authors)) or "—"),
                ("Metrics", _metrics(config)),
                ("Preparation", _strategies(config)),
                ("Splits", _split_sizes(datasets, python_hints)),
            ]
        ),
        eval_card_html_section(task),
    ]
    if datasets is not None and examples > 0:
        parts.append(_examples(datasets, examples))
        if config.preparation_strategies.prompt_based_testing is not None:
            parts.append(_prompts(task, examples, shots, random_seed))
    return _wrap("".join(parts), standalone)


def task_dict_card_html(
    task_dict: TaskDict, *, load_data: bool = False, standalone: bool = True, python_hints: bool = True
) -> str:
    """An HTML card of a task with subtasks: its own facts, then each subtask's card (folded).

    >>> from genbench import load_task
    >>> "affirmative" in task_dict_card_html(load_task("negation_consistency"))
    True
    """
    subtask_cards = "".join(
        f"<details><summary>{escape(subtask_id)}: {escape(subtask.name)}</summary>"
        f"{task_card_html(subtask, load_data=load_data, standalone=False, python_hints=python_hints)}</details>"
        for subtask_id, subtask in task_dict.items()
    )
    parts = [
        _header(task_dict.name, task_dict.task_id),
        _description(task_dict.description),
        _facts(
            [
                ("Keywords", _keywords(task_dict.keywords)),
                ("Authors", escape(", ".join(task_dict.authors)) or "—"),
                ("Subtasks", escape(", ".join(task_dict)) or "—"),
            ]
        ),
        eval_card_html_section(task_dict),
        f"<h4>Subtasks</h4>{subtask_cards}",
    ]
    return _wrap("".join(parts), standalone)


def _wrap(body: str, standalone: bool) -> str:
    style = f"<style>{card_css()}</style>" if standalone else ""
    return f'{style}<div class="gb-card">{body}</div>'


def _header(name: str, task_id: str) -> str:
    return f'<h3>{escape(name)} <span class="gb-id">{escape(task_id)}</span></h3>'


def _description(description: str) -> str:
    text = description.strip()
    if len(text) <= _DESCRIPTION_PREVIEW:
        return f"<div>{escape(text)}</div>"
    return (
        f"<details><summary>{escape(text[:_DESCRIPTION_PREVIEW].rstrip())} …</summary>"
        f'<div style="white-space:pre-wrap">{escape(text)}</div></details>'
    )


def _facts(rows: list[tuple[str, str]]) -> str:
    return table(None, [(f"<b>{escape(label)}</b>", value) for label, value in rows])


def _keywords(keywords: list[str]) -> str:
    return "".join(f'<span class="gb-kw">{escape(keyword)}</span>' for keyword in keywords) or "—"


def _metrics(config: Any) -> str:
    entries = []
    for metric in config.evaluation_metrics or []:
        name = metric.hf_id if getattr(metric, "type", "hf") == "hf" else metric.type
        label = escape(name if isinstance(name, str) else "/".join(name))
        options = getattr(metric, "compute_extra_kwargs", None)
        if options:
            label += f" <code>{escape(json.dumps(options, sort_keys=True))}</code>"
        if metric.best_score is not None:
            label += f" (best {escape(metric.best_score)})"
        entries.append(label)
    return "<br>".join(entries) or '<span class="gb-note">none (the task scores predictions itself)</span>'


def _strategies(config: Any) -> str:
    strategies = config.preparation_strategies
    entries = []
    if strategies.finetuning is not None:
        entries.append(f"finetuning ({escape(strategies.finetuning.objective)})")
    if strategies.prompt_based_testing is not None:
        builder = strategies.prompt_based_testing.prompt_builder
        changed = builder.model_dump(exclude_defaults=True)
        options = ", ".join(
            f"{escape(key)}=<code>{visible_whitespace(repr(value))}</code>" for key, value in changed.items()
        )
        entries.append("prompt-based testing" + (f": {options}" if options else " (default prompt builder)"))
    return "<br>".join(entries)


def _loaded_datasets(task: Task, load_data: bool) -> Mapping[str, Any] | None:
    loaded = getattr(task, "_raw_datasets", None)
    if loaded is None and load_data:
        return task.get_datasets_raw()
    return loaded


def _split_sizes(datasets: Mapping[str, Any] | None, python_hints: bool = True) -> str:
    if datasets is None and not python_hints:
        return '<span class="gb-note">not loaded to draw this card</span>'
    if datasets is None:
        return (
            '<span class="gb-note">not loaded (sizes unknown until the data is loaded: '
            "<code>task.get_datasets_raw()</code>, or <code>task_card_html(task, load_data=True)</code>)</span>"
        )
    return ", ".join(f"{escape(split)}: {len(dataset):,}" for split, dataset in datasets.items())


def _examples(datasets: Mapping[str, Any], count: int) -> str:
    split = "test" if "test" in datasets else next(iter(datasets), None)
    if split is None:
        return ""
    rows = datasets[split].select(range(min(count, len(datasets[split]))))
    columns = [c for c in ("_genbench_idx", "input", "target", "target_options") if c in rows.column_names]
    body = [[_cell(row[column]) for column in columns] for row in rows]
    return f"<h4>Examples ({escape(split)}, first {len(body)})</h4>" + table(columns, body)


def _cell(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return f"<pre>{visible_whitespace(text)}</pre>"


def _prompts(task: Task, count: int, shots: int, random_seed: int) -> str:
    shot_list = [0] if shots == 0 else [0, shots]
    try:
        prepared = task.get_prepared_datasets(
            PreparationStrategy.PROMPT_BASED_TESTING, shot_list=shot_list, random_seed=random_seed
        )
    except GenBenchError as exc:
        return f'<h4>Prompts</h4><div class="gb-note">Prompts could not be built: {escape(exc)}</div>'
    header = ["_genbench_idx"] + [f"{k}-shot prompt" for k in shot_list]
    first = prepared[shot_list[0]]
    rows = []
    for position in range(min(count, len(first))):
        rows.append(
            [escape(first[position]["_genbench_idx"])]
            + [f"<pre>{visible_whitespace(prepared[k][position]['input'])}</pre>" for k in shot_list]
        )
    return f"<h4>Prompts (seed {escape(random_seed)}; ↵ newline, · trailing space)</h4>" + table(header, rows)
