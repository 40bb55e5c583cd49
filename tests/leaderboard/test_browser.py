"""The leaderboard in a real browser: headless Chromium (Debian's `chromium` package) renders the generated pages.

``--dump-dom`` prints the DOM after the page's scripts ran, so the checks see what a reader sees: the tables
filled, the chart drawn, and the overview sorted by a click on a header (the page's test hook ``#sort=N`` clicks
the N-th header once loaded; ``#filter=TEXT`` types into the keyword filter). Screenshots are saved next to the
site (and copied to ``$GENBENCH_SCREENSHOT_DIR`` when set, e.g. to refresh the one in the docs).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from genbench.leaderboard import build_leaderboard

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


def test_overview_renders_and_sorts_by_a_click(site: Path) -> None:
    index = (site / "index.html").as_uri()
    unsorted = RenderedTable(chromium("--dump-dom", index), "gb-overview")
    assert unsorted.ready  # the inlined script ran from file://
    assert len(unsorted.rows) == 3 and all(len(row) == 3 for row in unsorted.rows)
    # column 2 is category_membership (tasks sorted by id): sort it by clicking its header
    by_click = RenderedTable(chromium("--dump-dom", index + "#sort=2"), "gb-overview")
    assert by_click.header_sort[2] == "descending"
    values = [row[2][0] for row in by_click.rows]
    numbers = [float(v) for v in values if v]
    assert len(numbers) == 2 and numbers == sorted(numbers, reverse=True) and values[-1] == ""  # missing last
    twice = RenderedTable(chromium("--dump-dom", index + "#sort=2&sort=2"), "gb-overview")
    assert twice.header_sort[2] == "ascending"
    assert [float(row[2][0]) for row in twice.rows if row[2][0]] == sorted(numbers)
    by_model = RenderedTable(chromium("--dump-dom", index + "#sort=0"), "gb-overview")
    models = [row[0][0] for row in by_model.rows]
    assert models == sorted(models, key=str.lower)


def test_keyword_filter_hides_other_tasks(site: Path) -> None:
    # "lexical semantics" is a keyword of category_membership only
    dom = chromium("--dump-dom", (site / "index.html").as_uri() + "#filter=lexical semantics")
    table = RenderedTable(dom, "gb-overview")
    hidden = ["gb-hidden" in classes for classes in table.header_classes]
    assert hidden == [False, True, False]  # Model, arithmetic_length (hidden), category_membership
    assert all("gb-hidden" in row[1][1] and "gb-hidden" not in row[2][1] for row in table.rows)


def test_task_page_draws_the_chart_and_fills_the_table(site: Path, tmp_path: Path) -> None:
    page = (site / "tasks" / "category_membership.html").as_uri()
    table = RenderedTable(chromium("--dump-dom", page), "gb-task-metrics")
    assert table.ready and table.points == 5 and len(table.rows) == 5
    assert all(row[3][0] for row in table.rows)  # every setting has its primary metric
    screenshots = {"leaderboard_overview.png": (site / "index.html").as_uri(), "leaderboard_task.png": page}
    for name, url in screenshots.items():
        chromium(f"--screenshot={tmp_path / name}", "--window-size=1100,900", "--hide-scrollbars", url)
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        if os.environ.get("GENBENCH_SCREENSHOT_DIR"):
            shutil.copy(tmp_path / name, Path(os.environ["GENBENCH_SCREENSHOT_DIR"]) / name)
