"""What the pages call things: the taxonomy's labels (never raw value ids), model names that keep what tells two
models apart, a task's own metrics first, and no Python advice on a static page."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from genbench import load_task
from genbench._core.taxonomy import suggest_from_keywords
from genbench._leaderboard import build_leaderboard
from genbench.runs._results import read_results
from genbench.task._task_dict import TaskDict
from tests.leaderboard.fixtures import rewrite, write_document
from tests.shipped_tasks import shipped_task_ids


class VisibleText(HTMLParser):
    """The text a reader sees (not attributes, not scripts or styles)."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        self.hidden += tag in ("script", "style", "title")

    def handle_endtag(self, tag: str) -> None:
        self.hidden -= tag in ("script", "style", "title")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)

    @property
    def text(self) -> str:
        return " ".join(self.parts)


def test_the_overview_names_taxonomy_values_by_their_labels(tmp_path: Path) -> None:
    taxonomy = {"generalisation_type": ["across_domain"], "shift_source": ["fully_generated_data"]}
    write_document(tmp_path / "r" / "t.json", "t_domain", "hf:m", [1.0, 0.0], taxonomy=taxonomy)
    site = build_leaderboard([tmp_path / "r"], tmp_path / "site")
    html = site.index.read_text()
    text = VisibleText(html).text
    assert "across_domain" not in text and "fully_generated_data" not in text
    assert '<span class="gb-tag">Across domains</span>' in html  # the task's tag, as on its card
    assert ">Across domains<br>" in html and ">Fully generated data<br>" in html  # the axis tables' headers
    assert 'data-tasks="t_domain"' in html and "across_domain" in html  # ids stay in the data the script uses


def test_model_columns_keep_what_tells_the_models_apart(tmp_path: Path) -> None:
    specs = ["hf:/models/organisation/tiny-gpt2-seed-a", "hf:/models/organisation/tiny-gpt2-seed-b"]
    for spec in specs:
        write_document(tmp_path / "r" / spec[-1] / "t.json", "t", spec, [1.0, 0.0])
    html = build_leaderboard([tmp_path / "r"], tmp_path / "site").index.read_text()
    headers = re.findall(r'<th class="sortable gb-model-col" data-type="number" title="([^"]+)"><span class="gb-name">'
                         r"([^<]+)</span>", html)  # fmt: skip
    assert headers == [(specs[0], "…/tiny-gpt2-seed-a"), (specs[1], "…/tiny-gpt2-seed-b")]


def test_a_task_page_shows_the_headline_then_the_metrics_the_task_declares(tmp_path: Path) -> None:
    """negation_consistency declares its negation_gap__* metrics (the point of the task): their columns come right
    after the headline, not after every subtask's metrics."""
    gap = "negation_gap__hf_accuracy__accuracy"
    path = write_document(tmp_path / "r" / "neg.json", "neg", "hf:m", [1.0, 0.0], metric_directions={
        "negation_gap__*": "zero"}, primary_metric="hf_accuracy__accuracy")  # fmt: skip
    document = read_results(path, with_samples=False)[0]
    metrics = document["evaluations"][0]["metrics"]
    for key, value in [("affirmative.hf_accuracy__accuracy", 0.75), ("negated.hf_accuracy__accuracy", 0.25)]:
        metrics[key] = {"value": value, "ci": None, "ci_method": None}
    metrics[gap] = {"value": 0.5, "ci": None, "ci_method": None}
    rewrite(path, document)
    build_leaderboard([tmp_path / "r"], tmp_path / "site")
    page = (tmp_path / "site" / "tasks" / "neg.html").read_text()
    columns = re.findall(r'<th class="sortable" data-type="number" title="([^:"]+):', page)
    subtasks = ["affirmative.hf_accuracy__accuracy", "negated.hf_accuracy__accuracy"]
    assert columns == ["hf_accuracy__accuracy", gap, *subtasks]


def test_task_pages_give_no_python_advice(results_root: Path, tmp_path: Path) -> None:
    site = build_leaderboard([results_root / "demo"], tmp_path / "site")
    for page in site.task_pages:
        html = page.read_text()
        assert "gb-card" in html and "Splits" in html, page
        assert "get_datasets_raw" not in html and "task_card_html" not in html and "load_data" not in html, page
    assert "not loaded to draw this card" in (tmp_path / "site" / "tasks" / "category_membership.html").read_text()


@pytest.mark.parametrize("task_id", shipped_task_ids())
def test_shipped_tasks_keywords_agree_with_their_taxonomy(task_id: str) -> None:
    """A keyword that names a taxonomy value ("generated shift") names the one the task declares (not
    "Fully generated data"'s neighbour): the card and the leaderboard's filter show both."""
    task = load_task(task_id)
    parent = task.config.taxonomy
    for part in [task, *(task.values() if isinstance(task, TaskDict) else [])]:  # a subtask has keywords too
        taxonomy = part.config.taxonomy or parent
        declared = taxonomy.model_dump() if taxonomy is not None else {}
        for suggestion in suggest_from_keywords(part.keywords):
            values = declared.get(suggestion.field)
            values = values if isinstance(values, list) else [values]
            assert suggestion.value in values, (part.task_id, suggestion.keyword, suggestion.field, values)
