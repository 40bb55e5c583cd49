"""The leaderboard in a real browser: headless Chromium (Debian's `chromium` package) renders the generated pages.

The ranked overview is driven through Playwright (``browser.py``) at 1400x900: real mouse clicks on a header
(sorting) and on a taxonomy axis button, real typing into the filter, and layout measurements (no horizontal
scroll; the ranking and the per-axis view wholly on the first screen). Task pages are checked with ``--dump-dom``
(the DOM after the page's scripts ran: the table filled, the chart drawn). Screenshots are saved next to the site
(and copied to ``$GENBENCH_SCREENSHOT_DIR`` when set).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from genbench._leaderboard import build_leaderboard
from tests.leaderboard.browser import Browser

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser() -> str | None:
    return next((path for name in BROWSERS if (path := shutil.which(name))), None)


BROWSER = find_browser()
pytestmark = pytest.mark.skipif(
    BROWSER is None,
    reason="no headless Chromium found (looked for " + ", ".join(BROWSERS) + " on PATH): install Debian's "
    "`chromium` package (`apt-get install -y chromium`; .ci/run does it) to run the browser test",
)


def chromium(*args: str) -> str:
    assert BROWSER is not None
    command = [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


class RenderedTable(HTMLParser):
    """Rows of the table with a given id, each cell's data-sort and class, and the page's SVG points."""

    def __init__(self, dom: str, table_id: str) -> None:
        super().__init__()
        self.table_id, self.inside, self.depth = table_id, False, 0
        self.rows: list[list[tuple[str | None, str]]] = []
        self.header_sort: list[str | None] = []
        self.header_classes: list[str] = []
        self.points = 0
        self.ready = False
        self.feed(dom)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        attributes = dict(attrs)
        if tag == "body":
            self.ready = attributes.get("data-ready") == "1"
        if tag == "circle" and attributes.get("class") == "gb-point":
            self.points += 1
        if tag == "table" and attributes.get("id") == self.table_id:
            self.inside = True
        if not self.inside:
            return
        if tag == "th":
            self.header_sort.append(attributes.get("aria-sort"))
            self.header_classes.append(attributes.get("class") or "")
        if tag == "tr" and self.header_sort:
            self.rows.append([])
        if tag == "td":
            self.rows[-1].append((attributes.get("data-sort"), attributes.get("class") or ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.inside = False


@pytest.fixture(scope="module")
def site(results_root: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    site_dir = tmp_path_factory.mktemp("browser_site")
    build_leaderboard([results_root / "demo", results_root / "runs"], site_dir)
    return site_dir


def test_task_page_draws_the_chart_and_fills_the_table(site: Path, tmp_path: Path) -> None:
    page = (site / "tasks" / "category_membership.html").as_uri()
    table = RenderedTable(chromium("--dump-dom", page), "gb-task-metrics")
    assert table.ready and table.points == 5 and len(table.rows) == 5
    assert all(row[3][0] for row in table.rows)  # every setting has its primary metric
    screenshots = {"leaderboard_task.png": page}
    for name, url in screenshots.items():
        chromium(f"--screenshot={tmp_path / name}", "--window-size=1400,900", "--hide-scrollbars", url)
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        if os.environ.get("GENBENCH_SCREENSHOT_DIR"):
            shutil.copy(tmp_path / name, Path(os.environ["GENBENCH_SCREENSHOT_DIR"]) / name)


# The ranked overview, driven with real input events through Playwright (tests/leaderboard/browser.py).

LONG_NAME = "hf:/models/organisation/a-rather-long-model-name-for-layout-checks/checkpoint-final"
TAXONOMY = {
    "t_arith": {"motivation": ["intrinsic"], "generalisation_type": ["compositional"], "shift_locus": ["train-test"]},
    "t_cat": {"motivation": ["cognitive"], "generalisation_type": ["compositional"], "shift_locus": ["train-test"]},
    "t_neg": {"motivation": ["intrinsic"], "generalisation_type": ["robustness"], "shift_locus": ["pretrain-test"]},
    "t_ner": {"motivation": ["practical"], "generalisation_type": ["cross-domain"], "shift_locus": ["pretrain-test"]},
    "t_rerank": {"motivation": ["practical"], "generalisation_type": ["cross-domain"], "shift_locus": ["train-test"]},
    "t_lang": {"motivation": ["practical"], "generalisation_type": ["cross-language"], "shift_locus": ["train-test"]},
    "t_fair": {"motivation": ["fairness"], "generalisation_type": ["fairness"], "shift_locus": ["pretrain-train"]},
}


@pytest.fixture(scope="module")
def ranked_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Seven tasks with a taxonomy; two complete models (one with two seeds), a partial one, two baselines."""
    from tests.leaderboard.fixtures import write_document

    root = tmp_path_factory.mktemp("ranked")
    rng = __import__("numpy").random.default_rng(3)
    models = {LONG_NAME: (0.6, [1, 2]), "hf:gpt2": (0.45, [42]), "hf:partial-model": (0.8, [42])}
    for number, (task, taxonomy) in enumerate(TAXONOMY.items()):
        for spec, (skill, seeds) in models.items():
            if spec == "hf:partial-model" and number >= 3:
                continue
            for seed in seeds:
                scores = (rng.random(40) < skill).astype(float).tolist()
                write_document(root / "results" / f"{spec[-12:]}-{seed}" / f"{task}.json", task, spec, scores,
                               seed=seed, taxonomy=taxonomy)  # fmt: skip
        if number < 3:
            write_document(root / "results" / "majority" / f"{task}.json", task, "baseline:majority_option",
                           [1.0, 0.0] * 10, taxonomy=taxonomy)  # fmt: skip
    write_document(root / "results" / "frequent" / "t_ner.json", "t_ner", "baseline:most_frequent_target",
                   [0.0, 0.0, 1.0] * 10, taxonomy=TAXONOMY["t_ner"])  # fmt: skip
    build_leaderboard([root / "results"], root / "site")
    return root / "site"


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert BROWSER is not None
    opened = Browser(BROWSER, 1400, 900)
    try:
        yield opened
    finally:
        opened.close()


