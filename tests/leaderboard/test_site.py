"""`genbench-cli leaderboard`: the static site built from real results files."""

from __future__ import annotations

import json
import re
import shutil
from html import unescape as html_unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench._leaderboard import LeaderboardError, build_leaderboard, collect
from genbench.cli import cli
from genbench.runs._results import read_results


class Page(HTMLParser):
    """The links, resources, table cells and SVG points of a generated page."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.links: list[str] = []
        self.resources: list[str] = []
        self.points = 0
        self.cells: list[str] = []
        self._cell: list[str] | None = None
        self.feed(path.read_text(encoding="utf-8"))

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attributes = dict(attrs)
        if tag == "a":
            self.links.append(attributes["href"])
        if tag in ("link", "img", "iframe") or (tag == "script" and "src" in attributes):
            self.resources.append(tag)
        if tag == "circle" and attributes.get("class") == "gb-point":
            self.points += 1
        if tag == "td":
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._cell is not None:
            self.cells.append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


@pytest.fixture(scope="module")
def site(results_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    site_dir = tmp_path_factory.mktemp("site")
    result = CliRunner().invoke(
        cli, ["leaderboard", str(results_root / "demo"), str(results_root / "runs"), "-o", str(site_dir)]
    )
    assert result.exit_code == 0, result.output
    assert "3 model(s) x 2 task(s) (3 result(s), 0 model(s) ranked)" in result.output  # no model covers both
    assert "Skipped 2 JSON file(s)" in result.output  # the demo's own summary files are not results files
    return site_dir


def results_files(results_root: Path) -> list[Path]:
    return sorted(p for p in results_root.rglob("*.json") if "schema_version" in json.loads(p.read_text()))


def test_site_is_self_contained_and_its_links_resolve(site: Path) -> None:
    pages = sorted(site.rglob("*.html"))
    assert [p.relative_to(site).as_posix() for p in pages] == [
        "index.html",
        *[f"models/{p.name}" for p in sorted((site / "models").iterdir())],
        "tasks/arithmetic_length.html",
        "tasks/category_membership.html",
    ]
    assert len(list((site / "models").iterdir())) == 3
    for page_path in pages:
        page = Page(page_path)
        assert page.resources == [], page_path  # nothing fetched: works from file:// with no network
        for link in page.links:
            assert not re.match(r"[a-z]+:", link), link
            assert (page_path.parent / link).resolve().is_file(), f"{page_path}: broken link {link}"


def test_overview_shows_each_primary_metric_with_its_interval(site: Path, results_root: Path) -> None:
    cells = Page(site / "index.html").cells
    for path in results_files(results_root):
        document, _ = read_results(path, with_samples=False)
        zero_shot = next(e for e in document["evaluations"] if e["shots"] == 0)
        metric = zero_shot["metrics"][zero_shot["primary_metric"]]
        shown = f"{metric['value']:.3f}[{metric['ci'][0]:.3f}, {metric['ci'][1]:.3f}]"  # value, interval below
        assert shown in cells, (path, shown)
    html = (site / "index.html").read_text()
    assert 'id="gb-filter"' in html and 'class="sortable"' in html and "sample_task" in html


def test_task_page_has_metrics_per_model_and_shots_chart_and_card(site: Path, results_root: Path) -> None:
    page_path = site / "tasks" / "category_membership.html"
    page = Page(page_path)
    # demo baseline: 0 and 1 shots; python predictor: 0, 1 and 2 shots -> five points, each with an error bar
    assert page.points == 5
    html = page_path.read_text()
    assert html.count('class="gb-errorbar"') == 5
    assert sum(1 for cell in page.cells if cell in ("0-shot", "1-shot", "2-shot")) == 5
    assert "Category Membership (Unseen Categories)" in html and "gb-card" in html and "Keywords" in html
    assert "differs from the one of these results" not in html  # the registry's config is the results' one


def test_model_page_lists_its_results(site: Path) -> None:
    (model_page,) = [p for p in (site / "models").iterdir() if p.name.startswith("python_")]
    cells = Page(model_page).cells
    assert cells.count("category_membership") == 3 and "arithmetic_length" not in cells
    assert "Accuracy" in cells  # the metric's human name, its raw key on hover
    assert 'title="hf_accuracy__accuracy"' in model_page.read_text()


def test_mixed_fingerprints_of_one_task_are_refused_naming_the_files(results_root: Path, tmp_path: Path) -> None:
    shutil.copytree(results_root / "runs", tmp_path / "runs")
    (changed,) = (tmp_path / "runs").rglob("category_membership.json")
    document = json.loads(changed.read_text())
    document["task"]["fingerprint"]["sha256"] = "0" * 64
    changed.write_text(json.dumps(document))
    with pytest.raises(LeaderboardError) as error:
        collect([results_root / "demo", tmp_path / "runs"], on_stale="fail")
    message = str(error.value)
    assert "'category_membership' has 2 fingerprints" in message and str(changed) in message
    (demo_file,) = (results_root / "demo" / "results").rglob("category_membership.json")
    assert str(demo_file) in message
    result = CliRunner().invoke(
        cli, ["leaderboard", str(results_root / "demo"), str(tmp_path / "runs"), "-o", "x", "--on-stale", "fail"]
    )
    assert result.exit_code == 1 and result.output.startswith("Error: Results made from different versions")
    assert "--on-stale skip or latest" in result.output


def test_no_results_and_missing_directory_are_errors(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(LeaderboardError, match="No results files under"):
        build_leaderboard([tmp_path / "empty"], tmp_path / "site")
    result = CliRunner().invoke(cli, ["leaderboard", str(tmp_path / "nope"), "-o", str(tmp_path / "site")])
    assert result.exit_code == 1 and "no such results directory" in result.output


def test_later_results_of_a_model_replace_its_earlier_settings(results_root: Path, tmp_path: Path) -> None:
    shutil.copytree(results_root / "runs", tmp_path / "runs")
    (path,) = (tmp_path / "runs").rglob("category_membership.json")
    document = json.loads(path.read_text())
    document["created"] = "2999-01-01T00:00:00+00:00"
    document["evaluations"] = document["evaluations"][:1]
    document["evaluations"][0]["metrics"]["hf_accuracy__accuracy"]["value"] = 0.123
    (path.parent / "newer.json").write_text(json.dumps(document))
    board = collect([tmp_path / "runs"])
    (cell,) = board.cells.values()
    assert sorted(cell.evaluations) == [0, 1, 2]
    assert cell.evaluations[0]["metrics"]["hf_accuracy__accuracy"]["value"] == 0.123


def test_models_sharing_a_spec_get_unique_labels_naming_what_differs(results_root: Path, tmp_path: Path) -> None:
    shutil.copytree(results_root / "runs", tmp_path / "runs")
    (path,) = (tmp_path / "runs").rglob("category_membership.json")
    document = json.loads(path.read_text())
    spec = document["model"]["spec"]
    variants = {"warm": ({"temperature": "0.7"}, "rev-b"), "cold": ({"temperature": "0"}, "rev-b")}
    for name, (args, revision) in variants.items():
        document["model"]["args"], document["model"]["revision"] = args, revision
        (path.parent / f"{name}.json").write_text(json.dumps(document))
    board = collect([tmp_path / "runs"])
    labels = sorted(model.label for model in board.models.values())
    original_revision = json.loads(path.read_text())["model"]["revision"] or "unknown"  # the run had no arguments
    assert labels == sorted(
        [
            f"{spec} (revision {original_revision}, temperature unset)",
            f"{spec} (revision rev-b, temperature=0)",
            f"{spec} (revision rev-b, temperature=0.7)",
        ]
    )
    site = build_leaderboard([tmp_path / "runs"], tmp_path / "site")
    ranking = site.index.read_text().split('id="gb-ranking"')[1].split("</table>")[0]
    rows = re.findall(r'<a class="gb-name" href="models/[^"]+" title="([^"]+)">', ranking)
    assert sorted(html_unescape(row) for row in rows) == labels  # one row per model, each told apart from the others
    task_page = (tmp_path / "site" / "tasks" / "category_membership.html").read_text()
    assert all(task_page.count(f">{label}</a>") == 3 for label in labels)  # 0, 1 and 2 shots of each model
    assert Page(tmp_path / "site" / "tasks" / "category_membership.html").points == 9  # three series, not one
    # A model alone with its spec keeps the spec as its label.
    assert [m.label for m in collect([results_root / "runs"]).models.values()] == [spec]


def test_text_from_results_files_is_escaped(results_root: Path, tmp_path: Path) -> None:
    shutil.copytree(results_root / "runs", tmp_path / "runs")
    (path,) = (tmp_path / "runs").rglob("category_membership.json")
    document = json.loads(path.read_text())
    document["model"]["spec"] = "python:<script>alert(1)</script>"
    document["model"]["description"] = '"><img src=x onerror=alert(2)>'
    path.write_text(json.dumps(document))
    site = build_leaderboard([tmp_path / "runs"], tmp_path / "site")
    for page_path in [site.index, *site.model_pages, *site.task_pages]:
        html = page_path.read_text()
        assert "<script>alert" not in html and "<img" not in html, page_path
        assert Page(page_path).resources == []
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in site.index.read_text()
    # The filter's ranking data carries the label inert (JSON escapes), and the same label back when parsed.
    data = re.search(r'<script type="application/json" id="gb-ranking-data">(.*?)</script>', site.index.read_text())
    assert data is not None and "<" not in data.group(1)
    assert [m["label"] for m in json.loads(data.group(1))["models"]] == ["python:<script>alert(1)</script>"]
