"""What `genbench-cli run` prints while it works: one bar per (task, shots, phase), nothing twice, no stuck bar
before a fallback, `--no-progress` silences every library, one summary line per task and shots at the end."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from genbench._core.progress import LineProgress, progress_bars
from genbench.cli import cli
from genbench.runs._execute import Requester
from genbench.runs.model_runner import ModelRunner, RequestUnsupported
from genbench.runs.specs import parse_model_spec
from tests.source_imports import importers

OFFLINE = {"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
TASKS = "category_membership,ner_unseen_entities,passage_reranking_shift"


def _run(tiny_gpt2: Path, tmp_path: Path, *options: str) -> Any:
    args = [
        "run", "--model", f"hf:{tiny_gpt2}", "--model-args", "dtype=float32", "--task", TASKS, "--shots", "0,1",
        "--limit", "3", "--max-new-tokens", "4", "--bootstrap-resamples", "20", "-o", str(tmp_path / "out"),
        "--cache-dir", str(tmp_path / "cache"), *options,
    ]  # fmt: skip
    result = CliRunner().invoke(cli, args, env=OFFLINE)
    assert result.exit_code == 0, result.output
    return result


def test_each_phase_prints_one_named_line_and_each_task_one_summary(tiny_gpt2: Path, tmp_path: Path) -> None:
    result = _run(tiny_gpt2, tmp_path)
    progress = [line for line in result.stderr.splitlines() if line.strip()]
    assert [re.sub(r" in [0-9.]+ s$", "", line) for line in progress] == [
        "category_membership 0-shot loglikelihood: 12/12",
        "category_membership 1-shot loglikelihood: 12/12",
        "ner_unseen_entities 0-shot generate: 3/3",
        "ner_unseen_entities 1-shot generate: 3/3",
        # hf: has no pair scores: the reranking falls back to log-likelihoods, leaving no "score_pairs: 0/N" line
        "passage_reranking_shift unprompted loglikelihood: 14/14",
    ]
    summary = [line for line in result.stdout.splitlines() if not line.startswith("Wrote ")]
    assert len(summary) == 5
    assert summary[0].startswith("category_membership (0-shot, 3 examples): hf_accuracy__accuracy = ")
    assert all(line.endswith("answers from the cache") for line in summary)
    assert summary[0].endswith(" s, 0/12 answers from the cache")
    # docs/running_models.md shows these lines: its example must have their shape (the settings folder included)
    page = (Path(__file__).resolve().parents[2] / "docs" / "running_models.md").read_text(encoding="utf-8")
    shown = re.search(r"```text\n(category_membership \(0-shot, .*?)\n(Wrote .*?)\n```", page)
    assert shown is not None
    written = [line for line in result.stdout.splitlines() if line.startswith("Wrote ")][0]
    shape = re.compile(r"Wrote \S+/[^/]+-[0-9a-f]{8}/seed-\d+\.shots-[0-9-]+(\.\S+)?/[a-z_]+\.json")
    assert shape.fullmatch(written) and shape.fullmatch(shown.group(2)), (written, shown.group(2))
    summary_shape = re.compile(r"[a-z_]+ \(\d+-shot, \d+ examples\): \S+ = [0-9.]+ \[[0-9.]+, [0-9.]+\], [0-9.]+ s, "
                               r"\d+/\d+ answers from the cache")  # fmt: skip
    assert summary_shape.fullmatch(summary[0]) and summary_shape.fullmatch(shown.group(1))

    again = _run(tiny_gpt2, tmp_path)  # everything from the request cache now
    assert [line for line in again.stdout.splitlines() if "answers from the cache" in line][0].endswith(
        "12/12 answers from the cache"
    )


def test_no_progress_silences_genbench_and_every_library(tiny_gpt2: Path, tmp_path: Path) -> None:
    result = _run(tiny_gpt2, tmp_path, "--no-progress")
    # transformers' "Loading weights" and datasets' "Formatting ... examples" bars included
    assert result.stderr == ""


def test_library_bars_are_switched_off_and_restored() -> None:
    import datasets
    import huggingface_hub.utils
    import transformers.utils.logging

    with progress_bars(True):  # whatever tests before this one left (a CLI run on a pipe switches them off)
        with progress_bars(False):
            assert not datasets.utils.logging.is_progress_bar_enabled()
            assert huggingface_hub.utils.are_progress_bars_disabled()
            assert not transformers.utils.logging.is_progress_bar_enabled()
        assert datasets.utils.logging.is_progress_bar_enabled()
        assert not huggingface_hub.utils.are_progress_bars_disabled()
        assert transformers.utils.logging.is_progress_bar_enabled()


class _NoPairScores(ModelRunner):
    def score_pairs(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        raise RequestUnsupported("no pair scores")


def test_a_phase_that_gives_way_to_a_fallback_leaves_no_bar() -> None:
    bars: list[Any] = []

    def factory(desc: str, total: int) -> Any:
        bars.append(LineProgress(desc, total))
        return bars[-1]

    requester = Requester(_NoPairScores(parse_model_spec("python:m:f")), None, progress=factory, label="t 0-shot")
    with pytest.raises(RequestUnsupported):
        requester.score_pairs([("q", "d")])
    assert [bar.desc for bar in bars] == ["t 0-shot score_pairs"]
    assert bars[0].leave is False  # closed without its line


def test_line_progress_prints_once(capsys: pytest.CaptureFixture[str]) -> None:
    bar = LineProgress("x 0-shot generate", 2)
    bar.update(2)
    bar.close()
    bar.close()
    assert re.fullmatch(r"x 0-shot generate: 2/2 in [0-9.]+ s\n", capsys.readouterr().err)


def test_output_is_interactive_on_a_kernel_stream_not_because_ipykernel_was_imported(monkeypatch) -> None:
    import io
    import sys
    import types

    from genbench._core.progress import interactive_output

    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))  # as after a notebook test
    assert not interactive_output(io.StringIO())
    kernel_stream = type("OutStream", (io.StringIO,), {"__module__": "ipykernel.iostream"})()
    assert interactive_output(kernel_stream)


def test_every_progress_bar_goes_through_the_one_layer() -> None:
    """tqdm is imported by genbench._core.progress alone: every bar obeys its switch (genbench-cli --progress)."""
    assert {place.partition(":")[0] for place in importers({"tqdm"})} == {"_core/progress.py"}


@pytest.mark.parametrize("setting", [True, False, None])
def test_the_switch_decides_genbenchs_bars_and_is_restored(setting, capsys: pytest.CaptureFixture[str]) -> None:
    from genbench._core.progress import progress_bar, progress_iter, progress_setting

    with progress_bars(setting):
        assert progress_setting() is setting
        assert list(progress_iter(range(3), desc="counting")) == [0, 1, 2]
        bar = progress_bar(desc="explicit", total=2)
        bar.update(2)
        bar.close()
    assert progress_setting() is None
    err = capsys.readouterr().err  # captured: not a terminal, so None draws nothing here
    assert ("counting" in err and "explicit" in err) is (setting is True)
    assert (err == "") is (setting is not True)


def test_a_bar_asked_not_to_draw_stays_off_even_when_the_switch_is_on(capsys: pytest.CaptureFixture[str]) -> None:
    from genbench._core.progress import progress_iter

    with progress_bars(True):
        assert list(progress_iter([1], desc="off", enabled=False)) == [1]
    assert capsys.readouterr().err == ""