def visible_rows(browser: Browser, table: str) -> list[list[str]]:
    """The data-sort values of the visible rows of the first body of ``table``."""
    return browser.evaluate(
        f"Array.from(document.querySelector({json.dumps(table)}).tBodies[0].rows)"
        ".filter(r => r.offsetParent !== null)"
        ".map(r => Array.from(r.cells).map(c => c.getAttribute('data-sort')))"
    )


def test_first_screen_shows_ranking_and_axes_without_horizontal_scroll(
    ranked_site: Path, browser: Browser, tmp_path: Path
) -> None:
    browser.open((ranked_site / "index.html").as_uri())
    assert browser.evaluate("document.documentElement.scrollWidth") <= browser.evaluate("window.innerWidth") == 1400
    for selector in ("#gb-ranking", "table.gb-axis-table:not(.gb-hidden)"):
        box = browser.evaluate(
            f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
            " return [r.left, r.top, r.right, r.bottom]; })()"
        )
        assert box[0] >= 0 and box[2] <= 1400 and box[3] <= 900, (selector, box)  # wholly on the first screen
    ranks = [row[0] for row in visible_rows(browser, "#gb-ranking")]
    assert ranks == ["1", "2", ""]  # the partial model, though best on its 3 tasks, is not ranked
    browser.screenshot(tmp_path / "leaderboard_ranked.png")
    assert (tmp_path / "leaderboard_ranked.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("GENBENCH_SCREENSHOT_DIR"):
        shutil.copy(tmp_path / "leaderboard_ranked.png", Path(os.environ["GENBENCH_SCREENSHOT_DIR"]))


def test_model_names_are_shown_whole_where_they_tell_models_apart(ranked_site: Path, browser: Browser) -> None:
    """The columns of the scores per task and the ranking's names show each model's distinguishing part in full
    (no ellipsis drawn by the browser), the full name on hover."""
    browser.open((ranked_site / "index.html").as_uri())
    names = browser.evaluate(
        "Array.from(document.querySelectorAll('#gb-tasks th.gb-model-col .gb-name, #gb-ranking .gb-name'))"
        ".map(e => [e.textContent, e.closest('[title]').title, e.scrollWidth <= e.clientWidth])"
    )
    assert [cut for _, _, cut in names] == [True] * len(names) and len(names) == 3 + 3 + 2
    shown = {title: text for text, title, _ in names if not title.startswith("baseline:")}
    assert len(set(shown.values())) == 3 and shown[LONG_NAME].endswith("checkpoint-final")


def test_a_click_sorts_the_ranking(ranked_site: Path, browser: Browser) -> None:
    browser.open((ranked_site / "index.html").as_uri())
    browser.click("#gb-ranking thead th:nth-child(3)")  # Mean score
    assert browser.evaluate("document.querySelector('#gb-ranking thead th:nth-child(3)').ariaSort") == "descending"
    means = [float(row[2]) for row in visible_rows(browser, "#gb-ranking")]
    assert means == sorted(means, reverse=True) and len(means) == 3
    assert visible_rows(browser, "#gb-ranking")[0][1] == "hf:partial-model"  # by mean only once asked to
    browser.click("#gb-ranking thead th:nth-child(3)")
    assert [float(row[2]) for row in visible_rows(browser, "#gb-ranking")] == sorted(means)
    baselines = browser.evaluate("document.querySelectorAll('#gb-ranking tbody.gb-baselines tr.gb-baseline').length")
    assert baselines == 2  # the baselines block stays one block, below


def test_taxonomy_axis_buttons_and_the_filter(ranked_site: Path, browser: Browser) -> None:
    browser.open((ranked_site / "index.html").as_uri())
    shown = "Array.from(document.querySelectorAll('table.gb-axis-table')).filter(t => t.offsetParent !== null)"
    assert browser.evaluate(f"{shown}.map(t => t.dataset.axis)") == ["motivation"]
    browser.click('button.gb-axis-button[data-axis="shift_locus"]')
    assert browser.evaluate(f"{shown}.map(t => t.dataset.axis)") == ["shift_locus"]
    headers = browser.evaluate(
        "Array.from(document.querySelectorAll('#gb-axis-shift_locus thead th')).map(th => th.firstChild.textContent)"
    )
    assert headers == ["Model", "Pretrain–test", "Pretrain–train", "Train–test"]  # the taxonomy's labels
    browser.click("#gb-filter")
    browser.type("robustness")
    assert [row[0] for row in visible_rows(browser, "#gb-tasks")] == ["t_neg"]
    browser.click("#gb-filter")
    browser.press("Backspace")
    assert len(visible_rows(browser, "#gb-tasks")) == 1  # "robustnes" still matches only t_neg
    browser.evaluate("document.getElementById('gb-filter').select()")
    browser.type("cross-domain")
    assert sorted(row[0] for row in visible_rows(browser, "#gb-tasks")) == ["t_ner", "t_rerank"]


def test_the_filter_ranks_the_models_again_over_the_tasks_shown(ranked_site: Path, browser: Browser) -> None:
    data = json.loads((ranked_site / "leaderboard.json").read_text())
    scores = {m["label"]: {t: s["value"] for t, s in m["tasks"].items()} for m in data["models"]}
    browser.open((ranked_site / "index.html").as_uri())
    before = visible_rows(browser, "#gb-ranking")
    assert [row[0] for row in before] == ["1", "2", ""] and before[2][1] == "hf:partial-model"
    browser.click("#gb-filter")
    browser.type("compositional")  # t_arith and t_cat: both covered by the partial model, the best on them
    assert sorted(row[0] for row in visible_rows(browser, "#gb-tasks")) == ["t_arith", "t_cat"]
    after = visible_rows(browser, "#gb-ranking")
    shown = ["t_arith", "t_cat"]
    expected = sorted(scores, key=lambda label: -sum(scores[label][t] for t in shown))
    assert [row[1] for row in after] == expected and expected[0] == "hf:partial-model"
    assert [row[0] for row in after] == ["1", "2", "3"]  # every model covers every task shown: all ranked
    for row in after:
        assert float(row[2]) == pytest.approx(sum(scores[row[1]][t] for t in shown) / 2)
        assert row[3] == "2"  # tasks covered
    interval = browser.evaluate("document.querySelector('#gb-ranking tbody tr .gb-ci').title")
    assert "over the tasks shown" in interval
    assert browser.evaluate("document.getElementById('gb-title').textContent") == (
        "Leaderboard: 3 ranked models over 2 of 7 tasks (filtered)"
    )
    # The per-axis means follow: motivation "intrinsic" (t_arith, t_neg) is now t_arith alone.
    intrinsic = browser.evaluate(
        "(() => { const t = document.getElementById('gb-axis-motivation');"
        " const i = Array.from(t.tHead.rows[0].cells).findIndex(c => c.firstChild.textContent === 'Intrinsic');"
        " return Array.from(t.tBodies[0].rows).map(r => [r.cells[0].dataset.sort, r.cells[i].dataset.sort,"
        " t.tHead.rows[0].cells[i].querySelector('small').textContent]); })()"
    )
    for label, value, count in intrinsic:
        assert count == "1 of 2 shown"
        if label in scores:
            assert float(value) == pytest.approx(scores[label]["t_arith"])
    hidden = (
        "Array.from(document.querySelectorAll('#gb-axis-motivation thead th.gb-hidden'))"
        ".map(th => th.firstChild.textContent)"
    )
    assert browser.evaluate(hidden) == ["fairness", "Practical"]  # values of no task shown ("fairness": not an id)
    # Baselines are not ranked, whatever the filter.
    assert browser.evaluate("Array.from(document.querySelectorAll('#gb-ranking tr.gb-baseline'))"
                            ".map(r => r.cells[0].dataset.sort)") == ["", ""]  # fmt: skip
    # An empty filter puts the page's own numbers back (the full bootstrap intervals).
    browser.evaluate("document.getElementById('gb-filter').select()")
    browser.press("Backspace")
    assert visible_rows(browser, "#gb-ranking") == before
    assert browser.evaluate("document.getElementById('gb-title').textContent").startswith("Leaderboard: 2 ranked")
    assert browser.evaluate(hidden) == []


def test_a_baselines_only_page_fits_and_its_filter_keeps_it_unranked(
    results_root: Path, browser: Browser, tmp_path: Path
) -> None:
    site = build_leaderboard([results_root / "demo"], tmp_path / "site")
    browser.open(site.index.as_uri())
    assert browser.evaluate("document.documentElement.scrollWidth") <= 1400
    rows = browser.evaluate("Array.from(document.querySelectorAll('#gb-ranking tr.gb-baseline')).length")
    assert rows == len(site.standings.baselines) >= 2
    browser.click("#gb-filter")
    browser.type("arithmetic")
    assert [row[0] for row in visible_rows(browser, "#gb-tasks")] == ["arithmetic_length"]
    assert browser.evaluate("document.getElementById('gb-title').textContent") == (
        "Baselines on 1 of 2 tasks (filtered; no model results yet)"
    )
    ranks = browser.evaluate("Array.from(document.querySelectorAll('#gb-ranking tr.gb-baseline td:first-child'))"
                             ".map(td => td.dataset.sort)")  # fmt: skip
    assert set(ranks) == {""}


def test_a_closer_to_zero_column_sorts_by_absolute_value(browser: Browser, tmp_path: Path) -> None:
    """A gap declared 'zero' sorts by |x| on its task page: clicking its header twice puts the gap nearest 0 first
    (a plain numeric sort would put -0.25 first, ranking a model better on negated examples above a consistent one)."""
    from tests.leaderboard.fixtures import write_document

    gap = "negation_gap__hf_accuracy__accuracy"
    for spec, value in [("hf:minus", -0.25), ("hf:zero", 0.0), ("hf:plus", 0.125), ("hf:far", 0.5)]:
        write_document(tmp_path / "results" / spec[3:] / "t_neg.json", "t_neg", spec, [value] * 8, metric=gap,
                       metric_directions={"negation_gap__*": "zero"})  # fmt: skip
    build_leaderboard([tmp_path / "results"], tmp_path / "site")
    browser.open((tmp_path / "site" / "tasks" / "t_neg.html").as_uri())
    header = "#gb-task-metrics thead th:nth-child(4)"
    assert "Negation gap in accuracy" in browser.evaluate(f"document.querySelector({json.dumps(header)}).textContent")

    def shown() -> list[str]:
        return browser.evaluate(
            "Array.from(document.querySelector('#gb-task-metrics').tBodies[0].rows)"
            ".map(r => r.cells[3].textContent.split(' ')[0])"
        )

    browser.click(header)  # numbers sort descending first: the largest |gap| first
    assert shown() == ["0.500", "-0.250", "0.125", "0.000"]
    browser.click(header)
    assert shown() == ["0.000", "0.125", "-0.250", "0.500"]
