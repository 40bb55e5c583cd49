"""The install sizes in docs/getting_started.md are the last measured, of the installs pyproject.toml declares now.

``python benchmarks/install_size.py`` measures fresh venvs (minutes: not in the test suite) and writes
``benchmarks/results/install_size.json`` and the page's table; these tests fail when the page, the measurement and
the declared dependencies and extras drift apart, and say what to rerun.
"""

from __future__ import annotations

import json
from pathlib import Path

import tomllib

from tests.benchmark_modules import benchmark_module

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
RERUN = "rerun `python benchmarks/install_size.py` (or `--installs core,floor` for the core's figures)"


def _load_benchmark():
    return benchmark_module("install_size")


def _measured() -> dict:
    return json.loads((BENCHMARKS / "results" / "install_size.json").read_text(encoding="utf-8"))


def test_the_page_shows_the_measured_sizes():
    bench = _load_benchmark()
    page = (ROOT / "docs" / "getting_started.md").read_text(encoding="utf-8")
    shown = page.split(bench.BEGIN, 1)[1].split(bench.END, 1)[0].strip()
    assert shown == bench.render(_measured()).strip(), "docs/getting_started.md: `--render-only` rewrites the table"


def test_every_user_extra_is_measured():
    bench = _load_benchmark()
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    tooling = {"test", "lint", "docs", "dev"}
    assert set(bench.EXTRAS) == set(extras) - tooling, f"a new extra needs its size measured: {RERUN}"
    assert set(bench.EXTRAS) <= set(_measured()["installs"]), RERUN


def test_the_core_was_measured_with_todays_dependencies():
    bench = _load_benchmark()
    measured = _measured()
    assert measured["core_dependencies"] == bench.core_requirements(), f"the core's dependencies changed: {RERUN}"
    assert measured["installs"]["floor"]["requirements"] == bench.floor_requirements(), RERUN


def test_the_core_install_holds_no_torch_and_the_extras_do():
    installs = _measured()["installs"]
    for heavy in ("torch", "transformers", "sentence-transformers"):
        assert heavy not in installs["core"]["distributions_mib"]
    assert "torch" in installs["hf"]["distributions_mib"] and "transformers" in installs["hf"]["distributions_mib"]
    assert "sentence-transformers" in installs["rerank"]["distributions_mib"]
    # The floor is what it says: none of the libraries it leaves out came back through another dependency.
    floor = installs["floor"]["distributions_mib"]
    assert not set(_load_benchmark().FLOOR_LEAVES_OUT) & set(floor)
    assert installs["floor"]["mib"] < installs["core"]["mib"]


def test_render_names_each_install_and_the_anchor():
    bench = _load_benchmark()
    measured = _measured()
    table = bench.render(measured)
    assert f"{measured['installs']['core']['mib']:,.0f} MiB" in table
    for extra in bench.EXTRAS:
        assert f"`genbench[{extra}]`" in table
    without_anchor = {**measured, "installs": {k: v for k, v in measured["installs"].items() if k != "original"}}
    assert "original GenBench" in table and "original GenBench" not in bench.render(without_anchor)
