"""The data cache keeps what it holds (issue 20): `data export -o` onto a cached file is refused, `data add` does not
cache an empty copy of an unpinned URL, a download without Content-Length is cached as unverified."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from click.testing import CliRunner

from genbench._core.errors import DataLoadError
from genbench._registry.data_bundle import export_bundle
from genbench.cli import cli
from genbench.data import fetch
from genbench.data._cache import EMPTY_SHA256, add_to_cache, cached_entry, cached_path
from tests.task_roots import registered_task_roots

from .test_data_cache import BODY, BODY_SHA256

URL = "https://example.org/data/test.jsonl"


def test_data_add_refuses_an_empty_copy_of_an_unpinned_url(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(DataLoadError, match="empty"):
        add_to_cache(URL, empty)
    assert cached_entry(URL) is None
    assert add_to_cache(URL, empty, sha256=EMPTY_SHA256).size == 0  # pinned as the empty file: an empty split


def test_export_onto_the_cached_file_is_refused_and_the_entry_survives(tmp_path: Path, genbench_cache: Path) -> None:
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(BODY)
    add_to_cache(URL, copy)
    task_dir = tmp_path / "tasks" / "remote_task"
    task_dir.mkdir(parents=True)
    (task_dir / "config.jsonnet").write_text(
        "{name: 'Remote', description: 'd', keywords: ['k'], authors: ['a'], task_type: 'free_form', "
        f"data_source: {{type: 'manual', test: '{URL}'}}, has_validation_set: false, has_train_set: false, "
        "evaluation_metrics: [{hf_id: 'exact_match', git_commit_sha: '0' , best_score: 1.0}], "
        "preparation_strategies: {prompt_based_testing: {prompt_builder: {}}}}"
    )
    (task_dir / "task.py").write_text("from genbench import Task\n\n\nclass TheTask(Task):\n    pass\n")
    with registered_task_roots(tmp_path / "tasks"):
        with pytest.raises(DataLoadError, match="inside the genbench cache"):
            export_bundle(["remote_task"], cached_path(URL))
        result = CliRunner().invoke(cli, ["data", "export", "remote_task", "-o", str(cached_path(URL))])
        assert result.exit_code == 1 and "inside the genbench cache" in result.output
        entry = cached_entry(URL)
        assert entry is not None and entry.path.read_bytes() == BODY
        export_bundle(["remote_task"], tmp_path / "ok.tar")  # elsewhere it works
    assert (tmp_path / "ok.tar").stat().st_size > 0


def test_a_download_without_length_is_unverified_and_downloaded_again_online(
    http_server, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The reproducer: a close-delimited body cut at a line boundary was cached as complete and served forever."""
    cut = BODY[: BODY.index(b"\n") + 1]
    url = http_server.serve("test.jsonl", cut)
    http_server.faults["/test.jsonl"] = "no-length"
    with caplog.at_level(logging.WARNING, logger="genbench.data._cache"):
        assert fetch(url, base_dir=tmp_path).read_bytes() == cut
    assert cached_entry(url).verified is False and "cached as unverified" in caplog.text

    http_server.serve("test.jsonl", BODY)  # the server is fixed: it sends the whole file with its length
    del http_server.faults["/test.jsonl"]
    assert fetch(url, base_dir=tmp_path).read_bytes() == BODY
    entry = cached_entry(url)
    assert entry.verified is True and entry.sha256 == BODY_SHA256
    requests = len(http_server.requests)
    fetch(url, base_dir=tmp_path)
    assert len(http_server.requests) == requests  # verified: served from the cache without a request


def test_an_unverified_copy_is_used_offline_with_a_warning(
    http_server, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = http_server.serve("test.jsonl", BODY)
    http_server.faults["/test.jsonl"] = "no-length"
    fetch(url, base_dir=tmp_path)
    http_server.stop()
    with caplog.at_level(logging.WARNING, logger="genbench.data._cache"):
        assert fetch(url, base_dir=tmp_path).read_bytes() == BODY
    assert "never verified complete" in caplog.text and f"data fetch --refresh {url}" in caplog.text


def test_a_pinned_download_without_length_is_verified_by_its_sha256(http_server, tmp_path: Path) -> None:
    url = http_server.serve("test.jsonl", BODY)
    http_server.faults["/test.jsonl"] = "no-length"
    fetch(url, base_dir=tmp_path, sha256=BODY_SHA256)
    assert cached_entry(url).verified is True
