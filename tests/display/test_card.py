"""Task cards in notebooks: ``Task._repr_html_`` and ``TaskDict._repr_html_``, through the feature seam."""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser
from pathlib import Path

import pytest

from genbench import Task, TaskConfig, load_task
from genbench.display import progress_bars, task_card_html


class _Collector(HTMLParser):
    """Text and tags of an HTML fragment: a card must parse, and escaped text must come back as text."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(fragment: str) -> _Collector:
    collector = _Collector()
    collector.feed(fragment)
    return collector


def tricky_task(tmp_path: Path) -> Task:
    """A task whose data and description hold HTML and whitespace that must be shown, not interpreted."""
    rows = [{"input": f"<script>alert({i})</script>  x", "target": f"<b>{i}</b>"} for i in range(5)]
    for split in ("train", "test"):
        (tmp_path / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    config = {
        "name": "Tricky <Task>",
        "description": "Has <i>markup</i> & ampersands.",
        "keywords": ["html", "escaping"],
        "authors": ["A. Author"],
        "data_source": {"type": "manual", "train": "train.jsonl", "test": "test.jsonl"},
        "has_train_set": True,
        "task_type": "free_form",
        "evaluation_metrics": [{"hf_id": "exact_match", "best_score": 1.0}],
        "preparation_strategies": {
            "prompt_based_testing": {"prompt_builder": {"instruction_zero_shot": "Copy it:\n"}},
        },
    }
    (tmp_path / "config.jsonnet").write_text(json.dumps(config))
    return Task(TaskConfig.from_jsonnet(jsonnet_path=tmp_path / "config.jsonnet"), "tricky_task", task_dir=tmp_path)


def test_card_without_data_says_sizes_are_unknown_and_loads_nothing(tmp_path):
    task = tricky_task(tmp_path)
    html = task._repr_html_()
    assert task._raw_datasets is None  # showing a task never loads its data
    text = "".join(parse(html).text)
    assert "Tricky <Task>" in text and "tricky_task" in text
    assert "Has <i>markup</i> & ampersands." in text
    assert "free_form" in text and "html" in text and "A. Author" in text
    assert "exact_match" in text and "(best 1" in text
    assert "instruction_zero_shot" in text and "prompt-based testing" in text
    assert "not loaded" in text
    assert "<i>" not in html.replace("&lt;i&gt;", "")  # nothing of the task's text is live markup
    assert repr(task) == "Task(task_id='tricky_task', task_type='free_form')"


def test_card_with_data_shows_sizes_examples_and_prompts_escaped(tmp_path):
    task = tricky_task(tmp_path)
    task.get_datasets_raw()
    html = task_card_html(task, examples=2, shots=2)
    parsed = parse(html)
    text = "".join(parsed.text)
    assert "train: 5" in text and "test: 5" in text
    assert "script" not in parsed.tags
    assert "<script>alert(0)</script>" in text and "<b>1</b>" in text
    assert "0-shot prompt" in text and "2-shot prompt" in text
    assert "Copy it:↵" in text  # newlines are visible
    assert "··x" not in text and "  x" in text  # inner spaces stay spaces; ...
    assert "A:·" in text  # ... trailing ones are marked
    prompts = task.get_prepared_datasets("prompt_based_testing", shot_list=[2])[2]
    shown_two_shot = prompts[0]["input"].replace("\n", "↵\n").replace("A: ↵", "A:·↵")
    assert shown_two_shot.rstrip().removesuffix("A: ") in text


def test_card_load_data_true_loads(tmp_path):
    task = tricky_task(tmp_path)
    assert "test: 5" in "".join(parse(task_card_html(task, load_data=True, examples=0)).text)
    assert task._raw_datasets is not None


def test_task_dict_card_lists_subtasks_without_loading():
    task_dict = load_task("negation_consistency")
    html = task_dict._repr_html_()
    text = "".join(parse(html).text)
    assert task_dict.name in text
    for subtask_id, subtask in task_dict.items():
        assert subtask_id in text and subtask.name in text
        assert subtask._raw_datasets is None
    assert repr(task_dict).endswith("TaskDict(task_id='negation_consistency', subtasks=['affirmative', 'negated'])")


@pytest.mark.parametrize("enabled", [True, False])
def test_progress_bars_switch_and_restore(enabled):
    from datasets.utils import logging as datasets_logging

    before = datasets_logging.is_progress_bar_enabled()
    with progress_bars(enabled):
        assert datasets_logging.is_progress_bar_enabled() is enabled
    assert datasets_logging.is_progress_bar_enabled() is before


def test_libraries_imported_inside_a_silenced_block_draw_bars_again_after_it():
    """`with progress_bars(False): task.get_datasets_raw()` (the task viewer's pattern) imports datasets inside the
    block, while the block's environment variables are set: datasets and huggingface_hub keep what they read, and
    refused ever to draw a bar again in that process ("environment variable ... has priority")."""
    import subprocess
    import sys

    script = """
import warnings
warnings.simplefilter("error")  # the libraries warn when a switch is refused
from genbench.display import progress_bars
with progress_bars(False):
    import datasets.utils.logging as datasets_logging
    import huggingface_hub.utils as hub_utils
    assert not datasets_logging.is_progress_bar_enabled() and hub_utils.are_progress_bars_disabled()
with progress_bars(True):
    assert datasets_logging.is_progress_bar_enabled() and not hub_utils.are_progress_bars_disabled()
print("ok")
"""
    env = {k: v for k, v in os.environ.items() if not k.endswith("_DISABLE_PROGRESS_BARS") and k != "TQDM_DISABLE"}
    process = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert process.stdout.strip() == "ok", process.stderr[-2000:]
